/**
 * `aiSdkModel`'s own contract, over hand-written models typed with the
 * AI SDK's specification types (`LanguageModelV2`, `V3`, `V4`): accepted
 * versions, the structural model type, stream-part mapping rules, finish
 * reasons and usage across versions; and the core's side of it (usage
 * summing, provider metadata on parts) through scripted models.
 */

import assert from "node:assert/strict";
import type {
  LanguageModelV2,
  LanguageModelV2StreamPart,
  LanguageModelV3,
  LanguageModelV3StreamPart,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { Agent } from "../src/core/agent.ts";
import { ModelContractError, ModelStreamError } from "../src/core/errors.ts";
import type { Message } from "../src/core/messages.ts";
import { addUsage } from "../src/core/model.ts";
import { aiSdkModel } from "../src/providers/ai_sdk.ts";
import {
  ProviderFinishError,
  UnsupportedSpecificationError,
} from "../src/providers/errors.ts";
import { raw, script, withUsage } from "../src/testing/script.ts";
import { failure } from "./_helpers/provider_agent.ts";

const STOP_V4 = {
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

function v4(
  turns: LanguageModelV4StreamPart[][],
  seen: LanguageModelV4CallOptions[] = [],
): LanguageModelV4 {
  let n = 0;
  return {
    specificationVersion: "v4",
    provider: "test.chat",
    modelId: "m4",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream(options) {
      seen.push(options);
      const parts = turns[n++] ?? [];
      return Promise.resolve({ stream: ReadableStream.from(parts) });
    },
  };
}

Deno.test("aiSdkModel accepts a v2 model: string finish reasons and flat usage", async () => {
  const model: LanguageModelV2 = {
    specificationVersion: "v2",
    provider: "old.chat",
    modelId: "m2",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: () =>
      Promise.resolve({
        stream: ReadableStream.from<LanguageModelV2StreamPart>([
          { type: "text-start", id: "1" },
          { type: "text-delta", id: "1", delta: "hi" },
          { type: "text-end", id: "1" },
          {
            type: "finish",
            finishReason: "length",
            usage: {
              inputTokens: 7,
              outputTokens: 3,
              totalTokens: 10,
              cachedInputTokens: 4,
              reasoningTokens: 1,
            },
          },
        ]),
      }),
  };
  const result = await new Agent(aiSdkModel(model)).generate("x");
  assert.equal(result.text, "hi");
  assert.equal(result.stopReason, "max_tokens");
  assert.deepEqual(result.usage, {
    inputTokens: 7,
    outputTokens: 3,
    cachedInputTokens: 4,
    reasoningTokens: 1,
  });
});

Deno.test("aiSdkModel accepts a v3 model: unified finish reasons and nested usage", async () => {
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "mid.chat",
    modelId: "m3",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: () =>
      Promise.resolve({
        stream: ReadableStream.from<LanguageModelV3StreamPart>([
          { type: "text-delta", id: "1", delta: "ok" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: "end" },
            usage: {
              inputTokens: {
                total: 9,
                noCache: 2,
                cacheRead: 6,
                cacheWrite: 1,
              },
              outputTokens: { total: 4, text: 1, reasoning: 3 },
            },
          },
        ]),
      }),
  };
  const result = await new Agent(aiSdkModel(model)).generate("x");
  assert.equal(result.text, "ok");
  assert.deepEqual(result.usage, {
    inputTokens: 9,
    outputTokens: 4,
    cachedInputTokens: 6,
    cacheWriteTokens: 1,
    reasoningTokens: 3,
  });
});

Deno.test("aiSdkModel refuses other specification versions with a clear error", () => {
  const model = {
    specificationVersion: "v1",
    provider: "ancient.chat",
    modelId: "m1",
    doStream: () => Promise.reject(new Error("not used")),
  };
  assert.throws(() => aiSdkModel(model), (err: unknown) => {
    assert.ok(err instanceof UnsupportedSpecificationError);
    assert.equal(
      err.message,
      'aiSdkModel: model "m1" of provider "ancient.chat" has specificationVersion "v1"; accepted: v2, v3, v4 (install an AI SDK provider package of a matching major version)',
    );
    assert.equal(err.version, "v1");
    return true;
  });
});

