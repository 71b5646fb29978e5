/**
 * Resume of parked calls (go-core §3.5, §5.3 "before step 0") and
 * conversations continued from `result.messages`.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  Agent,
  approve,
  deny,
  type Message,
  type PendingCall,
  resolve,
  resolveError,
  RunError,
  type RunEvent,
  tool,
  type ToolDef,
} from "../mod.ts";
import {
  ApprovalRequiredError,
  type CallInfo,
  DuplicateDecisionError,
  NO_DECISION,
  NO_RESULT_RECORDED,
  NotPendingError,
  type ToolMiddleware,
  type ToolResultPart,
  userMessage,
} from "../core.ts";
import { callTools, say, script } from "../testing.ts";

/** A gated tool that records how it was called. */
function gated(name = "write_file", seen: CallInfo[] = []): ToolDef {
  return tool({
    name,
    description: "Writes a file.",
    input: z.object({ path: z.string() }),
    requireApproval: true,
    run: ({ path }, ctx) => {
      if (ctx.call) seen.push(ctx.call);
      return `wrote ${path}`;
    },
  });
}

const plain = tool({
  name: "read_file",
  description: "Reads a file.",
  input: z.object({ path: z.string() }),
  run: ({ path }) => `contents of ${path}`,
});

function results(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

/** Runs once to park `write_file` (call_1), reading `read_file` (call_2) beside it. */
async function parkedRun(agent: Agent) {
  const parked = await agent.generate("Write a.txt, read b.txt.");
  assert.deepEqual(parked.pending, [{
    id: "call_1",
    name: "write_file",
    args: '{"path":"a.txt"}',
  }]);
  return parked;
}

function twoCalls() {
  return callTools(
    { name: "write_file", args: { path: "a.txt" } },
    { name: "read_file", args: { path: "b.txt" } },
  );
}

Deno.test("approve: the parked call runs with approved true at step 0, its result joins the step's tool message in call order, the run continues", async () => {
  const seen: CallInfo[] = [];
  const model = script(twoCalls(), say("All done."));
  const agent = new Agent(model, { tools: [gated("write_file", seen), plain] });
  const parked = await parkedRun(agent);
  assert.deepEqual(
    results(parked.messages).map((r) => r.callId),
    ["call_2"],
  );
  assert.equal(seen.length, 0);

  const events: RunEvent[] = [];
  const resumed = await agent.generate(parked.messages, {
    decisions: [approve("call_1")],
    onEvent: (e) => events.push(e),
    runId: "resume-1",
  });
  assert.deepEqual(seen, [{
    runId: "resume-1",
    step: 0,
    callId: "call_1",
    name: "write_file",
    approved: true,
  }]);
  assert.equal(resumed.text, "All done.");
  assert.deepEqual(resumed.pending, []);
  assert.equal(resumed.steps.length, 1);
  // One tool message for the step, results in call order.
  assert.deepEqual(resumed.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.deepEqual(resumed.messages[2].content, [
    {
      type: "tool_result",
      callId: "call_1",
      name: "write_file",
      content: "wrote a.txt",
      isError: false,
    },
    {
      type: "tool_result",
      callId: "call_2",
      name: "read_file",
      content: "contents of b.txt",
      isError: false,
    },
  ]);
  // The model's step 0 reads the joined transcript.
  assert.deepEqual(
    model.requests()[1].messages,
    resumed.messages.slice(0, 3),
  );
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "tool_start",
    "tool_finish",
    "step_start",
    "text_delta",
    "step_finish",
    "run_finish",
  ]);
  const finish = events[2];
  assert.equal(finish.type, "tool_finish");
  assert.equal(finish.content, "wrote a.txt");
});

Deno.test("deny: DENIED: <reason> as an error result, the tool never runs, no tool events", async () => {
  const seen: CallInfo[] = [];
  const agent = new Agent(script(twoCalls(), say("Understood.")), {
    tools: [gated("write_file", seen), plain],
  });
  const parked = await parkedRun(agent);
  const events: RunEvent[] = [];
  const resumed = await agent.generate(parked.messages, {
    decisions: [deny("call_1", "the disk is read-only")],
    onEvent: (e) => events.push(e),
  });
  assert.equal(seen.length, 0);
  assert.deepEqual(results(resumed.messages)[0], {
    type: "tool_result",
    callId: "call_1",
    name: "write_file",
    content: "DENIED: the disk is read-only",
    isError: true,
  });
  assert.ok(!events.some((e) => e.type === "tool_start"));
  assert.equal(resumed.text, "Understood.");
});

