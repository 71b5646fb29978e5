import assert from "node:assert/strict";
import { z } from "zod";
import {
  Agent,
  type Model,
  RunError,
  type RunEvent,
  subagent,
  ToolError,
} from "../mod.ts";
import { type ModelEvent, runSubagent, type ToolResultPart } from "../core.ts";
import { rawTool } from "../src/core/tool.ts";
import { callTools, fail, say, script, submit } from "../testing.ts";

const PINNED_SCHEMA =
  '{"type":"object","properties":{"prompt":{"type":"string","description":"The task, stated in full: the agent sees only this prompt, not the conversation."}},"required":["prompt"]}';

function delegate(name: string, prompt: string): ReturnType<typeof callTools> {
  return callTools({ name, args: { prompt } });
}

function toolResult(
  messages: readonly { role: string; content: readonly unknown[] }[],
  index = 2,
): ToolResultPart {
  assert.equal(messages[index].role, "tool");
  return messages[index].content[0] as ToolResultPart;
}

async function invokeError(promise: Promise<string>): Promise<ToolError> {
  const err = await promise.then(
    () => assert.fail("expected a ToolError"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ToolError, `expected ToolError, got ${err}`);
  return err;
}

Deno.test("the subagent's input schema is the pinned document, byte for byte", () => {
  const research = new Agent(script(), { name: "research" });
  const t = subagent(research, "Researches.");
  assert.equal(JSON.stringify(t.inputSchema), PINNED_SCHEMA);
  assert.equal(JSON.stringify(t.inputSchema.raw), PINNED_SCHEMA);
  assert.equal(t.outputSchema, undefined);
  assert.equal(t.description, "Researches.");
});

Deno.test("the tool name defaults to the agent's, options.name overrides, no name at all throws TypeError", () => {
  const named = new Agent(script(), { name: "research" });
  assert.equal(subagent(named, "d").name, "research");
  assert.equal(
    subagent(named, "d", { name: "deep_research" }).name,
    "deep_research",
  );
  assert.throws(
    () => subagent(new Agent(script()), "d"),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "weft: subagent needs a name: name the agent or pass options.name",
  );
  assert.throws(
    () => subagent(undefined as unknown as Agent, "d", { name: "research" }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        'subagent(agent, description): agent is required (tool "research")',
  );
  assert.equal(subagent(new Agent(script()), "d", { name: "x" }).name, "x");
});

Deno.test("origin defaults to subagent; tool options apply", () => {
  const a = new Agent(script(), { name: "a" });
  assert.equal(subagent(a, "d").origin, "subagent");
  assert.equal(subagent(a, "d", { origin: "custom" }).origin, "custom");
  const gated = subagent(a, "d", {
    requireApproval: true,
    sequential: true,
    timeout: 5,
    maxResultBytes: 9,
  });
  assert.equal(gated.requiresApproval, true);
  assert.equal(gated.sequential, true);
  assert.equal(gated.timeout, 5);
  assert.equal(gated.maxResultBytes, 9);
});

Deno.test("the child runs on a fresh transcript with only the prompt, and its final text is the result", async () => {
  const childModel = script(say("research done"));
  const child = new Agent(childModel, {
    name: "research",
    instructions: "You research.",
  });
  const parentModel = script(delegate("research", "find deno"), say("thanks"));
  const parent = new Agent(parentModel, {
    tools: [subagent(child, "Researches.")],
  });
  const result = await parent.generate("please research deno");
  assert.equal(toolResult(result.messages).content, "research done");
  assert.equal(toolResult(result.messages).isError, false);
  const [childRequest] = childModel.requests();
  assert.equal(childRequest.system, "You research.");
  assert.deepEqual(childRequest.messages, [{
    role: "user",
    content: [{ type: "text", text: "find deno" }],
  }]);
});

Deno.test("an output child returns its last successful submission's raw argument text verbatim", async () => {
  const child = new Agent(
    script(
      callTools({ name: "submit_output", args: '{"answer": 7}' }),
      callTools({ name: "submit_output", args: '{ "answer" :  "yes" }' }),
    ),
    { name: "answerer", output: z.object({ answer: z.string() }) },
  );
  const t = subagent(child, "Answers.");
  assert.equal(await t.invoke('{"prompt":"q"}'), '{ "answer" :  "yes" }');
});

Deno.test("an output child that never submitted returns its final text", async () => {
  const child = new Agent(script(say("no structured answer")), {
    name: "answerer",
    output: z.object({ answer: z.string() }),
  });
  assert.equal(
    await subagent(child, "d").invoke('{"prompt":"q"}'),
    "no structured answer",
  );
});

Deno.test("an output child's submission flows through the parent loop", async () => {
  const child = new Agent(script(submit({ answer: "yes" })), {
    name: "answerer",
    output: z.object({ answer: z.string() }),
  });
  const parent = new Agent(script(delegate("answerer", "q"), say("ok")), {
    tools: [subagent(child, "d")],
  });
  const result = await parent.generate("go");
  assert.equal(toolResult(result.messages).content, '{"answer":"yes"}');
});

Deno.test("a failed child run is SUBAGENT_FAILED with the child's RunError as cause", async () => {
  const child = new Agent(script(fail(new Error("provider down"))), {
    name: "research",
  });
  const err = await invokeError(subagent(child, "d").invoke('{"prompt":"q"}'));
  assert.equal(
    err.message,
    'SUBAGENT_FAILED: agent "research" failed at step 1: model stream: provider down',
  );
  assert.equal(err.code, "SUBAGENT_FAILED");
  assert.ok(err.cause instanceof RunError);
  assert.equal(err.cause.step, 0);
  // One numbering: the child's own text names the same step.
  assert.equal(
    err.cause.message,
    "weft: run failed at step 1: model stream: provider down",
  );
});

Deno.test("SUBAGENT_FAILED quotes the tool name and the child's step budget failure", async () => {
  const loops = rawTool({ name: "loop", description: "d", run: () => "again" });
  const child = new Agent(
    script(
      callTools({ name: "loop" }),
      callTools({ name: "loop" }),
      callTools({ name: "loop" }),
    ),
    {
      name: "inner",
      tools: [loops],
      maxSteps: 3,
    },
  );
  const parent = new Agent(script(delegate("research", "q"), say("ok")), {
    tools: [subagent(child, "d", { name: "research" })],
  });
  const result = await parent.generate("go");
  assert.deepEqual(toolResult(result.messages), {
    type: "tool_result",
    callId: "call_1",
    name: "research",
    content:
      'SUBAGENT_FAILED: agent "research" failed at step 4: weft: run exceeded the maximum number of steps',
    isError: true,
  });
});

Deno.test("a child ending with parked calls is SUBAGENT_PENDING with the count", async () => {
  const gated = rawTool({
    name: "refund",
    description: "d",
    requireApproval: true,
    run: () => "x",
  });
  const child = new Agent(
    script(callTools({ name: "refund" }, { name: "refund" })),
    {
      name: "billing",
      tools: [gated],
    },
  );
  const err = await invokeError(
    subagent(child, "d").invoke('{"prompt":"refund"}'),
  );
  assert.equal(
    err.message,
    'SUBAGENT_PENDING: agent "billing" ended awaiting approval of 2 call(s)',
  );
});

Deno.test("an agent calling itself is SUBAGENT_CYCLE, refused before any model call", async () => {
  const model = script(delegate("self", "again"), say("done"));
  const tools: ReturnType<typeof subagent>[] = [];
  const agent = new Agent(model, { name: "self", toolSource: () => tools });
  tools.push(subagent(agent, "Calls itself."));
  const result = await agent.generate("go");
  assert.deepEqual(toolResult(result.messages), {
    type: "tool_result",
    callId: "call_1",
    name: "self",
    content:
      'SUBAGENT_CYCLE: agent "self" is already running in this call chain',
    isError: true,
  });
  assert.equal(
    model.requests().length,
    2,
    "the refused child made no model call",
  );
});

Deno.test("an indirect cycle A → B → A is refused at the second A", async () => {
  const aTools: ReturnType<typeof subagent>[] = [];
  const aModel = script(delegate("b", "ask b"), say("a done"));
  const a = new Agent(aModel, { name: "a", toolSource: () => aTools });
  const bModel = script(delegate("a", "ask a"), say("b done"));
  const b = new Agent(bModel, { name: "b", tools: [subagent(a, "A.")] });
  aTools.push(subagent(b, "B."));
  const result = await a.generate("go");
  assert.equal(toolResult(result.messages).content, "b done");
  const bTranscript = bModel.requests()[1].messages;
  assert.equal(
    (bTranscript[2].content[0] as ToolResultPart).content,
    'SUBAGENT_CYCLE: agent "a" is already running in this call chain',
  );
  assert.equal(aModel.requests().length, 2);
});

Deno.test("two separately built agents with equal options are different agents: no cycle", async () => {
  const inner = new Agent(script(say("inner answer")), { name: "same" });
  const outer = new Agent(script(delegate("same", "q"), say("outer done")), {
    name: "same",
    tools: [subagent(inner, "d")],
  });
  const result = await outer.generate("go");
  assert.equal(toolResult(result.messages).content, "inner answer");
});

Deno.test("invoke outside the loop has no lineage, so no cycle", async () => {
  const agent = new Agent(script(say("fine")), { name: "solo" });
  assert.equal(await subagent(agent, "d").invoke('{"prompt":"q"}'), "fine");
});

Deno.test("generate's lineage option is the call chain: an agent on it is refused", async () => {
  const agent = new Agent(script(say("never")), { name: "solo" });
  const err = await invokeError(
    subagent(agent, "d").invoke('{"prompt":"q"}', { lineage: [agent] }),
  );
  assert.equal(err.code, "SUBAGENT_CYCLE");
});

Deno.test("the child runs under the call's signal: a subagent timeout reads the timeout text", async () => {
  let childAborted = false;
  const hanging: Model = {
    stream(_request, { signal }): AsyncIterable<ModelEvent> {
      return (async function* (): AsyncGenerator<ModelEvent> {
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve())
        );
        childAborted = true;
        signal.throwIfAborted();
        yield {
          type: "finish",
          reason: "stop",
          usage: { inputTokens: 0, outputTokens: 0 },
        };
      })();
    },
  };
  const child = new Agent(hanging, { name: "research" });
  const parent = new Agent(script(delegate("research", "q"), say("ok")), {
    tools: [subagent(child, "d", { timeout: 50 })],
  });
  const result = await parent.generate("go");
  assert.equal(
    toolResult(result.messages).content,
    'tool "research" timed out after 50ms',
  );
  assert.equal(childAborted, true);
});

