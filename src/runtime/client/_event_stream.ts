/**
 * The SSE response body the HTTP client transport hands the SDK: each
 * event's data rewritten, and the stream's end — clean or broken — reported
 * so calls still waiting on it can be resumed or failed at once.
 *
 * @module
 */

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
  /** The body to hand on. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Cancels the source (a dropped call); the stream then ends quietly. */
  cancel(reason: unknown): void;
}

/** Wraps an SSE body: data rewritten through `watch.rewrite`, its end reported to `watch.ended`. */
export function watchEventStream(
  body: ReadableStream<Uint8Array>,
  watch: EventStreamWatch,
): WatchedEventStream {
  // One stream, no pipeline: bytes decoded, then handed on or rewritten
  // and encoded, in the pull that reads them.
  const state = new SseRewriterState(watch.rewrite);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let out = "";
  let afterLf = true; // the last chunk ended in LF (or none came yet)
  const sink = { enqueue: (text: string) => void (out += text) };
  const take = (): string => {
    const text = out;
    out = "";
    return text;
  };
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    watch.finished?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          finish();
          if (watch.quiet() || watch.ended(true, state.lastEventId, error)) {
            controller.close();
          } else controller.error(error);
          return;
        }
        if (chunk.done) {
          finish();
          state.push(decoder.decode(), sink);
          state.end(sink);
          const rest = take();
          if (rest !== "") controller.enqueue(encoder.encode(rest));
          watch.ended(false, state.lastEventId);
          controller.close();
          return;
        }
        const bytes = chunk.value;
        if (bytes.length === 0) continue;
        const text = decoder.decode(bytes, { stream: true });
        // Whole events that need no rewrite (the common case) go on as the
        // bytes that came: read, not rebuilt. Only between chunks that end
        // in LF, so the decoder holds no part of a character on either side
        // and every byte is handed on exactly once.
        const whole = afterLf && bytes[bytes.length - 1] === LF;
        afterLf = bytes[bytes.length - 1] === LF;
        if (
          whole && state.wholeEvents(text) && !watch.needsRewrite(text)
        ) {
          state.watch(text, watch.observe);
          return controller.enqueue(bytes);
        }
        state.push(text, sink);
        const rewritten = take();
        if (rewritten !== "") {
          return controller.enqueue(encoder.encode(rewritten));
        }
      }
    },
    cancel: (reason) => {
      finish();
      return reader.cancel(reason);
    },
  });
  return {
    stream,
    cancel: (reason) => {
      finish();
      void reader.cancel(reason).catch(() => {});
    },
  };
}

const LF = 10;
