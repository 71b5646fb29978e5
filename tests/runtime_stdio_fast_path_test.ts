/**
 * `serveStdio`'s lane (`tools/list` and `tools/call` of exported tools
 * answered from the registry in front of the server's `Protocol`) answers
 * a connection exactly as the `Protocol` alone does: the same session —
 * initialize, listing, good and bad calls, an unknown tool, a thrown
 * failure, an output-schema failure, progress, a tool asking its caller
 * (an `elicitation/create` to the client, answered), a cancelled call, and
 * 2026-07-28 requests through the era transport — gives the same messages
 * on the client's end, byte for byte, with the lane and without it. Over
 * the SDK's in-memory transports, as `serveStdio` stacks them.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  exportTools,
  InMemoryTransport,
  rawTool,
  Server,
  tool,
} from "../mod.ts";
import { ToolsLane } from "../src/runtime/fast/fast_tools.ts";
import { EraTransport } from "../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../src/runtime/era/cache_hints.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { latch, nextTurn, waitFor, within } from "./_helpers/wait.ts";

const DEADLINE = 5_000;

/** What the waiting tool saw when cancelled. */
const reasons: string[] = [];

const tools = [
  tool({
    name: "echo",
    description: "Echoes.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => "heard: " + text,
  }),
  tool({
    name: "liar",
    description: "Breaks its output schema.",
    input: z.object({}),
    output: z.object({ n: z.number() }),
    run: () => ({ n: "x" } as unknown as { n: number }),
  }),
  rawTool({
    name: "boom",
    description: "Throws.",
    run: () => {
      throw new Error("kaput");
    },
  }),
  rawTool({
    name: "steps",
    description: "Reports progress.",
    run: async (_args, ctx) => {
      for (let i = 1; i <= 2; i++) {
        ctx.progress?.({ progress: i, total: 2 });
        await nextTurn(); // each step a turn of its own
      }
      return "walked";
    },
  }),
  rawTool({
    name: "ask",
    description: "Asks its caller.",
    run: async (_args, ctx) =>
      JSON.stringify(
        await ctx.ask!({
          message: "Which?",
          schema: {
            type: "object",
            properties: { pick: { type: "string" } },
          },
        }),
      ),
  }),
  rawTool({
    name: "wait",
    description: "Waits for its signal.",
    run: (_args, ctx) =>
      new Promise<string>((resolve) => {
        ctx.signal?.addEventListener("abort", () => {
          reasons.push(String(ctx.signal?.reason));
          resolve("stopped");
        });
        waitRuns.open();
      }),
  }),
];

/** Opened by the `wait` tool once it listens to its signal (one per session). */
let waitRuns = latch();

type Message = Record<string, unknown>;

/** One session's messages as the client saw them, with or without the lane. */
async function session(lane: boolean): Promise<string[]> {
  waitRuns = latch();
  const server = new Server({ name: "lane", version: "1" });
  exportTools(server, ...tools);
  const [client, serverEnd] = InMemoryTransport.createLinkedPair();
  const era = new EraTransport(serverEnd, {
    cacheHints: resolveCacheHints(undefined, "test"),
    oneClient: true,
  });
  await server.connect(lane ? new ToolsLane(era, server) : era);
  const seen: string[] = [];
  const waiting = new Map<unknown, (m: Message) => void>();
  client.onmessage = (message) => {
    const m = message as Message;
    seen.push(JSON.stringify(m));
    if (m.method === "elicitation/create") {
      void client.send({
        jsonrpc: "2.0",
        id: m.id as number,
        result: { action: "accept", content: { pick: "blue" } },
      });
      return;
    }
    if (m.method === undefined) waiting.get(m.id)?.(m);
  };
  await client.start();
  let next = 0;
  const ask = (method: string, params?: Message): Promise<Message> => {
    const id = ++next;
    const answered = new Promise<Message>((resolve, reject) => {
      waiting.set(id, resolve);
      setTimeout(() => reject(new Error(`no answer to ${method}`)), DEADLINE);
    });
    void client.send({ jsonrpc: "2.0", id, method, params });
    return answered;
  };
  await ask("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: {} },
    clientInfo: { name: "t", version: "1" },
  });
  await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await ask("tools/list", {});
  await ask("tools/list");
  for (
    const params of [
      { name: "echo", arguments: { text: "hi" } },
      { name: "echo", arguments: { text: 5 } },
      { name: "echo", arguments: [1] },
      { name: "echo" },
      { name: "nope", arguments: {} },
      { name: "liar", arguments: {} },
      { name: "boom" },
      { name: "steps", _meta: { progressToken: "p" } },
      { name: "ask" },
      {
        name: "echo",
        arguments: { text: "modern" },
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "t", version: "1" },
        },
      },
    ]
  ) await ask("tools/call", params);
  // A cancelled call: no answer, the tool sees the reason.
  const id = ++next;
  await client.send({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "wait" },
  });
  await within(waitRuns.promise, "the wait tool runs", {
    signal: AbortSignal.timeout(DEADLINE),
  });
  await client.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "enough" },
  });
  await waitFor(() => reasons.length > 0, "the tool sees the reason", {
    signal: AbortSignal.timeout(DEADLINE),
  }).catch(() => {}); // the caller asserts on what was seen
  await ask("tools/call", { name: "echo", arguments: { text: "after" } });
  await client.close();
  return seen;
}

Deno.test("stdio lane: a session's messages are the same with the lane and without it", async () => {
  reasons.length = 0;
  const fast = await session(true);
  const fastReasons = reasons.splice(0);
  const full = await session(false);
  assert.deepEqual(fastReasons, ["enough"]);
  assert.deepEqual(reasons, fastReasons);
  assert.ok(fast.some((m) => m.includes('"method":"elicitation/create"')));
  assert.ok(fast.some((m) => m.includes('"method":"notifications/progress"')));
  assert.ok(fast.some((m) => m.includes('"resultType":"complete"')));
  assert.equal(fast.length, full.length);
  for (let i = 0; i < fast.length; i++) assert.equal(fast[i], full[i]);
});

Deno.test("stdio lane: the lane answers tools/call itself, the Protocol the rest", async () => {
  const server = new Server({ name: "lane", version: "1" });
  exportTools(server, ...tools);
  const [client, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(new ToolsLane(serverEnd, server));
  // What the server's Protocol handles: a tools/call never reaches it.
  const handled: string[] = [];
  const protocolSide = server.transport!;
  const onmessage = protocolSide.onmessage!;
  protocolSide.onmessage = (message, extra) => {
    handled.push((message as Message).method as string);
    onmessage(message, extra);
  };
  const answers: Message[] = [];
  client.onmessage = (m) => void answers.push(m as Message);
  await client.start();
  await client.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await client.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x" } },
  });
  await waitFor(() => answers.length >= 2, "two answers", {
    signal: AbortSignal.timeout(DEADLINE),
  }).catch(() => {}); // asserted below
  assert.deepEqual(handled, ["ping"]);
  assert.equal(answers.length, 2);
  await client.close();
});
