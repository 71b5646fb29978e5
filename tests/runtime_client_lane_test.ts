/**
 * The client lane of `McpClient` (what `connectStdio` and `connectHttp`
 * return): plain result responses delivered past the SDK's zod checks,
 * plain `tools/call` results taken as they are, one shared deadline timer.
 * The same requests answered by the same peer give the same outcome — the
 * same result (byte for byte, keys in the same order) or the same error
 * (class, code, message, data) — through an `McpClient` as through the
 * SDK's own `Client`, and the peer sees the same messages (cancellations
 * included). Timeouts, the total timeout under progress, cancellation,
 * progress and a server's request (elicitation) work the same way.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { Client, InMemoryTransport, McpClient } from "../mod.ts";
import {
  isPlainResultResponse,
  plainCallResult,
} from "../src/runtime/client/_response_lane.ts";
import { parseLossless } from "../src/core/json.ts";

const DEADLINE = 5_000;

/** Results the peer answers `tools/call {name}` with: plain ones and odd ones. */
const RESULTS: Record<string, unknown> = {
  text: { content: [{ type: "text", text: "hi" }] },
  empty: { content: [] },
  error: { content: [{ type: "text", text: "bad" }], isError: true },
  structured: {
    content: [{ type: "text", text: "{}" }],
    structuredContent: { n: 1, deep: { a: [1, 2] } },
  },
  // The modern era's stamp: `_meta` and `resultType`, keys out of the schema's order.
  modern: {
    content: [{ type: "text", text: "hi" }],
    resultType: "complete",
    _meta: {
      "io.modelcontextprotocol/serverInfo": { name: "p", version: "1" },
    },
  },
  reordered: { isError: false, content: [{ type: "text", text: "x" }] },
  extraFirst: { zeta: 1, content: [{ type: "text", text: "x" }], alpha: 2 },
  noContent: { structuredContent: { n: 1 } },
  blockExtra: { content: [{ type: "text", text: "x", junk: 1 }] },
  blockSwapped: { content: [{ text: "x", type: "text" }] },
  annotated: {
    content: [{ type: "text", text: "x", annotations: { priority: 1 } }],
  },
  image: { content: [{ type: "image", data: "AA==", mimeType: "image/png" }] },
  badBlock: { content: [{ type: "text", text: 7 }] },
  badIsError: { content: [], isError: "yes" },
  badStructured: { content: [], structuredContent: [1, 2] },
  progressMeta: { content: [], _meta: { progressToken: "t" } },
  badProgressMeta: { content: [], _meta: { progressToken: { no: 1 } } },
  taskish: { content: [], task: { taskId: 7 } },
  notObject: { content: "nope" },
};

/** A peer answering from `RESULTS`, and recording what it is sent. */
function peer(side: InMemoryTransport): { seen: string[] } {
  const seen: string[] = [];
  const reply = (message: JSONRPCMessage) => void side.send(message);
  side.onmessage = (message) => {
    seen.push(JSON.stringify(message));
    if (!("method" in message) || !("id" in message)) return;
    const { id, method } = message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (method === "initialize") {
      return reply({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "peer", version: "1" },
        },
      });
    }
    const name = String(params.name);
    if (name === "silent") return; // never answers
    if (name === "fail") {
      return reply({
        jsonrpc: "2.0",
        id,
        error: { code: -32602, message: "no such tool", data: { name } },
      });
    }
    if (name === "progress") {
      const token = (params._meta as { progressToken: number }).progressToken;
      setTimeout(() => {
        void side.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2 },
        });
        if (params.arguments !== "stall") {
          setTimeout(
            () => reply({ jsonrpc: "2.0", id, result: RESULTS.text as never }),
            1,
          );
        }
      }, 20);
      return;
    }
    if (name === "ask") {
      // The server asks the client first, and answers with what it got.
      void side.send({
        jsonrpc: "2.0",
        id: "q1",
        method: "elicitation/create",
        params: {
          message: "Which?",
          requestedSchema: { type: "object", properties: {} },
        },
      });
      const before = side.onmessage!;
      side.onmessage = (answer) => {
        seen.push(JSON.stringify(answer));
        side.onmessage = before;
        reply({
          jsonrpc: "2.0",
          id,
          result: {
            content: [{ type: "text", text: JSON.stringify(answer) }],
          },
        });
      };
      return;
    }
    if (method === "tools/list") {
      return reply({
        jsonrpc: "2.0",
        id,
        result: {
          tools: [{ name: "text", inputSchema: { type: "object" } }],
        },
      });
    }
    reply({ jsonrpc: "2.0", id, result: RESULTS[name] as never });
  };
  return { seen };
}

