/**
 * `aiSdkModel` over the real `@ai-sdk/openai-compatible` chat model (the
 * shape of Ollama, vLLM, llama.cpp, LM Studio and hosted compatibles), its
 * HTTP API replayed: recorded DeepSeek and OpenAI streams from
 * `../shared/fixtures/providers/` and ours. No network.
 */

import assert from "node:assert/strict";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Agent } from "../../src/core/agent.ts";
import {
  aiSdkModel,
  type AiSdkModelOptions,
} from "../../src/providers/ai_sdk.ts";
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

function localModel(replays: Replay[], options?: AiSdkModelOptions) {
  const replay = replayFetch(replays);
  const ollama = createOpenAICompatible({
    name: "ollama",
    baseURL: "http://127.0.0.1:11434/v1",
    includeUsage: true,
    fetch: replay.fetch,
  });
  return { replay, model: aiSdkModel(ollama.chatModel("qwen3:8b"), options) };
}

type Sent = { role: string; content: unknown; [key: string]: unknown };

async function recordedToolCall(imported: ImportedTools) {
  const { model, replay } = localModel([
    {
      body: chunksToSse(
        shared("openai-compatible-deepseek-tool-call.chunks.txt"),
      ),
    },
    { body: own("compatible-answer.sse") },
  ]);
  const reasoning: string[] = [];
  const agent = new Agent(model, {
    instructions: "Use tools.",
    tools: imported.tools,
  });
  const result = await agent.generate("Weather in San Francisco?", {
    onEvent: (e) => {
      if (e.type === "reasoning_delta") reasoning.push(e.text);
    },
  });
  assert.equal(result.text, "It is 14°C with fog in San Francisco.");
  assert.equal(model.info?.provider, "ollama.chat");
  // Arguments from 11 tiny deltas, verbatim.
  assert.deepEqual(result.steps[0].toolCalls.map((c) => [c.name, c.args]), [
    ["weather", '{"location": "San Francisco"}'],
  ]);
  assert.ok(reasoning.length >= 30, `only ${reasoning.length} deltas`);
  const thought = result.messages[1].content[0];
  assert.ok(thought.type === "reasoning");
  assert.equal(thought.text, reasoning.join(""));
  // Usage: cached and reasoning tokens from the recording, summed with the answer's.
  assert.deepEqual(result.steps[0].usage, {
    inputTokens: 339,
    outputTokens: 83,
    cachedInputTokens: 320,
    reasoningTokens: 39,
  });
  assert.deepEqual(result.usage, {
    inputTokens: 339 + 400,
    outputTokens: 83 + 11,
    cachedInputTokens: 320,
    reasoningTokens: 39,
  });
  const [first, second] = replay.requests;
  assert.equal(first.url, "http://127.0.0.1:11434/v1/chat/completions");
  const tool = (first.body.tools as { function: Record<string, unknown> }[])
    .find((t) => t.function.name === "weather");
  assert.deepEqual(tool, {
    type: "function",
    function: {
      name: "weather",
      description: "The weather in a location.",
      parameters: {
        type: "object",
        properties: { location: { type: "string" } },
        required: ["location"],
      },
    },
  });
  const messages = second.body.messages as Sent[];
  assert.deepEqual(messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
  ]);
  // The reasoning goes back as the assistant message's reasoning_content.
  assert.equal(messages[2].reasoning_content, thought.text);
  const calls = messages[2].tool_calls as { id: string; function: unknown }[];
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].function, {
    name: "weather",
    arguments: '{"location":"San Francisco"}',
  });
  assert.equal(messages[3].tool_call_id, calls[0].id);
  assert.equal(messages[3].content, "San Francisco: 14°C, fog");
}

recordedTest(
  "openai-compatible: a recorded reasoning tool call over tools imported in memory",
  async () => {
    await using imported = await inMemoryTools();
    await recordedToolCall(imported);
  },
);

recordedTest(
  "openai-compatible: the same over tools imported over stdio",
  async () => {
    await using imported = await stdioTools();
    await recordedToolCall(imported);
  },
);

