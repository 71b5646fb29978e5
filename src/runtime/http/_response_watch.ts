/**
 * Watching a streamed Response to its end: delivered, or dropped by the
 * client. The HTTP handler uses the second to stop abandoned calls.
 *
 * @module
 */

/** How a response ended. */
export type ResponseEnd = "delivered" | "dropped";

/** What the handler knows of the request's connection (`Deno.serve`'s info, when passed). */
export interface ConnectionInfo {
  /**
   * Settles when the response has been sent (resolves) or could not be
   * (rejects: the client went away) — `Deno.serve`'s `info.completed`.
   */
  readonly completed?: Promise<void>;
}

/**
 * Returns a response with the same status, headers and bytes whose end is
 * reported once through `onEnd`: `"delivered"` when the body has been read
 * to its end (or there is none), `"dropped"` when the client cancelled the
 * body or the connection failed first.
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
): Response {
  let ended = false;
  const end = (how: ResponseEnd) => {
    if (ended) return;
    ended = true;
    onEnd(how);
  };
  if (info?.completed !== undefined) {
    info.completed.catch(() => end("dropped"));
  } else {
    if (req.signal.aborted) end("dropped");
    req.signal.addEventListener("abort", () => end("dropped"), { once: true });
  }
  if (response.body === null) {
    end("delivered");
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        end("dropped");
        controller.error(error);
        return;
      }
      if (chunk.done) {
        end("delivered");
        controller.close();
      } else {
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      end("dropped");
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
