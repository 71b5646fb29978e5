/**
 * One trace from the agent to the remote tool (issue 20), with the real
 * OpenTelemetry SDK: an agent run (a scripted model) that calls an imported
 * tool, a tool that fails and a served agent, in memory, over stdio (the
 * child's spans collected from a file) and over HTTP, in both protocol
 * eras. The parent links: `invoke_agent` → `chat` and `execute_tool` →
 * the server's `tools/call` (SERVER, parent from `params._meta`) → the
 * handler's own span, or the served agent's `invoke_agent` → its `chat`.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
} from "@opentelemetry/api";
import {
  Agent,
  Client,
  configureTracing,
  connectHttp,
  connectStdio,
  importTools,
  InMemoryTransport,
  subagent,
} from "../../mod.ts";
import { callTools, say, script, withUsage } from "../../testing.ts";
import { installSdk, type SpanRecord } from "./_otel.ts";
import { otelServer } from "./fixtures/otel_server.ts";

const FIXTURE = new URL("./fixtures/otel_server.ts", import.meta.url).pathname;
const CONFIG = new URL("./deno.json", import.meta.url).pathname;
const CHILD_ARGS = ["run", "-A", "--config", CONFIG, FIXTURE];

type Connected = { client: Client; close: () => Promise<void> };

/** Runs the planner agent against `client`: one step calling three tools, then an answer. */
async function runPlanner(client: Client): Promise<void> {
  const { tools } = await importTools(client);
  const model = script(
    withUsage(
      callTools(
        { name: "lookup", args: {} },
        { name: "fails", args: {} },
        { name: "helper", args: { prompt: "help" } },
      ),
      {
        inputTokens: 100,
        outputTokens: 20,
        cachedInputTokens: 60,
        cacheWriteTokens: 7,
        reasoningTokens: 12,
      },
    ),
    say("done"),
  );
  const agent = new Agent(model, { name: "planner", tools });
  const result = await agent.generate("plan", {
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(result.text, "done");
}

function one(spans: SpanRecord[], name: string, kind?: number): SpanRecord {
  const found = spans.filter((s) =>
    s.name === name && (kind === undefined || s.kind === kind)
  );
  assert.equal(
    found.length,
    1,
    `one span ${name}: ${JSON.stringify(spans.map((s) => s.name))}`,
  );
  return found[0];
}

/** The trace's shape, whatever the transport. */
function checkTrace(
  spans: SpanRecord[],
  facts: { transport?: string; version?: string },
): void {
  const run = one(spans, "invoke_agent planner");
  assert.equal(run.parentSpanId, undefined, "the run is the root");
  assert.equal(run.attributes["gen_ai.operation.name"], "invoke_agent");
  assert.equal(run.attributes["gen_ai.agent.name"], "planner");
  assert.ok(spans.every((s) => s.traceId === run.traceId), "one trace id");

  const chats = spans.filter((s) =>
    s.name === "chat script" && s.parentSpanId === run.spanId
  );
  assert.equal(chats.length, 2, "two model calls under the run");
  const first = chats.find((c) =>
    c.attributes["gen_ai.usage.input_tokens"] === 100
  );
  assert.ok(first !== undefined);
  assert.equal(first.kind, SpanKind.CLIENT);
  assert.deepEqual(
    {
      op: first.attributes["gen_ai.operation.name"],
      provider: first.attributes["gen_ai.provider.name"],
      model: first.attributes["gen_ai.request.model"],
      output: first.attributes["gen_ai.usage.output_tokens"],
      cacheRead: first.attributes["gen_ai.usage.cache_read.input_tokens"],
      cacheWrite: first.attributes["gen_ai.usage.cache_creation.input_tokens"],
      reasoning: first.attributes["gen_ai.usage.reasoning.output_tokens"],
      reasons: first.attributes["gen_ai.response.finish_reasons"],
    },
    {
      op: "chat",
      provider: "@weft/mcp/testing",
      model: "script",
      output: 20,
      cacheRead: 60,
      cacheWrite: 7,
      reasoning: 12,
      reasons: ["tool_calls"],
    },
  );

  const tool = one(spans, "execute_tool lookup");
  assert.equal(tool.parentSpanId, run.spanId);
  assert.equal(tool.attributes["gen_ai.tool.name"], "lookup");
  assert.equal(tool.attributes["mcp.method.name"], "tools/call");
  assert.equal(tool.attributes["network.transport"], facts.transport);
  assert.equal(tool.attributes["mcp.protocol.version"], facts.version);
  assert.equal(
    tool.attributes["gen_ai.tool.call.arguments"],
    undefined,
    "arguments are not recorded by default",
  );
  // No MCP client span beside the tool span.
  assert.ok(
    !spans.some((s) =>
      s.kind === SpanKind.CLIENT && s.name.startsWith("tools/call")
    ),
  );

  const served = one(spans, "tools/call lookup", SpanKind.SERVER);
  assert.equal(
    served.parentSpanId,
    tool.spanId,
    "the server span's parent is the caller's",
  );
  assert.equal(served.attributes["mcp.method.name"], "tools/call");
  assert.equal(typeof served.attributes["jsonrpc.request.id"], "string");
  // The caller's span names the request as the server saw it on the wire.
  assert.equal(
    tool.attributes["jsonrpc.request.id"],
    served.attributes["jsonrpc.request.id"],
    "the execute_tool span carries the tools/call request's id",
  );
  const inner = one(spans, "lookup.inner");
  assert.equal(inner.parentSpanId, served.spanId, "the handler's span nests");

  const failed = one(spans, "execute_tool fails");
  assert.equal(failed.status, SpanStatusCode.ERROR);
  assert.equal(failed.attributes["error.type"], "tool_error");
  const failedServed = one(spans, "tools/call fails", SpanKind.SERVER);
  assert.equal(failedServed.parentSpanId, failed.spanId);
  assert.equal(failedServed.attributes["error.type"], "tool_error");
  assert.equal(
    failed.attributes["jsonrpc.request.id"],
    failedServed.attributes["jsonrpc.request.id"],
  );

  const helperTool = one(spans, "execute_tool helper");
  const helperServed = one(spans, "tools/call helper", SpanKind.SERVER);
  assert.equal(helperServed.parentSpanId, helperTool.spanId);
  assert.equal(
    helperTool.attributes["jsonrpc.request.id"],
    helperServed.attributes["jsonrpc.request.id"],
  );
  assert.notEqual(
    helperTool.attributes["jsonrpc.request.id"],
    tool.attributes["jsonrpc.request.id"],
    "each call its own id",
  );
  const helperRun = one(spans, "invoke_agent helper");
  assert.equal(
    helperRun.parentSpanId,
    helperServed.spanId,
    "the served agent's run nests",
  );
  assert.ok(
    spans.some((s) =>
      s.name === "chat script" && s.parentSpanId === helperRun.spanId
    ),
  );
}

/**
 * An in-memory pair whose server side receives each message in the root
 * context, as across a real transport (the in-memory one would otherwise
 * hand the caller's context over with the call): the server's spans can
 * only find their parent in `params._meta`. `traceparents` collects what
 * arrived there.
 */
async function inMemory(traceparents: string[] = []): Promise<Connected> {
  const server = otelServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const deliver = serverSide.onmessage!;
  serverSide.onmessage = (message, extra) => {
    const meta = (message as { params?: { _meta?: Record<string, unknown> } })
      .params?._meta;
    if (typeof meta?.traceparent === "string") {
      traceparents.push(meta.traceparent);
    }
    context.with(ROOT_CONTEXT, () => deliver(message, extra));
  };
  const client = new Client({ name: "otel-test", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, close: () => client.close() };
}

Deno.test("in memory: one trace from the run to the served tool, its handler and a served agent; metrics", async () => {
  const sdk = installSdk();
  try {
    const traceparents: string[] = [];
    const { client, close } = await inMemory(traceparents);
    try {
      await runPlanner(client);
    } finally {
      await close();
    }
    const spans = sdk.spans();
    checkTrace(spans, {});
    // W3C traceparent: version, trace id, the execute_tool span's id, sampled.
    const tool = one(spans, "execute_tool lookup");
    assert.ok(
      traceparents.includes(`00-${tool.traceId}-${tool.spanId}-01`),
      JSON.stringify(traceparents),
    );
    assert.deepEqual(await sdk.metricNames(), [
      "gen_ai.client.operation.duration",
      "gen_ai.client.token.usage",
      "mcp.client.operation.duration",
      "mcp.server.operation.duration",
    ]);
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("a tools/call outside a run gets its own CLIENT span, parent of the server span", async () => {
  const sdk = installSdk();
  try {
    const { client, close } = await inMemory();
    try {
      const { tools } = await importTools(client);
      const lookup = tools.find((t) => t.name === "lookup")!;
      assert.equal(await lookup.invoke("{}"), "found");
    } finally {
      await close();
    }
    const spans = sdk.spans();
    const call = one(spans, "tools/call lookup", SpanKind.CLIENT);
    const served = one(spans, "tools/call lookup", SpanKind.SERVER);
    assert.equal(served.parentSpanId, call.spanId);
    assert.equal(served.traceId, call.traceId);
    assert.equal(typeof served.attributes["jsonrpc.request.id"], "string");
    assert.equal(
      call.attributes["jsonrpc.request.id"],
      served.attributes["jsonrpc.request.id"],
    );
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("arguments and results are recorded only after configureTracing({ recordContent: true })", async () => {
  const sdk = installSdk();
  try {
    const { client, close } = await inMemory();
    try {
      const { tools } = await importTools(client);
      const lookup = tools.find((t) => t.name === "lookup")!;
      await lookup.invoke('{"key":"a"}');
      configureTracing({ recordContent: true });
      try {
        await lookup.invoke('{"key":"b"}');
        await new Agent(
          script(callTools({ name: "lookup", args: { key: "c" } }), say("ok")),
          { name: "reader", tools },
        ).generate("go");
      } finally {
        configureTracing({ recordContent: false });
      }
    } finally {
      await close();
    }
    const served = sdk.spans().filter((s) =>
      s.name === "tools/call lookup" && s.kind === SpanKind.SERVER
    );
    assert.deepEqual(
      served.map((s) => s.attributes["gen_ai.tool.call.arguments"]),
      [undefined, '{"key":"b"}', '{"key":"c"}'],
    );
    assert.equal(served[0].attributes["gen_ai.tool.call.result"], undefined);
    assert.equal(
      served[1].attributes["gen_ai.tool.call.result"],
      '{"content":[{"type":"text","text":"found"}]}',
    );
    const tool = one(sdk.spans(), "execute_tool lookup");
    assert.equal(tool.attributes["gen_ai.tool.call.arguments"], '{"key":"c"}');
    assert.equal(tool.attributes["gen_ai.tool.call.result"], "found");
  } finally {
    await sdk.shutdown();
  }
});

Deno.test("a subagent's run nests under its caller's execute_tool span", async () => {
  const sdk = installSdk();
  try {
    const child = new Agent(script(say("42")), { name: "child" });
    const parent = new Agent(
      script(
        callTools({ name: "ask_child", args: { prompt: "?" } }),
        say("ok"),
      ),
      {
        name: "parent",
        tools: [subagent(child, "Asks.", { name: "ask_child" })],
      },
    );
    await parent.generate("go");
    const spans = sdk.spans();
    const run = one(spans, "invoke_agent parent");
    const call = one(spans, "execute_tool ask_child");
    const childRun = one(spans, "invoke_agent child");
    assert.equal(call.parentSpanId, run.spanId);
    assert.equal(childRun.parentSpanId, call.spanId);
    assert.equal(childRun.traceId, run.traceId);
  } finally {
    await sdk.shutdown();
  }
});

async function childSpans(path: string): Promise<SpanRecord[]> {
  const text = await Deno.readTextFile(path);
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

for (const protocol of ["modern", "legacy"] as const) {
  Deno.test(`over stdio (${protocol}): the child's spans join the caller's trace`, async () => {
    const out = await Deno.makeTempFile({ suffix: ".jsonl" });
    const sdk = installSdk();
    try {
      const client = await connectStdio(Deno.execPath(), {
        args: [...CHILD_ARGS, "stdio"],
        env: { OTEL_TEST_OUT: out },
        protocol,
        signal: AbortSignal.timeout(30_000),
      });
      try {
        await runPlanner(client);
      } finally {
        await client.close();
      }
      const version = protocol === "modern" ? "2026-07-28" : "2025-11-25";
      checkTrace([...sdk.spans(), ...await childSpans(out)], {
        transport: "pipe",
        version,
      });
    } finally {
      await sdk.shutdown();
      await Deno.remove(out);
    }
  });

  Deno.test(`over HTTP (${protocol}): the server's spans join the caller's trace`, async () => {
    const out = await Deno.makeTempFile({ suffix: ".jsonl" });
    const child = new Deno.Command(Deno.execPath(), {
      args: [...CHILD_ARGS, "http"],
      env: { OTEL_TEST_OUT: out },
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const sdk = installSdk();
    try {
      const reader = child.stdout.pipeThrough(new TextDecoderStream())
        .getReader();
      let line = "";
      while (!line.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the HTTP fixture exited before listening");
        line += value;
      }
      reader.releaseLock();
      const port = Number(line.trim());
      const client = await connectHttp(`http://127.0.0.1:${port}/mcp`, {
        protocol,
        signal: AbortSignal.timeout(30_000),
      });
      try {
        await runPlanner(client);
      } finally {
        await client.close();
      }
      const spans = [...sdk.spans(), ...await childSpans(out)];
      const version = protocol === "modern" ? "2026-07-28" : "2025-11-25";
      checkTrace(spans, { transport: "tcp", version });
      const tool = one(spans, "execute_tool lookup");
      assert.equal(tool.attributes["server.address"], "127.0.0.1");
      assert.equal(tool.attributes["server.port"], port);
    } finally {
      await sdk.shutdown();
      child.kill();
      await child.stdout.cancel().catch(() => {});
      await child.status;
      await Deno.remove(out);
    }
  });
}