Deno.test("aiSdkModel takes any structurally matching model object", async () => {
  // No AI SDK type at all: what a user's own copy of a provider package looks like.
  const seen: unknown[] = [];
  const own = {
    specificationVersion: "v4",
    provider: "mine.chat",
    modelId: "x",
    doStream(options: { prompt: unknown[]; abortSignal?: AbortSignal }) {
      seen.push(options);
      return Promise.resolve({ stream: ReadableStream.from([STOP_V4]) });
    },
  };
  await new Agent(aiSdkModel(own)).generate("x");
  assert.equal(seen.length, 1);
});

Deno.test("the call options carry the prompt, the tools, the signal and the per-agent options", async () => {
  const seen: LanguageModelV4CallOptions[] = [];
  const model = aiSdkModel(v4([[STOP_V4]], seen), {
    temperature: 0.5,
    maxOutputTokens: 64,
    topP: 0.9,
    stopSequences: ["END"],
    seed: 7,
    headers: { "x-a": "1" },
    providerOptions: { test: { mode: "fast" } },
    sequentialToolsOptions: { test: { parallel: false } },
  });
  const controller = new AbortController();
  await new Agent(model, { instructions: "sys", parallelism: 1 }).generate(
    "hello",
    { signal: controller.signal },
  );
  const options = seen[0];
  assert.deepEqual(options.prompt, [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "hello" }] },
  ]);
  assert.equal(options.tools, undefined);
  assert.equal(options.temperature, 0.5);
  assert.equal(options.maxOutputTokens, 64);
  assert.equal(options.topP, 0.9);
  assert.deepEqual(options.stopSequences, ["END"]);
  assert.equal(options.seed, 7);
  assert.deepEqual(options.headers, { "x-a": "1" });
  assert.deepEqual(options.providerOptions, {
    test: { mode: "fast", parallel: false },
  });
  assert.ok(options.abortSignal instanceof AbortSignal);
  controller.abort();
  assert.equal(options.abortSignal.aborted, true);
});

Deno.test("the per-agent options are copied when the adapter is built", async () => {
  const seen: LanguageModelV4CallOptions[] = [];
  const options = { temperature: 0.5, maxOutputTokens: 64 };
  const model = aiSdkModel(v4([[STOP_V4]], seen), options);
  options.temperature = 1.5;
  options.maxOutputTokens = 4096;
  await new Agent(model).generate("hello");
  assert.equal(seen[0].temperature, 0.5);
  assert.equal(seen[0].maxOutputTokens, 64);
});

Deno.test("a run that stops reading a turn early cancels the provider's stream", async () => {
  // An event after the finish breaks the model contract: the loop stops
  // reading, and the provider's response body must not stay open.
  const cancelled = Promise.withResolvers<unknown>();
  const parts: LanguageModelV4StreamPart[] = [
    { type: "text-delta", id: "t", delta: "hi" },
    STOP_V4,
    { type: "text-delta", id: "t", delta: "late" },
  ];
  const model = {
    specificationVersion: "v4",
    provider: "test.chat",
    modelId: "m",
    doStream: () =>
      Promise.resolve({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          pull(controller) {
            const part = parts.shift();
            // After the parts the body stays open, as a live connection does.
            if (part !== undefined) controller.enqueue(part);
          },
          cancel: (reason) => cancelled.resolve(reason),
        }),
      }),
  };
  const err = await failure(new Agent(aiSdkModel(model)).generate("x"));
  assert.ok(err.cause instanceof ModelContractError, String(err.cause));
  await cancelled.promise;
});

