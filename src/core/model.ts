/**
 * The model interface the agent loop consumes: one streaming call per step.
 * A model receives a {@linkcode ModelRequest} and yields
 * {@linkcode ModelEvent}s: any number of text and reasoning deltas, whole
 * tool calls and provider warnings, then exactly one `finish`. The loop enforces that contract.
 *
 * @module
 */

import type { Message } from "./messages.ts";
import type { Schema } from "./schema.ts";

/** Why a model turn ended. */
export type StopReason = "stop" | "tool_calls" | "max_tokens";

/**
 * Tokens one model call (or a whole run, summed) consumed. The optional
 * counts are present only where the provider reports them.
 */
export interface Usage {
  /** Prompt tokens (cached ones included). */
  readonly inputTokens: number;
  /** Completion tokens (reasoning ones included). */
  readonly outputTokens: number;
  /** Prompt tokens read from the provider's cache, when reported. */
  readonly cachedInputTokens?: number;
  /** Prompt tokens written to the provider's cache, when reported. */
  readonly cacheWriteTokens?: number;
  /** Completion tokens spent on reasoning, when reported. */
  readonly reasoningTokens?: number;
}

/**
 * A provider's opaque data on a transcript part, keyed by provider (e.g.
 * `{ openai: { itemId, reasoningEncryptedContent } }`): kept on the part and
 * sent back with it on the next request, never read by the core.
 */
export type ProviderMetadata = Readonly<
  Record<string, Readonly<Record<string, unknown>>>
>;

/**
 * A provider's warning about one call: a setting or feature it ignored
 * (`temperature` on a reasoning model, a `seed` it does not take) or only
 * emulates, something deprecated, or a note of its own. The run reports it
 * as a `model_warning` event when it arrives and keeps it on the step record.
 */
export interface ModelWarning {
  /**
   * The kind: `unsupported` (ignored), `compatibility` (emulated),
   * `deprecated`, or `other` (the AI SDK's kinds); a model may use its own.
   */
  readonly type: string;
  /** The setting, feature or tool it concerns, when one is named. */
  readonly feature?: string;
  /** What the provider says beyond the feature's name, when it says anything. */
  readonly message?: string;
}

/**
 * What the provider says about the response it sent, each field only when
 * it said it: kept on the step record and on the `step_finish` event.
 */
export interface ModelResponseInfo {
  /** The provider's id for the response, e.g. `chatcmpl-…`, `msg_…`, `resp_…`. */
  readonly id?: string;
  /** The model that actually answered, e.g. a dated snapshot of the one asked for. */
  readonly modelId?: string;
  /** When the provider made the response, as ISO 8601 text. */
  readonly timestamp?: string;
}

/** A tool as the model sees it: the name, the description, the schema document whole. */
export interface ModelTool {
  /** The name the model calls. */
  readonly name: string;
  /** The model-facing description. */
  readonly description: string;
  /** The tool's parsed input schema; `inputSchema.raw` is the document whole. */
  readonly inputSchema: Schema;
}

/** One model call's input. The loop builds a fresh one every step. */
export interface ModelRequest {
  /** The system prompt (the agent's instructions); `""` for none. */
  readonly system: string;
  /** The transcript so far: user, assistant and tool messages. */
  readonly messages: readonly Message[];
  /** The tools of this step, in snapshot order. */
  readonly tools: readonly ModelTool[];
  /** True when the agent runs one call at a time (parallelism 1): ask the provider not to batch. */
  readonly sequentialTools: boolean;
}

