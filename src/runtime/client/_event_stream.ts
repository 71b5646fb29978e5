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
  const state = new SseRewriterState(watch.rewrite);
  const decoder = new TextDecoder();
  let encoder: TextEncoder | undefined;
  let out = "";
  let afterLf = true; // the last chunk ended in LF (or none came yet)
  const sink = { enqueue: (text: string) => void (out += text) };
  const take = (): Uint8Array | undefined => {
    if (out === "") return undefined;
    encoder ??= new TextEncoder();
    const bytes = encoder.encode(out);
    out = "";
    return bytes;
  };
  // One chunk read: its text, and whether it goes on as it came (else
  // what to hand on is in `out`).
  const read = (bytes: Uint8Array): { text: string; asItCame: boolean } => {
    const text = decoder.decode(bytes, { stream: true });
    // Handed on as they came only between chunks that end in LF, so the
    // decoder holds no part of a character on either side and every byte
    // is handed on exactly once.
    const whole = afterLf && bytes[bytes.length - 1] === LF;
    afterLf = bytes[bytes.length - 1] === LF;
    if (whole && state.wholeEvents(text) && !watch.needsRewrite(text)) {
      state.watch(text, watch.observe);
      return { text, asItCame: true };
    }
    state.push(text, sink);
    return { text, asItCame: false };
  };
  // The text that ends the stream (what the rewriter still held).
  const last = (): string => {
    state.push(decoder.decode(), sink);
    state.end(sink);
    const rest = out;
    out = "";
    return rest;
  };
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    watch.finished?.();
  };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  // The next chunk with bytes, read and watched; or the source's end, with
  // the text still held, reported to the watch; or its failure, with
  // whether to end quietly (reported to the watch unless quiet already).
  const advance = async (
    source: ReadableStreamDefaultReader<Uint8Array>,
  ): Promise<
    | { kind: "failed"; error: unknown; quietly: boolean }
    | { kind: "done"; rest: string }
    | { kind: "chunk"; bytes: Uint8Array; text: string; asItCame: boolean }
  > => {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await source.read();
      } catch (error) {
        finish();
        const quietly = watch.quiet() ||
          watch.ended(true, state.lastEventId, error);
        return { kind: "failed", error, quietly };
      }
      if (chunk.done) {
        finish();
        const rest = last();
        watch.ended(false, state.lastEventId);
        return { kind: "done", rest };
      }
      if (chunk.value.length === 0) continue;
      return { kind: "chunk", bytes: chunk.value, ...read(chunk.value) };
    }
  };

  // Like `pipeTo` (close, abort and cancel carried across; the writer waits
  // for the transform's backpressure), with each chunk read and watched on the way.
  const pump = async (
    source: ReadableStreamDefaultReader<Uint8Array>,
    sinkWriter: WritableStreamDefaultWriter<Uint8Array>,
  ): Promise<void> => {
    // The reader went away (cancelled): stop reading, even while waiting.
    sinkWriter.closed.catch((error) => {
      finish();
      void source.cancel(error).catch(noop);
    });
    for (;;) {
      try {
        await sinkWriter.ready;
      } catch (error) {
        finish(); // the reader went away: stop reading
        await source.cancel(error).catch(noop);
        return;
      }
      const next = await advance(source);
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
      const bytes = next.asItCame ? next.bytes : take();
      if (bytes !== undefined) sinkWriter.write(bytes).catch(noop);
    }
  };

  // Piped into a plain TextDecoderStream (what the SDK does), the body is
  // decoded here — it is anyway, to be watched — and the text handed on
  // directly: one stream, not a pipe into a transform and out again.
  const decoded = (
    source: ReadableStreamDefaultReader<Uint8Array>,
  ): ReadableStream<string> =>
    new ReadableStream<string>({
      pull: async (controller) => {
        for (;;) {
          const next = await advance(source);
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
          const text = next.asItCame ? next.text : out;
          out = "";
          if (text !== "") {
            controller.enqueue(text);
            return;
          }
        }
      },
      cancel: (reason) => {
        finish();
        return source.cancel(reason);
      },
    }, { highWaterMark: 0 });

  // The SDK pipes with no options; none are taken (they would not apply to
  // the pump).
  const pipeThrough = <T>(
    transform: ReadableWritablePair<T, Uint8Array>,
  ): ReadableStream<T> => {
    if (isPlainTextDecoder(transform)) {
      const source = body.getReader(); // throws, as pipeThrough does, if locked
      reader = source;
      return decoded(source) as unknown as ReadableStream<T>;
    }
    const source = body.getReader(); // throws, as pipeThrough does, if locked
    let writer: WritableStreamDefaultWriter<Uint8Array>;
    try {
      writer = transform.writable.getWriter();
    } catch (error) {
      source.releaseLock();
      throw error;
    }
    reader = source;
    void pump(source, writer);
    return transform.readable;
  };
  replacePipeThrough(body, pipeThrough);
  return {
    stream: body,
    cancel: (reason) => {
      finish();
      const cancelled = reader === undefined
        ? body.cancel(reason)
        : reader.cancel(reason);
      void cancelled.catch(noop);
    },
  };
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