const LINK = { lost: () => undefined, close: (c: () => Promise<void>) => c() };

async function pair(): Promise<
  { lane: McpClient; sdk: Client; seen: [string[], string[]] }
> {
  const [a, aPeer] = InMemoryTransport.createLinkedPair();
  const [b, bPeer] = InMemoryTransport.createLinkedPair();
  const p1 = peer(aPeer);
  const p2 = peer(bPeer);
  await aPeer.start();
  await bPeer.start();
  const info = { name: "c", version: "1" };
  const options = { capabilities: { elicitation: {} } };
  const lane = new McpClient(info, options, LINK);
  const sdk = new Client(info, options);
  for (const c of [lane, sdk]) {
    c.setRequestHandler(
      ElicitRequestSchema,
      () => ({ action: "accept", content: { pick: "a" } }),
    );
  }
  await lane.connect(a);
  await sdk.connect(b);
  return { lane, sdk, seen: [p1.seen, p2.seen] };
}

/** An outcome as comparable text: the result's JSON, or the error's kind and fields. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    return "ok " + JSON.stringify(await run());
  } catch (error) {
    const e = error as Error & { code?: unknown; data?: unknown };
    return `error ${e.constructor.name} ${String(e.code)} ${e.message} ${
      JSON.stringify(e.data)
    }`;
  }
}

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("hung")), DEADLINE);
    }),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("the lane gives back what the SDK's schema gives back, keys in the same order", () => {
  for (const [name, value] of Object.entries(RESULTS)) {
    const parsed = safeParse(CallToolResultSchema, structuredClone(value));
    const plain = plainCallResult(structuredClone(value));
    if (plain === undefined) continue; // the schema decides: nothing to compare
    assert.ok(parsed.success, `${name}: the lane took what the schema refuses`);
    assert.equal(JSON.stringify(plain), JSON.stringify(parsed.data), name);
    assert.deepEqual(plain, parsed.data, name);
  }
  // The cases the lane is for are taken by it, the odd ones left to the schema.
  for (
    const name of [
      "text",
      "empty",
      "error",
      "structured",
      "modern",
      "reordered",
      "extraFirst",
    ]
  ) {
    assert.notEqual(
      plainCallResult(structuredClone(RESULTS[name])),
      undefined,
      name,
    );
  }
  for (
    const name of [
      "noContent",
      "blockExtra",
      "blockSwapped",
      "annotated",
      "image",
      "badBlock",
      "badIsError",
      "badStructured",
      "progressMeta",
      "notObject",
    ]
  ) {
    assert.equal(
      plainCallResult(structuredClone(RESULTS[name])),
      undefined,
      name,
    );
  }
  // A big integer kept as its digits is not a plain object.
  const big = parseLossless(
    '{"content":[],"structuredContent":12345678901234567890}',
  );
  assert.equal(plainCallResult(big), undefined);
});

Deno.test("a plain result response is one the SDK's check accepts; anything else goes the SDK's way", () => {
  const ok = { jsonrpc: "2.0", id: 1, result: { content: [] } };
  assert.equal(isPlainResultResponse(ok), true);
  assert.equal(isPlainResultResponse({ ...ok, id: "a" }), true);
  for (
    const odd of [
      { ...ok, id: 1.5 },
      { ...ok, id: null },
      { ...ok, extra: 1 },
      { ...ok, jsonrpc: "1.0" },
      { ...ok, result: [] },
      { ...ok, result: { _meta: { progressToken: "x" } } },
      { ...ok, result: { _meta: 1 } },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } },
    ]
  ) assert.equal(isPlainResultResponse(odd), false, JSON.stringify(odd));
});

Deno.test("every tools/call result and error is the same through the lane as through the SDK", async () => {
  const { lane, sdk, seen } = await pair();
  try {
    for (const name of [...Object.keys(RESULTS), "fail", "ask"]) {
      // A result the SDK cannot read at all (`badProgressMeta`) is reported
      // through `onerror` and its call times out, both ways.
      const call = (c: Client) => () =>
        c.callTool({ name, arguments: {} }, undefined, { timeout: 300 });
      const [mine, theirs] = await bounded(
        Promise.all([outcome(call(lane)), outcome(call(sdk))]),
      );
      assert.equal(mine, theirs, name);
    }
    const [mine, theirs] = await bounded(Promise.all([
      outcome(() => lane.listTools()),
      outcome(() => sdk.listTools()),
    ]));
    assert.equal(mine, theirs);
    // A user's own schema is the user's: nothing taken past it.
    assert.equal(
      await outcome(() => lane.callTool({ name: "notObject", arguments: {} })),
      await outcome(() => sdk.callTool({ name: "notObject", arguments: {} })),
    );
    assert.deepEqual(seen[0], seen[1]);
  } finally {
    await lane.close();
    await sdk.close();
  }
});

Deno.test("timeouts, the total timeout, cancellation and progress behave as the SDK's", async () => {
  const { lane, sdk, seen } = await pair();
  try {
    const both = (run: (c: Client) => Promise<unknown>) =>
      bounded(Promise.all([outcome(() => run(lane)), outcome(() => run(sdk))]));
    // A request nobody answers times out with the SDK's error.
    let [mine, theirs] = await both((c) =>
      c.callTool({ name: "silent", arguments: {} }, undefined, { timeout: 30 })
    );
    assert.match(mine, /McpError -32001 .*Request timed out/);
    assert.equal(mine, theirs);
    // Progress is reported, and the call completes.
    const heard: [unknown[], unknown[]] = [[], []];
    [mine, theirs] = await both((c) =>
      c.callTool({ name: "progress", arguments: {} }, undefined, {
        onprogress: (p) => heard[c === lane ? 0 : 1].push(p),
      })
    );
    assert.equal(mine, theirs);
    assert.match(mine, /^ok /);
    assert.deepEqual(heard[0], [{ progress: 1, total: 2 }]);
    assert.deepEqual(heard[0], heard[1]);
    // Progress past the total timeout fails the call (the peer waits 20 ms
    // before its progress; the total allowed is 1 ms).
    [mine, theirs] = await both((c) =>
      c.callTool({ name: "progress", arguments: "stall" as never }, undefined, {
        onprogress: () => {},
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 1,
      })
    );
    assert.match(mine, /McpError -32001 .*Maximum total timeout exceeded/);
    assert.equal(
      mine.replace(/"totalElapsed":\d+/, ""),
      theirs.replace(/"totalElapsed":\d+/, ""),
    );
    // An aborted call rejects with the signal's reason (the McpClient
    // rewrite); the peer is told, as the SDK tells it.
    const reason = new Error("changed my mind");
    const abortable = (c: Client) => {
      const controller = new AbortController();
      const call = c.callTool({ name: "silent", arguments: {} }, undefined, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(reason), 5);
      return call;
    };
    assert.equal(
      await bounded(outcome(() => abortable(lane))),
      `error Error undefined changed my mind undefined`,
    );
    assert.match(
      await bounded(outcome(() => abortable(sdk))),
      /McpError -32001 .*changed my mind/,
    );
    const cancelled = (s: string[]) =>
      s.filter((m) => m.includes("notifications/cancelled"));
    assert.equal(cancelled(seen[0]).length, 2); // the timeout's and the abort's
    assert.deepEqual(cancelled(seen[0]), cancelled(seen[1]));
  } finally {
    await lane.close();
    await sdk.close();
  }
});

Deno.test("many calls in flight share one timer and each still times out on its own", async () => {
  const { lane, sdk } = await pair();
  try {
    // Calls with staggered deadlines, nobody answering: each fails with its
    // own timeout in the SDK's words, in deadline order.
    const order: number[] = [];
    const calls = [60, 20, 40].map((timeout) =>
      outcome(() =>
        lane.callTool({ name: "silent", arguments: {} }, undefined, { timeout })
          .finally(() => order.push(timeout))
      )
    );
    const outcomes = await bounded(Promise.all(calls));
    for (const [i, timeout] of [60, 20, 40].entries()) {
      assert.match(
        outcomes[i],
        new RegExp(`Request timed out.*"timeout":${timeout}`),
      );
    }
    assert.deepEqual(order, [20, 40, 60]);
    // Answered calls in between leave nothing armed: the test's op sanitizer
    // fails on a timer left behind once everything settled.
    const answered = await bounded(Promise.all(
      Array.from(
        { length: 64 },
        () => lane.callTool({ name: "text", arguments: {} }),
      ),
    ));
    assert.equal(answered.length, 64);
    assert.equal(
      await outcome(() => sdk.callTool({ name: "text", arguments: {} })),
      "ok " + JSON.stringify(answered[0]),
    );
  } finally {
    await lane.close();
    await sdk.close();
  }
});

Deno.test("closing with calls in flight fails them as the SDK does and leaves no timer", async () => {
  const { lane, sdk } = await pair();
  const calls = [lane, sdk].map((c) =>
    outcome(() => c.callTool({ name: "silent", arguments: {} }))
  );
  await lane.close();
  await sdk.close();
  const [mine, theirs] = await bounded(Promise.all(calls));
  assert.match(mine, /Connection closed/);
  assert.equal(mine, theirs);
});
