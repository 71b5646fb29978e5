/**
 * Egress for an HTTP server with `allowedHosts`: every request its
 * connection sends (the MCP endpoint, OAuth discovery, metadata and token
 * endpoints) must go to its own URL's host or an allowed one; redirects are
 * followed by hand, each hop checked, and credentials are dropped at the
 * first hop that leaves the origin they were meant for.
 *
 * @module
 */

import { EgressRefusedError } from "./errors.ts";

/** A fetch. */
type Fetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

/** Redirects followed per request, as the fetch standard does. */
const MAX_REDIRECTS = 20;

/** Headers that carry credentials: never sent to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Whether `url` may be reached: it is on the server's own origin (scheme,
 * host and port), or an entry of `allowed` matches it — `host:port`
 * exactly, a bare hostname on any port, `*.example.com` any subdomain of
 * `example.com` — over https. Plain http to an allowed host only when its
 * entry says so (`http://auth.internal:8080`): a request is never
 * downgraded to cleartext because its host is listed.
 */
export function hostAllowed(
  url: URL,
  own: URL,
  allowed: readonly string[],
): boolean {
  if (url.host === own.host && url.protocol === own.protocol) return true;
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  const hostname = url.hostname.toLowerCase();
  for (const written of allowed) {
    const scheme = /^(https?):\/\//i.exec(written);
    if (
      url.protocol === "http:" && scheme?.[1].toLowerCase() !== "http"
    ) continue;
    const wanted = written.slice(scheme?.[0].length ?? 0).toLowerCase();
    if (wanted.startsWith("*.")) {
      if (hostname.endsWith(wanted.slice(1))) return true;
    } else if (wanted.includes(":") && !wanted.startsWith("[")) {
      if (url.host.toLowerCase() === wanted) return true;
    } else if (hostname === wanted || url.host.toLowerCase() === wanted) {
      return true;
    }
  }
  return false;
}

/**
 * `base` for the server `server` at `own`: a request to a host
 * {@link hostAllowed} refuses rejects with an {@link EgressRefusedError}
 * before anything is sent; redirects are followed here (each target
 * checked the same way), and once a hop leaves the request's origin the
 * credential headers and the entry's own `headers` are dropped.
 */
export function egressFetch(
  server: string,
  own: URL,
  allowed: readonly string[],
  base: Fetch,
  entryHeaders: readonly string[] = [],
  onRefused?: (error: EgressRefusedError) => void,
): Fetch {
  const refuse = (url: URL, from: URL | undefined): never => {
    const error = new EgressRefusedError(server, url, from);
    onRefused?.(error);
    throw error;
  };
  const secret = new Set([
    ...CREDENTIAL_HEADERS,
    ...entryHeaders.map((h) => h.toLowerCase()),
  ]);
  return async (input, init) => {
    let request = new Request(input, init);
    const origin = new URL(request.url).origin;
    // The body, read once, so a 307/308 can send it again.
    const body = request.body === null
      ? undefined
      : await request.arrayBuffer();
    let url = new URL(request.url);
    let method = request.method;
    let headers = new Headers(request.headers);
    let payload: ArrayBuffer | undefined = body;
    let from: URL | undefined;
    for (let hop = 0;; hop++) {
      if (!hostAllowed(url, own, allowed)) {
        refuse(url, from);
      }
      if (url.origin !== origin) {
        for (const name of secret) headers.delete(name);
      }
      request = new Request(url, {
        method,
        headers,
        body: payload,
        redirect: "manual",
        signal: init?.signal ??
          (input instanceof Request ? input.signal : undefined),
      });
      const response = await base(request);
      const location = response.headers.get("location");
      if (!isRedirect(response.status) || location === null) return response;
      const next = new URL(location, url);
      if (init?.redirect === "manual") {
        // The caller follows (or refuses) redirects itself: it is told of
        // one to an allowed host, and never reaches another.
        if (hostAllowed(next, own, allowed)) return response;
        await response.body?.cancel();
        refuse(next, url);
      }
      if (hop >= MAX_REDIRECTS) {
        await response.body?.cancel();
        // Not a TypeError: the HTTP client reads a TypeError from fetch as
        // the network failing (a lost connection); this is the server's
        // answer, and says so.
        throw new Error(
          `server ${
            JSON.stringify(server)
          }: more than ${MAX_REDIRECTS} redirects from ${origin}`,
        );
      }
      await response.body?.cancel();
      from = url;
      url = next;
      if (
        url.origin !== origin && payload !== undefined &&
        (response.status === 307 || response.status === 308)
      ) {
        // The body may hold credentials (a client secret): it is not sent
        // to another origin.
        refuse(url, from);
      }
      // As the fetch standard: 303 (and 301/302 after a POST) become a GET without a body.
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) &&
          method === "POST")
      ) {
        method = method === "HEAD" ? "HEAD" : "GET";
        payload = undefined;
        headers = new Headers(headers);
        for (
          const name of [
            "content-type",
            "content-length",
            "content-encoding",
            "content-language",
            "content-location",
          ]
        ) headers.delete(name);
      }
    }
  };
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 ||
    status === 307 || status === 308;
}
