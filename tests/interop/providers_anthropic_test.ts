/**
 * `aiSdkModel` over the real `@ai-sdk/anthropic` Messages model, its HTTP
 * API replayed: recorded streams from `../shared/fixtures/providers/` and
 * ours from `tests/fixtures/providers/`. No network.
 */

import assert from "node:assert/strict";
import { createAnthropic } from "@ai-sdk/anthropic";
import { Agent } from "../../src/core/agent.ts";
import { ModelStreamError } from "../../src/core/errors.ts";
import { userMessage } from "../../src/core/messages.ts";
import type { ModelEvent } from "../../src/core/model.ts";
import {
  aiSdkModel,
  type AiSdkModelOptions,
} from "../../src/providers/ai_sdk.ts";
import { ProviderFinishError } from "../../src/providers/errors.ts";
import {
  chunksToSse,
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

function claude(replays: Replay[], options?: AiSdkModelOptions) {
  const replay = replayFetch(replays);
  const anthropic = createAnthropic({
    apiKey: "test-key",
    fetch: replay.fetch,
  });
  return {
    replay,
    model: aiSdkModel(anthropic("claude-sonnet-4-5"), options),
  };
}

async function toolRoundTrip(imported: ImportedTools) {
  const { model, replay } = claude([
    { body: shared("anthropic-tool-use.sse") },
    { body: own("anthropic-answer.sse") },
  ], { maxOutputTokens: 1024 });
  const agent = new Agent(model, {
    instructions: "You answer weather questions.",
    tools: imported.tools,
  });
  const result = await agent.generate("What's the weather in Paris?");
  assert.equal(result.text, "It is 18°C and sunny in Paris.");
  assert.deepEqual(result.messages[1], {
    role: "assistant",
    content: [
      {
        type: "text",
        text: "I'll check the current weather in Paris for you.",
      },
      {
        type: "tool_call",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        args: '{"location": "Paris"}',
      },
    ],
  });
  assert.deepEqual(result.steps.map((s) => s.stopReason), [
    "tool_calls",
    "stop",
  ]);
  // Cache reads and writes from our answer fixture, zeros from the recording.
  assert.deepEqual(result.usage, {
    inputTokens: 377 + 420 + 300 + 50,
    outputTokens: 65 + 12,
    cachedInputTokens: 300,
    cacheWriteTokens: 50,
  });
  const [first, second] = replay.requests;
  assert.equal(first.url, "https://api.anthropic.com/v1/messages");
  assert.equal(first.body.max_tokens, 1024);
  assert.deepEqual(first.body.system, [
    { type: "text", text: "You answer weather questions." },
  ]);
  assert.ok(
    first.text.includes(`"input_schema":${GET_WEATHER_SCHEMA}`),
    "the schema document is not in the body verbatim",
  );
  assert.deepEqual(second.body.messages, [
    {
      role: "user",
      content: [{ type: "text", text: "What's the weather in Paris?" }],
    },
    {
      role: "assistant",
      content: [
        {
          type: "text",
          text: "I'll check the current weather in Paris for you.",
        },
        {
          type: "tool_use",
          id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
          name: "get_weather",
          input: { location: "Paris" },
        },
      ],
    },
    {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        content: "Paris: 18°C, sunny",
      }],
    },
  ]);
}

recordedTest(
  "anthropic: an agent over tools imported in memory completes a recorded tool round trip",
  async () => {
    await using imported = await inMemoryTools();
    await toolRoundTrip(imported);
  },
);

recordedTest(
  "anthropic: an agent over tools imported over stdio completes a recorded tool round trip",
  async () => {
    await using imported = await stdioTools();
    await toolRoundTrip(imported);
  },
);

recordedTest(
  "anthropic: recorded signed thinking streams as reasoning and its signature goes back",
  async () => {
    const { model, replay } = claude([
      { body: chunksToSse(shared("anthropic-thinking.chunks.txt")) },
      { body: own("anthropic-answer.sse") },
    ], {
      providerOptions: {
        anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } },
      },
    });
    const reasoning: string[] = [];
    const result = await new Agent(model).generate("What is 925 / 5?", {
      onEvent: (e) => {
        if (e.type === "reasoning_delta") reasoning.push(e.text);
      },
    });
    assert.equal(result.text, "925 ÷ 5 = 185");
    assert.ok(reasoning.length > 1);
    assert.ok(reasoning.every((r) => r !== ""), "an empty reasoning delta");
    const part = result.messages[1].content[0];
    assert.equal(part.type, "reasoning");
    assert.ok(part.type === "reasoning");
    assert.equal(part.text, reasoning.join(""));
    assert.ok(part.signature?.startsWith("EvQBCkYICxgC"));
    assert.deepEqual(part.providerMetadata, {
      anthropic: { signature: part.signature },
    });
    assert.deepEqual(result.usage, {
      inputTokens: 69,
      outputTokens: 53,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
    });
    assert.deepEqual(replay.requests[0].body.thinking, {
      type: "enabled",
      budget_tokens: 1024,
    });
    // The next request carries the thinking block with its signature, first.
    const events: ModelEvent[] = [];
    for await (
      const event of model.stream({
        system: "",
        messages: [...result.messages, userMessage("And times two?")],
        tools: [],
        sequentialTools: false,
      }, { signal: new AbortController().signal })
    ) events.push(event);
    const sent = replay.requests[1].body.messages as {
      role: string;
      content: Record<string, unknown>[];
    }[];
    assert.deepEqual(sent[1].content[0], {
      type: "thinking",
      thinking: part.text,
      signature: part.signature,
    });
    assert.deepEqual(sent[1].content[1], {
      type: "text",
      text: "925 ÷ 5 = 185",
    });
    assert.equal(events.at(-1)?.type, "finish");
  },
);

