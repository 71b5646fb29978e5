/**
 * Reading one model turn under the stream contract: any number of deltas,
 * whole tool calls and warnings, then exactly one finish. A violation is a
 * `ModelContractError`; a thrown stream a `ModelStreamError`, unless the run
 * was cancelled, when the signal's reason is the failure.
 *
 * @module
 */

import { raceAbort } from "./abort.ts";
import { ModelContractError, ModelStreamError, quote } from "./errors.ts";
import type { ReasoningPart, ToolCallPart } from "./messages.ts";
import type {
  FinishEvent,
  Model,
  ModelEvent,
  ModelRequest,
  ModelResponseInfo,
  ModelWarning,
  ProviderMetadata,
  StopReason,
  Usage,
} from "./model.ts";

/** What the loop keeps of one turn. */
export interface ModelTurn {
  /** All text deltas, joined. */
  readonly text: string;
  /** The last provider metadata given with the text, if any. */
  readonly textMetadata?: ProviderMetadata;
  /** Reasoning blocks, in order. */
  readonly reasoning: readonly ReasoningPart[];
  /** The whole tool calls, in call order. */
  readonly calls: readonly ToolCallPart[];
  /** The finish reason. */
  readonly reason: StopReason;
  /** The finish usage. */
  readonly usage: Usage;
  /** The provider's warnings, in order; empty when none. */
  readonly warnings: readonly ModelWarning[];
  /** What the provider said about its response, when it said anything. */
  readonly response?: ModelResponseInfo;
  /** The provider's data about the whole call, from the finish. */
  readonly providerMetadata?: ProviderMetadata;
}

/** Receives the deltas and warnings as they arrive. */
export interface TurnSink {
  /** A text delta. */
  text(text: string): void;
  /** A reasoning delta. */
  reasoning(text: string): void;
  /** A provider warning. */
  warning(warning: ModelWarning): void;
}

/** Streams one turn of `model` and checks the contract; rejects with the run's failure. */
export async function readTurn(
  model: Model,
  request: ModelRequest,
  options: { signal: AbortSignal; sink: TurnSink },
): Promise<ModelTurn> {
  const { signal, sink } = options;
  let iterator: AsyncIterator<ModelEvent>;
  try {
    iterator = model.stream(request, { signal })[Symbol.asyncIterator]();
  } catch (err) {
    throw streamFailure(err, signal);
  }
  const builder = new TurnBuilder();
  let finish: FinishEvent | undefined;
  for (;;) {
    let next: IteratorResult<ModelEvent>;
    try {
      next = await nextOrAbort(iterator, signal);
    } catch (err) {
      closeQuietly(iterator);
      throw streamFailure(err, signal);
    }
    if (next.done) break;
    const event: unknown = next.value;
    try {
      if (finish !== undefined) {
        throw new ModelContractError(
          `event ${eventType(event)} after the finish event`,
        );
      }
      finish = builder.add(event, sink);
    } catch (err) {
      closeQuietly(iterator);
      throw err;
    }
  }
  if (finish === undefined) {
    throw new ModelContractError("stream ended without a finish event");
  }
  return builder.build(finish);
}

class TurnBuilder {
  #text = "";
  #textMetadata: ProviderMetadata | undefined;
  #reasoning: ReasoningPart[] = [];
  #open: string | undefined;
  #calls: ToolCallPart[] = [];
  #ids = new Set<string>();
  #warnings: ModelWarning[] = [];

