/**
 * A call that asks for input (ctx.ask, or an InputRequiredError from an
 * imported tool) parks like an approval, never shown to the model, and
 * `answer(pending, response)` resumes it (issue 18, item 3).
 */

import assert from "node:assert/strict";
import {
  Agent,
  answer,
  approve,
  deny,
  InputRequiredError,
  rawTool,
  type RunEvent,
  tool,
} from "../mod.ts";
import { type ModelRequest, NotPendingError } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { z } from "zod";

const FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
};

/** A tool asking twice: a name, then a confirmation. */
function greeter(runs: { count: number }) {
  return rawTool({
    name: "greet",
    description: "Greets someone after asking whom.",
    run: async (_args, ctx) => {
      runs.count++;
      const who = await ctx.ask!({ message: "Whom?", schema: FORM });
      if (who.action !== "accept") return `no greeting (${who.action})`;
      const sure = await ctx.ask!({ message: `Greet ${who.content?.name}?` });
      return sure.action === "accept"
        ? `hello ${who.content?.name}`
        : "not sure";
    },
  });
}

Deno.test("a call that asks parks with its question on pending, and nothing reaches the model", async () => {
  const requests: ModelRequest[] = [];
  const model = script(callTools({ name: "greet" }), say("Done."));
  const events: RunEvent[] = [];
  const agent = new Agent(
    {
      ...model,
      stream: (request: ModelRequest, options) => {
        requests.push(request);
        return model.stream(request, options);
      },
    },
    { tools: [greeter({ count: 0 })], onEvent: (e) => events.push(e) },
  );
  const parked = await agent.generate("Greet someone.");
  assert.equal(parked.pending.length, 1);
  assert.deepEqual(parked.pending[0].input, {
    server: "",
    tool: "greet",
    requests: {
      ask_0: {
        method: "elicitation/create",
        params: { message: "Whom?", requestedSchema: FORM },
      },
    },
    state: "[]",
  });
  // No result for the call, no tool_finish: the question is the host's.
  assert.equal(parked.messages.at(-1)?.role, "assistant");
  assert.ok(!events.some((e) => e.type === "tool_finish"));
  assert.equal(requests.length, 1);
  assert.ok(!JSON.stringify(parked.messages).includes("Whom?"));
});

Deno.test("answer resumes the call: it runs again, ask returns the answers in order, the run finishes", async () => {
  const runs = { count: 0 };
  const agent = new Agent(
    script(callTools({ name: "greet" }), say("Done.")),
    { tools: [greeter(runs)] },
  );
  const first = await agent.generate("Greet someone.");
  const second = await agent.generate(first.messages, {
    decisions: [
      answer(first.pending[0], { action: "accept", content: { name: "Ada" } }),
    ],
  });
  // Parked again on the second question, with the first answer in its state.
  assert.equal(second.pending.length, 1);
  assert.equal(
    (second.pending[0].input?.requests.ask_1.params as { message: string })
      .message,
    "Greet Ada?",
  );
  const third = await agent.generate(second.messages, {
    decisions: [answer(second.pending[0], { action: "accept" })],
  });
  assert.deepEqual(third.pending, []);
  assert.equal(third.text, "Done.");
  assert.equal(third.steps[0].results.length, 0);
  const result = third.messages.find((m) => m.role === "tool")?.content[0];
  assert.deepEqual(result, {
    type: "tool_result",
    callId: "call_1",
    name: "greet",
    content: "hello Ada",
    isError: false,
  });
  // The answered call's result is on the run's result, not only in the transcript.
  assert.deepEqual(third.resumed, [result]);
  // Parked again, the call has no result yet: it is on pending, not resumed.
  assert.deepEqual(second.resumed, []);
  assert.equal(runs.count, 3);
});

