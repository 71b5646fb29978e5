/**
 * Calling an imported tool: forwarding, errors, what is not answered
 * (go-mcp §1.8, §1.10, §1.11; I-30 … I-36, I-38 … I-42, P-2).
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ElicitResultSchema,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  importTools,
  RemoteToolError,
  type ToolDef,
  ToolError,
} from "../mod.ts";
import { InvalidInputError } from "../core.ts";
import { McpTransportError } from "../bridge.ts";
import {
  entry,
  listedServer,
  rawPeer,
  RpcFailure,
  type TestServer,
  textResult,
  withMethod,
} from "./_helpers/mcp_servers.ts";
import { nextTurn } from "./_helpers/wait.ts";

async function only(
  client: Parameters<typeof importTools>[0],
): Promise<ToolDef> {
  const { tools } = await importTools(client);
  assert.equal(tools.length, 1);
  return tools[0];
}

Deno.test("one tools/call per invocation, under the server's name, with the arguments", async () => {
  await using s = await listedServer({ tools: [entry("search")] });
  const { tools } = await importTools(s.client, { prefix: "gh_" });
  await tools[0].invoke('{"q":"weft"}');
  await tools[0].invoke('{"q":"mcp"}');
  assert.deepEqual(s.calls.map((c) => [c.name, c.arguments]), [["search", {
    q: "weft",
  }], ["search", { q: "mcp" }]]);
  const requests = withMethod(s.sent, "tools/call");
  assert.equal(requests.length, 2);
});

Deno.test("the model's arguments arrive with their key order and values", async () => {
  await using s = await listedServer({ tools: [entry("t")] });
  const t = await only(s.client);
  await t.invoke('{"z":1,"a":[2,3],"nested":{"k":"v"}}');
  assert.equal(
    JSON.stringify(s.calls[0].arguments),
    '{"z":1,"a":[2,3],"nested":{"k":"v"}}',
  );
  await t.invoke('{ "markup" : "a<b&c>d" }');
  assert.equal(JSON.stringify(s.calls[1].arguments), '{"markup":"a<b&c>d"}');
});

Deno.test("integers beyond 2^53 keep every digit (lossless parse, written back by JSON.stringify)", async () => {
  await using s = await listedServer({ tools: [entry("t")], wire: true });
  const t = await only(s.client);
  await t.invoke('{"id":9007199254740993,"big":-12345678901234567890,"f":1.5}');
  const sent = s.wire.find((line) => line.includes('"tools/call"'));
  assert.ok(
    sent?.includes(
      '"arguments":{"id":9007199254740993,"big":-12345678901234567890,"f":1.5}',
    ),
    sent,
  );
});

Deno.test("empty, whitespace and null arguments are sent as {}", async () => {
  await using s = await listedServer({ tools: [entry("t")] });
  const t = await only(s.client);
  for (const args of ["", "  \n\t", "null", " null "]) await t.invoke(args);
  assert.deepEqual(s.calls.map((c) => c.arguments), [{}, {}, {}, {}]);
});

Deno.test("non-object arguments are forwarded and the server decides", async () => {
  await using raw = await rawPeer((method, params) => {
    if (method === "tools/list") return { tools: [entry("t")] };
    return textResult(`got ${JSON.stringify(params?.arguments)}`);
  });
  const t = await only(raw.client);
  assert.equal(await t.invoke("[1]"), "got [1]");
  assert.equal(await t.invoke('"text"'), 'got "text"');
  assert.equal(await t.invoke("42"), "got 42");
  // The SDK's own server refuses them: that refusal is the server deciding.
  await using sdk = await listedServer({ tools: [entry("t")] });
  const strict = await only(sdk.client);
  await assert.rejects(strict.invoke("[1]"), (err) => {
    assert.ok(err instanceof McpTransportError);
    assert.ok(err.message.startsWith("mcp: MCP error "), err.message);
    return true;
  });
  assert.equal(sdk.calls.length, 0);
});

Deno.test("argument text that is not JSON is refused with the core's INVALID_INPUT texts, nothing sent", async () => {
  await using s = await listedServer({ tools: [entry("search")] });
  const { tools } = await importTools(s.client, { prefix: "gh_" });
  const cases: [string, string][] = [
    [
      '{"q":',
      'INVALID_INPUT: tool "gh_search": invalid JSON: unexpected end of input',
    ],
    [
      "{} {}",
      'INVALID_INPUT: tool "gh_search": trailing data after the JSON arguments',
    ],
    [
      "{q:1}",
      `INVALID_INPUT: tool "gh_search": invalid JSON at offset 1: invalid character 'q' looking for beginning of object key string`,
    ],
  ];
  for (const [args, text] of cases) {
    await assert.rejects(tools[0].invoke(args), (err) => {
      assert.ok(err instanceof InvalidInputError);
      assert.equal(err.message, text);
      return true;
    });
  }
  assert.equal(s.calls.length, 0);
});

Deno.test("aborting the call's signal cancels the remote request (notifications/cancelled) and fails the call", async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  await using s = await listedServer({
    tools: [entry("slow")],
    call: ({ signal }) =>
      new Promise((resolve) => {
        started();
        signal.addEventListener("abort", () => resolve(textResult("late")));
      }),
  });
  const t = await only(s.client);
  const controller = new AbortController();
  const call = t.invoke("{}", { signal: controller.signal });
  await running;
  controller.abort(new Error("run cancelled"));
  await assert.rejects(call, (err) => {
    assert.ok(err instanceof McpTransportError);
    assert.ok(err instanceof ToolError);
    assert.equal(err.code, "");
    assert.ok(err.message.startsWith("mcp: "), err.message);
    assert.ok(err.message.includes("run cancelled"), err.message);
    assert.ok(err.cause instanceof McpError);
    return true;
  });
  assert.equal(s.calls[0].signal.aborted, true);
  const cancelled = withMethod(s.sent, "notifications/cancelled");
  assert.equal(cancelled.length, 1);
});

Deno.test("a signal aborted before the call fails it without sending anything", async () => {
  await using s = await listedServer({ tools: [entry("t")] });
  const t = await only(s.client);
  const reason = new Error("already over");
  await assert.rejects(
    t.invoke("{}", { signal: AbortSignal.abort(reason) }),
    (err) => {
      assert.ok(err instanceof McpTransportError);
      assert.equal(err.message, "mcp: already over");
      assert.equal(err.cause, reason);
      return true;
    },
  );
  assert.equal(s.calls.length, 0);
});

Deno.test("a long-lived signal aborting after calls finished cancels nothing", async () => {
  await using s = await listedServer({ tools: [entry("t")] });
  const t = await only(s.client);
  const run = new AbortController();
  for (let i = 0; i < 3; i++) {
    assert.equal(await t.invoke("{}", { signal: run.signal }), "called");
  }
  run.abort();
  // A cancellation the abort sent would be on the wire a turn later.
  await nextTurn();
  assert.equal(
    withMethod(s.sent, "notifications/cancelled").length,
    0,
  );
});

Deno.test("a successful result is the rendered text, possibly empty", async () => {
  const results = [textResult("3 hits"), { content: [] }, {}];
  let i = 0;
  await using s = await listedServer({
    tools: [entry("t")],
    call: () => results[i++],
  });
  const t = await only(s.client);
  assert.equal(await t.invoke("{}"), "3 hits");
  assert.equal(await t.invoke("{}"), "");
  assert.equal(await t.invoke("{}"), "");
});

Deno.test("an isError result is a RemoteToolError whose message is the rendering verbatim", async () => {
  const results = [
    textResult("rate limited: try again in 30s", { isError: true }),
    {
      content: [{ type: "text", text: "ignored" }],
      structuredContent: { error: "quota", retry: 30 },
      isError: true,
    },
  ];
  let i = 0;
  await using s = await listedServer({
    tools: [entry("t")],
    call: () => results[i++],
  });
  const t = await only(s.client);
  await assert.rejects(t.invoke("{}"), (err) => {
    assert.ok(err instanceof RemoteToolError);
    assert.ok(err instanceof ToolError);
    assert.equal(err.code, "");
    assert.equal(err.message, "rate limited: try again in 30s");
    return true;
  });
  await assert.rejects(t.invoke("{}"), (err) => {
    assert.ok(err instanceof RemoteToolError);
    assert.equal(err.message, '{"error":"quota","retry":30}');
    return true;
  });
});

Deno.test("an isError result that renders empty reads mcp: tool returned an error", async () => {
  const results = [
    { content: [], isError: true },
    { content: [{ type: "text", text: "" }], isError: true },
    {
      content: [{ type: "text", text: "" }, { type: "text", text: "" }],
      isError: true,
    },
  ];
  let i = 0;
  await using s = await listedServer({
    tools: [entry("t")],
    call: () => results[i++],
  });
  const t = await only(s.client);
  for (
    const expected of [
      "mcp: tool returned an error",
      "mcp: tool returned an error",
      "\n",
    ]
  ) {
    await assert.rejects(t.invoke("{}"), (err) => {
      assert.ok(err instanceof RemoteToolError);
      assert.equal(err.message, expected);
      return true;
    });
  }
});

Deno.test("a protocol error from tools/call is a tool error reading mcp: <error>", async () => {
  await using s = await listedServer({
    tools: [entry("t")],
    call: () => {
      throw new Error("warehouse unreachable");
    },
  });
  const t = await only(s.client);
  await assert.rejects(t.invoke("{}"), (err) => {
    assert.ok(err instanceof McpTransportError);
    assert.equal(err.message, "mcp: MCP error -32603: warehouse unreachable");
    assert.ok(err.cause instanceof McpError);
    assert.equal((err.cause as McpError).code, ErrorCode.InternalError);
    return true;
  });
});

Deno.test("a severed connection is a tool error reading mcp: <error>", async () => {
  // The handler closes the very session it serves: it reaches it late, through the box.
  const box: { server?: TestServer } = {};
  const s = box.server = await listedServer({
    tools: [entry("t")],
    call: async () => {
      await box.server?.close();
      return textResult("never");
    },
  });
  const t = await only(s.client);
  await assert.rejects(
    t.invoke("{}", { signal: AbortSignal.timeout(20_000) }),
    (err) => {
      assert.ok(err instanceof McpTransportError);
      assert.equal(err.message, "mcp: MCP error -32000: Connection closed");
      return true;
    },
  );
});

Deno.test("a result that is not an object is dropped by the SDK, so the call's signal is its only bound", async () => {
  await using raw = await rawPeer((method) =>
    method === "tools/list" ? { tools: [entry("t")] } : 5
  );
  const dropped: string[] = [];
  raw.client.onerror = (err) => dropped.push(err.message);
  const t = await only(raw.client);
  await assert.rejects(
    t.invoke("{}", { signal: AbortSignal.timeout(50) }),
    (err) => {
      assert.ok(err instanceof McpTransportError);
      assert.equal(
        err.message,
        "mcp: MCP error -32001: TimeoutError: The operation was aborted due to timeout",
      );
      return true;
    },
  );
  assert.deepEqual(dropped, [
    'Unknown message type: {"jsonrpc":"2.0","id":2,"result":5}',
  ]);
});

Deno.test("a server without tools/call answers Method not found, as a tool error", async () => {
  await using raw = await rawPeer((method) => {
    if (method === "tools/list") return { tools: [entry("t")] };
    throw new RpcFailure(-32601, "Method not found");
  });
  const t = await only(raw.client);
  await assert.rejects(t.invoke("{}"), (err) => {
    assert.ok(err instanceof McpTransportError);
    assert.equal(err.message, "mcp: MCP error -32601: Method not found");
    return true;
  });
});

Deno.test("results the SDK's callTool would throw on (structuredContent missing or off-schema) render as text", async () => {
  const out = {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
  };
  const results = [textResult("no structured content"), {
    content: [],
    structuredContent: { n: "not an integer" },
  }];
  let i = 0;
  await using s = await listedServer({
    tools: [entry("t", { outputSchema: out })],
    call: () => results[i % 2 === 0 ? 0 : 1],
  });
  const t = await only(s.client);
  i = 0;
  assert.equal(await t.invoke("{}"), "no structured content");
  i = 1;
  assert.equal(await t.invoke("{}"), '{"n":"not an integer"}');
  await s.client.listTools();
  i = 0;
  await assert.rejects(
    s.client.callTool({ name: "t", arguments: {} }),
    McpError,
  );
  i = 1;
  await assert.rejects(
    s.client.callTool({ name: "t", arguments: {} }),
    McpError,
  );
});

Deno.test("with no progress listener, progress is not requested: the call carries no progressToken", async () => {
  await using s = await listedServer({ tools: [entry("t")] });
  const t = await only(s.client);
  assert.equal(await t.invoke("{}"), "called");
  const call = withMethod(s.sent, "tools/call")[0] as {
    params?: { _meta?: unknown };
  };
  assert.equal(call.params?._meta, undefined);
});

Deno.test("elicitation is not answered: the client refuses the server's request and the call fails as a tool error", async () => {
  let refusal: unknown;
  await using s = await listedServer({
    tools: [entry("ask")],
    call: async ({ sendRequest }) => {
      try {
        await sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: "Which repo?",
              requestedSchema: { type: "object", properties: {} },
            },
          },
          ElicitResultSchema,
        );
      } catch (err) {
        refusal = err;
        throw new Error("the client would not answer");
      }
      return textResult("answered");
    },
  });
  const t = await only(s.client);
  await assert.rejects(t.invoke("{}"), (err) => {
    assert.ok(err instanceof McpTransportError);
    assert.equal(
      err.message,
      "mcp: MCP error -32603: the client would not answer",
    );
    return true;
  });
  assert.ok(refusal instanceof McpError);
  assert.equal(refusal.code, ErrorCode.MethodNotFound);
});

Deno.test("imported tools run under WEFT_MODEL_REQUESTS=deny: tools/call is not a model request", async () => {
  const before = Deno.env.get("WEFT_MODEL_REQUESTS");
  Deno.env.set("WEFT_MODEL_REQUESTS", "deny");
  try {
    await using s = await listedServer({ tools: [entry("t")] });
    const t = await only(s.client);
    assert.equal(await t.invoke("{}"), "called");
  } finally {
    if (before === undefined) Deno.env.delete("WEFT_MODEL_REQUESTS");
    else Deno.env.set("WEFT_MODEL_REQUESTS", before);
  }
});

Deno.test("there is no allow/deny option: unknown options are ignored and the caller filters the list", async () => {
  await using s = await listedServer({
    tools: [entry("read"), entry("delete"), entry("list")],
  });
  const options = { allow: ["read"], deny: ["delete"] } as Parameters<
    typeof importTools
  >[1];
  const { tools } = await importTools(s.client, options);
  assert.deepEqual(tools.map((t) => t.name), ["read", "delete", "list"]);
  const kept = tools.filter((t) => t.name !== "delete");
  assert.deepEqual(kept.map((t) => t.name), ["read", "list"]);
  assert.equal(await kept[1].invoke("{}"), "called");
  assert.equal(s.calls[0].name, "list");
});
