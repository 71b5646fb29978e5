/**
 * `aiSdkModel` over the real `@ai-sdk/openai` Responses API model, its HTTP
 * API replayed from the recordings in `../shared/fixtures/providers/` (a
 * four-step agent run with encrypted reasoning, an error inside a stream, a
 * 429) and our 500 body. No network.
 */

import assert from "node:assert/strict";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "../../src/core/agent.ts";
import { ModelStreamError } from "../../src/core/errors.ts";
import type { RunEvent } from "../../src/core/events.ts";
import { userMessage } from "../../src/core/messages.ts";
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
  splitChunks,
} from "../_helpers/provider_replay.ts";
import {
  abortMidStream,
  failure,
  type ImportedTools,
  inMemoryTools,
  stdioTools,
} from "../_helpers/provider_agent.ts";
import {
  CALCULATOR_SCHEMA,
  GET_WEATHER_SCHEMA,
} from "../fixtures/provider_tools.ts";

const STATELESS: AiSdkModelOptions = {
  providerOptions: {
    openai: { store: false, include: ["reasoning.encrypted_content"] },
  },
};

function responsesModel(replays: Replay[], options = STATELESS) {
  const replay = replayFetch(replays);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  return {
    replay,
    model: aiSdkModel(openai.responses("gpt-5.1-codex-max"), options),
  };
}

function recordedRun(): Replay[] {
  return splitChunks(
    shared("openai-responses-tool-run.chunks.txt"),
    "response.created",
  ).map((chunks) => ({ body: chunksToSse(chunks) }));
}

type InputItem = Record<string, unknown>;

async function recordedToolRun(imported: ImportedTools) {
  const { model, replay } = responsesModel(recordedRun());
  const reasoning: string[] = [];
  const agent = new Agent(model, {
    instructions: "Use the calculator.",
    tools: imported.tools,
  });
  const result = await agent.generate("Compute (12 + 7) * 3 * 10.", {
    onEvent: (e: RunEvent) => {
      if (e.type === "reasoning_delta") reasoning.push(e.text);
    },
  });
  assert.equal(result.text, "The final result is **570**.");
  assert.deepEqual(
    result.steps.flatMap((s) => s.toolCalls.map((c) => c.args)),
    [
      '{"a":12,"b":7,"op":"add"}',
      '{"a":19,"b":3,"op":"multiply"}',
      '{"a":57,"b":10,"op":"multiply"}',
    ],
  );
  assert.deepEqual(
    result.steps.flatMap((s) => s.results.map((r) => r.content)),
    ["19", "57", "570"],
  );
  assert.deepEqual(result.usage, {
    inputTokens: 914,
    outputTokens: 92,
    cachedInputTokens: 0,
    reasoningTokens: 0,
  });
  assert.ok(reasoning.length > 0, "no reasoning delta");
  // The reasoning item keeps its id and encrypted content on the transcript.
  const thought = result.messages[1].content[0];
  assert.ok(thought.type === "reasoning");
  const openai = thought.providerMetadata?.openai as Record<string, unknown>;
  assert.match(String(openai.itemId), /^rs_/);
  assert.match(String(openai.reasoningEncryptedContent), /^gAAAAAB/);
  const call = result.messages[1].content[1];
  assert.ok(call.type === "tool_call");
  assert.match(String(call.providerMetadata?.openai?.itemId), /^fc_/);

  // The next request sends the reasoning item back whole, then the call and its output.
  const [first, second] = replay.requests;
  assert.equal(first.url, "https://api.openai.com/v1/responses");
  assert.ok(first.text.includes(`"parameters":${CALCULATOR_SCHEMA}`));
  // Every keyword, and the integer beyond 2^53 as its digits.
  assert.ok(first.text.includes(`"parameters":${GET_WEATHER_SCHEMA}`));
  assert.deepEqual(first.body.input, [
    // The package sends instructions as a developer message to reasoning models.
    { role: "developer", content: "Use the calculator." },
    {
      role: "user",
      content: [{ type: "input_text", text: "Compute (12 + 7) * 3 * 10." }],
    },
  ]);
  const input = second.body.input as InputItem[];
  assert.deepEqual(input.slice(2), [
    {
      type: "reasoning",
      id: openai.itemId,
      encrypted_content: openai.reasoningEncryptedContent,
      summary: [{ type: "summary_text", text: thought.text }],
    },
    {
      type: "function_call",
      call_id: call.id,
      name: "calculator",
      arguments: '{"a":12,"b":7,"op":"add"}',
    },
    { type: "function_call_output", call_id: call.id, output: "19" },
  ]);
  assert.equal(second.body.store, false);
  // Step 4 carries the whole run in order (only step 1 reasoned).
  const last = replay.requests[3].body.input as InputItem[];
  assert.deepEqual(last.slice(2).map((i) => i.type), [
    "reasoning",
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
  ]);
  assert.deepEqual(last[2], input[2]);
}

recordedTest(
  "openai responses: a recorded four-step run over tools imported in memory, encrypted reasoning round-tripping",
  async () => {
    await using imported = await inMemoryTools();
    await recordedToolRun(imported);
  },
);

recordedTest(
  "openai responses: the same run over tools imported over stdio",
  async () => {
    await using imported = await stdioTools();
    await recordedToolRun(imported);
  },
);