Deno.test("deny with an empty reason reads DENIED alone", async () => {
  const agent = new Agent(script(twoCalls(), say("ok")), {
    tools: [gated(), plain],
  });
  const parked = await parkedRun(agent);
  const resumed = await agent.generate(parked.messages, {
    decisions: [deny("call_1", "")],
  });
  assert.equal(results(resumed.messages)[0].content, "DENIED");
});

Deno.test("resolve and resolveError answer without running; undecided calls read DENIED: no decision", async () => {
  const seen: CallInfo[] = [];
  const model = script(
    callTools(
      { name: "a", args: { path: "1" } },
      { name: "b", args: { path: "2" } },
      { name: "c", args: { path: "3" } },
    ),
    say("ok"),
  );
  const agent = new Agent(model, {
    tools: [gated("a", seen), gated("b", seen), gated("c", seen)],
  });
  const parked = await agent.generate("go");
  assert.deepEqual(parked.pending.map((p) => p.id), [
    "call_1",
    "call_2",
    "call_3",
  ]);
  // No tool message at all: every call was parked.
  assert.deepEqual(parked.messages.map((m) => m.role), ["user", "assistant"]);
  const resumed = await agent.generate(parked.messages, {
    decisions: [
      resolveError("call_2", "the printer is out of paper"),
      resolve("call_1", "done by hand"),
    ],
  });
  assert.equal(seen.length, 0);
  assert.equal(NO_DECISION, "DENIED: no decision");
  assert.deepEqual(
    results(resumed.messages).map((r) => [r.callId, r.content, r.isError]),
    [
      ["call_1", "done by hand", false],
      ["call_2", "the printer is out of paper", true],
      ["call_3", "DENIED: no decision", true],
    ],
  );
  assert.deepEqual(resumed.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
});

Deno.test("a decision on a call that is not pending fails the run at step 1 (index 0) before any model call", async (t) => {
  const model = script(twoCalls(), say("never"));
  const agent = new Agent(model, { tools: [gated(), plain] });
  const parked = await parkedRun(agent);
  for (
    const [label, id] of [
      ["an unknown id", "call_9"],
      ["a call that already has a result", "call_2"],
    ]
  ) {
    await t.step(label, async () => {
      const events: RunEvent[] = [];
      const err = await agent.generate(parked.messages, {
        decisions: [approve("call_1"), deny(id, "no")],
        onEvent: (e) => events.push(e),
      }).then(() => assert.fail("resolved"), (e) => e);
      assert.ok(err instanceof RunError);
      assert.equal(err.step, 0);
      assert.ok(err.cause instanceof NotPendingError);
      assert.equal(err.cause.callId, id);
      assert.equal(
        err.cause.message,
        `resolve: call "${id}" is not pending in this run's transcript`,
      );
      assert.equal(
        err.message,
        `weft: run failed at step 1: resolve: call "${id}" is not pending in this run's transcript`,
      );
      assert.deepEqual(events.map((e) => e.type), ["run_start"]);
      assert.deepEqual(err.result.messages, parked.messages);
    });
  }
  assert.equal(model.requests().length, 1);
});

Deno.test("decisions on a transcript with nothing pending: not pending", async () => {
  const agent = new Agent(script(say("never")));
  const err = await agent.generate("plain prompt", {
    decisions: [approve("call_1")],
  }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(err instanceof RunError);
  assert.ok(err.cause instanceof NotPendingError);
});

Deno.test("two decisions for one call fail the run at step 1 (index 0)", async () => {
  const seen: CallInfo[] = [];
  const agent = new Agent(script(twoCalls(), say("never")), {
    tools: [gated("write_file", seen), plain],
  });
  const parked = await parkedRun(agent);
  const err = await agent.generate(parked.messages, {
    decisions: [approve("call_1"), deny("call_1", "changed my mind")],
  }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.step, 0);
  assert.ok(err.cause instanceof DuplicateDecisionError);
  assert.equal(
    err.cause.message,
    'resolve: call "call_1" has more than one decision',
  );
  assert.equal(seen.length, 0);
});

Deno.test("a decision of an unknown type fails the run at step 1 (index 0) with TypeError", async () => {
  const agent = new Agent(script(twoCalls(), say("never")), {
    tools: [gated(), plain],
  });
  const parked = await parkedRun(agent);
  const err = await agent.generate(parked.messages, {
    decisions: [{ type: "maybe", id: "call_1" } as never],
  }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(err instanceof RunError);
  assert.ok(err.cause instanceof TypeError);
  assert.equal(
    err.cause.message,
    'weft: unknown decision type "maybe"; build decisions with approve, deny, resolve, resolveError, answer or resume',
  );
});

Deno.test("without decisions, a parked call is repaired as interrupted and the model runs", async () => {
  const seen: CallInfo[] = [];
  const model = script(twoCalls(), say("I will ask again."));
  const agent = new Agent(model, { tools: [gated("write_file", seen), plain] });
  const parked = await parkedRun(agent);
  const resumed = await agent.generate(parked.messages);
  assert.equal(seen.length, 0);
  assert.equal(
    NO_RESULT_RECORDED,
    "no result recorded: the call was interrupted",
  );
  assert.deepEqual(
    results(resumed.messages).map((r) => [r.callId, r.content, r.isError]),
    [
      ["call_1", "no result recorded: the call was interrupted", true],
      ["call_2", "contents of b.txt", false],
    ],
  );
  assert.deepEqual(model.requests()[1].messages, resumed.messages.slice(0, 3));
});

Deno.test("repair: an earlier step's call without a result gets one, in a tool message right after its call, in call order", async () => {
  const transcript: Message[] = [
    userMessage("start"),
    {
      role: "assistant",
      content: [
        { type: "tool_call", id: "x1", name: "read_file", args: "{}" },
        { type: "tool_call", id: "x2", name: "read_file", args: "{}" },
      ],
    },
    {
      role: "tool",
      content: [{
        type: "tool_result",
        callId: "x2",
        name: "read_file",
        content: "two",
        isError: false,
      }],
    },
    { role: "assistant", content: [{ type: "text", text: "hm" }] },
    userMessage("and?"),
    {
      role: "assistant",
      content: [{ type: "tool_call", id: "y1", name: "read_file", args: "{}" }],
    },
    userMessage("never mind"),
  ];
  const frozen = structuredClone(transcript);
  const model = script(say("fine"));
  const result = await new Agent(model).generate(transcript);
  // The caller's transcript is untouched.
  assert.deepEqual(transcript, frozen);
  const sent = model.requests()[0].messages;
  assert.deepEqual(sent.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
    "user",
    "assistant",
    "tool",
    "user",
  ]);
  assert.deepEqual(
    sent[2].content.map((p) => p.type === "tool_result" && p.callId),
    ["x1", "x2"],
  );
  assert.deepEqual(sent[2].content[0], {
    type: "tool_result",
    callId: "x1",
    name: "read_file",
    content: NO_RESULT_RECORDED,
    isError: true,
  });
  assert.deepEqual(sent[6].content, [{
    type: "tool_result",
    callId: "y1",
    name: "read_file",
    content: NO_RESULT_RECORDED,
    isError: true,
  }]);
  assert.deepEqual(result.messages.slice(0, 8), sent);
});

Deno.test("a second generate continues the conversation from result.messages", async () => {
  const model = script(
    callTools({ name: "read_file", args: { path: "notes.txt" } }),
    say("The notes say hi."),
    say("You asked about notes.txt."),
  );
  const agent = new Agent(model, { tools: [plain] });
  const first = await agent.generate("Read notes.txt.");
  const second = await agent.generate([
    ...first.messages,
    userMessage("What did I ask?"),
  ]);
  assert.equal(second.text, "You asked about notes.txt.");
  assert.deepEqual(model.requests()[2].messages, [
    ...first.messages,
    userMessage("What did I ask?"),
  ]);
  assert.deepEqual(second.messages, [
    ...first.messages,
    userMessage("What did I ask?"),
    {
      role: "assistant",
      content: [{ type: "text", text: "You asked about notes.txt." }],
    },
  ]);
  assert.notEqual(second.id, first.id);
  assert.equal(second.steps.length, 1);
});

Deno.test("generate refuses input that is neither a prompt nor a transcript", async () => {
  const agent = new Agent(script(say("never")));
  await assert.rejects(
    agent.generate(42 as never),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "weft: generate takes a prompt string or a transcript (an array of messages)",
  );
  await assert.rejects(
    agent.generate([
      userMessage("ok"),
      { role: "system", content: [] } as never,
    ]),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        'weft: transcript entry 1 is not a message (a role of "user", "assistant" or "tool" and a content array)',
  );
});

Deno.test("approved calls run through the agent's middleware, which sees approved true; a middleware that parks again ends the run pending, no model call", async () => {
  const approvals: boolean[] = [];
  let parkAgain = false;
  const guard: ToolMiddleware = (next) => async (call, ctx) => {
    approvals.push(ctx.call?.approved === true);
    if (parkAgain) throw new ApprovalRequiredError(call.name);
    return await next(call, ctx);
  };
  const model = script(twoCalls(), say("done"));
  const agent = new Agent(model, {
    tools: [gated(), plain],
    wrapTools: [guard],
  });
  const parked = await parkedRun(agent);
  assert.deepEqual(approvals, [false, false]);
  parkAgain = true;
  const events: RunEvent[] = [];
  const again = await agent.generate(parked.messages, {
    decisions: [approve("call_1")],
    onEvent: (e) => events.push(e),
  });
  assert.deepEqual(approvals, [false, false, true]);
  assert.deepEqual(again.pending, parked.pending);
  assert.deepEqual(again.steps, []);
  assert.deepEqual(again.messages, parked.messages);
  assert.equal(model.requests().length, 1);
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "tool_start",
    "run_finish",
  ]);
});

