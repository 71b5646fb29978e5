/**
 * One SSE body read in the SDK's place (its `_handleSseStream`, the same
 * arguments; the SDK version is pinned): one reader, a decoder and a
 * hand-written parser, no streams between. Each event is handled as the
 * SDK handles it — its id noted (and given to `onresumptiontoken`), a
 * message parsed (big numbers kept) and checked with the SDK's schema (a
 * plain result response, which that schema gives back as it is, without
 * it), then delivered; a stream that ends or breaks before its answer is
 * resumed as the SDK resumes it. What the transport adds is what the
 * watched body of the other path adds: its calls answered, lost or resumed
 * when it ends. tests/runtime_http_sse_reader_test.ts holds this reading
 * and the SDK's side by side.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  SseReaderSeam,
  SseReadOptions,
} from "../../seam/sdk_internals.ts";
import type { Call, CallBook } from "./_http_calls.ts";
import type { RequestId } from "./_message_ids.ts";
import { mayHoldBigNumber, type RawNumberCodec } from "./_raw_number_codec.ts";
import { isPlainResultResponse } from "./_response_lane.ts";
import { SseParser, type SseSink } from "./_sse_parser.ts";

/** What the transport knows of an SSE body its fetch handed the SDK. */
export interface SseBody {
  /** The calls waiting for their answers on it. */
  readonly waiting: readonly RequestId[];
  /** The call whose POST it answers, if any. */
  readonly post: Call | undefined;
  /** Called once the body is done with. */
  readonly release: () => void;
  /** In the transport's open set: cancels the body, or its reader once read. */
  readonly open: { cancel(reason: unknown): void };
}

/** The handlers of the SDK transport whose SSE reading is taken over. */
export interface SdkHandlers {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
}

/** What reading a body uses of the transport. */
export interface SseReadHost {
  /** The transport's calls in flight. */
  readonly calls: CallBook;
  /** What the reader uses of the SDK transport it stands in for. */
  readonly sdk: SseReaderSeam;
  /** The SDK transport: its handlers get what its reading would give them. */
  readonly inner: SdkHandlers;
  /** The codec keeping big numbers. */
  readonly codec: RawNumberCodec;
  /** Whether the bodies are the runtime's own fetch bodies (read into a buffer). */
  readonly runtimeBodies: boolean;
  /** A read buffer, kept from an earlier body or new. */
  takeBuffer(): ArrayBuffer;
  /** Gives back a read buffer once its body is read to its end. */
  giveBuffer(buffer: ArrayBuffer): void;
  /** The body is done with: out of the open set, its release called. */
  settle(body: SseBody): void;
}

/** The reading of one SSE body; also the sink of its parser. */
export class SseRead implements SseSink {
  readonly #host: SseReadHost;
  /** What the transport knows of the body (none for a body it did not fetch). */
  readonly #body: SseBody | undefined;
  readonly #waiting: readonly RequestId[];
  readonly #onresumptiontoken: ((token: string) => void) | undefined;
  readonly #replayMessageId: RequestId | undefined;
  readonly #reconnectable: boolean;
  readonly #parser: SseParser = new SseParser(this);
  #lastEventId: string | undefined;
  /** An event id came: the stream can be resumed. */
  #primed = false;
  /** A result came: the stream is not resumed. */
  #received = false;
  #over = false;

  /** Prepares the reading of `body`'s stream with the SDK's `options`. */
  constructor(
    host: SseReadHost,
    body: SseBody | undefined,
    options: SseReadOptions | undefined,
    reconnectable: boolean,
  ) {
    this.#host = host;
    this.#body = body;
    this.#waiting = body?.waiting ?? [];
    this.#onresumptiontoken = options?.onresumptiontoken;
    this.#replayMessageId = options?.replayMessageId;
    this.#reconnectable = reconnectable;
  }

