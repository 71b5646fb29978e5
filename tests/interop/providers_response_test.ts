/**
 * What the real provider packages say beside the answer reaches the run:
 * `@ai-sdk/openai` (Chat Completions and Responses) and `@ai-sdk/anthropic`
 * warn about settings they ignore, name the response and the model that
 * answered, and give finish metadata; each shows up as `model_warning`
 * events, on `step_finish` and on the step record. Our own fixtures, so these
 * run on a clone alone. No network.
 */

import assert from "node:assert/strict";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "../../src/core/agent.ts";
import type { RunEvent } from "../../src/core/events.ts";
import type { Model } from "../../src/core/model.ts";
import { aiSdkModel } from "../../src/providers/ai_sdk.ts";
import { own, replayFetch } from "../_helpers/provider_replay.ts";

async function observed(model: Model) {
  const events: RunEvent[] = [];
  const result = await new Agent(model).generate("Weather in Paris?", {
    onEvent: (e) => void events.push(e),
  });
  const warned = events.flatMap((e) =>
    e.type === "model_warning" ? [e.warning] : []
  );
  const finish = events.find((e) => e.type === "step_finish");
  assert.ok(finish?.type === "step_finish");
  return { step: result.steps[0], warned, finish };
}

Deno.test("openai chat: the ignored temperature warns, the response names the dated model, finish metadata is kept", async () => {
  const replay = replayFetch([{ body: own("openai-chat-answer.sse") }]);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  const { step, warned, finish } = await observed(
    aiSdkModel(openai.chat("o3-mini"), { temperature: 0 }),
  );
  const warnings = [{
    type: "unsupported",
    feature: "temperature",
    message: "temperature is not supported for reasoning models",
  }];
  assert.deepEqual(warned, warnings);
  assert.deepEqual(step.warnings, warnings);
  const response = {
    id: "chatcmpl-ans",
    modelId: "gpt-4o-2024-08-06",
    timestamp: "2025-12-06T05:46:40.000Z",
  };
  assert.deepEqual(step.response, response);
  assert.deepEqual(finish.response, response);
  const metadata = {
    openai: { acceptedPredictionTokens: 0, rejectedPredictionTokens: 0 },
  };
  assert.deepEqual(step.providerMetadata, metadata);
  assert.deepEqual(finish.providerMetadata, metadata);
  // The setting really was left out of the request, as the warning says.
  assert.equal("temperature" in replay.requests[0].body, false);
});

Deno.test("openai responses: the model that answered is not the one asked for, and the step says so", async () => {
  const replay = replayFetch([{ body: own("openai-responses-answer.sse") }]);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  const { step, warned } = await observed(
    aiSdkModel(openai.responses("gpt-5"), {
      seed: 7,
      providerOptions: { openai: { store: false } },
    }),
  );
  assert.deepEqual(warned, [{ type: "unsupported", feature: "seed" }]);
  assert.deepEqual(step.response, {
    id: "resp_parallel_2",
    modelId: "gpt-5.1",
    timestamp: "2025-12-13T04:26:40.000Z",
  });
  assert.deepEqual(step.providerMetadata, {
    openai: { responseId: "resp_parallel_2", serviceTier: "auto" },
  });
});

Deno.test("anthropic: the ignored seed warns; the message id, model and Anthropic's usage details are kept", async () => {
  const replay = replayFetch([{ body: own("anthropic-answer.sse") }]);
  const anthropic = createAnthropic({
    apiKey: "test-key",
    fetch: replay.fetch,
  });
  const { step, warned } = await observed(
    aiSdkModel(anthropic("claude-sonnet-4-5"), { seed: 7 }),
  );
  assert.deepEqual(warned, [{ type: "unsupported", feature: "seed" }]);
  assert.deepEqual(step.response, {
    id: "msg_answer",
    modelId: "claude-sonnet-4-5",
  });
  const anthropicMetadata = step.providerMetadata?.anthropic;
  assert.deepEqual(anthropicMetadata?.usage, {
    input_tokens: 420,
    cache_creation_input_tokens: 50,
    cache_read_input_tokens: 300,
    output_tokens: 12,
  });
  assert.equal(anthropicMetadata?.stopSequence, null);
});