Deno.test("resolved content is capped like any result", async () => {
  const agent = new Agent(script(twoCalls(), say("ok")), {
    tools: [gated(), plain],
    maxResultBytes: 8,
  });
  const parked = await parkedRun(agent);
  const resumed = await agent.generate(parked.messages, {
    decisions: [resolve("call_1", "x".repeat(500))],
  });
  assert.equal(
    results(resumed.messages)[0].content,
    "xxxxxxxx\n…[truncated 492 bytes]",
  );
});

Deno.test("cancellation while an approved call runs fails the run at step 1 (index 0) with the reason", async () => {
  const controller = new AbortController();
  const slow = tool({
    name: "write_file",
    description: "Slow.",
    input: z.object({ path: z.string() }),
    requireApproval: true,
    run: (_input, ctx) =>
      new Promise<string>((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        controller.abort(new Error("stop now"));
      }),
  });
  const model = script(twoCalls(), say("never"));
  const agent = new Agent(model, { tools: [slow, plain] });
  const parked = await parkedRun(agent);
  const err = await agent.generate(parked.messages, {
    decisions: [approve("call_1")],
    signal: controller.signal,
  }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.step, 0);
  assert.equal(err.message, "weft: run failed at step 1: stop now");
  assert.equal(model.requests().length, 1);
});

