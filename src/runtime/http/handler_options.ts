/**
 * The options of `httpHandler`, in a file of their own so the handler's file
 * holds only what it does with them.
 *
 * @module
 */

import type { CacheHints } from "../era/cache_hints.ts";
import type { HttpSessionStore } from "./store_sessions.ts";
import type { DenoKvLike } from "../../store/deno_kv.ts";
import type { Store } from "../../store/contract.ts";
import type { ResourceAuthOptions } from "../../auth/server/resource.ts";

/**
 * Options of {@link httpHandler}.
 *
 * @example A handler with sessions on
 * ```ts
 * import { httpHandler, type HttpHandlerOptions, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const options: HttpHandlerOptions = { sessions: true };
 * const handler = httpHandler(
 *   () => new Server({ name: "demo", version: "1.0.0" }),
 *   options,
 * );
 * const res = await handler(new Request("http://localhost/mcp", { method: "PUT" }));
 * assert.equal(res.status, 405);
 * ```
 */
export interface HttpHandlerOptions {
  /**
   * `false` (default): stateless — nothing kept between requests, so any
   * instance can answer (Deno Deploy). `true`:
   * sessions — `Mcp-Session-Id`, the GET SSE stream, DELETE, idle expiry.
   */
  sessions?: boolean;
  /**
   * Stateless mode: pool servers across requests. Default `false`: every
   * request gets a server of its own from `newServer(request, auth)`, made
   * for it and closed after it — what a factory that binds its server to
   * the caller needs. Servers are never pooled because of how `newServer`
   * is written (its parameters, a wrapper around it): only this option
   * pools them.
   *
   * `true`: keep up to 64 servers whose request ended and connect the next
   * request to one of them, so tools are not registered anew (and the SDK's
   * validator not rebuilt) for every request — say it only when the servers
   * `newServer` makes are interchangeable between callers: a pooled server
   * was made for the request (and caller) that first needed it, and serves
   * other callers after. Tools still see each request's own caller as
   * `ctx.auth`. Requests stay apart all the same: a pooled server serves one
   * request at a time; a message a handler sends after its request was
   * answered goes nowhere; a server that handled `initialize` or
   * `logging/setLevel` (per-client state), or whose request was dropped, is
   * never pooled. Session mode ignores it (a server per session). A
   * `newServer` that hands back one shared server works either way:
   * overlapping requests that need its SDK `Protocol` connected take turns
   * on it.
   *
   * @default false
   */
  reuseServers?: boolean;
  /**
   * Session mode: where sessions live. Absent: in this handler's memory
   * (one process). A contract store from `@weft/mcp/store`
   * (`redisStore(url)`, `postgresStore(url)`, `denoKvStore(kv)`): sessions,
   * their events and the list changes of listen streams in it, so every
   * instance serves every session. A raw `Deno.Kv` is taken as
   * `denoKvStore(kv)`; anything else is a `TypeError` at the call.
   * (`kvStore(kv)` is deprecated: the same sessions as the `Deno.Kv`.)
   */
  store?: HttpSessionStore | Store | DenoKvLike;
  /** Idle time after which a session expires, in ms. Default 10 minutes. */
  sessionIdleTimeout?: number;
  /**
   * Session mode: the most sessions live at once. Default 1,000
   * (`DEFAULT_MAX_SESSIONS`). Past it `initialize` answers 503 with
   * `Retry-After` (when the oldest idle session expires) and a JSON-RPC
   * error saying why; existing sessions are untouched; logged once each
   * time the cap is reached.
   */
  maxSessions?: number;
  /**
   * The most `subscriptions/listen` streams (2026-07-28) open at once on
   * this handler. Default 1,000. Past it a listen answers 503 with
   * `Retry-After: 30` and a JSON-RPC error (`-32000`) saying why, before
   * any server is made for it; open streams are untouched, and each one's
   * slot is given back when it closes. Without `onerror`, the first refusal
   * is logged. `0` refuses every listen. Each open stream holds a server of
   * its own and its transports (about 130 KiB of RSS, 35 KiB of it heap,
   * `bench/listen_memory.ts`), all released when it closes.
   */
  maxListens?: number;
  /**
   * With `auth`: the most `subscriptions/listen` streams one principal (a
   * token's client id and subject) holds open at once. Default 100. Past
   * it that caller's next listen answers 429 with a JSON-RPC error
   * (`-32000`) telling it to close one first; other callers are untouched.
   * Without `auth` only `maxListens` applies.
   */
  maxListensPerPrincipal?: number;
  /**
   * Session mode: the SSE events each session keeps so a client that lost a
   * stream can resume it with `Last-Event-ID` (SEP-1699). Default 100; the
   * oldest go first, all go with the session. `0` turns resumability off
   * (no event ids, no priming events).
   */
  sessionEvents?: number;
  /**
   * Session mode: the byte budget of each session's kept events (their JSON
   * text). Default 4 MiB (`DEFAULT_SESSION_EVENT_BYTES`); the oldest go
   * first, and a stream's events go once it was delivered to its end.
   */
  sessionEventBytes?: number;
  /**
   * Session mode, resumable streams: a call's SSE stream still open after
   * this many ms is closed; the client reconnects with `Last-Event-ID` after
   * the stream's `retry` interval (1 s) and gets the rest from the session's
   * events (SEP-1699 polling) — for hosts and proxies that cut long
   * responses. Streams of clients below protocol 2025-11-25 (no priming
   * event to resume from) are never closed. Default: never.
   */
  closeStreamsAfter?: number;
  /**
   * The bytes one response stream may hold for a client that does not read
   * it. Default 8 MiB (`DEFAULT_MAX_UNREAD_BYTES`). Past it the stream is
   * closed: a stateless call is cancelled, a resumable stream's calls run on
   * and their answers wait in the session's events.
   */
  maxUnreadBytes?: number;
  /** Host header values accepted (`host` or `host:port`); see the DNS-rebinding rule. */
  allowedHosts?: string[];
  /** Origin header values accepted (`scheme://host[:port]`); default loopback origins only. */
  allowedOrigins?: string[];
  /** `false` turns the DNS-rebinding rule off entirely. Default true. */
  dnsRebindingProtection?: boolean;
  /** The largest request body accepted, in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * The time a request body may take to arrive, in ms. Default 30 s
   * (`DEFAULT_BODY_TIMEOUT`); a slower body is answered 408.
   */
  bodyTimeout?: number;
  /**
   * The deepest nesting of arrays and objects a request body may have.
   * Default 64 (`DEFAULT_MAX_BODY_DEPTH`); a deeper body is answered 400
   * before it is parsed.
   */
  maxBodyDepth?: number;
  /**
   * Closes the handler (as {@link HttpHandler.close} does) when it aborts:
   * pass the signal that stops your `Deno.serve`, so open GET streams,
   * calls in flight and sessions end with it and the process can exit.
   */
  signal?: AbortSignal;
  /**
   * The cache hints on modern (2026-07-28) cacheable results — `tools/list`,
   * `prompts/list`, `resources/list`, `resources/templates/list`,
   * `resources/read`, `server/discover` — as `ttlMs` and `cacheScope`.
   * Default `{ ttlMs: 0, scope: "private" }`: no reuse. `scope: "public"`
   * lets shared caches reuse a list: say it only when the lists `newServer`
   * builds are the same for every caller. Legacy results carry no hints.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  cacheHints?: CacheHints;
  /**
   * Sees every refusal (an `HttpRefusalError`) and internal failure, and a
   * stream closed by `maxUnreadBytes` (an `UnreadLimitError`). A reached
   * session cap and a refused Host or Origin come once per handler (the
   * first time). Default: internal failures go to `console.error`; those
   * once-only notices go to `console.warn`; other refusals and a client
   * going away are not logged.
   */
  onerror?: (error: Error) => void;
  /**
   * Makes the endpoint an OAuth 2.1 resource server (MCP authorization):
   * the Protected Resource Metadata document (RFC 9728) is served at
   * `/.well-known/oauth-protected-resource` + the resource's path (and at
   * the root form), and every other request needs a bearer token `verify`
   * accepts, else 401 with `WWW-Authenticate: Bearer
   * resource_metadata="…"` (`scope="…"` when `scopes` are set;
   * `error="invalid_token"` and the reason for a refused, expired or
   * foreign-audience token). A token without `scopes`, or a `tools/call`
   * of a tool whose `scopes` option it lacks, gets 403 with
   * `error="insufficient_scope"` and `scope=` naming every scope the
   * request needs — decided before the server runs, in both eras. The
   * verified caller reaches tools as `ctx.auth` (the SDK's
   * `extra.authInfo`) and the factory as `newServer(request, auth)`. In
   * session mode a session is bound to the principal that opened it (client
   * id and `auth.extra.sub`): another principal's token on its id is answered 404
   * `Session not found`, as an unknown id; the same principal's refreshed
   * token is accepted, and tools see the new one. Tokens are never
   * forwarded anywhere. See docs/auth.md.
   */
  auth?: ResourceAuthOptions;
}
