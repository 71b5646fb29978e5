/**
 * Nothing a provider says about a call is dropped: its warnings
 * (`stream-start`, or the `warnings` of a `doStream` result), its response
 * metadata (id, the model that answered, when) and its finish metadata reach
 * the run as `model_warning` events, on `step_finish` and on the step
 * record. Over hand-written AI SDK models of each specification version, and
 * the core's side of it over scripted models.
 */

import assert from "node:assert/strict";
import type {
  LanguageModelV2,
  LanguageModelV2StreamPart,
  LanguageModelV3,
  LanguageModelV3StreamPart,
  LanguageModelV4,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { Agent } from "../src/core/agent.ts";
import type { RunEvent } from "../src/core/events.ts";
import { aiSdkModel } from "../src/providers/ai_sdk.ts";
import { raw, say, script } from "../src/testing/script.ts";
import { failure } from "./_helpers/provider_agent.ts";

const FINISH_V4 = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: {
      total: 5,
      noCache: 5,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: 2, text: 2, reasoning: undefined },
  },
} as const satisfies LanguageModelV4StreamPart;

function v4(parts: LanguageModelV4StreamPart[]): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test.chat",
    modelId: "asked-for",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: () => Promise.resolve({ stream: ReadableStream.from(parts) }),
  };
}

/** Runs `agent` on "x", collecting every event. */
async function observed(agent: Agent) {
  const events: RunEvent[] = [];
  const result = await agent.generate("x", {
    onEvent: (e) => void events.push(e),
  });
  return { result, events };
}

Deno.test("v4: stream-start warnings, response metadata and finish metadata reach the events and the step record", async () => {
  const model = v4([
    {
      type: "stream-start",
      warnings: [
        { type: "unsupported", feature: "seed" },
        {
          type: "unsupported",
          feature: "temperature",
          details: "temperature is not supported for reasoning models",
        },
        { type: "compatibility", feature: "tools", details: "emulated" },
        {
          type: "deprecated",
          setting: "maxTokens",
          message: "use maxOutputTokens",
        },
        { type: "other", message: "the cache was cold" },
      ],
    },
    {
      type: "response-metadata",
      id: "resp_1",
      modelId: "asked-for-2025-06-01",
      timestamp: new Date(Date.UTC(2025, 5, 1, 12, 0, 0)),
    },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "hi" },
    { type: "text-end", id: "t" },
    {
      ...FINISH_V4,
      providerMetadata: { test: { serviceTier: "flex", logprobs: [-0.1] } },
    },
  ]);
  const { result, events } = await observed(new Agent(aiSdkModel(model)));
  const warnings = [
    { type: "unsupported", feature: "seed" },
    {
      type: "unsupported",
      feature: "temperature",
      message: "temperature is not supported for reasoning models",
    },
    { type: "compatibility", feature: "tools", message: "emulated" },
    {
      type: "deprecated",
      feature: "maxTokens",
      message: "use maxOutputTokens",
    },
    { type: "other", message: "the cache was cold" },
  ];
  const response = {
    id: "resp_1",
    modelId: "asked-for-2025-06-01",
    timestamp: "2025-06-01T12:00:00.000Z",
  };
  const providerMetadata = { test: { serviceTier: "flex", logprobs: [-0.1] } };
  // The warnings as they arrive: after step_start, before the first delta.
  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "step_start",
    ...warnings.map(() => "model_warning"),
    "text_delta",
    "step_finish",
    "run_finish",
  ]);
  assert.deepEqual(
    events.filter((e) => e.type === "model_warning"),
    warnings.map((warning) => ({
      type: "model_warning",
      runId: result.id,
      index: 0,
      warning,
    })),
  );
  assert.deepEqual(events.find((e) => e.type === "step_finish"), {
    type: "step_finish",
    runId: result.id,
    index: 0,
    reason: "stop",
    usage: { inputTokens: 5, outputTokens: 2 },
    response,
    providerMetadata,
  });
  assert.deepEqual(result.steps[0], {
    index: 0,
    stopReason: "stop",
    usage: { inputTokens: 5, outputTokens: 2 },
    text: "hi",
    toolCalls: [],
    results: [],
    warnings,
    response,
    providerMetadata,
  });
});

