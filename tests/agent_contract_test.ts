import assert from "node:assert/strict";
import { Agent, type Model, RunError } from "../mod.ts";
import {
  ModelContractError,
  type ModelEvent,
  ModelStreamError,
} from "../core.ts";
import { callTools, fail, raw, say, sayThenFail, script } from "../testing.ts";

const usage = { inputTokens: 10, outputTokens: 5 };
const finish = { type: "finish", reason: "stop", usage } as const;

async function runFailure(model: Model): Promise<RunError> {
  const err = await new Agent(model).generate("go").then(
    () => assert.fail("the run should fail"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RunError, `expected RunError, got ${err}`);
  return err;
}

async function contractText(...events: unknown[]): Promise<string> {
  const err = await runFailure(script(raw(...events)));
  assert.ok(err.cause instanceof ModelContractError);
  assert.equal(err.step, 0);
  return err.message;
}

Deno.test("contract: a stream without a finish fails the run", async () => {
  assert.equal(
    await contractText({ type: "text", text: "hi" }),
    "weft: run failed at step 1: model violated the stream contract: stream ended without a finish event",
  );
});

Deno.test("contract: an event after the finish names the event type", async () => {
  assert.equal(
    await contractText(finish, { type: "text", text: "late" }),
    "weft: run failed at step 1: model violated the stream contract: event text after the finish event",
  );
  assert.equal(
    await contractText(finish, finish),
    "weft: run failed at step 1: model violated the stream contract: event finish after the finish event",
  );
});

Deno.test("contract: a tool call with an empty ID", async () => {
  assert.equal(
    await contractText(
      { type: "tool_call", id: "", name: "t", args: "{}" },
      finish,
    ),
    "weft: run failed at step 1: model violated the stream contract: tool call with an empty ID",
  );
});

Deno.test("contract: a tool call with an empty name", async () => {
  assert.equal(
    await contractText(
      { type: "tool_call", id: "c1", name: "", args: "{}" },
      finish,
    ),
    "weft: run failed at step 1: model violated the stream contract: tool call with an empty name",
  );
});

Deno.test("contract: a duplicate tool call ID within one turn", async () => {
  const call = { type: "tool_call", id: "c1", name: "t", args: "{}" };
  assert.equal(
    await contractText(call, call, finish),
    'weft: run failed at step 1: model violated the stream contract: duplicate tool call ID "c1"',
  );
});

Deno.test("contract: tool call IDs may repeat across steps", async () => {
  const agent = new Agent(
    script(
      callTools({ name: "nope", id: "same" }),
      callTools({ name: "nope", id: "same" }),
      say("done"),
    ),
  );
  const result = await agent.generate("go");
  assert.equal(result.text, "done");
  assert.equal(result.steps.length, 3);
});

Deno.test("contract: an unknown event type", async () => {
  assert.equal(
    await contractText({ type: "tool_call_delta", index: 0 }, finish),
    "weft: run failed at step 1: model violated the stream contract: unexpected event tool_call_delta",
  );
  assert.equal(
    await contractText(null, finish),
    "weft: run failed at step 1: model violated the stream contract: unexpected event null",
  );
  assert.equal(
    await contractText("text", finish),
    "weft: run failed at step 1: model violated the stream contract: unexpected event string",
  );
});

Deno.test("a thrown stream error fails the run with model stream: <err>", async () => {
  const err = await runFailure(script(fail(new Error("provider down"))));
  assert.ok(err.cause instanceof ModelStreamError);
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: provider down",
  );
  assert.equal((err.cause as Error).cause instanceof Error, true);
});

Deno.test("a stream error after the finish is a stream error, not a contract violation", async () => {
  const model: Model = {
    async *stream(): AsyncGenerator<ModelEvent> {
      yield finish;
      throw new Error("late failure");
    },
  };
  const err = await runFailure(model);
  assert.ok(err.cause instanceof ModelStreamError);
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: late failure",
  );
});

Deno.test("a stream that throws on the call itself is a stream error", async () => {
  const model: Model = {
    stream(): AsyncIterable<ModelEvent> {
      throw new Error("no connection");
    },
  };
  const err = await runFailure(model);
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: no connection",
  );
});

Deno.test("text streamed before a failure stays out of the transcript", async () => {
  const err = await runFailure(
    script(sayThenFail("partial", new Error("cut"))),
  );
  assert.equal(err.message, "weft: run failed at step 1: model stream: cut");
  assert.equal(err.result.messages.length, 1);
  assert.equal(err.result.messages[0].role, "user");
});

Deno.test("a violation at a later step reports that step", async () => {
  const err = await runFailure(
    script(callTools({ name: "nope" }), raw({ type: "text", text: "x" })),
  );
  assert.equal(err.step, 1);
  assert.ok(err.cause instanceof ModelContractError);
  assert.equal(err.result.steps.length, 1);
});

Deno.test("the loop stops reading and closes a stream that broke the contract", async () => {
  let closed = false;
  const model: Model = {
    async *stream(): AsyncGenerator<ModelEvent> {
      try {
        yield finish;
        yield { type: "text", text: "late" };
        yield { type: "text", text: "never read" };
      } finally {
        closed = true;
      }
    },
  };
  await runFailure(model);
  await Promise.resolve();
  assert.equal(closed, true);
});
