/**
 * `ctx.log` and `ctx.sample` of exported tools with the v1 SDK client:
 * sessions on a real listener (each session's own level), the stateless
 * direct route (a request's own `_meta` level; sampling refused with the
 * typed error, no session carrying the answer), a served agent's own tools,
 * and a task (sampling refused: no request to the client rides on it).
 */

import assert from "node:assert/strict";
import {
  Agent,
  Client,
  exportTools,
  httpHandler,
  InMemoryTransport,
  rawTool,
  serveAgent,
  Server,
} from "../mod.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SamplingUnavailableError } from "../core.ts";
import { serveTasks } from "../tasks.ts";
import { memoryStore } from "../store.ts";
import { say, script } from "../testing.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

const chatty = rawTool({
  name: "chatty",
  description: "Logs at four levels.",
  run: (_args, ctx) => {
    for (const level of ["debug", "info", "warning", "error"] as const) {
      ctx.log?.(level, { line: level });
    }
    return "logged";
  },
});

/** The failure the tool saw, kept for `instanceof` checks. */
const failures: unknown[] = [];

const askModel = rawTool({
  name: "ask_model",
  description: "Asks the caller's model.",
  taskSupport: "optional",
  run: async (_args, ctx) => {
    try {
      const answer = await ctx.sample!({
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        maxTokens: 5,
      });
      return `model said ${JSON.stringify(answer.content)}`;
    } catch (err) {
      failures.push(err);
      throw err;
    }
  },
});

function newServer(): Server {
  const server = new Server({ name: "logs", version: "1.0.0" });
  exportTools(server, chatty, askModel);
  return server;
}

async function listening(
  sessions: boolean,
  body: (url: URL) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const handler = httpHandler(newServer, { sessions });
  const served = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, handler);
  try {
    await body(new URL(`http://127.0.0.1:${served.addr.port}/mcp`));
  } finally {
    await handler.close();
    stop.abort();
    await served.finished;
  }
}

function logged(client: Client): string[] {
  const seen: string[] = [];
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (note) => void seen.push(note.params.level),
  );
  return seen;
}

const NO_SAMPLING_TEXT =
  `tool "ask_model" asked the client's model (sampling), but the client declared no sampling capability`;

Deno.test("sessions: each session's logging/setLevel filters only its own calls' logs", async () => {
  await listening(true, async (url) => {
    const quiet = new Client({ name: "quiet", version: "1" });
    const loud = new Client({ name: "loud", version: "1" });
    const quietSeen = logged(quiet);
    const loudSeen = logged(loud);
    try {
      await quiet.connect(new StreamableHTTPClientTransport(url));
      await loud.connect(new StreamableHTTPClientTransport(url));
      await quiet.setLoggingLevel("error");
      await loud.setLoggingLevel("debug");
      const signal = AbortSignal.timeout(10_000);
      await quiet.callTool({ name: "chatty", arguments: {} }, undefined, {
        signal,
      });
      await loud.callTool({ name: "chatty", arguments: {} }, undefined, {
        signal,
      });
      assert.deepEqual(quietSeen, ["error"]);
      assert.deepEqual(loudSeen, ["debug", "info", "warning", "error"]);
      // The level holds for the session's later calls; raising it again drops more.
      await loud.setLoggingLevel("warning");
      await loud.callTool({ name: "chatty", arguments: {} }, undefined, {
        signal,
      });
      assert.deepEqual(loudSeen.slice(4), ["warning", "error"]);
    } finally {
      await quiet.close();
      await loud.close();
    }
  });
});

Deno.test("stateless (direct route): logs ride the call's stream; a request's _meta level filters them", async () => {
  await listening(false, async (url) => {
    const client = new Client({ name: "c", version: "1" });
    const seen = logged(client);
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      const signal = AbortSignal.timeout(10_000);
      await client.callTool({ name: "chatty", arguments: {} }, undefined, {
        signal,
      });
      // No level set anywhere: every message goes (a 2025 request).
      assert.deepEqual(seen, ["debug", "info", "warning", "error"]);
      seen.length = 0;
      await client.request(
        {
          method: "tools/call",
          params: {
            name: "chatty",
            arguments: {},
            _meta: { [LOG_LEVEL]: "warning" },
          },
        },
        CallToolResultSchema,
        { signal },
      );
      assert.deepEqual(seen, ["warning", "error"]);
    } finally {
      await client.close();
    }
  });
});

