/**
 * How an `httpHandler` is built from its options: each part of its
 * {@link HttpEndpoint} made once, in the order their options are checked
 * (a wrong one is a `TypeError` at the call), and handed over whole.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
import { HttpRefusalError, UnreadLimitError } from "../errors.ts";
import {
  DEFAULT_MAX_LISTENS,
  DEFAULT_MAX_LISTENS_PER_PRINCIPAL,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_UNREAD_BYTES,
  DEFAULT_SESSION_EVENT_BYTES,
} from "./limits.ts";
import { DEFAULT_SESSION_EVENTS } from "./event_store.ts";
import { isStore } from "../../store/contract.ts";
import { acceptStore } from "../../store/accept.ts";
import { StoreSessionBackend } from "./store_sessions.ts";
import { DEFAULT_SESSION_IDLE_TIMEOUT, SessionStore } from "./sessions.ts";
import { FrontDoor, type Notice } from "./_front_door.ts";
import { StatelessRoute } from "./_stateless.ts";
import { capOption, ListenCap } from "./_listen_cap.ts";
import type { AuthInfo } from "../../core/auth.ts";
import { setServerScope } from "../../core/server_state.ts";
import { AuthGate, authOf } from "./_auth.ts";
import { resolveCacheHints } from "../era/cache_hints.ts";
import { ListChanges } from "./_list_changes.ts";
import { HttpEndpoint } from "./_endpoint.ts";
import type { HttpHandlerOptions } from "./handler_options.ts";

/** An endpoint serving servers from `newServer` as `options` say; throws `TypeError` for a wrong option. */
export function endpointFor(
  newServer: (request: Request, auth?: AuthInfo) => Server,
  options: HttpHandlerOptions,
): HttpEndpoint {
  const { report, notice, overflow } = reporting(options);
  const maxUnread = options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
  const backend = options.sessions === true
    ? sharedBackend(options.store, report)
    : undefined;
  // Checked at the call in every mode: a wrong store is never ignored.
  if (backend === undefined && options.store !== undefined) {
    acceptStore(options.store, "httpHandler: options.store", isKvBackend);
  }
  const gate = options.auth === undefined ? undefined : new AuthGate(
    options.auth,
    { report, probe: (req) => newServer(req, undefined) },
  );
  const checkScopes = gate === undefined
    ? undefined
    : (server: object, req: Request, body: unknown) =>
      gate.checkScopes(server, req, body);
  const make = marking(newServer);
  const sessions = options.sessions === true
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
  const stateless = {
    reuseServers: options.reuseServers,
    maxUnread,
    onOverflow: overflow,
    report,
    checkScopes,
  };
  const route = sessions ?? new StatelessRoute(make, stateless);
  const listens = listenCap(options, report, notice);
  const changes = new ListChanges(backend, report);
  const modern = new StatelessRoute(make, {
    ...stateless,
    modern: {
      cacheHints: resolveCacheHints(options.cacheHints, "httpHandler"),
      live: changes.live,
      onListen: changes.watch,
      listens,
    },
  });
  const door = new FrontDoor(route, {
    ...options,
    sessions: sessions !== undefined,
    report,
    notice,
    modern,
    auth: gate,
  });
  const given = options.store;
  return new HttpEndpoint({
    door,
    gate,
    route,
    modern,
    sessions,
    listens,
    changes,
    report,
    store: given !== undefined && isStore(given) ? given : undefined,
    hosts: options.dnsRebindingProtection === false
      ? undefined
      : options.allowedHosts,
    signal: options.signal,
  });
}

/** Where the handler's failures go, and what an operator must act on. */
function reporting(options: HttpHandlerOptions): {
  report: (error: Error) => void;
  notice: Notice;
  overflow: () => void;
} {
  const report = options.onerror ?? defaultReport;
  // What an operator must act on: every one to `onerror`, else logged once.
  const logged = new Set<string>();
  const notice: Notice = (key, error, log) => {
    if (options.onerror !== undefined) return options.onerror(error);
    if (logged.has(key)) return;
    logged.add(key);
    console.warn(log());
  };
  const maxUnread = options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
  const overflow = (): void => {
    const error = new UnreadLimitError(maxUnread);
    notice(
      "unread",
      error,
      () => `httpHandler: ${error.message} (logged once)`,
    );
  };
  return { report, notice, overflow };
}

/**
 * `newServer` always handed the request and its caller: what the factory
 * reads is its own business, never a reason to share its server. Every
 * server it makes is marked as this handler's: what must hold across them
 * (the default requestState key) belongs to the handler.
 */
function marking(
  newServer: (request: Request, auth?: AuthInfo) => Server,
): (req: Request) => Server {
  const scope = {};
  return (req) => {
    const server = newServer(req, authOf(req));
    if (server !== null && typeof server === "object") {
      setServerScope(server, scope);
    }
    return server;
  };
}

/** The cap on open listen streams; a full handler is an operator's notice. */
function listenCap(
  options: HttpHandlerOptions,
  report: (error: Error) => void,
  notice: Notice,
): ListenCap {
  return new ListenCap(
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
}

// `kvStore(kv)` (deprecated): a backend already built over `denoKvStore(kv)`.
function isKvBackend(value: object): value is StoreSessionBackend {
  return value instanceof StoreSessionBackend;
}

/** The session backend a shared `store` is (session mode). */
function sharedBackend(
  store: HttpHandlerOptions["store"],
  report: (error: Error) => void,
): StoreSessionBackend | undefined {
  if (store === undefined) return undefined;
  const accepted = acceptStore(
    store,
    "httpHandler: options.store",
    isKvBackend,
  );
  const onStoreError = (error: unknown) =>
    report(
      new Error(
        "httpHandler: an event could not be stored in the shared store: the open stream still carried it, a resumption will miss it",
        { cause: error },
      ),
    );
  // A backend the caller built (`kvStore(kv)`) is not changed: this
  // handler reports through a backend of its own over the same store.
  return isStore(accepted)
    ? new StoreSessionBackend(accepted, { onStoreError })
    : accepted.reporting(onStoreError);
}

function defaultReport(error: Error): void {
  if (!(error instanceof HttpRefusalError)) console.error(error);
}
