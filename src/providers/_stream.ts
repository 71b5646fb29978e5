/**
 * The response direction of the AI SDK mapping: the stream parts a
 * language model's `doStream` yields, as weft model events, as they arrive.
 *
 * @module
 */

import { ModelStreamError } from "../core/errors.ts";
import type {
  ModelEvent,
  ModelResponseInfo,
  ProviderMetadata,
} from "../core/model.ts";
import { readFinishReason, readUsage, stopReason } from "./_finish.ts";
import { readResponse, readWarning } from "./_response.ts";
import { providerFailure } from "./_failure.ts";
import { ProviderFinishError } from "./errors.ts";

/** One stream part, read loosely: versions v2 to v4 share these fields. */
interface StreamPart {
  readonly type: string;
  readonly id?: string;
  readonly delta?: string;
  readonly providerMetadata?: ProviderMetadata;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly providerExecuted?: boolean;
  readonly error?: unknown;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
  readonly warnings?: unknown;
}

/**
 * Maps the parts of `stream` to model events: the `stream-start` warnings
 * first, text and reasoning deltas as they come, a closing event carrying a
 * block's provider metadata at its end, whole tool calls, then the finish
 * with the `response-metadata` (id, model, timestamp) and the finish's
 * provider metadata. A stream `error` part, or a finish that is not a clean
 * stop, throws. Cancels the stream when the consumer stops early.
 * `warnings` (the `warnings` a `doStream` result carries, when it does) come
 * first.
 */
export async function* mapStream(
  stream: ReadableStream<unknown>,
  provider: string,
  warnings?: unknown,
): AsyncGenerator<ModelEvent> {
  const reader = stream.getReader();
  const text = new Map<string, ProviderMetadata | undefined>();
  const reasoning = new Map<string, ProviderMetadata | undefined>();
  let response: ModelResponseInfo | undefined;
  let finished = false;
  try {
    yield* warningEvents(warnings);
    for (;;) {
      let read: ReadableStreamReadResult<unknown>;
      try {
        read = await reader.read();
      } catch (err) {
        // The body failed under the provider's parser (a dropped connection).
        throw providerFailure(provider, err, "stream");
      }
      const { done, value } = read;
      if (done) {
        finished = true;
        return;
      }
      const part = value as StreamPart;
      switch (part.type) {
        case "text-start":
          text.set(part.id ?? "", part.providerMetadata);
          break;
        case "text-delta": {
          const delta = part.delta ?? "";
          remember(text, part);
          if (delta !== "") yield { type: "text", text: delta };
          break;
        }
        case "text-end": {
          const metadata = closeBlock(text, part);
          if (metadata !== undefined) {
            yield { type: "text", text: "", providerMetadata: metadata };
          }
          break;
        }
        case "reasoning-start":
          reasoning.set(part.id ?? "", part.providerMetadata);
          break;
        case "reasoning-delta": {
          const delta = part.delta ?? "";
          remember(reasoning, part);
          if (delta !== "") yield { type: "reasoning", text: delta };
          break;
        }
        case "reasoning-end": {
          const metadata = closeBlock(reasoning, part);
          if (metadata !== undefined) {
            const signature = signatureOf(metadata);
            yield {
              type: "reasoning",
              text: "",
              ...(signature !== undefined ? { signature } : {}),
              providerMetadata: metadata,
            };
          }
          break;
        }
        case "tool-call": {
          // A tool the provider ran itself (web search, code execution) is
          // not the agent's to run; its result stays on the provider's side.
          if (part.providerExecuted === true) break;
          yield {
            type: "tool_call",
            id: part.toolCallId ?? "",
            name: part.toolName ?? "",
            args: typeof part.input === "string"
              ? part.input
              : JSON.stringify(part.input ?? {}),
            ...(part.providerMetadata !== undefined
              ? { providerMetadata: part.providerMetadata }
              : {}),
          };
          break;
        }
        case "error":
          throw providerFailure(provider, part.error, "stream");
        case "finish": {
          const finish = readFinishReason(part.finishReason);
          const reason = stopReason(finish);
          if (reason === undefined) {
            throw new ModelStreamError(
              new ProviderFinishError(provider, {
                reason: finish.unified,
                ...(finish.raw !== undefined ? { raw: finish.raw } : {}),
              }),
            );
          }
          yield {
            type: "finish",
            reason,
            usage: readUsage(part.usage),
            ...(response !== undefined ? { response } : {}),
            ...(isRecord(part.providerMetadata)
              ? { providerMetadata: part.providerMetadata }
              : {}),
          };
          break;
        }
        case "stream-start":
          yield* warningEvents(part.warnings);
          break;
        case "response-metadata":
          response = readResponse(part as unknown as Record<string, unknown>) ??
            response;
          break;
        default:
          // tool-input-*, sources, files, raw chunks and pings carry
          // nothing the run keeps.
          break;
      }
    }
  } finally {
    if (!finished) {
      reader.cancel().catch(() => {
        // Nothing lost: the run has what it read; a cancel that fails leaves nothing to read.
      });
    }
    reader.releaseLock();
  }
}

/** A warning event for each entry of `warnings`, when it is an array. */
function* warningEvents(warnings: unknown): Generator<ModelEvent> {
  if (!Array.isArray(warnings)) return;
  for (const warning of warnings) {
    yield { type: "warning", warning: readWarning(warning) };
  }
}

function isRecord(value: unknown): value is ProviderMetadata {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keeps the latest metadata a block's part carries (the AI SDK's own rule). */
function remember(
  blocks: Map<string, ProviderMetadata | undefined>,
  part: StreamPart,
): void {
  const id = part.id ?? "";
  if (part.providerMetadata !== undefined) {
    blocks.set(id, part.providerMetadata);
  } else if (!blocks.has(id)) blocks.set(id, undefined);
}

/** Ends a block: its latest metadata (the end part's own, if any), forgotten here. */
function closeBlock(
  blocks: Map<string, ProviderMetadata | undefined>,
  part: StreamPart,
): ProviderMetadata | undefined {
  remember(blocks, part);
  const id = part.id ?? "";
  const metadata = blocks.get(id);
  blocks.delete(id);
  return metadata;
}

/** A string `signature` in any provider's entry (Anthropic signs its thinking). */
function signatureOf(metadata: ProviderMetadata): string | undefined {
  for (const entry of Object.values(metadata)) {
    const signature = entry?.signature;
    if (typeof signature === "string" && signature !== "") return signature;
  }
  return undefined;
}
