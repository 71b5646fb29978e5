/**
 * A test server's look at a request before its handler gets it, without
 * touching `request.signal`.
 *
 * `request.clone()` and handlers that read `request.signal` make
 * `Deno.serve` print its legacy-abort warning. `passOn` reads the body once
 * and builds a request of the same URL, method, headers and body whose
 * signal aborts when `info.completed` settles (the response delivered, or
 * the client gone): what Deno's legacy signal did, without the warning.
 *
 * @module
 */

/** The body's text ("" when it has none) and the request to pass on. */
export async function passOn(
  request: Request,
  info?: Deno.ServeHandlerInfo,
): Promise<{ text: string; request: Request }> {
  const hasBody = request.body !== null;
  const text = hasBody ? await request.text() : "";
  const ended = new AbortController();
  info?.completed.then(
    () => ended.abort(),
    (error) => ended.abort(error),
  );
  return {
    text,
    request: new Request(request.url, {
      method: request.method,
      headers: request.headers,
      ...(hasBody ? { body: text } : {}),
      signal: ended.signal,
    }),
  };
}
