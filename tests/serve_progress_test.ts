/**
 * serveAgent progress and cancellation (beyond the Go original; ADR 0033):
 * a tools/call with a progress token gets one notifications/progress per
 * finished tool call or step of the child run, before the result; the
 * client's cancellation aborts the child run. Over the SDK's real Client.
 */

import assert from "node:assert/strict";
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "../src/core/agent.ts";
import type { RunEvent } from "../src/core/events.ts";
import { rawTool, tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { progressMessage } from "../src/bridge/_progress.ts";
import { serveAgent } from "../src/bridge/serve.ts";
import { callTools, say, script } from "../testing.ts";
import { connected, onlyText } from "./_helpers/export_pair.ts";
import { quietFor } from "./_helpers/wait.ts";

const lookupOrder = tool({
  name: "lookup_order",
  description: "Look up an order by ID.",
  input: z.object({ order_id: z.string() }),
  run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
});

function progressNotes(pair: { fromServer: unknown[] }): unknown[] {
  return pair.fromServer.filter((m) =>
    (m as { method?: string }).method === "notifications/progress"
  );
}

Deno.test("progress: one notification per finished call and step, in order, all before the result", async () => {
  const broken = rawTool({
    name: "broken",
    description: "",
    run: () => Promise.reject(new Error("down")),
  });
  const model = script(
    callTools({ name: "lookup_order", args: { order_id: "1234" } }, {
      name: "broken",
    }),
    say("Order 1234 shipped and is on its way."),
  );
  await using pair = await connected((server) =>
    serveAgent(
      server,
      new Agent(model, {
        name: "support",
        tools: [lookupOrder, broken],
        parallelism: 1,
      }),
      "d",
    )
  );
  const seen: Progress[] = [];
  const res = await pair.client.callTool(
    { name: "support", arguments: { prompt: "Where is order 1234?" } },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  assert.equal(onlyText(res as never), "Order 1234 shipped and is on its way.");
  assert.deepEqual(seen, [
    { progress: 1, message: 'tool "lookup_order" finished' },
    { progress: 2, message: 'tool "broken" failed' },
    { progress: 3, message: "step 1 finished" },
    { progress: 4, message: "step 2 finished" },
  ]);
  // On the wire: every notification precedes the response, and carries the client's token.
  const lastNote = pair.fromServer.findLastIndex((m) =>
    (m as { method?: string }).method === "notifications/progress"
  );
  const response = pair.fromServer.findLastIndex((m) => "result" in m);
  assert.ok(lastNote < response);
  const tokens = new Set(
    progressNotes(pair).map((m) =>
      (m as { params: { progressToken: unknown } }).params.progressToken
    ),
  );
  assert.equal(tokens.size, 1);
});

Deno.test("progress: parallel calls in one step are still strictly increasing", async () => {
  const model = script(
    callTools(
      { name: "lookup_order", args: { order_id: "1" } },
      { name: "lookup_order", args: { order_id: "2" } },
      { name: "lookup_order", args: { order_id: "3" } },
    ),
    say("three orders"),
  );
  await using pair = await connected((server) =>
    serveAgent(
      server,
      new Agent(model, { name: "support", tools: [lookupOrder] }),
      "d",
    )
  );
  const seen: number[] = [];
  await pair.client.callTool(
    { name: "support", arguments: { prompt: "go" } },
    undefined,
    {
      onprogress: (p) => seen.push(p.progress),
    },
  );
  assert.deepEqual(seen, [1, 2, 3, 4, 5]);
});

Deno.test("progress: none without a progress token, and none for plain tools", async () => {
  const model = script(
    callTools({ name: "lookup_order", args: { order_id: "1" } }),
    say("done"),
  );
  await using pair = await connected((server) => {
    serveAgent(
      server,
      new Agent(model, { name: "support", tools: [lookupOrder] }),
      "d",
    );
    exportTools(
      server,
      rawTool({ name: "plain", description: "", run: () => "plain" }),
    );
  });
  await pair.client.callTool({ name: "support", arguments: { prompt: "go" } });
  await pair.client.callTool(
    { name: "lookup_order", arguments: { order_id: "2" } },
    undefined,
    { onprogress: () => {} },
  );
  await pair.client.callTool({ name: "plain", arguments: {} }, undefined, {
    onprogress: () => {},
  });
  assert.equal(progressNotes(pair).length, 0);
});

Deno.test("progress: the client's cancellation aborts the child run", async () => {
  const started = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<unknown>();
  const events: RunEvent["type"][] = [];
  const waits = rawTool({
    name: "waits",
    description: "",
    run: (_args, ctx) => {
      started.resolve();
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
    },
  });
  const model = script(callTools({ name: "waits" }), say("never reached"));
  const agent = new Agent(model, {
    name: "support",
    tools: [waits],
    onEvent: (e) => events.push(e.type),
  });
  await using pair = await connected((server) =>
    serveAgent(server, agent, "d")
  );
  const controller = new AbortController();
  const call = pair.client.callTool(
    { name: "support", arguments: { prompt: "go" } },
    undefined,
    {
      signal: controller.signal,
      onprogress: () => {},
    },
  );
  await started.promise;
  controller.abort(new Error("user gave up"));
  await assert.rejects(call);
  assert.notEqual(await aborted.promise, undefined);
  await quietFor(20, "the cancelled child run makes no further model call");
  assert.equal(
    model.requests().length,
    1,
    "the child run made no further model call",
  );
  assert.equal(events.includes("run_finish"), false);
  assert.equal(
    pair.fromServer.filter((m) => "result" in m).length,
    1,
    "only initialize was answered",
  );
});

Deno.test("progress messages: tool finished/failed, step N finished, nothing else", () => {
  const base = { runId: "r", seq: 1, callId: "c", name: "x" };
  assert.equal(
    progressMessage({
      type: "tool_finish",
      ...base,
      content: "",
      isError: false,
    }),
    'tool "x" finished',
  );
  assert.equal(
    progressMessage({
      type: "tool_finish",
      ...base,
      content: "",
      isError: true,
    }),
    'tool "x" failed',
  );
  assert.equal(
    progressMessage({
      type: "step_finish",
      runId: "r",
      index: 0,
      reason: "stop",
      usage: { inputTokens: 0, outputTokens: 0 },
    }),
    "step 1 finished",
  );
  assert.equal(
    progressMessage({ type: "tool_start", ...base, args: "{}" }),
    undefined,
  );
  assert.equal(
    progressMessage({ type: "step_start", runId: "r", index: 0 }),
    undefined,
  );
});
