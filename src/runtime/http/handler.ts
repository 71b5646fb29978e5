/**
 * `httpHandler`: a fetch handler serving SDK servers over Streamable HTTP,
 * for `Deno.serve` and Deno Deploy.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
import { HttpRefusalError, UnreadLimitError } from "../errors.ts";
import {
  internalError,
  type RemoteAddress,
  STORE_RETRY_SECONDS,
  storeDown,
  storeUnavailable,
} from "./guard.ts";
import {
  DEFAULT_MAX_LISTENS,
  DEFAULT_MAX_LISTENS_PER_PRINCIPAL,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_UNREAD_BYTES,
  DEFAULT_SESSION_EVENT_BYTES,
} from "./limits.ts";
import { DEFAULT_SESSION_EVENTS } from "./event_store.ts";
import { type HttpSessionStore, KvSessionBackend } from "./kv_store.ts";
import { isStore, type Store } from "../../store/contract.ts";
import { acceptStore } from "../../store/accept.ts";
import { StoreSessionBackend } from "./store_sessions.ts";
import { DEFAULT_SESSION_IDLE_TIMEOUT, SessionStore } from "./sessions.ts";
import { frontDoor, type Notice } from "./_front_door.ts";
import { StatelessRoute } from "./_stateless.ts";
import { capOption, ListenCap } from "./_listen_cap.ts";
import { SignalHook } from "./_host.ts";
import type { AuthInfo } from "../../core/auth.ts";
import { setServerScope } from "../../core/server_state.ts";
import { listenUrl } from "./_listen_url.ts";
import { AuthGate, authOf } from "./_auth.ts";
import { type EraTransport, resolveCacheHints } from "../era/era_server.ts";
import type { HttpHandlerOptions } from "./handler_options.ts";

export type { HttpHandlerOptions } from "./handler_options.ts";

function isKvBackend(value: object): value is KvSessionBackend {
  return value instanceof KvSessionBackend;
}

function sharedBackend(
  store: HttpSessionStore | Store | undefined,
  report: (error: Error) => void,
): KvSessionBackend | undefined {
  if (store === undefined) return undefined;
  const accepted = acceptStore(
    store,
    "httpHandler: options.store",
    isKvBackend,
  );
  const backend = isStore(accepted)
    ? new StoreSessionBackend(accepted)
    : accepted;
  backend.onStoreError ??= (error) =>
    report(
      new Error(
        "httpHandler: an event could not be stored in the shared store: the open stream still carried it, a resumption will miss it",
        { cause: error },
      ),
    );
  return backend;
}

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
   * told (their sessions' servers send their own). With sessions in KV
   * (`store: kvStore(kv)`), the change reaches the streams open on every
   * instance sharing the store (watched while a stream is open here:
   * at once where KV's `watch` works across instances, else within its
   * `pollInterval`).
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
 * `store` that cannot be reached — a contract store, or the Deno KV behind
 * `kvStore` (a `StoreUnavailableError`) — answers 503
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
  const maxUnread = options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
  const report = options.onerror ?? defaultReport;
  // What an operator must act on: every one to `onerror`, else logged once.
  const logged = new Set<string>();
  const notice: Notice = (key, error, log) => {
    if (options.onerror !== undefined) return options.onerror(error);
    if (logged.has(key)) return;
    logged.add(key);
    console.warn(log());
  };
  const overflow = (): void => {
    const error = new UnreadLimitError(maxUnread);
    notice(
      "unread",
      error,
      () => `httpHandler: ${error.message} (logged once)`,
    );
  };
  const backend = options.sessions === true
    ? sharedBackend(options.store, report)
    : undefined;
  // Checked at the call in every mode: a wrong store is never ignored.
  if (backend === undefined && options.store !== undefined) {
    acceptStore(options.store, "httpHandler: options.store", isKvBackend);
  }
  const gate = options.auth === undefined
    ? undefined
    : new AuthGate(options.auth, report);
  const checkScopes = gate === undefined
    ? undefined
    : (server: object, req: Request, body: unknown) =>
      gate.checkScopes(server, req, body);
  // Always handed the request and its caller: what the factory reads is
  // its own business, never a reason to share its server.
  // Every server it makes is marked as this handler's: what must hold
  // across them (the default requestState key) belongs to the handler.
  const scope = {};
  const make = (req: Request): Server => {
    const server = newServer(req, authOf(req));
    if (server !== null && typeof server === "object") {
      setServerScope(server, scope);
    }
    return server;
  };
  if (gate !== undefined) gate.probe = (req) => newServer(req, undefined);
  const store = options.sessions === true
    ? new SessionStore(make, {
      idle: options.sessionIdleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT,
      events: options.sessionEvents ?? DEFAULT_SESSION_EVENTS,
      eventBytes: options.sessionEventBytes ?? DEFAULT_SESSION_EVENT_BYTES,
      closeStreamsAfter: options.closeStreamsAfter,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      maxUnreadBytes: maxUnread,
      onFull: (max) => {
        const error = new HttpRefusalError(
          503,
          `the handler holds its maximum of ${max} sessions (maxSessions)`,
        );
        notice("full", error, () =>
          `httpHandler: ${error.message}; initialize answers 503 until sessions end or expire (logged once)`);
      },
      onOverflow: overflow,
      shared: backend,
      checkScopes,
      onForeign: report,
      onStoreDown: report,
    })
    : undefined;
  const route = store ?? new StatelessRoute(make, {
    reuseServers: options.reuseServers,
    maxUnread,
    onOverflow: overflow,
    report,
    checkScopes,
  });
  const live = new Set<EraTransport>();
  const listening = () => [...live].filter((era) => era.listening);
  const deliver = (list: string): Promise<unknown> =>
    Promise.all(
      listening().map((era) =>
        era.notify(`notifications/${list}/list_changed`).catch(report)
      ),
    );
  // With sessions in KV, the list changes other instances publish reach
  // this instance's listen streams, watched while any is open.
  const closing = new AbortController();
  let watching = false;
  // The watch under way: close waits for it, so the store is not read after.
  let watched: Promise<unknown> = Promise.resolve();
  const watchChanges = (): void => {
    if (backend === undefined || watching || closing.signal.aborted) return;
    watching = true;
    watched = backend.watchChanges(LISTS, {
      onChange: (list) => void deliver(list),
      signal: closing.signal,
      wanted: () => listening().length > 0,
    }).catch((error) => {
      // Closing: no listen stream is left to tell, and the store may be
      // closing with the handler; nothing is lost.
      if (closing.signal.aborted) return;
      // The bus failed: the open listen streams would hear nothing more.
      // Each ends with an error saying so; the client listens again.
      report(
        new Error(
          "httpHandler: the shared store's bus failed, so the open subscriptions/listen streams were ended with an error",
          { cause: error },
        ),
      );
      watching = false;
      return Promise.all(
        listening().map((era) => era.endListens(BUS_DOWN)),
      ).catch(() => {
        // Nothing lost: the bus failure was reported just above; each stream ends on its own.
      });
    }).finally(() => watching = false);
  };
  const listens = new ListenCap(
    capOption(options.maxListens, DEFAULT_MAX_LISTENS, "maxListens"),
    capOption(
      options.maxListensPerPrincipal,
      DEFAULT_MAX_LISTENS_PER_PRINCIPAL,
      "maxListensPerPrincipal",
    ),
    (error) => {
      if (error.status !== 503) return report(error);
      notice(
        "listens",
        error,
        () =>
          `httpHandler: ${error.message}; subscriptions/listen answers 503 until streams close (logged once)`,
      );
    },
  );
  const modern = new StatelessRoute(make, {
    reuseServers: options.reuseServers,
    maxUnread,
    onOverflow: overflow,
    report,
    checkScopes,
    modern: {
      cacheHints: resolveCacheHints(options.cacheHints, "httpHandler"),
      live,
      onListen: watchChanges,
      listens,
    },
  });
  const enter = frontDoor(route, {
    ...options,
    sessions: store !== undefined,
    report,
    notice,
    modern,
    auth: gate,
  });

  const handler = async (
    req: Request,
    info?: HttpRequestInfo,
  ): Promise<Response> => {
    try {
      const metadata = gate?.metadata(req);
      if (metadata !== undefined) return metadata;
      return await enter(req, info);
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
      return storeDown(error) !== undefined
        ? storeUnavailable()
        : internalError();
    }
  };
  // The signal deno serve passes on ends the process: the handler closes,
  // then a contract store given as `store` (its connections would hold the
  // process otherwise). `close()` itself leaves the store to its owner.
  const signals = new SignalHook(() =>
    void close().then(async () => {
      const given = options.store;
      if (given !== undefined && isStore(given)) {
        try {
          await given[Symbol.asyncDispose]();
        } catch {
          // The process is ending; a store that fails to close changes nothing.
        }
      }
    })
  );
  const close = async (): Promise<void> => {
    signals.remove();
    closing.abort();
    // Listen streams end with their result, then the servers close.
    await Promise.all(listening().map((era) => era.endListens()));
    await watched;
    await Promise.all([route.close(), modern.close()]);
    enter.close();
  };
  const listChanged = async (
    list: "tools" | "prompts" | "resources" = "tools",
  ): Promise<void> => {
    if (!LISTS.includes(list)) {
      throw new TypeError(
        `httpHandler: listChanged(list): list must be "tools", "prompts" or "resources", got ${
          JSON.stringify(list)
        }`,
      );
    }
    await Promise.all([deliver(list), backend?.publishChange(list)]);
  };
  options.signal?.addEventListener("abort", () => void close(), {
    once: true,
  });
  const onListen = (address: ListenAddress): void => {
    const where = listenUrl(
      address,
      options.dnsRebindingProtection === false
        ? undefined
        : options.allowedHosts,
    );
    console.error(`httpHandler: listening on ${where}`);
    signals.install();
  };
  const stats = (): HttpHandlerStats => {
    const kept = store?.kept ?? { events: 0, bytes: 0 };
    return {
      sessions: store?.size ?? 0,
      keptEvents: kept.events,
      keptBytes: kept.bytes,
      listens: listens.open,
    };
  };
  return Object.assign(handler, {
    fetch: handler,
    onListen,
    stats,
    listChanged,
    close,
    [Symbol.asyncDispose]: close,
  });
}

/** The error a listen stream ends with when the shared store's bus fails. */
const BUS_DOWN = {
  code: -32000,
  message:
    `Service Unavailable: the shared store is unreachable, so list changes can no longer reach this stream; listen again after ${STORE_RETRY_SECONDS} s`,
} as const;

/** The lists whose changes `subscriptions/listen` delivers. */
const LISTS: readonly string[] = ["tools", "prompts", "resources"];

function defaultReport(error: Error): void {
  if (!(error instanceof HttpRefusalError)) console.error(error);
}