Deno.test("block metadata: the latest given is kept, a signature closes reasoning, empty closers are not deltas", async () => {
  const model = aiSdkModel(v4([[
    { type: "reasoning-start", id: "r1", providerMetadata: { p: { v: 1 } } },
    { type: "reasoning-delta", id: "r1", delta: "think" },
    {
      type: "reasoning-delta",
      id: "r1",
      delta: "",
      providerMetadata: { p: { signature: "sig" } },
    },
    { type: "reasoning-end", id: "r1" },
    { type: "reasoning-start", id: "r2" },
    { type: "reasoning-delta", id: "r2", delta: "more" },
    { type: "reasoning-end", id: "r2" },
    {
      type: "text-start",
      id: "t",
      providerMetadata: { p: { itemId: "msg_1" } },
    },
    { type: "text-delta", id: "t", delta: "answer" },
    { type: "text-end", id: "t" },
    {
      type: "tool-call",
      toolCallId: "c9",
      toolName: "search",
      input: "{}",
      providerExecuted: true,
    },
    STOP_V4,
  ]]));
  const deltas: string[] = [];
  const result = await new Agent(model).generate("x", {
    onEvent: (e) => {
      if (e.type === "reasoning_delta" || e.type === "text_delta") {
        deltas.push(`${e.type}:${e.text}`);
      }
    },
  });
  assert.deepEqual(deltas, [
    "reasoning_delta:think",
    "reasoning_delta:more",
    "text_delta:answer",
  ]);
  assert.deepEqual(result.messages[1], {
    role: "assistant",
    content: [
      {
        type: "reasoning",
        text: "think",
        signature: "sig",
        providerMetadata: { p: { signature: "sig" } },
      },
      { type: "reasoning", text: "more" },
      {
        type: "text",
        text: "answer",
        providerMetadata: { p: { itemId: "msg_1" } },
      },
    ],
  });
});

Deno.test("the transcript maps back: metadata as provider options, a bare signature under the provider's key", async () => {
  const seen: LanguageModelV4CallOptions[] = [];
  const model = aiSdkModel(v4([[STOP_V4]], seen));
  const transcript: Message[] = [
    { role: "user", content: [{ type: "text", text: "q" }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "r", signature: "s1" },
        { type: "text", text: "t", providerMetadata: { test: { id: "m" } } },
        {
          type: "tool_call",
          id: "c1",
          name: "big",
          args: '{"n":12345678901234567890}',
          providerMetadata: { google: { thoughtSignature: "ts" } },
        },
        { type: "tool_call", id: "c2", name: "bad", args: "{oops" },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool_result",
          callId: "c1",
          name: "big",
          content: "ok",
          isError: false,
        },
        {
          type: "tool_result",
          callId: "c2",
          name: "bad",
          content: "no",
          isError: true,
        },
      ],
    },
  ];
  for await (
    const _ of model.stream(
      { system: "", messages: transcript, tools: [], sequentialTools: false },
      { signal: new AbortController().signal },
    )
  ) { /* drain */ }
  const prompt = seen[0].prompt;
  assert.equal(prompt.length, 3);
  const assistant = prompt[1];
  assert.ok(assistant.role === "assistant");
  assert.deepEqual(assistant.content[0], {
    type: "reasoning",
    text: "r",
    providerOptions: { test: { signature: "s1" } },
  });
  assert.deepEqual(assistant.content[1], {
    type: "text",
    text: "t",
    providerOptions: { test: { id: "m" } },
  });
  const call = assistant.content[2];
  assert.ok(call.type === "tool-call");
  // The integer beyond 2^53 keeps its digits when the provider serialises the input.
  assert.equal(JSON.stringify(call.input), '{"n":12345678901234567890}');
  assert.deepEqual(call.providerOptions, {
    google: { thoughtSignature: "ts" },
  });
  const bad = assistant.content[3];
  assert.ok(bad.type === "tool-call");
  assert.equal(bad.input, "{oops");
  assert.deepEqual(prompt[2], {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "big",
        output: { type: "text", value: "ok" },
      },
      {
        type: "tool-result",
        toolCallId: "c2",
        toolName: "bad",
        output: { type: "error-text", value: "no" },
      },
    ],
  });
});

Deno.test("a part the prompt cannot carry fails the run naming it", async () => {
  const model = aiSdkModel(v4([[STOP_V4]]));
  let error: unknown;
  try {
    for await (
      const _ of model.stream({
        system: "",
        messages: [{
          role: "user",
          content: [{ type: "tool_call", id: "c", name: "n", args: "{}" }],
        }],
        tools: [],
        sequentialTools: false,
      }, { signal: new AbortController().signal })
    ) { /* drain */ }
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof TypeError);
  assert.equal(
    error.message,
    'aiSdkModel: a user message holds a "tool_call" part, which the AI SDK prompt cannot carry there; user messages hold text, assistant messages text, reasoning and tool calls, tool messages tool results',
  );
});

