/**
 * The SSE response bodies the HTTP client transport's fetch hands the SDK,
 * from the hand-off until they are done with: read in the SDK's place
 * (`SseRead`, its `_handleSseStream` replaced), or — when the SDK's
 * internals are not as expected — watched on the SDK's own reading
 * (`watchEventStream`). Either way a body's calls are answered, lost or
 * resumed when it ends, and a close cancels every body still open.
 *
 * @module
 */

import {
  replaceSseReader,
  type SseReaderSeam,
  type SseReadOptions,
} from "../../seam/sdk_internals.ts";
import { watchEventStream } from "./_event_stream.ts";
import type { Call, CallBook } from "./_http_calls.ts";
import type { RequestId } from "./_message_ids.ts";
import { mayHoldBigNumber, type RawNumberCodec } from "./_raw_number_codec.ts";
import {
  type SdkHandlers,
  type SseBody,
  SseRead,
  type SseReadHost,
} from "./_sse_read.ts";

/** Options of {@link SseBodies}. */
export interface SseBodiesOptions {
  /** The transport's codec keeping big numbers. */
  readonly codec: RawNumberCodec;
  /** Whether the bodies are the runtime's own fetch bodies (read into a buffer). */
  readonly runtimeBodies: boolean;
}

/** See the module doc. */
export class SseBodies implements SseReadHost {
  readonly calls: CallBook;
  readonly inner: SdkHandlers;
  readonly codec: RawNumberCodec;
  readonly runtimeBodies: boolean;
  /** The SDK's internals when its SSE reading is taken over. */
  readonly #sdk?: SseReaderSeam;
  /** The SSE bodies being read now, cancelled on close. */
  readonly #open = new Set<{ cancel(reason: unknown): void }>();
  /** The SSE bodies handed to the SDK, until it starts reading them. */
  readonly #handed = new WeakMap<ReadableStream<Uint8Array>, SseBody>();
  /** Read buffers of bodies read to their end, for the next. */
  readonly #buffers: ArrayBuffer[] = [];

  /**
   * Takes over the SSE reading of `inner` (an SDK
   * `StreamableHTTPClientTransport`) when its internals are as expected.
   */
  constructor(
    inner: SdkHandlers,
    calls: CallBook,
    options: SseBodiesOptions,
  ) {
    this.inner = inner;
    this.calls = calls;
    this.codec = options.codec;
    this.runtimeBodies = options.runtimeBodies;
    // The SDK reads an SSE body through a decoder stream, a parser stream
    // and a zod parse of each message; the transport reads it in one loop
    // instead, doing what the SDK's reading does (`SseRead`).
    this.#sdk = replaceSseReader(
      inner,
      (stream, options, reconnectable) =>
        void this.#read(stream, options, reconnectable),
    );
  }

  /** Whether bodies are read in the SDK's place (else watched on its reading). */
  get readsInPlace(): boolean {
    return this.#sdk !== undefined;
  }

  /** See {@link SseReadHost.sdk}; only read while {@link readsInPlace}. */
  get sdk(): SseReaderSeam {
    return this.#sdk!;
  }

  /**
   * Notes `body`, to be read in the SDK's place when the SDK hands it
   * there (`readsInPlace`); until then a cancelled `post` or a close
   * cancels the body itself.
   */
  expect(
    body: ReadableStream<Uint8Array>,
    waiting: readonly RequestId[],
    post: Call | undefined,
    release: () => void,
  ): void {
    const open = { cancel: (reason: unknown) => cancelQuietly(body, reason) };
    this.#handed.set(body, { waiting, post, release, open });
    this.#open.add(open);
    if (post !== undefined) {
      post.drop = () => open.cancel(new Error("request cancelled"));
      if (post.dropped) post.drop();
    }
  }

  /**
   * The SSE body the SDK reads itself (when not `readsInPlace`): big
   * numbers marked; for the calls waiting on it (a POST's own request, or
   * those a resumption carries on), watched for their answers; for a POST,
   * dropped when its call is cancelled.
   */
  watch(
    body: ReadableStream<Uint8Array>,
    waiting: readonly RequestId[],
    post: Call | undefined,
    finished: () => void,
  ): ReadableStream<Uint8Array> {
    const calls = this.calls;
    // An event answering a waiting call marks it answered before the SDK
    // reads it, so the stream's end cannot be taken for a loss.
    const watched = watchEventStream(body, {
      rewrite: (data) => {
        const encoded = this.codec.encode(data);
        calls.noteAnswered(waiting, data, () => encoded.value);
        return encoded.text;
      },
      needsRewrite: mayHoldBigNumber,
      observe: (data) => calls.noteAnswered(waiting, data),
      ended: (broken, lastEventId, cause) =>
        calls.ended(waiting, broken, lastEventId, cause),
      quiet: () => post?.dropped === true || calls.closed,
      finished: () => {
        this.#open.delete(watched);
        finished();
      },
    });
    this.#open.add(watched);
    if (post !== undefined) {
      post.drop = () => watched.cancel(new Error("request cancelled"));
      if (post.dropped) post.drop();
    }
    return watched.stream;
  }

  /** Cancels every body still open (the transport closes). */
  cancelAll(reason: unknown): void {
    for (const body of this.#open) body.cancel(reason);
    this.#open.clear();
  }

  takeBuffer(): ArrayBuffer {
    return this.#buffers.pop() ?? new ArrayBuffer(READ_BUFFER_SIZE);
  }

  giveBuffer(buffer: ArrayBuffer): void {
    if (
      buffer.byteLength === READ_BUFFER_SIZE &&
      this.#buffers.length < KEPT_BUFFERS
    ) this.#buffers.push(buffer);
  }

  settle(body: SseBody): void {
    this.#open.delete(body.open);
    body.release();
  }

  // The SDK's `_handleSseStream`, the same arguments.
  #read(
    stream: ReadableStream<Uint8Array> | null,
    options: SseReadOptions | undefined,
    reconnectable: boolean,
  ): Promise<void> | undefined {
    if (stream === null || stream === undefined) return;
    const body = this.#handed.get(stream);
    this.#handed.delete(stream);
    return new SseRead(this, body, options, reconnectable).run(stream);
  }
}

/** The size of an SSE body's read buffer, and how many a transport keeps. */
const READ_BUFFER_SIZE = 32 * 1024;
const KEPT_BUFFERS = 4;

function cancelQuietly(
  body: ReadableStream<Uint8Array>,
  reason: unknown,
): void {
  if (body.locked) return;
  void body.cancel(reason).catch(noop);
}

function noop(): void {}
