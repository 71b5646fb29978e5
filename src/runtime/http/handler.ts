/**
 * `httpHandler`: a fetch handler serving SDK servers over Streamable HTTP,
 * for `Deno.serve` and Deno Deploy.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
import type { RemoteAddress } from "./guard.ts";
import type { AuthInfo } from "../../core/auth.ts";
import { endpointFor } from "./_assembly.ts";
import type { HttpHandlerOptions } from "./handler_options.ts";

export type { HttpHandlerOptions } from "./handler_options.ts";

/** What `Deno.serve` passes a handler next to the request; both fields optional. */
export interface HttpRequestInfo {
  /** The peer's address: the DNS-rebinding rule treats loopback peers as local. */
  readonly remoteAddr?: RemoteAddress;
  /** Settles when the response has been sent (rejects when the client went away). */
  readonly completed?: Promise<void>;
}

/** What {@link HttpHandler.stats} reports. */
export interface HttpHandlerStats {
  /** Live sessions. */
  readonly sessions: number;
  /** Events kept for resuming, over all sessions. */
  readonly keptEvents: number;
  /** Bytes of those events' JSON text. */
  readonly keptBytes: number;
  /** Open `subscriptions/listen` streams (2026-07-28), against `maxListens`. */
  readonly listens: number;
}

/** Where a server listens, as `deno serve` tells `onListen` (any of Deno's address kinds). */
export interface ListenAddress {
  /** `"tcp"`, `"unix"`, …. */
  readonly transport?: string;
  /** The host name or address listened on (TCP). */
  readonly hostname?: string;
  /** The port listened on (TCP). */
  readonly port?: number;
  /** The socket's path (a Unix socket). */
  readonly path?: string;
}

/**
 * The handler: a fetch function, closable (it may hold sessions), and a
 * `deno serve` default export as it is (`export default httpHandler(…)`).
 */
