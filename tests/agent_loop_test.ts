import assert from "node:assert/strict";
import { Agent, type Model, RunError, type RunEvent } from "../mod.ts";
import {
  MaxStepsError,
  type ModelEvent,
  type ToolMiddleware,
} from "../core.ts";
import { rawTool } from "../src/core/tool.ts";
import {
  callTools,
  maxTokens,
  raw,
  say,
  script,
  submit,
  think,
} from "../testing.ts";
import { z } from "zod";

const usage = { inputTokens: 10, outputTokens: 5 };

function echo(name = "echo"): ReturnType<typeof rawTool> {
  return rawTool({
    name,
    description: `The ${name} tool.`,
    run: (args) => `${name}:${args}`,
  });
}

async function rejection(promise: Promise<unknown>): Promise<RunError> {
  const err = await promise.then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RunError, `expected RunError, got ${err}`);
  return err;
}

Deno.test("a run without calls ends after one step with the model's text", async () => {
  const result = await new Agent(script(say("hello"))).generate("hi");
  assert.equal(result.text, "hello");
  assert.deepEqual(result.messages, [
    { role: "user", content: [{ type: "text", text: "hi" }] },
    { role: "assistant", content: [{ type: "text", text: "hello" }] },
  ]);
  assert.equal(result.steps.length, 1);
  assert.equal(result.stopReason, "stop");
  assert.deepEqual(result.usage, usage);
  assert.deepEqual(result.pending, []);
  assert.equal(result.output, undefined);
  assert.match(result.id, /^[0-9a-f]{32}$/);
});

Deno.test("usage is summed over the steps and each step keeps its own", async () => {
  const agent = new Agent(script(callTools({ name: "echo" }), say("done")), {
    tools: [echo()],
  });
  const result = await agent.generate("go");
  assert.deepEqual(result.usage, { inputTokens: 20, outputTokens: 10 });
  assert.deepEqual(result.steps.map((s) => s.usage), [usage, usage]);
  assert.deepEqual(result.steps.map((s) => s.stopReason), [
    "tool_calls",
    "stop",
  ]);
  assert.equal(result.steps[0].toolCalls[0].name, "echo");
  assert.deepEqual(result.steps[0].results, [
    {
      type: "tool_result",
      callId: "call_1",
      name: "echo",
      content: "echo:{}",
      isError: false,
    },
  ]);
});

Deno.test("the transcript holds one assistant message (reasoning, text, calls) and one tool message per step", async () => {
  const turn = think(
    "let me see",
    callTools({ name: "echo", args: { a: 1 } }, { name: "echo", id: "x" }),
  );
  const agent = new Agent(script(turn, say("done")), { tools: [echo()] });
  const result = await agent.generate("go");
  assert.deepEqual(result.messages[1], {
    role: "assistant",
    content: [
      { type: "reasoning", text: "let me see" },
      { type: "tool_call", id: "call_1", name: "echo", args: '{"a":1}' },
      { type: "tool_call", id: "x", name: "echo", args: "{}" },
    ],
  });
  assert.deepEqual(result.messages[2], {
    role: "tool",
    content: [
      {
        type: "tool_result",
        callId: "call_1",
        name: "echo",
        content: 'echo:{"a":1}',
        isError: false,
      },
      {
        type: "tool_result",
        callId: "x",
        name: "echo",
        content: "echo:{}",
        isError: false,
      },
    ],
  });
  assert.equal(result.text, "done");
});

Deno.test("RunResult.text is empty when the last assistant message held only calls", async () => {
  const agent = new Agent(script(submit({ answer: "yes" })), {
    output: z.object({ answer: z.string() }),
  });
  const result = await agent.generate("go");
  assert.equal(result.text, "");
});

Deno.test("the request carries system text, transcript copy, tools with the schema whole, sequentialTools", async () => {
  const doc = {
    type: "object",
    properties: { q: { type: "string", enum: ["a", "b"] } },
    required: ["q"],
  };
  const search = rawTool({
    name: "search",
    description: "Searches.",
    inputSchema: doc,
    run: () => "found",
  });
  const model = script(
    callTools({ name: "search", args: { q: "a" } }),
    say("done"),
  );
  await new Agent(model, { instructions: "Be brief.", tools: [search] })
    .generate("find a");
  const [first, second] = model.requests();
  assert.equal(first.system, "Be brief.");
  assert.equal(first.sequentialTools, false);
  assert.equal(first.tools.length, 1);
  assert.equal(first.tools[0].name, "search");
  assert.equal(first.tools[0].description, "Searches.");
  assert.deepEqual(first.tools[0].inputSchema.raw, doc);
  assert.equal(JSON.stringify(first.tools[0].inputSchema), JSON.stringify(doc));
  assert.equal(
    first.messages.length,
    1,
    "each request has its own copy of the transcript",
  );
  assert.deepEqual(second.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
  ]);
});