  /**
   * Reads `stream` to its end, then resumes it when no answer came (as
   * the SDK does); a failure is reported to the SDK transport's `onerror`,
   * then the stream resumed all the same.
   */
  async run(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      await this.#readAll(stream);
      this.#resume();
    } catch (error) {
      this.#finish();
      const inner = this.#host.inner;
      inner.onerror?.(new Error(`SSE stream disconnected: ${error}`));
      try {
        this.#resume();
      } catch (error) {
        inner.onerror?.(
          new Error(
            `Failed to reconnect: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
        );
      }
    }
  }

  /** One event of the stream (the parser's sink). */
  event(id: string | undefined, type: string | undefined, data: string): void {
    if (id) {
      this.#lastEventId = id;
      this.#primed = true;
      this.#onresumptiontoken?.(id);
    }
    if (!data) return;
    if (type !== undefined && type !== "message") return;
    this.#deliver(data);
  }

  /** A `retry` field (the parser's sink): the SDK's next reconnection waits that long. */
  retry(ms: number): void {
    this.#host.sdk.setRetry(ms);
  }

  // Reads the stream into the parser until it ends (returns) or breaks
  // (throws, unless the calls it failed end it quietly, as a clean end).
  async #readAll(stream: ReadableStream<Uint8Array>): Promise<void> {
    const host = this.#host;
    // A fetch body is a byte stream: read into a buffer of the
    // transport's (a default reader allocates a chunk on every read).
    const byob = host.runtimeBodies ? byobReaderOf(stream) : undefined;
    const plain = byob === undefined ? stream.getReader() : undefined;
    const reader: { cancel(reason: unknown): Promise<void> } = byob ?? plain!;
    if (this.#body !== undefined) {
      this.#body.open.cancel = (reason) =>
        void reader.cancel(reason).catch(noop);
    }
    let buffer = byob === undefined ? undefined : host.takeBuffer();
    const decoder = new TextDecoder();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        if (byob !== undefined) {
          chunk = await byob.read(new Uint8Array(buffer!));
          // The buffer comes back (moved) with the bytes read; none when
          // the stream was cancelled.
          buffer = chunk.value?.buffer as ArrayBuffer | undefined;
        } else chunk = await plain!.read();
      } catch (error) {
        this.#finish();
        if (this.#endsQuietly(error)) return;
        throw error;
      }
      if (chunk.done) {
        this.#finish();
        if (buffer !== undefined) host.giveBuffer(buffer);
        const rest = decoder.decode();
        if (rest !== "") this.#parser.feed(rest);
        host.calls.ended(this.#waiting, false, this.#lastEventId ?? "");
        return;
      }
      const text = decoder.decode(chunk.value!, { stream: true });
      if (text !== "") this.#parser.feed(text);
    }
  }

  // Whether reading failed quietly: the call was dropped, the transport
  // closed, or the calls waiting were failed here.
  #endsQuietly(error: unknown): boolean {
    const calls = this.#host.calls;
    return this.#body?.post?.dropped === true || calls.closed ||
      calls.ended(this.#waiting, true, this.#lastEventId ?? "", error);
  }

  // One message event's data, parsed and delivered as the SDK's reading
  // delivers it.
  #deliver(data: string): void {
    const host = this.#host;
    try {
      const message = parseMessage(host.codec, data);
      if (isResult(message)) {
        this.#received = true;
        if (this.#replayMessageId !== undefined) {
          (message as { id: RequestId }).id = this.#replayMessageId;
        }
      }
      host.inner.onmessage?.(message);
    } catch (error) {
      // Not delivered; an answer all the same (as the other path notes).
      host.calls.noteAnswered(this.#waiting, data);
      host.inner.onerror?.(error as Error);
    }
  }

  // Resumes the stream as the SDK does: when it could be (reconnectable,
  // or an event id came), no result came, and the transport is open.
  #resume(): void {
    const sdk = this.#host.sdk;
    const signal = sdk.signal();
    if (
      (this.#reconnectable || this.#primed) && !this.#received &&
      signal !== undefined && !signal.aborted
    ) {
      sdk.scheduleReconnection({
        resumptionToken: this.#lastEventId,
        onresumptiontoken: this.#onresumptiontoken,
        replayMessageId: this.#replayMessageId,
      }, 0);
    }
  }

  #finish(): void {
    if (this.#over) return;
    this.#over = true;
    if (this.#body !== undefined) this.#host.settle(this.#body);
  }
}

// One event's data as the SDK's reading gives it: `JSON.parse` (of the
// text with its big numbers marked), then its message schema.
function parseMessage(codec: RawNumberCodec, data: string): JSONRPCMessage {
  const parsed = JSON.parse(
    mayHoldBigNumber(data) ? codec.encode(data).text : data,
  );
  return plainResultMessage(parsed) ?? JSONRPCMessageSchema.parse(parsed);
}

/**
 * What the SDK's message schema gives back for `value` when it is plainly
 * a result response (see `isPlainResultResponse`) whose result has no
 * `_meta` or has it first: the schema's keys in its order, the result
 * itself. `undefined`: the schema decides.
 */
function plainResultMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainResultResponse(value)) return undefined;
  const m = value as { jsonrpc: "2.0"; id: RequestId; result: object };
  const result = m.result as Record<string, unknown>;
  if (Object.hasOwn(result, "__proto__")) return undefined;
  if (result._meta !== undefined) {
    for (const key in result) {
      if (key !== "_meta") return undefined;
      break;
    }
  }
  return { jsonrpc: m.jsonrpc, id: m.id, result } as JSONRPCMessage;
}

function isResult(message: JSONRPCMessage): boolean {
  return isPlainResultResponse(message) || isJSONRPCResultResponse(message);
}

// A BYOB reader of `stream` when it is a byte stream (a fetch body), else
// `undefined` (it then gets a default reader).
function byobReaderOf(
  stream: ReadableStream<Uint8Array>,
): ReadableStreamBYOBReader | undefined {
  if (stream.locked) return undefined; // the default reader throws as the SDK's pipe would
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

function noop(): void {}