Deno.test("finish reasons error, other and interrupted fail the run; a missing raw reason is left out", async () => {
  for (const unified of ["error", "other", "interrupted"] as const) {
    const model = aiSdkModel(v4([[
      { type: "text-delta", id: "t", delta: "partial" },
      { ...STOP_V4, finishReason: { unified, raw: undefined } },
    ]]));
    const err = await failure(new Agent(model).generate("x"));
    assert.equal(
      err.message,
      `weft: run failed at step 1: model stream: test.chat ended the turn with finish reason "${unified}"`,
    );
    assert.ok(err.cause instanceof ModelStreamError);
    assert.ok(err.cause.cause instanceof ProviderFinishError);
    assert.equal(err.cause.cause.raw, undefined);
  }
});

Deno.test("a doStream that throws a non-HTTP error fails the run naming the provider", async () => {
  const failing = {
    specificationVersion: "v4",
    provider: "net.chat",
    modelId: "m",
    doStream: () => Promise.reject(new TypeError("fetch failed")),
  };
  const err = await failure(new Agent(aiSdkModel(failing)).generate("x"));
  assert.equal(
    err.message,
    "weft: run failed at step 1: model stream: net.chat: fetch failed",
  );
  assert.ok(err.cause instanceof ModelStreamError);
  assert.ok(err.cause.cause instanceof TypeError);
});

Deno.test("core: addUsage sums the optional counts present on either side", () => {
  assert.deepEqual(
    addUsage(
      { inputTokens: 1, outputTokens: 2, cachedInputTokens: 3 },
      {
        inputTokens: 4,
        outputTokens: 5,
        reasoningTokens: 6,
        cacheWriteTokens: 7,
      },
    ),
    {
      inputTokens: 5,
      outputTokens: 7,
      cachedInputTokens: 3,
      cacheWriteTokens: 7,
      reasoningTokens: 6,
    },
  );
  assert.deepEqual(
    addUsage({ inputTokens: 1, outputTokens: 1 }, {
      inputTokens: 1,
      outputTokens: 1,
    }),
    { inputTokens: 2, outputTokens: 2 },
  );
});

Deno.test("core: the loop sums the optional usage counts into RunResult.usage and step events", async () => {
  const model = script(
    withUsage(
      raw({ type: "tool_call", id: "a", name: "none", args: "{}" }, {
        type: "finish",
        reason: "tool_calls",
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
      { inputTokens: 10, outputTokens: 2, cachedInputTokens: 8 },
    ),
    withUsage(
      raw({ type: "text", text: "ok" }, {
        type: "finish",
        reason: "stop",
        usage: { inputTokens: 1, outputTokens: 1 },
      }),
      { inputTokens: 12, outputTokens: 3, reasoningTokens: 2 },
    ),
  );
  const stepUsage: unknown[] = [];
  const result = await new Agent(model).generate("x", {
    onEvent: (e) => {
      if (e.type === "step_finish") stepUsage.push(e.usage);
    },
  });
  assert.deepEqual(result.usage, {
    inputTokens: 22,
    outputTokens: 5,
    cachedInputTokens: 8,
    reasoningTokens: 2,
  });
  assert.deepEqual(stepUsage, [
    { inputTokens: 10, outputTokens: 2, cachedInputTokens: 8 },
    { inputTokens: 12, outputTokens: 3, reasoningTokens: 2 },
  ]);
});

Deno.test("core: provider metadata on a model's tool call reaches the transcript's call part", async () => {
  const model = script(
    raw(
      {
        type: "tool_call",
        id: "a",
        name: "none",
        args: "{}",
        providerMetadata: { google: { thoughtSignature: "abc" } },
      },
      {
        type: "finish",
        reason: "tool_calls",
        usage: { inputTokens: 1, outputTokens: 1 },
      },
    ),
    raw({
      type: "finish",
      reason: "stop",
      usage: { inputTokens: 1, outputTokens: 1 },
    }),
  );
  const result = await new Agent(model).generate("x");
  assert.deepEqual(result.messages[1].content[0], {
    type: "tool_call",
    id: "a",
    name: "none",
    args: "{}",
    providerMetadata: { google: { thoughtSignature: "abc" } },
  });
});