recordedTest(
  "openai-compatible: recorded parallel tool calls and a text answer",
  async () => {
    await using imported = await inMemoryTools();
    const { model } = localModel([
      { body: shared("openai-chat-parallel-tool-calls.sse") },
      { body: shared("openai-chat-text.sse") },
    ]);
    const result = await new Agent(model, { tools: imported.tools }).generate(
      "x",
    );
    assert.deepEqual(result.steps[0].results.map((r) => r.content), [
      "Edinburgh: 9°C, rain",
      "AAPL: 187.50",
    ]);
    assert.ok(
      result.text.startsWith("I'm unable to provide real-time weather"),
    );
  },
);

Deno.test("openai-compatible: sequential tools send the configured no-parallel option only", async () => {
  await using imported = await inMemoryTools();
  const plain = localModel([{ body: own("compatible-answer.sse") }]);
  await new Agent(plain.model, { tools: imported.tools, parallelism: 1 })
    .generate("x");
  assert.equal(plain.replay.requests[0].body.parallel_tool_calls, undefined);
  const configured = localModel([{ body: own("compatible-answer.sse") }], {
    sequentialToolsOptions: { ollama: { parallel_tool_calls: false } },
    temperature: 0.2,
  });
  await new Agent(configured.model, { tools: imported.tools, parallelism: 1 })
    .generate("x");
  const body = configured.replay.requests[0].body;
  assert.equal(body.parallel_tool_calls, false);
  assert.equal(body.temperature, 0.2);
});

recordedTest(
  "openai-compatible: a 404 for a missing model and a recorded 429 fail the run",
  async () => {
    const missing = localModel([{
      status: 404,
      contentType: "application/json",
      body: own("compatible-404.json"),
    }]);
    const err = await failure(new Agent(missing.model).generate("x"));
    assert.equal(
      err.message,
      'weft: run failed at step 1: model stream: ollama.chat answered HTTP 404 (not retryable): model "qwen3:8b" not found, try pulling it first',
    );
    const quota = localModel([{
      status: 429,
      contentType: "application/json",
      body: shared("openai-error-insufficient-quota.json"),
    }]);
    const err429 = await failure(new Agent(quota.model).generate("x"));
    assert.ok(
      err429.message.startsWith(
        "weft: run failed at step 1: model stream: ollama.chat answered HTTP 429 (retryable): You exceeded your current quota",
      ),
      err429.message,
    );
  },
);

Deno.test("openai-compatible: a Gemini thought signature on a tool call is kept and sent back", async () => {
  await using imported = await inMemoryTools();
  const replay = replayFetch([
    { body: own("gemini-compatible-thought-signature.sse") },
    { body: own("compatible-answer.sse") },
  ]);
  const gemini = createOpenAICompatible({
    name: "gemini",
    baseURL: "http://127.0.0.1:1/v1beta/openai",
    includeUsage: true,
    fetch: replay.fetch,
  });
  const model = aiSdkModel(gemini.chatModel("gemini-2.5-flash"));
  const result = await new Agent(model, { tools: imported.tools }).generate(
    "Paris?",
  );
  assert.deepEqual(result.messages[1].content[0], {
    type: "tool_call",
    id: "function-call-1",
    name: "get_weather",
    args: '{"location":"Paris"}',
    providerMetadata: {
      gemini: { thoughtSignature: "CiQBVKhc7oJrN3Q0Y2FzaWduYXR1cmU=" },
    },
  });
  assert.equal(result.steps[0].usage.reasoningTokens, 14);
  const sent = replay.requests[1].body.messages as Sent[];
  const calls = sent[1].tool_calls as Record<string, unknown>[];
  assert.deepEqual(calls[0].extra_content, {
    google: { thought_signature: "CiQBVKhc7oJrN3Q0Y2FzaWduYXR1cmU=" },
  });
});

recordedTest(
  "openai-compatible: aborting mid-stream settles the run promptly",
  async () => {
    const { model, replay } = localModel([{
      body: chunksToSse(
        shared("openai-compatible-deepseek-tool-call.chunks.txt"),
      ),
      stallAfter: 3000,
    }]);
    await abortMidStream(model, replay);
  },
);
