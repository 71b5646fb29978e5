/**
 * The SSE response body the HTTP client transport hands the SDK: each
 * event's data rewritten where it must be, and the stream's end — clean or
 * broken — reported so calls still waiting on it can be resumed or failed
 * at once.
 *
 * No second stream is built around the body: the SDK reads an SSE body with
 * `body.pipeThrough(new TextDecoderStream())`, so the body's own
 * `pipeThrough` is replaced. Into a plain UTF-8 `TextDecoderStream` (the
 * SDK's case) it hands on the text it decodes anyway to watch the stream —
 * one stream instead of a pipe through the transform; into anything else
 * it pumps the bytes into the transform itself, reading each chunk on the
 * way. Chunks of whole events that need no rewrite (the common case) go on
 * as they came.
 *
 * @module
 */

import { replacePipeThrough } from "../../seam/sdk_internals.ts";
import { SseRewriterState } from "./_sse_rewriter.ts";

/** What {@link watchEventStream} does with the stream. */
export interface EventStreamWatch {
  /** Rewrites one event's data (and notes what it carries). */
  readonly rewrite: (data: string) => string;
  /**
   * Whether some of `text` (a chunk of the stream) may need rewriting;
   * chunks of whole events that do not are handed on byte for byte.
   */
  readonly needsRewrite: (text: string) => boolean;
  /** Notes what one event's data carries, for an event handed on as it is. */
  readonly observe: (data: string) => void;
  /**
   * The stream ended — `broken` when reading it failed — after the event id
   * `lastEventId` (`""` when none came); returns whether calls were failed
   * for it, so the stream ends quietly instead of with the error.
   */
  readonly ended: (
    broken: boolean,
    lastEventId: string,
    cause?: unknown,
  ) => boolean;
  /** Whether a failure should end the stream quietly (its call was dropped, the transport closed). */
  readonly quiet: () => boolean;
  /** Called once when the source is done with: read to its end, failed or cancelled. */
  readonly finished?: () => void;
}

/** A watched stream and a way to cancel it from the outside. */
export interface WatchedEventStream {
  /** The body to hand on: the source itself, watched through its `pipeThrough`. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Cancels the source (a dropped call); the stream then ends quietly. */
  cancel(reason: unknown): void;
}

/**
 * Watches an SSE body: data rewritten through `watch.rewrite` (or noted
 * through `watch.observe`), its end reported to `watch.ended`. The body is
 * returned as it is, its `pipeThrough` replaced: piping it anywhere else,
 * or reading it with a reader, bypasses the watch.
 */
export function watchEventStream(
  body: ReadableStream<Uint8Array>,
  watch: EventStreamWatch,
): WatchedEventStream {
  return new WatchedBody(body, watch);
}

/** One step of reading the source: a chunk read and watched, its end, or its failure. */
type Step =
  | { kind: "failed"; error: unknown; quietly: boolean }
  | { kind: "done"; rest: string }
  | { kind: "chunk"; bytes: Uint8Array; text: string; asItCame: boolean };

/** See {@link watchEventStream}. */
class WatchedBody implements WatchedEventStream {
  readonly stream: ReadableStream<Uint8Array>;
  readonly #watch: EventStreamWatch;
  readonly #state: SseRewriterState;
  readonly #decoder = new TextDecoder();
  #encoder: TextEncoder | undefined;
  /** What the rewriter gave for the chunks read, not yet handed on. */
  #out = "";
  /** The last chunk ended in LF (or none came yet). */
  #afterLf = true;
  readonly #sink = { enqueue: (text: string) => void (this.#out += text) };
  #over = false;
  /** The source's reader, once it is piped somewhere. */
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(body: ReadableStream<Uint8Array>, watch: EventStreamWatch) {
    this.stream = body;
    this.#watch = watch;
    this.#state = new SseRewriterState(watch.rewrite);
    // The SDK pipes with no options; none are taken (they would not apply
    // to the pump).
    replacePipeThrough(
      body,
      <T>(transform: ReadableWritablePair<T, Uint8Array>) =>
        this.#pipeThrough(transform),
    );
  }

  cancel(reason: unknown): void {
    this.#finish();
    const cancelled = this.#reader === undefined
      ? this.stream.cancel(reason)
      : this.#reader.cancel(reason);
    void cancelled.catch(noop);
  }