  /** Takes one event; returns it when it is the finish. */
  add(event: unknown, sink: TurnSink): FinishEvent | undefined {
    const type = eventType(event);
    const e = event as ModelEvent;
    switch (type) {
      case "text":
        if (e.type !== "text") break;
        this.#text += e.text;
        if (e.providerMetadata !== undefined) {
          this.#textMetadata = e.providerMetadata;
          if (e.text === "") return undefined;
        }
        sink.text(e.text);
        return undefined;
      case "reasoning":
        if (e.type !== "reasoning") break;
        this.#open = (this.#open ?? "") + e.text;
        if (e.signature || e.providerMetadata !== undefined) {
          this.#reasoning.push({
            type: "reasoning",
            text: this.#open,
            ...(e.signature ? { signature: e.signature } : {}),
            ...(e.providerMetadata !== undefined
              ? { providerMetadata: e.providerMetadata }
              : {}),
          });
          this.#open = undefined;
          if (e.text === "" && e.providerMetadata !== undefined) {
            return undefined;
          }
        }
        sink.reasoning(e.text);
        return undefined;
      case "tool_call":
        if (e.type !== "tool_call") break;
        this.#call(e.id, e.name, e.args, e.providerMetadata);
        return undefined;
      case "warning": {
        if (e.type !== "warning") break;
        const warning = warningOf(e.warning);
        this.#warnings.push(warning);
        sink.warning(warning);
        return undefined;
      }
      case "finish":
        if (e.type !== "finish") break;
        return e;
    }
    throw new ModelContractError(`unexpected event ${type}`);
  }

  #call(
    id: string,
    name: string,
    args: string,
    providerMetadata: ProviderMetadata | undefined,
  ): void {
    if (typeof id !== "string" || id === "") {
      throw new ModelContractError("tool call with an empty ID");
    }
    if (typeof name !== "string" || name === "") {
      throw new ModelContractError("tool call with an empty name");
    }
    if (this.#ids.has(id)) {
      throw new ModelContractError(
        `duplicate tool call ID ${quote(id)}`,
      );
    }
    this.#ids.add(id);
    this.#calls.push({
      type: "tool_call",
      id,
      name,
      args: typeof args === "string" ? args : "",
      ...(providerMetadata !== undefined ? { providerMetadata } : {}),
    });
  }

  build(finish: FinishEvent): ModelTurn {
    const reasoning = [...this.#reasoning];
    if (this.#open !== undefined) {
      reasoning.push({ type: "reasoning", text: this.#open });
    }
    const usage: Partial<Usage> = finish.usage ?? {};
    const response = responseOf(finish.response);
    const metadata = finish.providerMetadata;
    return {
      text: this.#text,
      ...(this.#textMetadata !== undefined
        ? { textMetadata: this.#textMetadata }
        : {}),
      reasoning,
      calls: this.#calls,
      reason: finish.reason,
      usage: {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        ...optionalCount("cachedInputTokens", usage.cachedInputTokens),
        ...optionalCount("cacheWriteTokens", usage.cacheWriteTokens),
        ...optionalCount("reasoningTokens", usage.reasoningTokens),
      },
      warnings: this.#warnings,
      ...(response !== undefined ? { response } : {}),
      ...(isRecord(metadata) ? { providerMetadata: metadata } : {}),
    };
  }
}

/**
 * A warning as the run keeps it: a string `type` (`other` when missing),
 * `feature` and `message` only when they are strings. Frozen.
 */
function warningOf(value: unknown): ModelWarning {
  const given = isRecord(value) ? value : {};
  const { type, feature, message } = given;
  return Object.freeze({
    type: typeof type === "string" && type !== "" ? type : "other",
    ...(typeof feature === "string" ? { feature } : {}),
    ...(typeof message === "string" ? { message } : {}),
  });
}

/** The string fields of a finish's `response`; undefined when none is given. */
function responseOf(value: unknown): ModelResponseInfo | undefined {
  if (!isRecord(value)) return undefined;
  const kept: { id?: string; modelId?: string; timestamp?: string } = {};
  if (typeof value.id === "string") kept.id = value.id;
  if (typeof value.modelId === "string") kept.modelId = value.modelId;
  if (typeof value.timestamp === "string") kept.timestamp = value.timestamp;
  return Object.keys(kept).length > 0 ? Object.freeze(kept) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{ [key]: value }` when `value` is a finite number, else `{}`. */
function optionalCount(
  key: "cachedInputTokens" | "cacheWriteTokens" | "reasoningTokens",
  value: unknown,
): Partial<Usage> {
  return typeof value === "number" && Number.isFinite(value)
    ? { [key]: value }
    : {};
}

/** The `<type>` of the contract texts: the event's `type`, else what the value is. */
function eventType(event: unknown): string {
  if (event === null) return "null";
  if (typeof event !== "object") return typeof event;
  const type = (event as { type?: unknown }).type;
  return typeof type === "string" ? type : "object";
}

function streamFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  // A model that words its own failure (a provider adapter) keeps its text.
  if (err instanceof ModelStreamError) return err;
  return new ModelStreamError(err);
}

/** The next event, or the signal's reason as soon as the run is cancelled. */
function nextOrAbort(
  iterator: AsyncIterator<ModelEvent>,
  signal: AbortSignal,
): Promise<IteratorResult<ModelEvent>> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let pending: Promise<IteratorResult<ModelEvent>>;
  try {
    pending = Promise.resolve(iterator.next());
  } catch (err) {
    pending = Promise.reject(err);
  }
  return raceAbort(pending, signal);
}

/** Asks the stream to clean up without waiting for it (it may be stuck). */
function closeQuietly(iterator: AsyncIterator<ModelEvent>): void {
  try {
    const done = iterator.return?.();
    if (done) {
      Promise.resolve(done).catch(() => {
        // Nothing lost: the stream is abandoned; its own error was the run's to see, not ours.
      });
    }
  } catch {
    // A stream that cannot close has nothing more to tell us.
  }
}
