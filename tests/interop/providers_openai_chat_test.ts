/**
 * `aiSdkModel` over the real `@ai-sdk/openai` Chat Completions model, its
 * HTTP API replayed: recorded streams from `../shared/fixtures/providers/`
 * and ours from `tests/fixtures/providers/`. No network.
 */

import assert from "node:assert/strict";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "../../src/core/agent.ts";
import { ModelStreamError } from "../../src/core/errors.ts";
import type { RunEvent } from "../../src/core/events.ts";
import { aiSdkModel } from "../../src/providers/ai_sdk.ts";
import type { AiSdkModelOptions } from "../../src/providers/ai_sdk.ts";
import { ProviderFinishError } from "../../src/providers/errors.ts";
import {
  own,
  recordedTest,
  type Replay,
  replayFetch,
  shared,
} from "../_helpers/provider_replay.ts";
import {
  abortMidStream,
  failure,
  type ImportedTools,
  inMemoryTools,
  stdioTools,
} from "../_helpers/provider_agent.ts";
import { GET_WEATHER_SCHEMA } from "../fixtures/provider_tools.ts";

function chatModel(replays: Replay[], options?: AiSdkModelOptions) {
  const replay = replayFetch(replays);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  return { replay, model: aiSdkModel(openai.chat("gpt-4o"), options) };
}

recordedTest(
  "openai chat: a recorded text answer streams as deltas and reports usage",
  async () => {
    const { model, replay } = chatModel([{
      body: shared("openai-chat-text.sse"),
    }]);
    const deltas: string[] = [];
    const agent = new Agent(model, { instructions: "Be brief." });
    const result = await agent.generate("What's the weather in SF?", {
      onEvent: (e: RunEvent) => {
        if (e.type === "text_delta") deltas.push(e.text);
      },
    });
    assert.ok(
      result.text.startsWith("I'm unable to provide real-time weather"),
    );
    assert.ok(deltas.length >= 20, `only ${deltas.length} deltas`);
    assert.equal(deltas.join(""), result.text);
    assert.equal(result.stopReason, "stop");
    assert.deepEqual(result.usage, {
      inputTokens: 14,
      outputTokens: 30,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    const body = replay.requests[0].body;
    assert.deepEqual(body.messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "What's the weather in SF?" },
    ]);
    assert.equal(body.stream, true);
    assert.equal(model.info?.provider, "openai.chat");
    assert.equal(model.info?.name, "gpt-4o");
  },
);

async function toolRoundTrip(imported: ImportedTools) {
  const { model, replay } = chatModel(
    [
      { body: own("openai-chat-tool-call.sse") },
      { body: own("openai-chat-answer.sse") },
    ],
    { temperature: 0, maxOutputTokens: 300, headers: { "x-trace": "t1" } },
  );
  const agent = new Agent(model, {
    instructions: "You answer weather questions.",
    tools: imported.tools,
  });
  const result = await agent.generate("Weather in Paris?");
  assert.equal(result.text, "It is 18°C and sunny in Paris.");
  // The call's argument text verbatim, assembled from 11 deltas, big integer included.
  const call = result.messages[1].content[0];
  assert.deepEqual(call, {
    type: "tool_call",
    id: "call_w1",
    name: "get_weather",
    args: '{"location": "Paris", "days": 9007199254740993}',
  });
  assert.deepEqual(result.messages[2].content[0], {
    type: "tool_result",
    callId: "call_w1",
    name: "get_weather",
    content: "Paris: 18°C, sunny",
    isError: false,
  });
  // Usage summed over both steps, cached tokens included.
  assert.deepEqual(result.usage, {
    inputTokens: 2006 + 2050,
    outputTokens: 25 + 9,
    cachedInputTokens: 3840,
    reasoningTokens: 0,
  });
  const [first, second] = replay.requests;
  // The tool schema whole, every keyword, the integer beyond 2^53 as its digits.
  const tool = (first.body.tools as { function: { parameters: unknown } }[])
    .find((t) =>
      (t as unknown as { function: { name: string } }).function.name ===
        "get_weather"
    );
  assert.ok(tool);
  assert.ok(
    first.text.includes(`"parameters":${GET_WEATHER_SCHEMA}`),
    "the schema document is not in the body verbatim",
  );
  assert.equal(first.body.temperature, 0);
  assert.equal(first.body.max_tokens, 300);
  assert.equal(first.headers.get("x-trace"), "t1");
  // The transcript in order on the next request, the call's arguments with the same numbers.
  assert.deepEqual(second.body.messages, [
    { role: "system", content: "You answer weather questions." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_w1",
        type: "function",
        function: {
          name: "get_weather",
          arguments: '{"location":"Paris","days":9007199254740993}',
        },
      }],
    },
    { role: "tool", tool_call_id: "call_w1", content: "Paris: 18°C, sunny" },
  ]);
  assert.ok(second.text.includes('\\"days\\":9007199254740993'));
}

