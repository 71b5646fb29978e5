import assert from "node:assert/strict";
import {
  callTools,
  fail,
  maxTokens,
  raw,
  say,
  script,
  ScriptExhaustedError,
  submit,
  think,
  withUsage,
} from "../testing.ts";
import type { ModelEvent, ModelRequest } from "../core.ts";

const request: ModelRequest = {
  system: "",
  messages: [],
  tools: [],
  sequentialTools: false,
};

async function collect(
  iterable: AsyncIterable<ModelEvent>,
): Promise<{ events: ModelEvent[]; error?: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

function play(...turns: Parameters<typeof script>): AsyncIterable<ModelEvent> {
  return script(...turns).stream(request, {
    signal: new AbortController().signal,
  });
}

const usage = { inputTokens: 10, outputTokens: 5 };

Deno.test("say plays one text delta, then finish stop with usage 10/5", async () => {
  const { events } = await collect(play(say("hello")));
  assert.deepEqual(events, [
    { type: "text", text: "hello" },
    { type: "finish", reason: "stop", usage },
  ]);
});

Deno.test("callTools ids default to call_<position>, counted even past explicit ids", async () => {
  const { events } = await collect(
    play(callTools({ name: "a" }, { name: "b", id: "mine" }, { name: "c" })),
  );
  assert.deepEqual(events, [
    { type: "tool_call", id: "call_1", name: "a", args: "{}" },
    { type: "tool_call", id: "mine", name: "b", args: "{}" },
    { type: "tool_call", id: "call_3", name: "c", args: "{}" },
    { type: "finish", reason: "tool_calls", usage },
  ]);
});

Deno.test("callTools args: a string is raw JSON, a value is JSON-encoded", async () => {
  const { events } = await collect(
    play(
      callTools({ name: "a", args: '{"q": 1}' }, {
        name: "b",
        args: { q: [1, "x"] },
      }),
    ),
  );
  assert.equal((events[0] as { args: string }).args, '{"q": 1}');
  assert.equal((events[1] as { args: string }).args, '{"q":[1,"x"]}');
});

Deno.test("callTools throws TypeError for arguments that do not encode", () => {
  assert.throws(
    () => callTools({ name: "a", args: () => 1 }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message.startsWith(
        "callTools: call arguments do not encode as JSON: ",
      ),
  );
  assert.throws(() => callTools({ name: "a", args: 1n }), TypeError);
});

Deno.test("submit is one submit_output call turn", async () => {
  const { events } = await collect(play(submit({ answer: "yes" })));
  assert.deepEqual(events, [
    {
      type: "tool_call",
      id: "call_1",
      name: "submit_output",
      args: '{"answer":"yes"}',
    },
    { type: "finish", reason: "tool_calls", usage },
  ]);
});

Deno.test("maxTokens plays a text delta, then finish max_tokens", async () => {
  const { events } = await collect(play(maxTokens("cut")));
  assert.deepEqual(events, [
    { type: "text", text: "cut" },
    { type: "finish", reason: "max_tokens", usage },
  ]);
});

Deno.test("fail makes the stream throw at once", async () => {
  const boom = new Error("provider down");
  const { events, error } = await collect(play(fail(boom)));
  assert.deepEqual(events, []);
  assert.equal(error, boom);
});

Deno.test("think puts an unsigned reasoning delta before the turn", async () => {
  const { events } = await collect(play(think("hmm", say("ok"))));
  assert.deepEqual(events, [
    { type: "reasoning", text: "hmm" },
    { type: "text", text: "ok" },
    { type: "finish", reason: "stop", usage },
  ]);
});

Deno.test("raw plays exactly its events, nothing appended", async () => {
  const { events } = await collect(play(raw({ type: "text", text: "x" })));
  assert.deepEqual(events, [{ type: "text", text: "x" }]);
});

Deno.test("withUsage replaces the finish usage", async () => {
  const { events } = await collect(
    play(withUsage(say("x"), { inputTokens: 1, outputTokens: 2 })),
  );
  assert.deepEqual(events.at(-1), {
    type: "finish",
    reason: "stop",
    usage: { inputTokens: 1, outputTokens: 2 },
  });
});

Deno.test("an exhausted script throws ScriptExhaustedError and still records the request", async () => {
  const model = script(say("one"));
  const signal = new AbortController().signal;
  await collect(model.stream(request, { signal }));
  const second = { ...request, system: "second" };
  const { error } = await collect(model.stream(second, { signal }));
  assert.ok(error instanceof ScriptExhaustedError);
  assert.equal(
    error.message,
    "script: model script exhausted (agent made more model calls than the script provides)",
  );
  assert.equal(model.requests().length, 2);
  assert.equal(model.requests()[1], second);
  assert.equal(model.lastRequest(), second);
});

Deno.test("the script checks the signal before each event", async () => {
  const model = script(
    raw({ type: "text", text: "a" }, { type: "text", text: "b" }),
  );
  const controller = new AbortController();
  const reason = new Error("stop now");
  const events: ModelEvent[] = [];
  let error: unknown;
  try {
    for await (
      const event of model.stream(request, { signal: controller.signal })
    ) {
      events.push(event);
      controller.abort(reason);
    }
  } catch (err) {
    error = err;
  }
  assert.equal(events.length, 1);
  assert.equal(error, reason);
});

Deno.test("the script reports provider @weft/mcp/testing, name script", () => {
  assert.deepEqual(script().info, {
    provider: "@weft/mcp/testing",
    name: "script",
  });
});