Deno.test("openai responses: two parallel function calls run, usage with cached and reasoning tokens", async () => {
  await using imported = await inMemoryTools();
  const { model, replay } = responsesModel([
    { body: own("openai-responses-parallel-tools.sse") },
    { body: own("openai-responses-answer.sse") },
  ]);
  const result = await new Agent(model, { tools: imported.tools }).generate(
    "Paris weather, and 2 times 3?",
  );
  assert.equal(result.text, "Paris is 18°C and sunny; 2 × 3 = 6.");
  assert.deepEqual(
    result.steps[0].toolCalls.map((c) => [c.id, c.name, c.args]),
    [
      ["call_p1", "get_weather", '{"location":"Paris"}'],
      ["call_p2", "calculator", '{"a":2,"b":3,"op":"multiply"}'],
    ],
  );
  assert.deepEqual(result.steps[0].usage, {
    inputTokens: 2048,
    outputTokens: 96,
    cachedInputTokens: 1536,
    reasoningTokens: 64,
  });
  assert.deepEqual(result.usage, {
    inputTokens: 2048 + 2200,
    outputTokens: 96 + 14,
    cachedInputTokens: 1536 + 2048,
    reasoningTokens: 64,
  });
  const input = replay.requests[1].body.input as InputItem[];
  assert.deepEqual(input.slice(1), [
    {
      type: "function_call",
      call_id: "call_p1",
      name: "get_weather",
      arguments: '{"location":"Paris"}',
    },
    {
      type: "function_call",
      call_id: "call_p2",
      name: "calculator",
      arguments: '{"a":2,"b":3,"op":"multiply"}',
    },
    {
      type: "function_call_output",
      call_id: "call_p1",
      output: "Paris: 18°C, sunny",
    },
    { type: "function_call_output", call_id: "call_p2", output: "6" },
  ]);
});

Deno.test("openai responses: a continued conversation sends the answer's message item back by its id", async () => {
  // Stored responses (the default) on a model without reasoning: the package
  // refers to an earlier output item by the id its text part's provider
  // metadata carries.
  const replay = replayFetch([
    { body: own("openai-responses-answer.sse") },
    { body: own("openai-responses-answer.sse") },
  ]);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  const agent = new Agent(aiSdkModel(openai.responses("gpt-4.1")));
  const first = await agent.generate("Paris weather, and 2 times 3?");
  const answer = first.messages[1].content[0];
  assert.equal(answer.type, "text");
  assert.deepEqual(answer.providerMetadata?.openai?.itemId, "msg_p");
  await agent.generate([...first.messages, userMessage("And in Rome?")]);
  const input = replay.requests[1].body.input as InputItem[];
  assert.deepEqual(input, [
    {
      role: "user",
      content: [{ type: "input_text", text: "Paris weather, and 2 times 3?" }],
    },
    { type: "item_reference", id: "msg_p" },
    { role: "user", content: [{ type: "input_text", text: "And in Rome?" }] },
  ]);
});

recordedTest(
  "openai responses: sequential tools ask for no parallel calls",
  async () => {
    await using imported = await inMemoryTools();
    const { model, replay } = responsesModel(recordedRun().slice(3));
    await new Agent(model, { tools: imported.tools, parallelism: 1 }).generate(
      "x",
    );
    assert.equal(replay.requests[0].body.parallel_tool_calls, false);
    assert.equal(replay.requests[0].body.store, false);
  },
);

recordedTest(
  "openai responses: a recorded error inside a 200 stream fails the run",
  async () => {
    const { model } = responsesModel([{
      body: chunksToSse(shared("openai-responses-stream-error.chunks.txt")),
    }]);
    const err = await failure(new Agent(model).generate("hi"));
    assert.ok(err.cause instanceof ModelStreamError);
    // The package finds the error frame before any output and reports it as the
    // request's failure: quota errors are not retryable.
    assert.equal(
      err.message,
      "weft: run failed at step 1: model stream: openai.responses answered HTTP 429 (not retryable): You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    );
    assert.equal(
      (err.cause.cause as { isRetryable?: boolean }).isRetryable,
      false,
    );
    assert.equal(err.result.text, "");
  },
);

recordedTest(
  "openai responses: a recorded 429 and a 500 fail the run with status and message",
  async () => {
    const quota = responsesModel([{
      status: 429,
      contentType: "application/json",
      body: shared("openai-error-insufficient-quota.json"),
    }]);
    const err429 = await failure(new Agent(quota.model).generate("hi"));
    assert.ok(
      err429.message.startsWith(
        "weft: run failed at step 1: model stream: openai.responses answered HTTP 429 (retryable): You exceeded your current quota",
      ),
      err429.message,
    );
    const down = responsesModel([{
      status: 500,
      contentType: "application/json",
      body: own("openai-500.json"),
    }]);
    const err500 = await failure(new Agent(down.model).generate("hi"));
    assert.equal(
      err500.message,
      "weft: run failed at step 1: model stream: openai.responses answered HTTP 500 (retryable): The server had an error while processing your request. Sorry about that!",
    );
    assert.equal(
      ((err500.cause as Error).cause as { statusCode: number }).statusCode,
      500,
    );
  },
);

recordedTest(
  "openai responses: aborting mid-stream settles the run promptly",
  async () => {
    const { model, replay } = responsesModel([{
      body: recordedRun()[0].body,
      stallAfter: 4000,
    }]);
    await abortMidStream(model, replay);
  },
);