Deno.test("a declined answer reaches the tool; deny answers without running it", async () => {
  const runs = { count: 0 };
  const agent = new Agent(
    script(callTools({ name: "greet" }), say("Done."), say("Done.")),
    { tools: [greeter(runs)] },
  );
  const parked = await agent.generate("Greet someone.");
  const declined = await agent.generate(parked.messages, {
    decisions: [answer(parked.pending[0], { action: "decline" })],
  });
  assert.match(JSON.stringify(declined.messages), /no greeting \(decline\)/);
  const denied = await agent.generate(parked.messages, {
    decisions: [deny(parked.pending[0].id, "not now")],
  });
  assert.match(JSON.stringify(denied.messages), /DENIED: not now/);
  assert.equal(runs.count, 2);
});

Deno.test("an InputRequiredError thrown by a tool (an imported tool's) parks with its input, and the answer reaches ctx.call.answer", async () => {
  const seen: unknown[] = [];
  const remote = tool({
    name: "deploy",
    description: "Deploys.",
    input: z.object({}),
    run: (_input, ctx) => {
      if (ctx.call?.answer === undefined) {
        throw new InputRequiredError("deploy", {
          server: "ops",
          tool: "deploy",
          requests: {
            confirm: {
              method: "elicitation/create",
              params: { message: "Deploy?", requestedSchema: FORM },
            },
          },
          state: "opaque-1",
        });
      }
      seen.push(ctx.call.answer, ctx.call.approved);
      return "deployed";
    },
  });
  const agent = new Agent(
    script(callTools({ name: "deploy", args: {} }), say("Done.")),
    { tools: [remote] },
  );
  const parked = await agent.generate("Deploy.");
  assert.equal(parked.pending[0].input?.server, "ops");
  // The pending entry is plain data: it survives JSON (another process).
  const stored = JSON.parse(JSON.stringify(parked.pending[0]));
  const done = await agent.generate(parked.messages, {
    decisions: [answer(stored, { action: "accept", content: { name: "x" } })],
  });
  assert.equal(done.text, "Done.");
  assert.deepEqual(seen, [
    {
      responses: { confirm: { action: "accept", content: { name: "x" } } },
      state: "opaque-1",
    },
    true,
  ]);
});

Deno.test("answer refuses an entry that asked nothing, and a single answer to several questions", () => {
  assert.throws(
    () => answer({ id: "c", name: "t", args: "{}" }, { action: "accept" }),
    TypeError,
  );
  const two = {
    id: "c",
    name: "t",
    args: "{}",
    input: {
      server: "s",
      tool: "t",
      requests: {
        a: { method: "roots/list" as const },
        b: { method: "roots/list" as const },
      },
      state: "",
    },
  };
  assert.throws(() => answer(two, { action: "accept" }), TypeError);
  assert.deepEqual(
    answer(two, { a: { action: "cancel" }, b: { action: "decline" } })
      .responses,
    { a: { action: "cancel" }, b: { action: "decline" } },
  );
});

Deno.test("an answer naming a call that is not pending is refused like any decision", async () => {
  const agent = new Agent(script(say("hi")), { tools: [] });
  const result = await agent.generate("hi");
  const entry = {
    id: "nope",
    name: "t",
    args: "{}",
    input: {
      server: "",
      tool: "t",
      requests: {
        ask_0: {
          method: "elicitation/create" as const,
          params: { message: "?" },
        },
      },
      state: "[]",
    },
  };
  await assert.rejects(
    agent.generate(result.messages, {
      decisions: [answer(entry, { action: "accept" }), approve("x")],
    }),
    (err: Error) => err.cause instanceof NotPendingError,
  );
});

Deno.test("outside the loop, invoke has no ask and InputRequiredError pins its text", async () => {
  const t = rawTool({
    name: "t",
    description: "Asks.",
    run: (_a, ctx) => String(ctx.ask === undefined),
  });
  assert.equal(await t.invoke("{}"), "true");
  assert.equal(
    new InputRequiredError("x", {
      server: "",
      tool: "x",
      requests: {},
      state: "",
    }).message,
    'weft: tool call requires input: tool "x"',
  );
});
