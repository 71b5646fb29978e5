/**
 * `aiSdkModel`: any AI SDK language model (`@ai-sdk/openai`,
 * `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`, …) as a weft `Model`.
 * The model is taken structurally, so no AI SDK package is a runtime
 * dependency and a user's own copy of a provider package type-checks.
 *
 * @module
 */

import type {
  LanguageModelV4CallOptions,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type {
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  ModelStreamOptions,
} from "../core/model.ts";
import {
  type MediaKind,
  type MediaSettings,
  toPrompt,
  toTools,
} from "./_prompt.ts";
import { mapStream } from "./_stream.ts";
import { providerFailure } from "./_failure.ts";
import {
  SUPPORTED_SPECIFICATION_VERSIONS,
  UnsupportedSpecificationError,
} from "./errors.ts";

/**
 * An AI SDK language model, as far as `aiSdkModel` reads it: any object of
 * specification version v2, v3 or v4 with a streaming call. Every provider
 * package's `provider("model-id")` value fits.
 *
 * `doStream`'s parameter is typed `never` so that the model of any copy
 * and any of those versions of `@ai-sdk/provider` type-checks (their call
 * option types differ in parts weft never sends, such as files).
 * `aiSdkModel` calls it with v4 call options holding only system, text,
 * reasoning, tool-call and tool-result parts, which v2 and v3 models read
 * the same way; a tool result's media parts it writes in the model's own
 * version's names.
 */
export interface AiSdkLanguageModel {
  /** `"v2"`, `"v3"` or `"v4"`, checked when the adapter is built. */
  readonly specificationVersion: string;
  /** The provider id, e.g. `openai.chat`, `anthropic.messages`. */
  readonly provider: string;
  /** The model id, e.g. `gpt-4o`. */
  readonly modelId: string;
  /** The streaming call of the AI SDK language-model specification. */
  doStream(
    options: never,
  ): PromiseLike<{ readonly stream: ReadableStream<unknown> }>;
}

/**
 * `doStream` as `aiSdkModel` calls it. Warnings travel in the stream's
 * `stream-start` part; a model that gives them on the result instead (as
 * the non-streaming call does) is read too.
 */
type DoStream = (
  options: LanguageModelV4CallOptions,
) => PromiseLike<
  { readonly stream: ReadableStream<unknown>; readonly warnings?: unknown }
>;

/** JSON the provider options may hold. */
export type ProviderOptions = Readonly<
  Record<string, Readonly<Record<string, unknown>>>
>;

/** Per-agent settings of {@linkcode aiSdkModel}, passed to every call. */
export interface AiSdkModelOptions {
  /** Provider-specific options, keyed by provider, e.g. `{ openai: { store: false } }`. */
  readonly providerOptions?: ProviderOptions;
  /** The most tokens one turn may generate. */
  readonly maxOutputTokens?: number;
  /** The sampling temperature. */
  readonly temperature?: number;
  /** Nucleus sampling. */
  readonly topP?: number;
  /** Texts that end the turn when generated. */
  readonly stopSequences?: readonly string[];
  /** The sampling seed, where the provider supports one. */
  readonly seed?: number;
  /** Extra HTTP headers for every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The provider options that ask for one tool call per turn, merged in when
   * the agent runs its calls one at a time (parallelism 1). Defaults by the
   * model's provider id: `openai.*` → `{ openai: { parallelToolCalls: false } }`,
   * `anthropic.*` → `{ anthropic: { disableParallelToolUse: true } }`,
   * `groq.*` → `{ groq: { parallelToolCalls: false } }`; none for others. For an
   * OpenAI-compatible server that honours the field, e.g.
   * `{ ollama: { parallel_tool_calls: false } }` (its options key is the
   * provider's `name`).
   */
  readonly sequentialToolsOptions?: ProviderOptions;
  /**
   * The media a tool result sends this provider as media parts beside its
   * text: an image or audio item of a tool's result (an MCP tool's
   * screenshot, a `content(…)` result) goes as a file part after the text
   * the model reads, where the text marks it `[image image/png, N bytes]`.
   * Defaults by the model's provider id, for v4 models (the versions whose
   * packages were checked): `openai.responses` and `anthropic.messages` take
   * `["image"]`; every other model `[]`, the text alone (`openai.chat` would
   * write the bytes into the tool message as JSON text). Give it for a
   * provider whose package you know takes them, e.g. `["image"]` for an
   * OpenAI-compatible server created with `supportsMultiPartToolContent`.
   */
  readonly toolResultMedia?: readonly ("image" | "audio")[];
}

const SEQUENTIAL_DEFAULTS: Readonly<Record<string, ProviderOptions>> = {
  openai: { openai: { parallelToolCalls: false } },
  anthropic: { anthropic: { disableParallelToolUse: true } },
  groq: { groq: { parallelToolCalls: false } },
};

/**
 * The media v4 models take in tool results, by provider id: the packages'
 * prompt converters were read (`@ai-sdk/openai` 4: Responses sends an image
 * as `input_image`, audio as an `input_file` the API refuses, Chat
 * Completions stringifies the parts as JSON; `@ai-sdk/anthropic` 4: an image
 * block, audio dropped with a warning).
 */
const MEDIA_DEFAULTS: Readonly<Record<string, readonly MediaKind[]>> = {
  "openai.responses": ["image"],
  "anthropic.messages": ["image"],
};

/**
 * Adapts an AI SDK language model to a weft {@linkcode Model}. Throws
 * {@linkcode UnsupportedSpecificationError} for a model whose
 * `specificationVersion` is not v2, v3 or v4 (the versions the `ai` package
 * itself accepts).
 *
 * Each step streams one `doStream` call with the agent's instructions as the
 * system message, the transcript in order (text, reasoning with its
 * provider metadata, tool calls with their argument JSON, tool results with
 * `isError` as an error result and their images after the text where the
 * provider takes them, see `toolResultMedia`) and the step's tools as
 * function tools with their schema documents whole. The provider's warnings
 * become `warning` events, its response metadata and finish metadata ride
 * on the finish (the run's `model_warning` event and step record). Text and reasoning deltas reach the run as
 * they arrive; tool calls arrive whole, their argument text verbatim. The
 * run's signal reaches the provider's `fetch`. A provider error fails the
 * run as `model stream: <provider> answered HTTP <status> (retryable): <message>`
 * with the provider's error as the `cause`; a finish that is not `stop`,
 * `length` or `tool-calls` fails it with a {@linkcode ProviderFinishError}.
 *
 * @example Using `aiSdkModel`
 * ```ts
 * import { Agent, aiSdkModel } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * // Any AI SDK model; a hand-written one here, so the example runs offline.
 * const replay = {
 *   specificationVersion: "v4",
 *   provider: "demo.chat",
 *   modelId: "demo",
 *   doStream: () => Promise.resolve({
 *     stream: ReadableStream.from([
 *       { type: "text-delta", id: "t", delta: "hello" },
 *       { type: "finish", finishReason: { unified: "stop", raw: "stop" },
 *         usage: { inputTokens: { total: 3 }, outputTokens: { total: 1 } } },
 *     ]),
 *   }),
 * };
 * const agent = new Agent(aiSdkModel(replay, { temperature: 0 }));
 * const result = await agent.generate("hi");
 * assert.equal(result.text, "hello");
 * assert.deepEqual(result.usage, { inputTokens: 3, outputTokens: 1 });
 * ```
 */
export function aiSdkModel(
  model: AiSdkLanguageModel,
  options: AiSdkModelOptions = {},
): Model {
  const version = model?.specificationVersion;
  if (!SUPPORTED_SPECIFICATION_VERSIONS.includes(version)) {
    throw new UnsupportedSpecificationError(version, model ?? {});
  }
  const provider = String(model.provider);
  const optionsKey = provider.split(".")[0].trim();
  const info: ModelInfo = { provider, name: String(model.modelId) };
  const settings: AiSdkModelOptions = { ...options };
  const sequential = settings.sequentialToolsOptions ??
    (Object.hasOwn(SEQUENTIAL_DEFAULTS, optionsKey)
      ? SEQUENTIAL_DEFAULTS[optionsKey]
      : undefined);
  const media: MediaSettings = {
    version,
    kinds: new Set(
      settings.toolResultMedia ??
        (version === "v4" && Object.hasOwn(MEDIA_DEFAULTS, provider)
          ? MEDIA_DEFAULTS[provider]
          : []),
    ),
  };
  return {
    info,
    stream(
      request: ModelRequest,
      streamOptions: ModelStreamOptions,
    ): AsyncIterable<ModelEvent> {
      return streamTurn(model, request, {
        signal: streamOptions.signal,
        provider,
        optionsKey,
        options: settings,
        sequential: request.sequentialTools ? sequential : undefined,
        media,
      });
    },
  };
}

interface TurnSettings {
  readonly signal: AbortSignal;
  readonly provider: string;
  readonly optionsKey: string;
  readonly options: AiSdkModelOptions;
  readonly sequential: ProviderOptions | undefined;
  readonly media: MediaSettings;
}

async function* streamTurn(
  model: AiSdkLanguageModel,
  request: ModelRequest,
  at: TurnSettings,
): AsyncGenerator<ModelEvent> {
  at.signal.throwIfAborted();
  const call = callOptions(request, at);
  let stream: ReadableStream<unknown>;
  let warnings: unknown;
  try {
    const doStream = model.doStream as DoStream;
    ({ stream, warnings } = await doStream.call(model, call));
  } catch (err) {
    if (at.signal.aborted) throw at.signal.reason;
    throw providerFailure(at.provider, err, "request");
  }
  yield* mapStream(stream, at.provider, warnings);
}

function callOptions(
  request: ModelRequest,
  at: TurnSettings,
): LanguageModelV4CallOptions {
  const { options } = at;
  const tools = toTools(request);
  const providerOptions = mergeOptions(options.providerOptions, at.sequential);
  return {
    prompt: toPrompt(request, at.optionsKey, at.media),
    ...(tools !== undefined ? { tools } : {}),
    ...(options.maxOutputTokens !== undefined
      ? { maxOutputTokens: options.maxOutputTokens }
      : {}),
    ...(options.temperature !== undefined
      ? { temperature: options.temperature }
      : {}),
    ...(options.topP !== undefined ? { topP: options.topP } : {}),
    ...(options.stopSequences !== undefined
      ? { stopSequences: [...options.stopSequences] }
      : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.headers !== undefined
      ? { headers: { ...options.headers } }
      : {}),
    ...(providerOptions !== undefined ? { providerOptions } : {}),
    abortSignal: at.signal,
  };
}

/** `base` with `extra`'s entries merged in, one level deep (extra wins). */
function mergeOptions(
  base: ProviderOptions | undefined,
  extra: ProviderOptions | undefined,
): SharedV4ProviderOptions | undefined {
  if (base === undefined && extra === undefined) return undefined;
  const merged = new Map<string, Record<string, unknown>>();
  for (const source of [base, extra]) {
    for (const [key, value] of Object.entries(source ?? {})) {
      merged.set(key, { ...merged.get(key), ...value });
    }
  }
  return Object.fromEntries(merged) as SharedV4ProviderOptions;
}