Deno.test("stateless: sampling from a 2025 client with no session is the typed failure, not a crash", async () => {
  failures.length = 0;
  await listening(false, async (url) => {
    const client = new Client({ name: "c", version: "1" }, {
      capabilities: { sampling: {} },
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new Error("never asked: no session carries the answer");
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      const result = await client.callTool(
        { name: "ask_model", arguments: {} },
        undefined,
        { signal: AbortSignal.timeout(10_000) },
      );
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [{
        type: "text",
        text:
          `tool "ask_model" asked the client's model (sampling), but no session carries the client's answer (a 2025 client served statelessly); serve with sessions to sample from such clients`,
      }]);
      assert.equal(failures.length, 1);
      assert.ok(failures[0] instanceof SamplingUnavailableError);
      assert.equal(failures[0].reason, "no-session");
    } finally {
      await client.close();
    }
  });
});

Deno.test("sessions: a client's error answer to sampling is the tool's failure; the session goes on", async () => {
  await listening(true, async (url) => {
    const client = new Client({ name: "c", version: "1" }, {
      capabilities: { sampling: {} },
    });
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked++;
      if (asked === 1) throw new Error("the user declined");
      return {
        role: "assistant",
        content: { type: "text", text: "ok" },
        model: "m",
      };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      const signal = AbortSignal.timeout(10_000);
      const first = await client.callTool(
        { name: "ask_model", arguments: {} },
        undefined,
        { signal },
      );
      assert.equal(first.isError, true);
      assert.match(
        (first.content as { text: string }[])[0].text,
        /the user declined/,
      );
      const second = await client.callTool(
        { name: "ask_model", arguments: {} },
        undefined,
        { signal },
      );
      assert.deepEqual(second.content, [{
        type: "text",
        text: 'model said {"type":"text","text":"ok"}',
      }]);
    } finally {
      await client.close();
    }
  });
});

async function inMemory(
  server: Server,
  capabilities: Record<string, unknown>,
): Promise<Client & AsyncDisposable> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "c", version: "1" }, { capabilities });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}

Deno.test("serveAgent: the agent's own tools log and sample through the agent's callTool", async () => {
  const server = new Server({ name: "agent", version: "1" });
  serveAgent(
    server,
    new Agent(script(say("unused")), {
      name: "helper",
      tools: [chatty, askModel],
    }),
    "Helps.",
  );
  await using client = await inMemory(server, { sampling: {} });
  const seen = logged(client);
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: "assistant",
    content: { type: "text", text: "from the host" },
    model: "m",
  }));
  await client.setLoggingLevel("info");
  await client.callTool({ name: "chatty", arguments: {} });
  assert.deepEqual(seen, ["info", "warning", "error"]);
  const sampled = await client.callTool({ name: "ask_model", arguments: {} });
  assert.deepEqual(sampled.content, [{
    type: "text",
    text: 'model said {"type":"text","text":"from the host"}',
  }]);
});

Deno.test("serveAgent: sampling without the client's capability is the typed failure", async () => {
  const server = new Server({ name: "agent", version: "1" });
  serveAgent(
    server,
    new Agent(script(say("unused")), { name: "helper", tools: [askModel] }),
    "Helps.",
  );
  await using client = await inMemory(server, {});
  const result = await client.callTool({ name: "ask_model", arguments: {} });
  assert.equal(result.isError, true);
  assert.deepEqual(result.content, [{ type: "text", text: NO_SAMPLING_TEXT }]);
});

Deno.test("a task: sampling is refused with the typed failure, the task failed with its text", async () => {
  failures.length = 0;
  const server = new Server({ name: "tasks", version: "1" });
  exportTools(server, askModel);
  serveTasks(server, { store: memoryStore(), pollIntervalMs: 10 });
  await using client = await inMemory(server, { sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    throw new Error("never asked from a task");
  });
  // The client runs a tool as a task once its listing says it may.
  await client.listTools();
  const stream = client.experimental.tasks.callToolStream({
    name: "ask_model",
    arguments: {},
  });
  // A tool failure fails the task, its text the status message.
  let failed: { status: string; statusMessage?: string } | undefined;
  for await (const message of stream) {
    if (message.type === "taskStatus" && message.task.status === "failed") {
      failed = message.task;
    }
  }
  assert.equal(
    failed?.statusMessage,
    `tool "ask_model" asked the client's model (sampling), but a call running as a task cannot send requests to the client; call the tool without a task to sample`,
  );
  assert.ok(failures[0] instanceof SamplingUnavailableError);
  assert.equal(failures[0].reason, "unsupported");
});

