/**
 * The two ends a stdio transport works on, below web streams: a source of
 * byte chunks and a sink of byte chunks. `stdioTransport` adapts a pair of
 * web streams to them; `serveStdio` reads stdin into one buffer reused from
 * read to read and writes stdout directly (no stream layer, a write that
 * goes out at once); `connectStdio` reads the child's stdout the same way.
 *
 * @module
 */

/** Where a stdio transport reads: chunks until `null` (the end of input). */
export interface ByteSource {
  /**
   * The next chunk, or `null` at the end. The chunk is the reader's until
   * the next `read` (a source may reuse its buffer).
   */
  read(): Promise<Uint8Array | null>;
  /** Stops reading: a pending `read` resolves `null`. */
  cancel(): Promise<void>;
}

/** Where a stdio transport writes: whole batches, one at a time. */
export interface ByteSink {
  /** Writes all of `bytes`; the next write comes after this one settled. */
  write(bytes: Uint8Array): Promise<void>;
  /** No more writes (the peer sees the end of its input). */
  close(): Promise<void>;
  /**
   * Whether a write is done with its bytes once it settled (they went to
   * a pipe), so the writer may reuse its buffer; not so for a stream that
   * hands its chunks on to a reader.
   */
  readonly consumes?: boolean;
}

/** A source reading `readable` (its chunks as they come). */
export function streamSource(readable: ReadableStream<Uint8Array>): ByteSource {
  const reader = readable.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    cancel: () =>
      reader.cancel().catch(() => {
        // Nothing lost: the stream is being dropped; a cancel that fails leaves nothing to read.
      }),
  };
}

/**
 * A sink writing to `writable`; `consumes` when the stream is done with a
 * chunk once its write settled (a child's stdin).
 */
export function streamSink(
  writable: WritableStream<Uint8Array>,
  consumes = false,
): ByteSink {
  const writer = writable.getWriter();
  return {
    write: (bytes) => writer.write(bytes),
    close: () =>
      writer.close().catch(() => {
        // Nothing lost: the pipe is closing; a write that failed already rejected its own promise.
      }),
    consumes,
  };
}

/** The read buffer of a {@link bufferSource}: a pipe holds 64 KiB. */
const READ_BYTES = 64 * 1024;

/**
 * A source reading the byte stream `readable` (`Deno.stdin.readable`, a
 * child's stdout) into one buffer, reused from read to read (a BYOB
 * reader), so reading allocates nothing; a stream that is not a byte
 * stream is read as it comes. `cancel` cancels the stream (a pending read
 * resolves `null`, the read under way is cancelled).
 */
export function bufferSource(
  readable: ReadableStream<Uint8Array>,
): ByteSource {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = readable.getReader({ mode: "byob" });
  } catch {
    return streamSource(readable);
  }
  let buffer = new ArrayBuffer(READ_BYTES);
  return {
    read: async () => {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (value !== undefined) buffer = value.buffer as ArrayBuffer;
      return done ? null : value;
    },
    cancel: () =>
      reader.cancel().catch(() => {
        // Nothing lost: the stream is being dropped; a cancel that fails leaves nothing to read.
      }),
  };
}

/** A sink writing to `file` (`Deno.stdout`) directly; `close` leaves it open. */
export function fileSink(
  file: { write(p: Uint8Array): Promise<number> },
): ByteSink {
  return {
    write: async (bytes) => {
      let written = 0;
      while (written < bytes.length) {
        written += await file.write(bytes.subarray(written));
      }
    },
    close: () => Promise.resolve(),
    consumes: true,
  };
}