Deno.test("a parked run resumes from its transcript and decisions sent through JSON (another process, a later request)", async () => {
  const seen: CallInfo[] = [];
  const make = (model = script(twoCalls(), say("never"))) =>
    new Agent(model, { tools: [gated("write_file", seen), plain] });
  const parked = await parkedRun(make());
  // What a host stores, typed with the names the main entry point gives.
  interface Stored {
    readonly messages: readonly Message[];
    readonly pending: readonly PendingCall[];
  }
  const parkedJson = JSON.stringify(
    { messages: parked.messages, pending: parked.pending } satisfies Stored,
  );
  const { messages, pending } = JSON.parse(parkedJson) as Stored;
  const decisionsJson = JSON.stringify([approve(pending[0].id)]);
  const resumed = await make(script(say("Written."))).generate(messages, {
    decisions: JSON.parse(decisionsJson),
  });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].approved, true);
  assert.equal(resumed.text, "Written.");
  assert.deepEqual(
    results(resumed.messages).map((r) => r.content),
    ["wrote a.txt", "contents of b.txt"],
  );
});

Deno.test("result.resumed holds what the decisions gave the pending calls, in call order; a fresh run and a step's own results are not there", async () => {
  const seen: CallInfo[] = [];
  const model = script(
    callTools(
      { name: "a", args: { path: "1" } },
      { name: "b", args: { path: "2" } },
      { name: "c", args: { path: "3" } },
      { name: "read_file", args: { path: "4" } },
    ),
    callTools({ name: "read_file", args: { path: "5" } }),
    say("ok"),
  );
  const agent = new Agent(model, {
    tools: [gated("a", seen), gated("b", seen), gated("c", seen), plain],
  });
  const parked = await agent.generate("go");
  assert.deepEqual(parked.resumed, []);
  assert.equal(parked.pending.length, 3);
  const resumed = await agent.generate(parked.messages, {
    decisions: [deny("call_2", "not today"), approve("call_1")],
  });
  assert.deepEqual(
    resumed.resumed.map((r) => [r.callId, r.name, r.content, r.isError]),
    [
      ["call_1", "a", "wrote 1", false],
      ["call_2", "b", "DENIED: not today", true],
      ["call_3", "c", "DENIED: no decision", true],
    ],
  );
  assert.equal(seen.length, 1);
  // The steps hold this run's model calls and their results only.
  assert.deepEqual(
    resumed.steps.map((s) => s.results.map((r) => r.content)),
    [["contents of 5"], []],
  );
  // Everything on resumed is in the transcript too.
  for (const part of resumed.resumed) {
    assert.ok(results(resumed.messages).some((r) => r === part));
  }
});