/** A raw JSON-RPC peer of `server`, answering `sampling/createMessage` with `reply`. */
async function rawPeer(server: Server, reply: (params: unknown) => unknown) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<number, (message: unknown) => void>();
  clientSide.onmessage = (message) => {
    const m = message as { id?: number; method?: string; params?: unknown };
    if (m.method === "sampling/createMessage" && m.id !== undefined) {
      void clientSide.send(
        { jsonrpc: "2.0", id: m.id, result: reply(m.params) } as never,
      );
      return;
    }
    if (m.id !== undefined && m.method === undefined) {
      waiting.get(m.id)?.(message);
    }
  };
  await clientSide.start();
  let next = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    const id = ++next;
    const answer = new Promise<unknown>((resolve) => waiting.set(id, resolve));
    await clientSide.send({ jsonrpc: "2.0", id, method, params } as never);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer to ${method}`)),
        10_000,
      );
    });
    try {
      return await Promise.race([answer, late]) as {
        result?: Record<string, unknown>;
        error?: unknown;
      };
    } finally {
      clearTimeout(timer);
    }
  };
  return { request, [Symbol.asyncDispose]: () => server.close() };
}

const MODERN_SAMPLING = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
};

Deno.test("2026-07-28: sampling is an input_required round; an answer that is no sampling result is refused with -32602", async () => {
  const server = new Server({ name: "s", version: "1" });
  exportTools(server, askModel);
  await using peer = await rawPeer(server, () => {
    throw new Error("a modern call never sends a request");
  });
  const base = { name: "ask_model", arguments: {}, _meta: MODERN_SAMPLING };
  const first = (await peer.request("tools/call", base)).result!;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(first.inputRequests, {
    ask_0: {
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        maxTokens: 5,
      },
    },
  });
  const requestState = first.requestState;
  const refused = await peer.request("tools/call", {
    ...base,
    requestState,
    inputResponses: { ask_0: { role: "model", content: [], model: "m" } },
  });
  assert.deepEqual(refused.error, {
    code: -32602,
    message:
      `invalid inputResponses "ask_0": role must be "user" or "assistant"`,
  });
  const done = await peer.request("tools/call", {
    ...base,
    requestState,
    inputResponses: {
      ask_0: {
        role: "assistant",
        content: { type: "text", text: "yo" },
        model: "m",
      },
    },
  });
  assert.deepEqual(done.result?.content, [{
    type: "text",
    text: 'model said {"type":"text","text":"yo"}',
  }]);
});

Deno.test("2025: a client's answer that is no sampling result fails the tool with the pinned text", async () => {
  const server = new Server({ name: "s", version: "1" });
  exportTools(server, askModel);
  await using peer = await rawPeer(server, () => ({
    role: "assistant",
    content: { type: "text", text: "x" },
  }));
  await peer.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { sampling: {} },
    clientInfo: { name: "raw", version: "0" },
  });
  const reply = await peer.request("tools/call", {
    name: "ask_model",
    arguments: {},
  });
  assert.equal(reply.result?.isError, true);
  assert.deepEqual(reply.result?.content, [{
    type: "text",
    text: "invalid sampling result: model must be a string",
  }]);
});

Deno.test("stateless, reused servers: one caller's logging/setLevel does not reach the next caller of the same server", async () => {
  const handler = httpHandler(newServer, { reuseServers: true });
  const stop = new AbortController();
  const served = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, handler);
  const url = new URL(`http://127.0.0.1:${served.addr.port}/mcp`);
  const first = new Client({ name: "a", version: "1" });
  const second = new Client({ name: "b", version: "1" });
  const seen = logged(second);
  try {
    const signal = AbortSignal.timeout(10_000);
    await first.connect(new StreamableHTTPClientTransport(url));
    await first.setLoggingLevel("error", { signal });
    await second.connect(new StreamableHTTPClientTransport(url));
    await second.callTool({ name: "chatty", arguments: {} }, undefined, {
      signal,
    });
    // Servers are pooled here, but never one that kept a caller's level
    // (pooling setLevel's server makes the second caller read "error" only).
    assert.deepEqual(seen, ["debug", "info", "warning", "error"]);
  } finally {
    await first.close();
    await second.close();
    await handler.close();
    stop.abort();
    await served.finished;
  }
});
