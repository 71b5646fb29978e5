/**
 * `Agent.stream`: the run's events as an async iterable ending with the
 * run, the outcome on `result`; early break cancels; failures surface
 * through both.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  Agent,
  approve,
  type Model,
  RunError,
  type RunEvent,
  type RunResult,
  tool,
} from "../mod.ts";
import { type ModelEvent, RunConsumedError, RunStream } from "../core.ts";
import { callTools, fail, say, script } from "../testing.ts";
import { nextTurn } from "./_helpers/wait.ts";

const usage = { inputTokens: 1, outputTokens: 1 };

/** Streams "Hel", waits for `gate`, then "lo" and the finish; `reached` resolves at the gate. */
function gatedModel(gate: Promise<void>, reached: () => void): Model {
  return {
    async *stream(_request, { signal }): AsyncGenerator<ModelEvent> {
      yield { type: "text", text: "Hel" };
      reached();
      await gate;
      signal.throwIfAborted();
      yield { type: "text", text: "lo" };
      yield { type: "finish", reason: "stop", usage };
    },
  };
}

async function collect(stream: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const echo = tool({
  name: "echo",
  description: "Echoes.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

Deno.test("stream: every event in order, the same as onEvent sees, ending with run_finish; result resolves", async () => {
  const make = () =>
    new Agent(
      script(
        callTools({ name: "echo", args: { text: "ping" } }),
        say("pong"),
      ),
      { tools: [echo] },
    );
  const observed: RunEvent[] = [];
  const generated = await make().generate("go", {
    runId: "r1",
    onEvent: (e) => observed.push(e),
  });
  const seenByOnEvent: RunEvent[] = [];
  const stream = make().stream("go", {
    runId: "r1",
    onEvent: (e) => seenByOnEvent.push(e),
  });
  assert.ok(stream instanceof RunStream);
  const events = await collect(stream);
  assert.deepEqual(events, observed);
  assert.deepEqual(seenByOnEvent, observed);
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "step_start",
    "tool_start",
    "tool_finish",
    "step_finish",
    "step_start",
    "text_delta",
    "step_finish",
    "run_finish",
  ]);
  const result = await stream.result;
  assert.deepEqual(result, generated);
});

Deno.test("stream: a text delta reaches the reader while the model is still streaming", async () => {
  const gate = Promise.withResolvers<void>();
  const reached = Promise.withResolvers<void>();
  const stream = new Agent(gatedModel(gate.promise, reached.resolve)).stream(
    "hi",
  );
  let settled = false;
  stream.result.then(() => (settled = true));
  const iterator = stream[Symbol.asyncIterator]();
  const seen: string[] = [];
  for (;;) {
    const next = await iterator.next();
    assert.equal(next.done, false);
    if (next.value.type === "text_delta") {
      seen.push(next.value.text);
      break;
    }
  }
  await reached.promise;
  // The model is parked at its gate: the first delta is already here.
  assert.deepEqual(seen, ["Hel"]);
  assert.equal(settled, false);
  gate.resolve();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.type === "text_delta") seen.push(next.value.text);
  }
  assert.deepEqual(seen, ["Hel", "lo"]);
  assert.equal((await stream.result).text, "Hello");
});

Deno.test("stream: breaking out of the loop cancels the run; result rejects with a RunError whose cause is an AbortError", async () => {
  const toolSignal = Promise.withResolvers<AbortSignal>();
  const hang = tool({
    name: "hang",
    description: "Waits for its signal.",
    input: z.object({}),
    run: (_input, ctx) => {
      toolSignal.resolve(ctx.signal);
      return new Promise<string>((_resolve, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
      );
    },
  });
  const model = script(callTools({ name: "hang" }), say("never"));
  const stream = new Agent(model, { tools: [hang] }).stream("go");
  const types: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === "tool_start") break;
  }
  assert.deepEqual(types.at(-1), "tool_start");
  const signal = await toolSignal.promise;
  // The break waited for the run to settle: the tool's signal has aborted.
  assert.equal(signal.aborted, true);
  const err = await stream.result.then(() => assert.fail("resolved"), (e) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.step, 0);
  assert.ok(err.cause instanceof DOMException);
  assert.equal(err.cause.name, "AbortError");
  assert.equal(
    err.message,
    "weft: run failed at step 1: the run's stream was closed before the run ended",
  );
  assert.equal(model.requests().length, 1);
});