/** A piece of the answer text. */
export interface TextEvent {
  /** Discriminator. */
  readonly type: "text";
  /** The delta. */
  readonly text: string;
  /** The provider's data for the answer text; the last one given is kept on the text part. */
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * A piece of the model's reasoning. A non-empty signature or a
 * `providerMetadata` closes the reasoning block.
 */
export interface ReasoningEvent {
  /** Discriminator. */
  readonly type: "reasoning";
  /** The delta. */
  readonly text: string;
  /** The provider's signature over the block, when it closes one. */
  readonly signature?: string;
  /** The provider's data for the block (e.g. encrypted or redacted reasoning), when it closes one. */
  readonly providerMetadata?: ProviderMetadata;
}

/** A whole tool call; it arrives before the finish. */
export interface ToolCallEvent {
  /** Discriminator. */
  readonly type: "tool_call";
  /** The call id, unique within the turn. */
  readonly id: string;
  /** The tool name. */
  readonly name: string;
  /** The argument JSON text, verbatim. */
  readonly args: string;
  /** The provider's data for the call (e.g. a thought signature), kept on the call part. */
  readonly providerMetadata?: ProviderMetadata;
}

/** A provider's warning about this call (any time before the finish). */
export interface WarningEvent {
  /** Discriminator. */
  readonly type: "warning";
  /** The warning. */
  readonly warning: ModelWarning;
}

/** The end of the turn: exactly one per stream, last. */
export interface FinishEvent {
  /** Discriminator. */
  readonly type: "finish";
  /** Why the turn ended. */
  readonly reason: StopReason;
  /** What the call consumed. */
  readonly usage: Usage;
  /** What the provider said about its response (its id, the model that answered, when). */
  readonly response?: ModelResponseInfo;
  /**
   * The provider's own data about the whole call (e.g. OpenAI's logprobs or
   * service tier, Anthropic's cache and container details), kept on the step
   * record and never read by the core.
   */
  readonly providerMetadata?: ProviderMetadata;
}

/** Everything a model stream may yield. */
export type ModelEvent =
  | TextEvent
  | ReasoningEvent
  | ToolCallEvent
  | WarningEvent
  | FinishEvent;

/** Options for one {@linkcode Model.stream} call. */
export interface ModelStreamOptions {
  /** Aborts when the run is cancelled; the stream should then throw its reason. */
  readonly signal: AbortSignal;
}

/** Who serves a model, for run records. */
export interface ModelInfo {
  /** E.g. `openai`, or `@weft/mcp/testing` for a scripted model. */
  readonly provider: string;
  /** E.g. `script`. */
  readonly name: string;
}

/**
 * A language model as the loop sees it. `stream` yields the turn's events;
 * a failure is a throw from the iteration (the run reports
 * `model stream: <message>`). The loop never retries a model call.
 *
 * @example Using `Model`
 * ```ts
 * import type { Model } from "@weft/mcp";
 * import type { ModelEvent } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const echo: Model = {
 *   async *stream(request): AsyncGenerator<ModelEvent> {
 *     yield { type: "text", text: `${request.messages.length} message(s)` };
 *     yield { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
 *   },
 * };
 * const signal = new AbortController().signal;
 * const req = { system: "", messages: [], tools: [], sequentialTools: false };
 * const types: string[] = [];
 * for await (const event of echo.stream(req, { signal })) types.push(event.type);
 * assert.deepEqual(types, ["text", "finish"]);
 * ```
 */
export interface Model {
  /** Streams one turn for `request`. */
  stream(
    request: ModelRequest,
    options: ModelStreamOptions,
  ): AsyncIterable<ModelEvent>;
  /** Optional provider and model name, reported on `run_start`. */
  readonly info?: ModelInfo;
}

/**
 * Sums two usages element-wise. An optional count is present in the sum
 * when either side reports it.
 *
 * @example Using `addUsage`
 * ```ts
 * import { addUsage } from "./model.ts";
 * import assert from "node:assert/strict";
 * const sum = addUsage(
 *   { inputTokens: 10, outputTokens: 2, cachedInputTokens: 8 },
 *   { inputTokens: 5, outputTokens: 1 },
 * );
 * assert.deepEqual(sum, { inputTokens: 15, outputTokens: 3, cachedInputTokens: 8 });
 * ```
 */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens?: number;
    cacheWriteTokens?: number;
    reasoningTokens?: number;
  } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  for (const key of OPTIONAL_COUNTS) {
    const x = a[key];
    const y = b[key];
    if (x !== undefined || y !== undefined) sum[key] = (x ?? 0) + (y ?? 0);
  }
  return sum;
}

const OPTIONAL_COUNTS = [
  "cachedInputTokens",
  "cacheWriteTokens",
  "reasoningTokens",
] as const;

/** The zero usage. */
export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
});