  #pipeThrough<T>(
    transform: ReadableWritablePair<T, Uint8Array>,
  ): ReadableStream<T> {
    if (isPlainTextDecoder(transform)) {
      const source = this.stream.getReader(); // throws, as pipeThrough does, if locked
      this.#reader = source;
      return this.#decoded(source) as unknown as ReadableStream<T>;
    }
    const source = this.stream.getReader(); // throws, as pipeThrough does, if locked
    let writer: WritableStreamDefaultWriter<Uint8Array>;
    try {
      writer = transform.writable.getWriter();
    } catch (error) {
      source.releaseLock();
      throw error;
    }
    this.#reader = source;
    void this.#pump(source, writer);
    return transform.readable;
  }

  // Piped into a plain TextDecoderStream (what the SDK does), the body is
  // decoded here — it is anyway, to be watched — and the text handed on
  // directly: one stream, not a pipe into a transform and out again.
  #decoded(
    source: ReadableStreamDefaultReader<Uint8Array>,
  ): ReadableStream<string> {
    return new ReadableStream<string>({
      pull: async (controller) => {
        for (;;) {
          const next = await this.#advance(source);
          if (next.kind === "failed") {
            if (next.quietly) controller.close();
            else controller.error(next.error);
            return;
          }
          if (next.kind === "done") {
            if (next.rest !== "") controller.enqueue(next.rest);
            controller.close();
            return;
          }
          const text = next.asItCame ? next.text : this.#out;
          this.#out = "";
          if (text !== "") {
            controller.enqueue(text);
            return;
          }
        }
      },
      cancel: (reason) => {
        this.#finish();
        return source.cancel(reason);
      },
    }, { highWaterMark: 0 });
  }

  // Like `pipeTo` (close, abort and cancel carried across; the writer waits
  // for the transform's backpressure), with each chunk read and watched on the way.
  async #pump(
    source: ReadableStreamDefaultReader<Uint8Array>,
    sinkWriter: WritableStreamDefaultWriter<Uint8Array>,
  ): Promise<void> {
    // The reader went away (cancelled): stop reading, even while waiting.
    sinkWriter.closed.catch((error) => {
      this.#finish();
      void source.cancel(error).catch(noop);
    });
    for (;;) {
      try {
        await sinkWriter.ready;
      } catch (error) {
        this.#finish(); // the reader went away: stop reading
        await source.cancel(error).catch(noop);
        return;
      }
      const next = await this.#advance(source);
      if (next.kind === "failed") {
        if (next.quietly) await sinkWriter.close().catch(noop);
        else await sinkWriter.abort(next.error).catch(noop);
        return;
      }
      if (next.kind === "done") {
        if (next.rest !== "") {
          sinkWriter.write(encoder0.encode(next.rest)).catch(noop);
        }
        await sinkWriter.close().catch(noop);
        return;
      }
      const bytes = next.asItCame ? next.bytes : this.#take();
      if (bytes !== undefined) sinkWriter.write(bytes).catch(noop);
    }
  }

  // The next chunk with bytes, read and watched; or the source's end, with
  // the text still held, reported to the watch; or its failure, with
  // whether to end quietly (reported to the watch unless quiet already).
  async #advance(
    source: ReadableStreamDefaultReader<Uint8Array>,
  ): Promise<Step> {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await source.read();
      } catch (error) {
        this.#finish();
        const quietly = this.#watch.quiet() ||
          this.#watch.ended(true, this.#state.lastEventId, error);
        return { kind: "failed", error, quietly };
      }
      if (chunk.done) {
        this.#finish();
        const rest = this.#last();
        this.#watch.ended(false, this.#state.lastEventId);
        return { kind: "done", rest };
      }
      if (chunk.value.length === 0) continue;
      return { kind: "chunk", bytes: chunk.value, ...this.#read(chunk.value) };
    }
  }

  // One chunk read: its text, and whether it goes on as it came (else
  // what to hand on is in `#out`).
  #read(bytes: Uint8Array): { text: string; asItCame: boolean } {
    const text = this.#decoder.decode(bytes, { stream: true });
    // Handed on as they came only between chunks that end in LF, so the
    // decoder holds no part of a character on either side and every byte
    // is handed on exactly once.
    const whole = this.#afterLf && bytes[bytes.length - 1] === LF;
    this.#afterLf = bytes[bytes.length - 1] === LF;
    const state = this.#state;
    if (whole && state.wholeEvents(text) && !this.#watch.needsRewrite(text)) {
      state.watch(text, this.#watch.observe);
      return { text, asItCame: true };
    }
    state.push(text, this.#sink);
    return { text, asItCame: false };
  }

  // The rewritten text not yet handed on, as bytes.
  #take(): Uint8Array | undefined {
    if (this.#out === "") return undefined;
    this.#encoder ??= new TextEncoder();
    const bytes = this.#encoder.encode(this.#out);
    this.#out = "";
    return bytes;
  }

  // The text that ends the stream (what the rewriter still held).
  #last(): string {
    this.#state.push(this.#decoder.decode(), this.#sink);
    this.#state.end(this.#sink);
    const rest = this.#out;
    this.#out = "";
    return rest;
  }

  #finish(): void {
    if (this.#over) return;
    this.#over = true;
    this.#watch.finished?.();
  }
}

function noop(): void {}

const encoder0 = new TextEncoder();

// A TextDecoderStream for UTF-8 with the defaults (the SDK's): its output is
// what decoding here gives.
function isPlainTextDecoder(transform: unknown): boolean {
  return transform instanceof TextDecoderStream &&
    transform.encoding === "utf-8" && !transform.fatal && !transform.ignoreBOM;
}

const LF = 10;