Deno.test("parallelism 1 asks the provider for sequential tools", async () => {
  const model = script(say("ok"));
  await new Agent(model, { parallelism: 1 }).generate("go");
  assert.equal(model.requests()[0].sequentialTools, true);
});

Deno.test("exceeding maxSteps is a RunError at step maxSteps with the transcript on its result", async () => {
  let ran = 0;
  const counted = rawTool({
    name: "echo",
    description: "d",
    run: () => `ran ${++ran}`,
  });
  const model = script(
    callTools({ name: "echo" }),
    callTools({ name: "echo" }),
    say("never"),
  );
  const err = await rejection(
    new Agent(model, { tools: [counted], maxSteps: 2 }).generate("go"),
  );
  assert.equal(err.step, 2);
  assert.ok(err.cause instanceof MaxStepsError);
  assert.equal(
    err.message,
    "weft: run failed at step 3: run exceeded the maximum number of steps",
  );
  assert.equal(ran, 2, "the last allowed step's calls did execute");
  assert.equal(err.result.steps.length, 2);
  assert.equal(err.result.messages.length, 5);
  const last = err.result.messages[4].content[0];
  assert.equal(last.type === "tool_result" && last.content, "ran 2");
  assert.equal(model.requests().length, 2);
});

Deno.test("maxSteps defaults to 10 and values below 1 are ignored", async () => {
  for (const maxSteps of [undefined, 0, -3]) {
    const turns = Array.from({ length: 11 }, () => callTools({ name: "echo" }));
    const err = await rejection(
      new Agent(script(...turns), { tools: [echo()], maxSteps }).generate("go"),
    );
    assert.equal(err.step, 10, `maxSteps ${maxSteps}`);
  }
});

Deno.test("a max_tokens step with calls fails every call unexecuted, without events, and the loop continues", async () => {
  let ran = 0;
  const counted = rawTool({
    name: "echo",
    description: "d",
    run: () => `ran ${++ran}`,
  });
  const events: RunEvent[] = [];
  const truncated = raw(
    { type: "tool_call", id: "a", name: "echo", args: "{}" },
    { type: "tool_call", id: "b", name: "missing", args: "{" },
    { type: "finish", reason: "max_tokens", usage },
  );
  const agent = new Agent(script(truncated, say("done")), {
    tools: [counted],
    onEvent: (e) => events.push(e),
  });
  const result = await agent.generate("go");
  assert.equal(ran, 0);
  assert.deepEqual(result.messages[2].content, [
    {
      type: "tool_result",
      callId: "a",
      name: "echo",
      content:
        "tool call echo was not executed: the response hit the output token limit",
      isError: true,
    },
    {
      type: "tool_result",
      callId: "b",
      name: "missing",
      content:
        "tool call missing was not executed: the response hit the output token limit",
      isError: true,
    },
  ]);
  assert.equal(
    events.filter((e) => e.type === "tool_start" || e.type === "tool_finish")
      .length,
    0,
  );
  assert.equal(result.text, "done");
  assert.equal(result.steps.length, 2);
});

Deno.test("a max_tokens step without calls ends the run", async () => {
  const result = await new Agent(script(maxTokens("cut sh"))).generate("go");
  assert.equal(result.text, "cut sh");
  assert.equal(result.stopReason, "max_tokens");
});

Deno.test("an unknown tool reads NO_SUCH_TOOL, runs the agent middleware and has both events", async () => {
  const seen: string[] = [];
  const watch: ToolMiddleware = (next) => (call, ctx) => {
    seen.push(call.name);
    return next(call, ctx);
  };
  const events: RunEvent[] = [];
  const agent = new Agent(script(callTools({ name: "missing" }), say("ok")), {
    wrapTools: [watch],
    onEvent: (e) => events.push(e),
  });
  const result = await agent.generate("go");
  assert.deepEqual(seen, ["missing"]);
  assert.deepEqual(result.messages[2].content[0], {
    type: "tool_result",
    callId: "call_1",
    name: "missing",
    content: 'NO_SUCH_TOOL: no tool named "missing"',
    isError: true,
  });
  const tools = events.filter((e) =>
    e.type === "tool_start" || e.type === "tool_finish"
  );
  assert.deepEqual(tools.map((e) => e.type), ["tool_start", "tool_finish"]);
});