Deno.test("stream: breaking after the run finished changes nothing", async () => {
  const stream = new Agent(script(say("done"))).stream("go");
  for await (const event of stream) {
    if (event.type === "run_finish") break;
  }
  assert.equal((await stream.result).text, "done");
});

Deno.test("stream: the caller's signal aborts the run; iteration throws the RunError after the events so far, result rejects with the same error", async () => {
  const controller = new AbortController();
  const gate = Promise.withResolvers<void>();
  const stream = new Agent(
    gatedModel(gate.promise, () => controller.abort(new Error("user hit ^C"))),
  ).stream("hi", { signal: controller.signal });
  const types: string[] = [];
  let thrown: unknown;
  try {
    for await (const event of stream) types.push(event.type);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof RunError);
  assert.equal(thrown.message, "weft: run failed at step 1: user hit ^C");
  assert.deepEqual(types, ["run_start", "step_start", "text_delta"]);
  await assert.rejects(stream.result, (err) => err === thrown);
});

Deno.test("stream: a model failure surfaces through iteration and through result", async () => {
  const stream = new Agent(script(fail(new Error("provider down")))).stream(
    "hi",
  );
  const types: string[] = [];
  const thrown = await (async () => {
    for await (const event of stream) types.push(event.type);
  })().then(() => assert.fail("iteration ended cleanly"), (e) => e);
  assert.ok(thrown instanceof RunError);
  assert.equal(
    thrown.message,
    "weft: run failed at step 1: model stream: provider down",
  );
  assert.deepEqual(types, ["run_start", "step_start"]);
  const viaResult = await stream.result.then(() => undefined, (e) => e);
  assert.equal(viaResult, thrown);
});

Deno.test("stream: a failure read only through iteration is not an unhandled rejection", async () => {
  const stream = new Agent(script(fail(new Error("boom")))).stream("hi");
  await assert.rejects(collect(stream), RunError);
  // The test would fail on an unhandled rejection of stream.result, which
  // is reported once the microtasks of this turn ran.
  await nextTurn();
});

Deno.test("stream: result alone works without reading the events", async () => {
  const stream = new Agent(script(say("quiet"))).stream("hi");
  const result: RunResult = await stream.result;
  assert.equal(result.text, "quiet");
  // The events were kept for a late reader.
  const events = await collect(stream);
  assert.equal(events.at(-1)?.type, "run_finish");
});

Deno.test("stream: the events can be read once; a second iteration throws RunConsumedError", async () => {
  const stream = new Agent(script(say("once"))).stream("hi");
  await collect(stream);
  await assert.rejects(collect(stream), (err: unknown) => {
    assert.ok(err instanceof RunConsumedError);
    assert.equal(err.message, "weft: run events already consumed");
    return true;
  });
});

Deno.test("stream: a resume with decisions streams the approved call's events before step 0", async () => {
  const gatedEcho = tool({
    name: "echo",
    description: "Echoes.",
    input: z.object({ text: z.string() }),
    requireApproval: true,
    run: ({ text }) => text,
  });
  const agent = new Agent(
    script(callTools({ name: "echo", args: { text: "hi" } }), say("ok")),
    { tools: [gatedEcho] },
  );
  const parked = await agent.generate("go");
  const stream = agent.stream(parked.messages, {
    decisions: [approve("call_1")],
  });
  const events = await collect(stream);
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "tool_start",
    "tool_finish",
    "step_start",
    "text_delta",
    "step_finish",
    "run_finish",
  ]);
  assert.equal((await stream.result).text, "ok");
});

Deno.test("stream: breaking while the model streams aborts the model's signal", async () => {
  const gate = Promise.withResolvers<void>();
  const modelSignal = Promise.withResolvers<AbortSignal>();
  const model: Model = {
    async *stream(_request, { signal }): AsyncGenerator<ModelEvent> {
      modelSignal.resolve(signal);
      yield { type: "text", text: "Hel" };
      await gate.promise;
      yield { type: "finish", reason: "stop", usage };
    },
  };
  const stream = new Agent(model).stream("hi");
  for await (const event of stream) {
    if (event.type === "text_delta") break;
  }
  assert.equal((await modelSignal.promise).aborted, true);
  await assert.rejects(stream.result, (err: unknown) => {
    assert.ok(err instanceof RunError);
    assert.equal(err.step, 0);
    assert.equal(err.result.messages.length, 1);
    return true;
  });
  gate.resolve();
});
