/**
 * A test server's look at a request's body before its handler gets it.
 *
 * `request.clone()` reads the request's `signal`, and `Deno.serve` then
 * prints its legacy-abort warning on every run. This reads the body once
 * and hands back a request built from it (same URL, method, headers) to
 * pass on instead; the handler still gets `Deno.serve`'s `info`.
 *
 * @module
 */

/** The body's text ("" when it has none) and the request to pass on. */
export async function readBody(
  request: Request,
): Promise<{ text: string; request: Request }> {
  if (request.body === null) return { text: "", request };
  const text = await request.text();
  return {
    text,
    request: new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: text,
    }),
  };
}