Deno.test("events: run, steps, deltas and tools in order, with per-run tool sequence numbers", async () => {
  const agentEvents: RunEvent[] = [];
  const runEvents: RunEvent[] = [];
  const model = script(think("hmm", callTools({ name: "echo" })), say("done"));
  const agent = new Agent(model, {
    name: "helper",
    tools: [echo()],
    onEvent: (e) => agentEvents.push(e),
  });
  const result = await agent.generate("go", {
    runId: "run-1",
    onEvent: (e) => runEvents.push(e),
  });
  const runId = "run-1";
  assert.equal(result.id, runId);
  assert.deepEqual(agentEvents, [
    {
      type: "run_start",
      runId,
      agent: "helper",
      model: { provider: "@weft/mcp/testing", name: "script" },
    },
    { type: "step_start", runId, index: 0 },
    { type: "reasoning_delta", runId, text: "hmm" },
    {
      type: "tool_start",
      runId,
      seq: 1,
      callId: "call_1",
      name: "echo",
      args: "{}",
    },
    {
      type: "tool_finish",
      runId,
      seq: 2,
      callId: "call_1",
      name: "echo",
      content: "echo:{}",
      isError: false,
    },
    { type: "step_finish", runId, index: 0, reason: "tool_calls", usage },
    { type: "step_start", runId, index: 1 },
    { type: "text_delta", runId, text: "done" },
    { type: "step_finish", runId, index: 1, reason: "stop", usage },
    {
      type: "run_finish",
      runId,
      usage: { inputTokens: 20, outputTokens: 10 },
      steps: 2,
    },
  ]);
  assert.deepEqual(
    runEvents,
    agentEvents,
    "the per-run onEvent sees the same events",
  );
});

Deno.test("an observer that throws does not break the run", async () => {
  const agent = new Agent(script(say("fine")), {
    onEvent: () => {
      throw new Error("observer bug");
    },
  });
  assert.equal((await agent.generate("go")).text, "fine");
});

Deno.test("a run cancelled before it starts fails at step 1 (index 0) with the signal's reason as cause", async () => {
  const reason = new Error("caller gave up");
  const model = script(say("never"));
  const err = await rejection(
    new Agent(model).generate("go", { signal: AbortSignal.abort(reason) }),
  );
  assert.equal(err.step, 0);
  assert.equal(err.cause, reason);
  assert.equal(err.message, "weft: run failed at step 1: caller gave up");
  assert.equal(model.requests().length, 0);
});

Deno.test("cancelling during a model stream that ignores the signal fails the run promptly", async () => {
  const controller = new AbortController();
  const reason = new Error("stop");
  const stuck: Model = {
    async *stream(): AsyncGenerator<ModelEvent> {
      controller.abort(reason);
      await new Promise(() => {});
      yield { type: "text", text: "never" };
    },
  };
  const err = await rejection(
    new Agent(stuck).generate("go", { signal: controller.signal }),
  );
  assert.equal(err.cause, reason);
  assert.equal(err.step, 0);
});

Deno.test("cancellation during a step's calls wins over the step budget and nothing is delivered after it", async () => {
  const controller = new AbortController();
  const reason = new Error("cancelled mid-call");
  const events: RunEvent[] = [];
  const waits = rawTool({
    name: "wait",
    description: "Waits for cancellation.",
    run: (_args, ctx) =>
      new Promise<string>((_resolve, reject) => {
        controller.abort(reason);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      }),
  });
  const agent = new Agent(script(callTools({ name: "wait" })), {
    tools: [waits],
    maxSteps: 1,
    onEvent: (e) => events.push(e),
  });
  const err = await rejection(
    agent.generate("go", { signal: controller.signal }),
  );
  assert.equal(err.cause, reason, "not MaxStepsError");
  assert.equal(err.step, 0);
  const result = err.result.messages[2].content[0];
  assert.deepEqual(result, {
    type: "tool_result",
    callId: "call_1",
    name: "wait",
    content: "cancelled mid-call",
    isError: true,
  });
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "step_start",
    "tool_start",
  ]);
});

Deno.test("the run's id can be given; generate's lineage and onEvent are per run", async () => {
  const model = script(say("a"), say("b"));
  const agent = new Agent(model);
  const seen: string[] = [];
  await agent.generate("one", { onEvent: (e) => seen.push(`1:${e.type}`) });
  await agent.generate("two", {
    onEvent: (e) => seen.push(`2:${e.type}`),
    lineage: [],
  });
  assert.ok(seen.includes("1:run_finish") && seen.includes("2:run_finish"));
  assert.equal(
    seen.filter((s) => s.startsWith("1:")).length,
    seen.filter((s) => s.startsWith("2:")).length,
  );
});