Deno.test("a missing prompt is INVALID_INPUT; empty arguments read as {}", async () => {
  const t = subagent(new Agent(script(), { name: "research" }), "d");
  const err = await invokeError(t.invoke(""));
  assert.equal(
    err.message,
    'INVALID_INPUT: tool "research": missing required field "prompt"',
  );
  const wrong = await invokeError(t.invoke('{"prompt":3}'));
  assert.equal(
    wrong.message,
    'INVALID_INPUT: tool "research": field "prompt": expected string, got number',
  );
});

Deno.test("runSubagent's onEvent observes the child run's events", async () => {
  const events: RunEvent[] = [];
  const child = new Agent(script(say("hi")), { name: "c" });
  const text = await runSubagent(child, "q", {
    onEvent: (e) => events.push(e),
  });
  assert.equal(text, "hi");
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "step_start",
    "text_delta",
    "step_finish",
    "run_finish",
  ]);
});

Deno.test("cancelling the parent run cancels the child", async () => {
  const controller = new AbortController();
  const reason = new Error("parent stopped");
  let childSawAbort: unknown;
  const childModel: Model = {
    stream(_request, { signal }): AsyncIterable<ModelEvent> {
      return (async function* (): AsyncGenerator<ModelEvent> {
        controller.abort(reason);
        childSawAbort = signal.aborted ? signal.reason : undefined;
        signal.throwIfAborted();
        yield {
          type: "finish",
          reason: "stop",
          usage: { inputTokens: 0, outputTokens: 0 },
        };
      })();
    },
  };
  const child = new Agent(childModel, { name: "research" });
  const parent = new Agent(script(delegate("research", "q"), say("never")), {
    tools: [subagent(child, "d")],
  });
  const err = await parent.generate("go", { signal: controller.signal }).catch((
    e: unknown,
  ) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.cause, reason);
  assert.equal(childSawAbort, reason);
});