export interface HttpHandler {
  /** Answers one request; never throws, never shows a stack trace. */
  (req: Request, info?: HttpRequestInfo): Promise<Response>;
  /** The handler itself, under the name `deno serve` calls. */
  readonly fetch: (req: Request, info?: HttpRequestInfo) => Promise<Response>;
  /**
   * Called by `deno serve` once it listens, when the handler is the
   * module's default export: prints the address — one the DNS-rebinding
   * rule accepts (`localhost` for `deno serve`'s default `0.0.0.0`) — and, on Deno, closes the handler on
   * SIGTERM and SIGINT — `deno serve` stops listening then, and open GET
   * streams and calls in flight would otherwise hold the process — and
   * then disposes a store from `@weft/mcp/store` given as `store` (its
   * connections would hold the process too; `close()` alone leaves the
   * store open for its owner). Not
   * called by `Deno.serve(handler)`: there, pass `signal`.
   */
  onListen(address: ListenAddress): void;
  /** What the handler holds now: live sessions and their kept events (0 in stateless mode), open listen streams. */
  stats(): HttpHandlerStats;
  /**
   * Tells modern clients that a list changed: every `subscriptions/listen`
   * stream open on this handler that asked for it gets
   * `notifications/<list>/list_changed` (`list`: `"tools"` by default).
   * For lists `newServer` builds differently from now on; a server that
   * sends the notification itself (`exportTools` on a connected server)
   * reaches the streams it serves without this. Legacy clients are not
   * told (their sessions' servers send their own). With sessions in a
   * shared `store`, the change reaches the streams open on every instance
   * sharing the store (watched while a stream is open here: pushed by
   * Redis and Postgres; on Deno KV at once where its `watch` works across
   * instances, else within its `pollInterval`).
   */
  listChanged(list?: "tools" | "prompts" | "resources"): Promise<void>;
  /**
   * Ends what the handler holds: every session and its server, every open
   * stream (GET streams and calls in flight, whose handlers' signals
   * abort), the idle servers; nothing of it keeps the process alive after.
   * Later requests still work.
   */
  close(): Promise<void>;
  /** Same as `close`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP on web-standard `Request`/`Response`,
 * on SDK servers from `newServer`: one per request (stateless, the
 * default), pooled from request to request only with `reuseServers: true`,
 * or one per session (`sessions: true`). `newServer` is always called as
 * `newServer(request, auth)`: the request the server is made for (in
 * session mode, the request that opened or restored the session) and its
 * verified caller (`undefined` without the `auth` option). Pass a factory,
 * never a server: one server shared by every caller is what
 * `reuseServers: true` says in words. The wire behaviour is the SDK's
 * `WebStandardStreamableHTTPServerTransport`'s (status codes, error texts,
 * SSE framing, priming, `Last-Event-ID` replay), with less work per request.
 *
 * Before a request reaches a server:
 * - The DNS-rebinding rule: requests from a loopback peer (or of
 *   unknown origin, when no `info` is passed) must name a loopback Host —
 *   `localhost`, `127.0.0.1`, `[::1]`, any port — unless `allowedHosts` is
 *   given; an Origin header, when present, must be a loopback origin unless
 *   `allowedOrigins` is given. Refused: 403.
 * - The body cap: a `Content-Length` over `maxBodyBytes` is refused with 413
 *   before reading; a streamed body is counted and cut at the cap (413).
 * - The body is parsed with the lossless reader (integers beyond 2^53 keep
 *   their digits; responses write them back): 400 with -32700 when not JSON.
 * - The era: a request whose `params._meta` names a modern protocol
 *   version (2026-07-28) is modern — served statelessly in either mode (no
 *   `initialize`, no session; a server made by `newServer` is handed an
 *   internal `initialize` carrying the request's client capabilities and
 *   info, never sent), after its headers are checked: `MCP-Protocol-Version`,
 *   `Mcp-Method` and `Mcp-Name` must match the body (else 400, -32020), the
 *   version must be served (else 400, -32022 with `data: { supported,
 *   requested }`). Modern results carry `resultType: "complete"` (unless the
 *   server set one), the server's info in `_meta`, and on lists the
 *   `cacheHints`; `server/discover` and `subscriptions/listen` (see
 *   `listChanged`) are answered; a call that needs a client capability the
 *   request did not declare answers -32021. Everything else is legacy and
 *   served as below; a legacy `server/discover` probe (no envelope) gets 400
 *   with a JSON-RPC -32601 error naming its id, the answer on which such
 *   clients fall back to `initialize`.
 *
 * An abandoned call stops: when the client drops the HTTP request, the
 * server sees `notifications/cancelled` for its requests (reason
 * `the HTTP request was dropped`), so the tool's signal aborts — in
 * stateless mode, and in session mode for a stream that carried no event
 * id. A resumable stream (one that carried an event id) is not abandoned
 * when dropped: its calls run on and their answers wait in the session's
 * events for the client to resume with `Last-Event-ID`. In
 * stateless mode a `notifications/cancelled` the client POSTs separately
 * lands on another server and cannot be matched to the call (ids are per
 * client and collide across clients): only the drop stops it.
 *
 * In session mode streams are resumable: each session
 * keeps its newest `sessionEvents` SSE events, streams start with a priming
 * event (`retry: 1000`) for clients that negotiated 2025-11-25 or later,
 * and a GET with `Last-Event-ID` is sent what that stream missed.
 *
 * Failures answer 500 with `{"code":-32603,"message":"Internal error"}`,
 * never a stack or an exception's text; `onerror` sees them. A shared
 * `store` that cannot be reached (a `StoreUnavailableError`) answers 503
 * with `Retry-After: 5` and a JSON-RPC error saying so, and ends the open
 * `subscriptions/listen` streams with an error when its bus fails.
 *
 * @example Using `httpHandler`
 * ```ts
 * import { httpHandler, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const handler = httpHandler(() => new Server({ name: "demo", version: "1" }, { capabilities: {} }));
 * const res = await handler(new Request("http://localhost/mcp", { method: "PUT" }));
 * assert.equal(res.status, 405);
 * // Deno.serve({ hostname: "127.0.0.1", port: 8000 }, handler);
 * ```
 */
export function httpHandler(
  newServer: (request: Request, auth?: AuthInfo) => Server,
  options: HttpHandlerOptions = {},
): HttpHandler {
  if (typeof newServer !== "function") {
    throw new TypeError(
      "httpHandler(newServer): newServer must be a function making a server, (request, auth) => new Server(…); to share servers between requests, pass reuseServers: true",
    );
  }
  const endpoint = endpointFor(newServer, options);
  const handler = endpoint.fetch;
  const close = (): Promise<void> => endpoint.close();
  return Object.assign(handler, {
    fetch: handler,
    onListen: (address: ListenAddress): void => endpoint.onListen(address),
    stats: (): HttpHandlerStats => endpoint.stats(),
    listChanged: (list?: "tools" | "prompts" | "resources"): Promise<void> =>
      endpoint.listChanged(list),
    close,
    [Symbol.asyncDispose]: close,
  });
}