Deno.test("openai chat: an agent over tools imported in memory completes a tool round trip", async () => {
  await using imported = await inMemoryTools();
  await toolRoundTrip(imported);
});

Deno.test("openai chat: an agent over tools imported over stdio completes a tool round trip", async () => {
  await using imported = await stdioTools();
  await toolRoundTrip(imported);
});

recordedTest(
  "openai chat: two recorded parallel tool calls run and answer in call order",
  async () => {
    await using imported = await inMemoryTools();
    const { model, replay } = chatModel([
      { body: shared("openai-chat-parallel-tool-calls.sse") },
      { body: shared("openai-chat-text.sse") },
    ]);
    const agent = new Agent(model, { tools: imported.tools });
    const result = await agent.generate("Weather in Edinburgh and AAPL price?");
    const calls = result.steps[0].toolCalls;
    assert.deepEqual(calls, [
      {
        type: "tool_call",
        id: "call_JMW1whyEaYG438VE1OIflxA2",
        name: "GetWeatherArgs",
        args: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      {
        type: "tool_call",
        id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
        name: "get_stock_price",
        args: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ]);
    assert.equal(result.steps[0].stopReason, "tool_calls");
    assert.deepEqual(result.steps[0].usage, {
      inputTokens: 149,
      outputTokens: 60,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    const tools = replay.requests[1].body.messages as {
      role: string;
      tool_call_id?: string;
      content: unknown;
    }[];
    assert.deepEqual(
      tools.filter((m) => m.role === "tool").map((
        m,
      ) => [m.tool_call_id, m.content]),
      [
        ["call_JMW1whyEaYG438VE1OIflxA2", "Edinburgh: 9°C, rain"],
        ["call_DNYTawLBoN8fj3KN6qU9N1Ou", "AAPL: 187.50"],
      ],
    );
  },
);

recordedTest(
  "openai chat: sequential tools ask the provider for no parallel calls",
  async () => {
    await using imported = await inMemoryTools();
    const { model, replay } = chatModel([
      { body: shared("openai-chat-text.sse") },
    ], { providerOptions: { openai: { user: "u1" } } });
    await new Agent(model, { tools: imported.tools, parallelism: 1 })
      .generate("hi");
    assert.equal(replay.requests[0].body.parallel_tool_calls, false);
    assert.equal(replay.requests[0].body.user, "u1");
    const again = chatModel([{ body: shared("openai-chat-text.sse") }]);
    await new Agent(again.model, { tools: imported.tools }).generate("hi");
    assert.equal(again.replay.requests[0].body.parallel_tool_calls, undefined);
  },
);

Deno.test("openai chat: a failed tool's result goes back as the tool message", async () => {
  await using imported = await inMemoryTools();
  const stream = own("openai-chat-tool-call.sse").replaceAll(
    '"name":"get_weather"',
    '"name":"fail"',
  );
  const { model, replay } = chatModel([
    { body: stream },
    { body: own("openai-chat-answer.sse") },
  ]);
  const result = await new Agent(model, { tools: imported.tools }).generate(
    "x",
  );
  const part = result.messages[2].content[0];
  assert.ok(part.type === "tool_result" && part.isError);
  const sent =
    (replay.requests[1].body.messages as { role: string; content: string }[])
      .find((m) => m.role === "tool");
  // The provider package words an error result as `{"error": <text>}`.
  assert.equal(sent?.content, JSON.stringify({ error: part.content }));
  assert.equal(part.content, "the tool broke");
});

recordedTest(
  "openai chat: a recorded 429 fails the run as model stream with the provider's error as cause",
  async () => {
    const { model } = chatModel([{
      status: 429,
      contentType: "application/json",
      body: shared("openai-error-insufficient-quota.json"),
    }]);
    const err = await failure(new Agent(model).generate("hi"));
    const streamError = err.cause;
    assert.ok(streamError instanceof ModelStreamError);
    assert.equal(
      streamError.message,
      "model stream: openai.chat answered HTTP 429 (retryable): You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    );
    const cause = streamError.cause as {
      statusCode?: number;
      isRetryable?: boolean;
      name?: string;
    };
    assert.equal(cause.statusCode, 429);
    assert.equal(cause.isRetryable, true);
    assert.equal(cause.name, "AI_APICallError");
  },
);

Deno.test("openai chat: a 500 fails the run naming the status and the provider's message", async () => {
  const { model } = chatModel([{
    status: 500,
    contentType: "application/json",
    body: own("openai-500.json"),
  }]);
  const err = await failure(new Agent(model).generate("hi"));
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: openai.chat answered HTTP 500 (retryable): The server had an error while processing your request. Sorry about that!",
  );
});

Deno.test("openai chat: an error inside the stream fails the run, it does not finish clean", async () => {
  const { model } = chatModel([{ body: own("openai-chat-stream-error.sse") }]);
  const err = await failure(new Agent(model).generate("hi"));
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: openai.chat stream error (retryable): The server had an error while processing your request. Sorry about that!",
  );
  assert.equal(err.result.text, "");
});

recordedTest(
  "openai chat: a connection lost mid-stream fails the run naming the provider",
  async () => {
    const sse = shared("openai-chat-text.sse");
    const lost = new TypeError("error reading a body from connection");
    let sent = false;
    const fetchThenDrop = (): Promise<Response> =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              // The first read gets half the events, the next one fails.
              if (sent) return controller.error(lost);
              sent = true;
              controller.enqueue(
                new TextEncoder().encode(sse.slice(0, sse.length / 2)),
              );
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
      );
    const openai = createOpenAI({ apiKey: "test-key", fetch: fetchThenDrop });
    const model = aiSdkModel(openai.chat("gpt-4o"));
    const err = await failure(new Agent(model).generate("hi"));
    assert.equal(
      err.message,
      "weft: run failed at step 1: model stream: openai.chat stream error (not retryable): Failed to process successful response: error reading a body from connection",
    );
    assert.ok(err.cause instanceof ModelStreamError);
    // The provider's own error is the cause; what broke is its cause.
    const provider = err.cause.cause as Error;
    assert.equal(provider.name, "AI_APICallError");
    assert.equal(provider.cause, lost);
  },
);

Deno.test("openai chat: a content-filter finish fails the run naming the provider's reason", async () => {
  const { model } = chatModel([{
    body: own("openai-chat-content-filter.sse"),
  }]);
  const err = await failure(new Agent(model).generate("hi"));
  assert.equal(
    err.message,
    'weft: run failed at step 1: model stream: openai.chat ended the turn with finish reason "content-filter" (provider\'s reason: "content_filter")',
  );
  const finish = (err.cause as Error).cause;
  assert.ok(finish instanceof ProviderFinishError);
  assert.equal(finish.reason, "content-filter");
  assert.equal(finish.raw, "content_filter");
});

recordedTest(
  "openai chat: aborting mid-stream settles the run promptly and reaches the fetch",
  async () => {
    const { model, replay } = chatModel([{
      body: shared("openai-chat-text.sse"),
      stallAfter: 1500,
    }]);
    const deltas: string[] = [];
    await abortMidStream(model, replay, (e) => {
      if (e.type === "text_delta") deltas.push(e.text);
    });
    assert.ok(deltas.length > 0, "no delta arrived before the stall");
  },
);
