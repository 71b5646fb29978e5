/**
 * Watching a streamed Response to its end — delivered, dropped by the
 * client, or closed because the client stopped reading — and capping what
 * waits for a client that does not read.
 *
 * @module
 */

/** How a response ended: `"overflow"` is a stream closed by the unread cap. */
export type ResponseEnd = "delivered" | "dropped" | "overflow";

/** What the handler knows of the request's connection (`Deno.serve`'s info, when passed). */
export interface ConnectionInfo {
  /**
   * Settles when the response has been sent (resolves) or could not be
   * (rejects: the client went away) — `Deno.serve`'s `info.completed`.
   */
  readonly completed?: Promise<void>;
}

// The callback lives in a cell the listeners share, emptied when it fires,
// so a listener that outlives the response (a `completed` promise, a
// signal) keeps nothing of it — not the server a stateless request made.
interface Cell {
  onEnd?: (end: ResponseEnd) => void;
}

function fire(cell: Cell, end: ResponseEnd): void {
  const onEnd = cell.onEnd;
  cell.onEnd = undefined;
  onEnd?.(end);
}

function watchConnection(
  cell: Cell,
  req: Request,
  info: ConnectionInfo | undefined,
): void {
  if (info?.completed !== undefined) {
    info.completed.catch(() => fire(cell, "dropped"));
  } else {
    if (req.signal.aborted) fire(cell, "dropped");
    req.signal.addEventListener("abort", () => fire(cell, "dropped"), {
      once: true,
    });
  }
}

/**
 * Returns a response with the same status, headers and bytes whose end is
 * reported once through `onEnd`: `"delivered"` when the body has been
 * handed on to its end (or there is none), `"dropped"` when the client
 * cancelled the body or the connection failed first, `"overflow"` when more
 * than `maxUnread` bytes waited for a client that did not read — then what
 * waited is dropped, the source is cancelled, and the stream ends at the
 * client's next read.
 *
 * The drop is seen three ways: the body stream is cancelled (every runtime
 * that streams responses), `info.completed` rejects (Deno.serve), or —
 * only when no `completed` promise is given — `req.signal` aborts before the
 * body ended. `Deno.serve` also aborts `req.signal` after a *successful*
 * response (its legacy behaviour, announced with a warning when the signal
 * is touched), so there it is not read at all.
 */
export function watchResponse(
  response: Response,
  req: Request,
  info: ConnectionInfo | undefined,
  onEnd: (end: ResponseEnd) => void,
  maxUnread: number = Infinity,
): Response {
  const cell: Cell = { onEnd };
  watchConnection(cell, req, info);
  if (response.body === null) {
    fire(cell, "delivered");
    return response;
  }
  return new Response(relay(response.body, cell, maxUnread), response);
}

// Reads the source as fast as it produces and queues what the consumer has
// not taken yet, counting its bytes: the queue is where an unread stream's
// bytes would pile up, so that is where the cap applies. Past the cap the
// queue is emptied at once and the stream ends at the consumer's next read
// (an error would have the HTTP server print it). A chunk that arrives while
// the consumer waits for one goes straight to it: no queue, no promise.
function relay(
  source: ReadableStream<Uint8Array>,
  cell: Cell,
  maxUnread: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const queue: Uint8Array[] = [];
  let queued = 0;
  let finished = false;
  // The consumer asked for a chunk and got none yet.
  let waiting = false;
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const end = () => {
    out.close();
    fire(cell, "delivered");
  };
  const pump = async () => {
    while (!finished) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        finished = true;
        fire(cell, "dropped");
        break;
      }
      if (finished) return;
      if (chunk.done) {
        finished = true;
        break;
      }
      if (waiting) {
        waiting = false;
        out.enqueue(chunk.value);
        continue;
      }
      const size = chunk.value.byteLength;
      if (queued > 0 && queued + size > maxUnread) {
        finished = true;
        queue.length = 0;
        queued = 0;
        fire(cell, "overflow");
        reader.cancel().catch(() => {});
        break;
      }
      queue.push(chunk.value);
      queued += size;
    }
    if (waiting) {
      waiting = false;
      end();
    }
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      void pump();
    },
    pull(controller) {
      if (queue.length > 0) {
        // Everything waiting goes as one chunk: one write, not several.
        const next = queue.length === 1 ? queue[0] : concat(queue, queued);
        queue.length = 0;
        queued = 0;
        controller.enqueue(next);
      } else if (finished) {
        end();
      } else {
        waiting = true;
      }
    },
    cancel(reason) {
      finished = true;
      waiting = false;
      queue.length = 0;
      queued = 0;
      fire(cell, "dropped");
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}