Deno.test("anthropic: redacted thinking is kept on the transcript and sent back", async () => {
  const { model, replay } = claude([
    { body: own("anthropic-redacted-thinking.sse") },
    { body: own("anthropic-answer.sse") },
  ]);
  const result = await new Agent(model).generate("hi");
  const part = result.messages[1].content[0];
  assert.deepEqual(part, {
    type: "reasoning",
    text: "",
    providerMetadata: {
      anthropic: {
        redactedData:
          "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
      },
    },
  });
  for await (
    const _ of model.stream({
      system: "",
      messages: [...result.messages, userMessage("next")],
      tools: [],
      sequentialTools: false,
    }, { signal: new AbortController().signal })
  ) { /* drain */ }
  const sent = replay.requests[1].body.messages as {
    content: Record<string, unknown>[];
  }[];
  assert.deepEqual(sent[1].content[0], {
    type: "redacted_thinking",
    data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
  });
});

Deno.test("anthropic: two parallel tool uses run, their results go back in one user turn in order", async () => {
  await using imported = await inMemoryTools();
  const { model, replay } = claude([
    { body: own("anthropic-parallel-tools.sse") },
    { body: own("anthropic-answer.sse") },
  ]);
  const result = await new Agent(model, { tools: imported.tools }).generate(
    "Paris and Rome?",
  );
  assert.deepEqual(result.steps[0].toolCalls.map((c) => [c.id, c.args]), [
    ["toolu_01A", '{"location": "Paris"}'],
    ["toolu_01B", '{"location": "Rome"}'],
  ]);
  const sent = replay.requests[1].body.messages as {
    role: string;
    content: Record<string, unknown>[];
  }[];
  assert.deepEqual(sent[2], {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_01A",
        content: "Paris: 18°C, sunny",
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_01B",
        content: "Rome: 14°C, fog",
      },
    ],
  });
});

Deno.test("anthropic: sequential tools disable parallel tool use", async () => {
  await using imported = await inMemoryTools();
  const { model, replay } = claude([{ body: own("anthropic-answer.sse") }]);
  await new Agent(model, { tools: imported.tools, parallelism: 1 }).generate(
    "hi",
  );
  assert.deepEqual(replay.requests[0].body.tool_choice, {
    type: "auto",
    disable_parallel_tool_use: true,
  });
});

Deno.test("anthropic: an error tool result goes back with is_error", async () => {
  await using imported = await inMemoryTools();
  const stream = own("anthropic-parallel-tools.sse").replace(
    '"name":"get_weather"',
    '"name":"fail"',
  );
  const { model, replay } = claude([
    { body: stream },
    { body: own("anthropic-answer.sse") },
  ]);
  await new Agent(model, { tools: imported.tools }).generate("x");
  const sent = replay.requests[1].body.messages as {
    content: Record<string, unknown>[];
  }[];
  assert.deepEqual(sent[2].content[0], {
    type: "tool_result",
    tool_use_id: "toolu_01A",
    content: "the tool broke",
    is_error: true,
  });
  assert.equal(sent[2].content[1].is_error, undefined);
});

Deno.test("anthropic: a max_tokens stop ends the run as max_tokens, not as a failure", async () => {
  const { model } = claude([{
    body: own("anthropic-answer.sse").replace(
      '"stop_reason":"end_turn"',
      '"stop_reason":"max_tokens"',
    ),
  }]);
  const result = await new Agent(model).generate("hi");
  assert.equal(result.stopReason, "max_tokens");
  assert.equal(result.text, "It is 18°C and sunny in Paris.");
});

Deno.test("anthropic: a refusal fails the run naming the provider's reason", async () => {
  const { model } = claude([{ body: own("anthropic-refusal.sse") }]);
  const err = await failure(new Agent(model).generate("hi"));
  assert.equal(
    err.message,
    'weft: run failed at step 1: model stream: anthropic.messages ended the turn with finish reason "content-filter" (provider\'s reason: "refusal")',
  );
  assert.ok((err.cause as Error).cause instanceof ProviderFinishError);
});

Deno.test("anthropic: 429 and 500 fail the run with the status, the message and the provider's error", async () => {
  for (
    const [status, file, text] of [
      [
        429,
        "anthropic-429.json",
        "anthropic.messages answered HTTP 429 (retryable): Number of request tokens has exceeded your per-minute rate limit",
      ],
      [
        500,
        "anthropic-500.json",
        "anthropic.messages answered HTTP 500 (retryable): Internal server error",
      ],
    ] as const
  ) {
    const { model } = claude([{
      status,
      contentType: "application/json",
      body: own(file),
    }]);
    const err = await failure(new Agent(model).generate("hi"));
    assert.ok(err.cause instanceof ModelStreamError);
    assert.equal(err.cause.message, `model stream: ${text}`);
    assert.equal(
      (err.cause.cause as { statusCode?: number }).statusCode,
      status,
    );
  }
});

Deno.test("anthropic: an overloaded error inside the stream fails the run", async () => {
  const { model } = claude([{ body: own("anthropic-stream-error.sse") }]);
  const err = await failure(new Agent(model).generate("hi"));
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: anthropic.messages stream error (retryable): Overloaded",
  );
  // The provider's own stream error, as it reported it, is the cause.
  const cause = (err.cause as Error).cause as Record<string, unknown>;
  assert.equal(cause.type, "overloaded_error");
  assert.equal(cause.statusCode, 529);
});

recordedTest(
  "anthropic: aborting mid-stream settles the run promptly",
  async () => {
    const { model, replay } = claude([{
      body: shared("anthropic-tool-use.sse"),
      stallAfter: 900,
    }]);
    await abortMidStream(model, replay);
  },
);