Deno.test("v2 and v3: their warning kinds read as the same warnings", async () => {
  const v2: LanguageModelV2 = {
    specificationVersion: "v2",
    provider: "old.chat",
    modelId: "m2",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: () =>
      Promise.resolve({
        stream: ReadableStream.from<LanguageModelV2StreamPart>([
          {
            type: "stream-start",
            warnings: [
              { type: "unsupported-setting", setting: "topK" },
              {
                type: "unsupported-tool",
                tool: {
                  type: "provider-defined",
                  id: "x.search",
                  name: "search",
                  args: {},
                },
                details: "no provider tools here",
              },
              { type: "other", message: "note" },
            ],
          },
          {
            type: "response-metadata",
            id: "r2",
            modelId: "m2-snapshot",
          },
          { type: "text-delta", id: "1", delta: "ok" },
          {
            type: "finish",
            finishReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          },
        ]),
      }),
  };
  const v3: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "mid.chat",
    modelId: "m3",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: () =>
      Promise.resolve({
        stream: ReadableStream.from<LanguageModelV3StreamPart>([
          {
            type: "stream-start",
            warnings: [{ type: "unsupported", feature: "topK" }],
          },
          { type: "text-delta", id: "1", delta: "ok" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: "end" },
            usage: {
              inputTokens: {
                total: 1,
                noCache: 1,
                cacheRead: undefined,
                cacheWrite: undefined,
              },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
            providerMetadata: { mid: { region: "eu" } },
          },
        ]),
      }),
  };
  const old = await new Agent(aiSdkModel(v2)).generate("x");
  assert.deepEqual(old.steps[0].warnings, [
    { type: "unsupported", feature: "topK" },
    {
      type: "unsupported",
      feature: 'tool "search"',
      message: "no provider tools here",
    },
    { type: "other", message: "note" },
  ]);
  assert.deepEqual(old.steps[0].response, { id: "r2", modelId: "m2-snapshot" });
  assert.equal("providerMetadata" in old.steps[0], false);
  const mid = await new Agent(aiSdkModel(v3)).generate("x");
  assert.deepEqual(mid.steps[0].warnings, [
    { type: "unsupported", feature: "topK" },
  ]);
  assert.equal("response" in mid.steps[0], false);
  assert.deepEqual(mid.steps[0].providerMetadata, { mid: { region: "eu" } });
});

Deno.test("warnings on the doStream result (the non-streaming shape) are reported first", async () => {
  const model = {
    specificationVersion: "v4",
    provider: "wrapped.chat",
    modelId: "m",
    doStream: () =>
      Promise.resolve({
        warnings: [{ type: "unsupported", feature: "stopSequences" }],
        stream: ReadableStream.from([
          {
            type: "stream-start",
            warnings: [{ type: "other", message: "from the stream" }],
          },
          { type: "text-delta", id: "t", delta: "ok" },
          FINISH_V4,
        ]),
      }),
  };
  const { result, events } = await observed(new Agent(aiSdkModel(model)));
  assert.deepEqual(result.steps[0].warnings, [
    { type: "unsupported", feature: "stopSequences" },
    { type: "other", message: "from the stream" },
  ]);
  assert.equal(events.filter((e) => e.type === "model_warning").length, 2);
});

Deno.test("a warning is reported before the step fails: a failed run still told the caller", async () => {
  const model = v4([
    {
      type: "stream-start",
      warnings: [{ type: "unsupported", feature: "temperature" }],
    },
    { type: "error", error: { message: "overloaded" } },
  ]);
  const warned: unknown[] = [];
  const err = await failure(
    new Agent(aiSdkModel(model)).generate("x", {
      onEvent: (e) => {
        if (e.type === "model_warning") warned.push(e.warning);
      },
    }),
  );
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: test.chat stream error: overloaded",
  );
  assert.deepEqual(warned, [{ type: "unsupported", feature: "temperature" }]);
});

Deno.test("a step without warnings or metadata records none of the three fields", async () => {
  const { result, events } = await observed(
    new Agent(
      aiSdkModel(v4([{ type: "text-delta", id: "t", delta: "ok" }, FINISH_V4])),
    ),
  );
  for (const key of ["warnings", "response", "providerMetadata"]) {
    assert.equal(key in result.steps[0], false, key);
  }
  const finish = events.find((e) => e.type === "step_finish");
  assert.ok(finish !== undefined);
  assert.equal("response" in finish, false);
  assert.equal("providerMetadata" in finish, false);
});

Deno.test("core: a scripted model's warnings and finish metadata reach the record, malformed fields left out", async () => {
  const model = script(
    raw(
      { type: "warning", warning: { type: "unsupported", feature: "seed" } },
      { type: "warning", warning: { feature: 7, message: "no type" } },
      { type: "warning", warning: null },
      { type: "text", text: "hi" },
      {
        type: "finish",
        reason: "stop",
        usage: { inputTokens: 1, outputTokens: 1 },
        response: { id: "r", modelId: 5, timestamp: "2025-01-01T00:00:00Z" },
        providerMetadata: { p: { tier: "flex" } },
      },
    ),
    say("second"),
  );
  const { result, events } = await observed(new Agent(model));
  assert.deepEqual(result.steps[0].warnings, [
    { type: "unsupported", feature: "seed" },
    { type: "other", message: "no type" },
    { type: "other" },
  ]);
  assert.deepEqual(result.steps[0].response, {
    id: "r",
    timestamp: "2025-01-01T00:00:00Z",
  });
  assert.deepEqual(result.steps[0].providerMetadata, { p: { tier: "flex" } });
  assert.deepEqual(
    events.filter((e) => e.type === "model_warning").map((e) =>
      e.type === "model_warning" ? e.index : -1
    ),
    [0, 0, 0],
  );
});

Deno.test("core: a warning after the finish breaks the stream contract", async () => {
  const model = script(raw(
    {
      type: "finish",
      reason: "stop",
      usage: { inputTokens: 1, outputTokens: 1 },
    },
    { type: "warning", warning: { type: "other" } },
  ));
  const err = await failure(new Agent(model).generate("x"));
  assert.equal(
    err.message,
    "weft: run failed at step 1: model violated the stream contract: event warning after the finish event",
  );
});
