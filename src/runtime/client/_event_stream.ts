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
  // One stream, no pipeline: bytes decoded, rewritten and encoded in the
  // pull that reads them.
  const state = new SseRewriterState(watch.rewrite);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let out = "";
  const sink = { enqueue: (text: string) => void (out += text) };
  const take = (): string => {
    const text = out;
    out = "";
    return text;
  };
  const stream = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (watch.quiet() || watch.ended(true, state.lastEventId, error)) {
            controller.close();
          } else controller.error(error);
          return;
        }
        if (chunk.done) {
          state.push(decoder.decode(), sink);
          state.end(sink);
          const rest = take();
          if (rest !== "") controller.enqueue(encoder.encode(rest));
          watch.ended(false, state.lastEventId);
          controller.close();
          return;
        }
        state.push(decoder.decode(chunk.value, { stream: true }), sink);
        const text = take();
        if (text !== "") return controller.enqueue(encoder.encode(text));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return {
    stream,
    cancel: (reason) => void reader.cancel(reason).catch(() => {}),
  };
}
