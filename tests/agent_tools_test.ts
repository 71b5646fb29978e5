import assert from "node:assert/strict";
import { z } from "zod";
import {
  Agent,
  type Model,
  RunError,
  type RunEvent,
  type ToolDef,
} from "../mod.ts";
import {
  ApprovalRequiredError,
  DuplicateToolError,
  InvalidInputError,
  MissingToolError,
  NoSuchToolError,
  type ToolMiddleware,
  type ToolResultPart,
} from "../core.ts";
import { rawTool, tool } from "../src/core/tool.ts";
import { callTools, say, script, submit } from "../testing.ts";

function echo(
  name: string,
  options: { timeout?: number; maxResultBytes?: number } = {},
): ToolDef {
  return rawTool({
    name,
    description: `The ${name} tool.`,
    run: (args) => `${name}:${args}`,
    ...options,
  });
}

function lastResults(
  messages: readonly { role: string; content: readonly unknown[] }[],
): ToolResultPart[] {
  const tool = messages.findLast((m) => m.role === "tool");
  assert.ok(tool, "a tool message");
  return tool.content as ToolResultPart[];
}

const search = tool({
  name: "search",
  description: "Searches.",
  input: z.object({ q: z.string() }),
  run: ({ q }) => `found ${q}`,
});

Deno.test("duplicate tool names throw TypeError at construction", () => {
  assert.throws(
    () => new Agent(script(), { tools: [echo("a"), echo("b"), echo("a")] }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message === 'weft: duplicate tool name "a"',
  );
});

Deno.test("agent.tools is the registered list, in order, not the toolSource's", () => {
  const a = echo("a");
  const b = echo("b");
  const agent = new Agent(script(), {
    name: "n",
    tools: [a, b],
    toolSource: () => [echo("c")],
  });
  assert.deepEqual(agent.tools.map((t) => t.name), ["a", "b"]);
  assert.equal(agent.tools[0], a);
  assert.equal(agent.name, "n");
  assert.ok(Object.isFrozen(agent.tools));
});

Deno.test("toolSource is fetched once per step and advertised after the registered tools", async () => {
  let fetches = 0;
  const model = script(
    callTools({ name: "dyn" }),
    callTools({ name: "dyn" }),
    say("done"),
  );
  const agent = new Agent(model, {
    tools: [echo("static")],
    toolSource: () => {
      fetches++;
      return [echo("dyn")];
    },
  });
  const result = await agent.generate("go");
  assert.equal(fetches, 3);
  assert.deepEqual(model.requests()[0].tools.map((t) => t.name), [
    "static",
    "dyn",
  ]);
  assert.equal(lastResults(result.messages)[0].content, "dyn:{}");
});

Deno.test("the step's snapshot decides dispatch: a tool gone from the source is unknown", async () => {
  let step = 0;
  const model = script(
    callTools({ name: "once" }),
    callTools({ name: "once" }),
    say("done"),
  );
  const agent = new Agent(model, {
    toolSource: () => (step++ === 0 ? [echo("once")] : []),
  });
  const result = await agent.generate("go");
  assert.equal(
    (result.messages[2].content[0] as ToolResultPart).content,
    "once:{}",
  );
  assert.equal(
    (result.messages[4].content[0] as ToolResultPart).content,
    'NO_SUCH_TOOL: no tool named "once"',
  );
});

Deno.test("a toolSource snapshot with a duplicate name fails the run with DuplicateToolError", async () => {
  let step = 0;
  const model = script(callTools({ name: "a" }), say("never"));
  const agent = new Agent(model, {
    tools: [echo("a")],
    toolSource: () => (step++ === 0 ? [] : [echo("a")]),
  });
  const err = await agent.generate("go").catch((e: unknown) => e);
  assert.ok(err instanceof RunError);
  assert.ok(err.cause instanceof DuplicateToolError);
  assert.equal(err.step, 1);
  assert.equal(
    err.message,
    'weft: run failed at step 2: duplicate tool name from tool source: "a"',
  );
});

Deno.test("a toolSource snapshot with a missing entry fails the run with MissingToolError", async () => {
  const agent = new Agent(script(say("never")), {
    toolSource: () => [echo("a"), undefined],
  });
  const err = await agent.generate("go").catch((e: unknown) => e);
  assert.ok(err instanceof RunError);
  assert.ok(err.cause instanceof MissingToolError);
  assert.equal(
    err.message,
    "weft: run failed at step 1: toolSource returned null or undefined at entry 1",
  );
});

Deno.test("output: submit_output is registered last with the pinned description and answers recorded", async () => {
  const agent = new Agent(script(submit({ answer: "yes" }), say("never")), {
    tools: [echo("a")],
    output: z.object({ answer: z.string() }),
  });
  assert.deepEqual(agent.tools.map((t) => t.name), ["a", "submit_output"]);
  const submitTool = agent.tools[1];
  assert.equal(
    submitTool.description,
    "Submit your final answer. Call this exactly once, when you are done: the run ends with it.",
  );
  const result = await agent.generate("go");
  assert.deepEqual(result.output, { answer: "yes" });
  assert.equal(lastResults(result.messages)[0].content, "recorded");
  assert.equal(
    result.steps.length,
    1,
    "the run ends after the step where submit_output succeeded",
  );
});

Deno.test("output: a refused submission does not end the run; the last successful one is the output", async () => {
  const model = script(
    submit({ answer: 42 }),
    callTools({ name: "submit_output", args: { answer: "first" } }),
    say("never"),
  );
  const agent = new Agent(model, { output: z.object({ answer: z.string() }) });
  const result = await agent.generate("go");
  assert.equal(result.steps.length, 2);
  assert.equal(
    (result.messages[2].content[0] as ToolResultPart).content,
    'INVALID_INPUT: tool "submit_output": field "answer": expected string, got number',
  );
  assert.deepEqual(result.output, { answer: "first" });
});

Deno.test("output: the reserved name collides as a duplicate", () => {
  assert.throws(
    () =>
      new Agent(script(), {
        tools: [echo("submit_output")],
        output: z.object({ a: z.string() }),
      }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message === 'weft: duplicate tool name "submit_output"',
  );
});

Deno.test("agent-level strictInput applies to typed tools in the loop", async () => {
  const model = script(
    callTools({ name: "search", args: { q: "x", extra: 1 } }),
    say("ok"),
  );
  const result = await new Agent(model, { tools: [search], strictInput: true })
    .generate("go");
  assert.equal(
    lastResults(result.messages)[0].content,
    'INVALID_INPUT: tool "search": unknown field "extra": not in the schema',
  );
  const lenient = await new Agent(
    script(
      callTools({ name: "search", args: { q: "x", extra: 1 } }),
      say("ok"),
    ),
    {
      tools: [search],
    },
  ).generate("go");
  assert.equal(lastResults(lenient.messages)[0].content, "found x");
});

Deno.test("callTool runs the chain: agent middleware, tool middleware, handler; middleware sees the id", async () => {
  const log: string[] = [];
  const tag = (label: string): ToolMiddleware => (next) => (call, ctx) => {
    log.push(`${label}:${call.id}:${call.name}`);
    return next(call, ctx);
  };
  const t = rawTool({
    name: "t",
    description: "d",
    wrap: [tag("tool")],
    run: (args) => `got ${args}`,
  });
  const agent = new Agent(script(), { tools: [t], wrapTools: [tag("agent")] });
  assert.equal(
    await agent.callTool("t", '{"a":1}', { id: "mcp_call_1" }),
    'got {"a":1}',
  );
  assert.equal(await agent.callTool("t", "{}"), "got {}");
  assert.deepEqual(log, [
    "agent:mcp_call_1:t",
    "tool:mcp_call_1:t",
    "agent::t",
    "tool::t",
  ]);
});

Deno.test("callTool: unknown tool is NoSuchToolError, still through the agent middleware", async () => {
  const seen: string[] = [];
  const agent = new Agent(script(), {
    wrapTools: [(next) => (call, ctx) => {
      seen.push(call.name);
      return next(call, ctx);
    }],
  });
  const err = await agent.callTool("nope", "{}").catch((e: unknown) => e);
  assert.ok(err instanceof NoSuchToolError);
  assert.equal(err.message, 'NO_SUCH_TOOL: no tool named "nope"');
  assert.deepEqual(seen, ["nope"]);
});

Deno.test("callTool refuses an approval-gated tool", async () => {
  let ran = false;
  const refund = rawTool({
    name: "refund",
    description: "d",
    requireApproval: true,
    run: () => {
      ran = true;
      return "done";
    },
  });
  const err = await new Agent(script(), { tools: [refund] }).callTool(
    "refund",
    "{}",
  ).catch((e: unknown) => e);
  assert.ok(err instanceof ApprovalRequiredError);
  assert.equal(err.message, 'weft: tool call requires approval: tool "refund"');
  assert.equal(ran, false);
});

Deno.test("callTool decodes with the agent's or the tool's strictness", async () => {
  const strictTool = tool({
    name: "strict",
    description: "d",
    strictInput: true,
    input: z.object({ q: z.string() }),
    run: ({ q }) => q,
  });
  const lenientAgent = new Agent(script(), { tools: [search, strictTool] });
  assert.equal(
    await lenientAgent.callTool("search", '{"q":"a","x":1}'),
    "found a",
  );
  const err = await lenientAgent.callTool("strict", '{"q":"a","x":1}').catch((
    e: unknown,
  ) => e);
  assert.ok(err instanceof InvalidInputError);
  const strictAgent = new Agent(script(), {
    tools: [search],
    strictInput: true,
  });
  const err2 = await strictAgent.callTool("search", '{"q":"a","x":1}').catch((
    e: unknown,
  ) => e);
  assert.ok(err2 instanceof InvalidInputError);
  assert.equal(
    err2.message,
    'INVALID_INPUT: tool "search": unknown field "x": not in the schema',
  );
});

Deno.test("callTool applies no timeout, no cap, no containment and emits no events", async () => {
  const events: RunEvent[] = [];
  const slow = rawTool({
    name: "slow",
    description: "d",
    timeout: 1,
    maxResultBytes: 4,
    run: () =>
      new Promise((resolve) => setTimeout(() => resolve("x".repeat(100)), 15)),
  });
  const thrower = rawTool({
    name: "thrower",
    description: "d",
    run: () => {
      throw "bang";
    },
  });
  const agent = new Agent(script(), {
    tools: [slow, thrower],
    timeout: 1,
    onEvent: (e) => events.push(e),
  });
  assert.equal(await agent.callTool("slow", "{}"), "x".repeat(100));
  assert.equal(
    await agent.callTool("thrower", "{}").catch((e: unknown) => e),
    "bang",
  );
  assert.deepEqual(events, []);
});

Deno.test("callTool reads a fresh toolSource snapshot per call and fails on a bad one", async () => {
  let version = 0;
  const agent = new Agent(script(), {
    toolSource: () => {
      version++;
      return version === 3 ? [echo("v"), echo("v")] : [echo(`v${version}`)];
    },
  });
  assert.equal(await agent.callTool("v1", "{}"), "v1:{}");
  assert.equal(await agent.callTool("v2", "{}"), "v2:{}");
  const err = await agent.callTool("v", "{}").catch((e: unknown) => e);
  assert.ok(err instanceof DuplicateToolError);
});

Deno.test("callTool passes the signal to the handler", async () => {
  let seen: AbortSignal | undefined;
  const t = rawTool({
    name: "t",
    description: "d",
    run: (_a, ctx) => {
      seen = ctx.signal;
      return "ok";
    },
  });
  const controller = new AbortController();
  await new Agent(script(), { tools: [t] }).callTool("t", "{}", {
    signal: controller.signal,
  });
  controller.abort();
  assert.equal(seen?.aborted, true);
});

Deno.test("construction refuses a missing model or a missing tool with TypeError", () => {
  assert.throws(
    () => new Agent(undefined as unknown as Model),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "new Agent(model): model is required: pass a Model (an object with a stream method)",
  );
  assert.throws(
    () =>
      new Agent(script(), {
        tools: [echo("a"), undefined as unknown as ToolDef],
      }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "new Agent(model, { tools }): tools[1] is undefined; pass a tool built with tool() or rawTool()",
  );
});

Deno.test("a toolSource that returns no array fails the run with TypeError", async () => {
  const agent = new Agent(script(say("never")), {
    toolSource: () => ({}) as unknown as ToolDef[],
  });
  const err = await agent.generate("go").catch((e: unknown) => e);
  assert.ok(err instanceof RunError);
  assert.ok(err.cause instanceof TypeError);
  assert.equal(
    err.message,
    "weft: run failed at step 1: toolSource must return an array of tools",
  );
});

Deno.test("a toolSource that throws fails the run with its error as cause", async () => {
  const boom = new Error("registry offline");
  const agent = new Agent(script(say("never")), {
    toolSource: () => {
      throw boom;
    },
  });
  const err = await agent.generate("go").catch((e: unknown) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.cause, boom);
  assert.equal(err.step, 0);
});
