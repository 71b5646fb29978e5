/**
 * Session mode of the HTTP handler: one SDK server and transport per
 * `Mcp-Session-Id`, ended by DELETE or by idle expiry, at most
 * `maxSessions` at once.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { negotiatedVersion, SessionEventStore } from "./event_store.ts";
import {
  jsonRpcError,
  sessionNotFound,
  storeDown,
  storeUnavailable,
} from "./guard.ts";
import type { SessionRecord, StoreSessionBackend } from "./store_sessions.ts";
import { resumeShared } from "./_shared_events.ts";
import type { ConnectionInfo } from "./_sse_body.ts";
import { HttpServerTransport } from "./_transport.ts";
import { shapeRefusal } from "./_post.ts";
import { IdleSessions } from "./_idle_sessions.ts";
import { principalOf } from "../../core/auth.ts";
import { authOf } from "./_auth.ts";
import { HttpRefusalError } from "../errors.ts";

/** The default idle time after which a session expires, in milliseconds: 10 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 10 * 60 * 1000;

/** The `retry` field of a resumable stream's priming event, in ms: how long a client waits before reconnecting. */
export const SSE_RETRY = 1000;

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  /** Idle time after which a session expires, in ms. */
  readonly idle: number;
  /** SSE events each session keeps for resuming; 0 turns resumability off. */
  readonly events: number;
  /** The byte budget of each session's kept events. */
  readonly eventBytes: number;
  /** Close a call's resumable SSE stream still open after this many ms; never when absent. */
  readonly closeStreamsAfter?: number;
  /** The most sessions live at once. */
  readonly maxSessions: number;
  /** The cap on bytes one response stream holds for a client that does not read. */
  readonly maxUnreadBytes: number;
  /** Told once each time the cap is reached (until sessions fall below it again). */
  readonly onFull?: (max: number) => void;
  /** Told when a stream was closed by the unread cap. */
  readonly onOverflow?: () => void;
  /** Sessions shared through a store: records and events there, this store a local cache of servers. */
  readonly shared?: StoreSessionBackend;
  /** `auth`: the 403 for tool calls whose scopes the token lacks, asked before the server runs. */
  readonly checkScopes?: (
    server: object,
    req: Request,
    body: unknown,
  ) => Response | undefined;
  /** `auth`: told of a request refused because its token's principal is not the session's. */
  readonly onForeign?: (error: Error) => void;
  /** Told of a request answered 503 because the shared store was unreachable. */
  readonly onStoreDown?: (error: Error) => void;
}

interface Session {
  /** The session id, once the SDK gave one. */
  id?: string;
  readonly server: Server;
  readonly transport: HttpServerTransport;
  /** The session's SSE events, for resuming with Last-Event-ID; absent when resumability is off. */
  readonly events?: SessionEventStore;
  /** The protocol version the session negotiated. */
  readonly protocol: string;
  lastSeen: number;
  /** Requests and streams (a GET stream included) still open: a session in use never expires. */
  open: number;
  /** Shared sessions: the record as last read or written. */
  record?: SessionRecord;
  /** `auth`: the principal (client and subject) that opened the session. */
  readonly principal?: string;
}

/**
 * The sessions of one handler. A session is idle when nothing of it is open
 * (no request in flight, no SSE stream); an idle session expires once its
 * last request is older than the idle timeout. Idle sessions wait in a
 * queue ordered by when they went idle, so expiring them never walks the
 * live ones: one unref'd timer fires for the oldest, and a request for an
 * expired session finds it expired even before the timer ran. No request
 * does work that grows with the number of sessions.
 *
 * A dropped stream is no cancellation when it carried an event id (a
 * priming event, or any event of a resumable session): its calls run on,
 * their answers go to the session's events, and the client gets them by
 * resuming with `Last-Event-ID` (the 2025-11-25 spec: a disconnect is not a
 * cancellation). A stream dropped before it carried any id cannot be
 * resumed, so its calls are cancelled. A stream delivered to its end has
 * its events dropped.
 */
export class SessionStore {
  readonly #newServer: (request: Request) => Server;
  readonly #options: SessionStoreOptions;
  readonly #sessions = new Map<string, Session>();
  /** Idle sessions, oldest first, and the timer that expires them. */
  readonly #idle: IdleSessions<Session>;
  /** Initialize requests in flight: they count toward the cap. */
  #opening = 0;
  #full = false;

  /** Builds a store making servers with `newServer`. */
  constructor(
    newServer: (request: Request) => Server,
    options: SessionStoreOptions,
  ) {
    this.#newServer = newServer;
    this.#options = options;
    this.#idle = new IdleSessions(this.#sessions, options.idle, {
      end: (session) => void end(session),
      expired: () => this.#roomAgain(),
    });
  }

  /** The number of live sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The kept events of every session: their count and bytes (for tests and metrics). */
  get kept(): { events: number; bytes: number } {
    let events = 0;
    let bytes = 0;
    for (const session of this.#sessions.values()) {
      if (!(session.events instanceof SessionEventStore)) continue;
      events += session.events.size;
      bytes += session.events.bytes;
    }
    return { events, bytes };
  }

  /**
   * Routes a request to its session, or opens one for an initialize
   * request. With shared sessions, a store that cannot be reached answers
   * 503 with `Retry-After` (nothing was done; the client retries).
   */
  handle(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const routed = this.#route(req, body, info);
    if (this.#options.shared === undefined) return routed;
    return routed.catch((error) => {
      const down = storeDown(error);
      if (down === undefined) throw error;
      this.#options.onStoreDown?.(down);
      const id = (body as { id?: unknown } | undefined)?.id;
      return storeUnavailable(
        typeof id === "string" || typeof id === "number" ? id : null,
      );
    });
  }

  #route(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const id = req.headers.get("mcp-session-id");
    if (id === null) {
      if (req.method === "POST" && isInitializeRequest(body)) {
        return this.#open(req, body, info);
      }
      // As the SDK transport: a POST's shape is refused before its session.
      const shape = req.method === "POST" ? shapeRefusal(req, body) : undefined;
      if (shape !== undefined) {
        return Promise.resolve(
          jsonRpcError(shape.status, shape.code, shape.message),
        );
      }
      return Promise.resolve(jsonRpcError(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required",
      ));
    }
    if (this.#options.shared !== undefined) {
      return this.#handleShared(this.#options.shared, id, req, body, info);
    }
    const session = this.#sessions.get(id);
    if (session === undefined || this.#idle.expired(session, Date.now())) {
      if (session !== undefined) this.#idle.expire();
      return Promise.resolve(sessionNotFound());
    }
    if (this.#foreign(session.principal, req)) {
      return Promise.resolve(sessionNotFound());
    }
    return this.#forward(session, req, body, info);
  }

  // Shared sessions: the store holds the truth; every request checks the record
  // (a DELETE or an expiry on another instance ends the session here too).
  async #handleShared(
    shared: StoreSessionBackend,
    id: string,
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    let record = await shared.get(id);
    let session = this.#sessions.get(id);
    if (record === undefined) {
      if (session !== undefined) {
        this.#sessions.delete(id);
        this.#idle.delete(id);
        void end(session);
      }
      return sessionNotFound();
    }
    if (this.#foreign(record.principal, req)) return sessionNotFound();
    if (Date.now() - record.lastSeen > this.#options.idle / 10) {
      record = await shared.touch(record, this.#options.idle);
    }
    const lastEventId = req.method === "GET"
      ? req.headers.get("last-event-id")
      : null;
    if (lastEventId !== null && this.#options.events > 0) {
      return await resumeShared(shared, record, lastEventId);
    }
    session ??= await this.#restore(req, shared, record);
    session.record = record;
    return this.#forward(session, req, body, info);
  }

  // A session is bound to the principal that opened it: another
  // principal's token on its id finds no session (404, as for an unknown
  // id: the id's existence is not confirmed to someone else).
  #foreign(principal: string | undefined, req: Request): boolean {
    if (principal === undefined || principalOf(authOf(req)) === principal) {
      return false;
    }
    this.#options.onForeign?.(
      new HttpRefusalError(
        404,
        "a token of another principal than the session's (client and subject)",
      ),
    );
    return true;
  }

  // A session this instance has not seen: a server and transport brought to
  // the stored state by replaying its initialize (nothing of it stored). Its
  // server is made for the request that found it here.
  async #restore(
    req: Request,
    shared: StoreSessionBackend,
    record: SessionRecord,
  ): Promise<Session> {
    const session = this.#make(
      req,
      record.id,
      record.protocol,
      shared,
      undefined,
      record.principal,
    );
    await session.server.connect(session.transport);
    await session.transport.restore(record.id, {
      jsonrpc: "2.0",
      id: "weft-restore",
      method: "initialize",
      params: {
        protocolVersion: record.protocol,
        capabilities: record.capabilities ?? {},
        clientInfo: record.clientInfo ?? { name: "unknown", version: "" },
      },
    });
    session.id = record.id;
    this.#sessions.set(record.id, session);
    return session;
  }

  /** Closes every session and stops the timer. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#opening = 0;
    this.#idle.clear();
    await Promise.all(sessions.map(end));
  }

  async #open(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const max = this.#options.maxSessions;
    const shared = this.#options.shared;
    const sid = crypto.randomUUID();
    const protocol = negotiatedVersion(body);
    if (shared !== undefined) {
      // The cap holds over every instance: the record is stored first.
      const params = (body as { params?: Record<string, unknown> }).params;
      const now = Date.now();
      const stored = await shared.create({
        id: sid,
        protocol,
        capabilities: params?.capabilities ?? {},
        clientInfo: params?.clientInfo ?? {},
        principal: principalOf(authOf(req)),
        lastSeen: now,
        expiresAt: now + this.#options.idle,
      }, max);
      if (!stored) return this.#refuse(body);
    } else if (this.#sessions.size + this.#opening >= max) {
      this.#idle.expire();
      if (this.#sessions.size + this.#opening >= max) return this.#refuse(body);
    }
    this.#opening++;
    let opening = true;
    const done = () => {
      if (opening) this.#opening--;
      opening = false;
    };
    try {
      const session = this.#make(
        req,
        sid,
        protocol,
        shared,
        done,
        principalOf(authOf(req)),
      );
      await session.server.connect(session.transport);
      const response = await this.#forward(session, req, body, info);
      if (session.id === undefined) {
        await session.server.close().catch(() => {
          // Nothing lost: the stateless answer was sent; the server held nothing past it.
        });
        await shared?.remove(sid);
      }
      return response;
    } finally {
      done();
    }
  }

  /** A session's server (made for `req`) and transport, not yet connected. */
  #make(
    req: Request,
    sid: string,
    protocol: string,
    shared: StoreSessionBackend | undefined,
    registered?: () => void,
    principal?: string,
  ): Session {
    const server = this.#newServer(req);
    const events = this.#options.events <= 0
      ? undefined
      : shared !== undefined
      ? shared.events(sid, this.#options.idle)
      : new SessionEventStore(this.#options.events, this.#options.eventBytes);
    const transport = new HttpServerTransport({
      sessionId: sid,
      events,
      retry: events === undefined ? undefined : SSE_RETRY,
      protocol,
      maxUnread: this.#options.maxUnreadBytes,
      closeStreamsAfter: this.#options.closeStreamsAfter,
      onInitialized: (id) => {
        registered?.();
        session.id = id;
        this.#sessions.set(id, session);
      },
      onDeleted: (id) => this.#forget(id),
      onDelivered: (streamId) => {
        // Delivered to its end: nothing of it will be resumed.
        if (events instanceof SessionEventStore) {
          events.dropStreams(new Set([streamId]));
        } else if (shared !== undefined) {
          shared.dropStream(sid, streamId).catch((error) =>
            this.#options.onStoreDown?.(
              new Error(
                `httpHandler: the shared store did not drop delivered stream ${streamId} of session ${sid}; its events stay until the session expires`,
                { cause: error },
              ),
            )
          );
        }
      },
      onOverflow: this.#options.onOverflow,
    });
    const session: Session = {
      server,
      transport,
      events: events as SessionEventStore | undefined,
      protocol,
      lastSeen: Date.now(),
      open: 0,
      principal,
    };
    return session;
  }

  #refuse(body: unknown): Response {
    const max = this.#options.maxSessions;
    if (!this.#full) {
      this.#full = true;
      this.#options.onFull?.(max);
    }
    const oldest = this.#idle.oldest();
    const wait = oldest === undefined
      ? this.#options.idle
      : oldest.lastSeen + this.#options.idle - Date.now();
    const seconds = Math.min(3600, Math.max(1, Math.ceil(wait / 1000)));
    const id = (body as { id?: string | number }).id ?? null;
    return jsonRpcError(
      503,
      -32000,
      `Service Unavailable: the server holds its maximum of ${max} sessions (maxSessions); retry after ${seconds} s`,
      id,
      { "retry-after": String(seconds) },
    );
  }

  async #forward(
    session: Session,
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const refusal = this.#options.checkScopes?.(session.server, req, body);
    if (refusal !== undefined) return refusal;
    this.#idle.acquire(session);
    let ended = false;
    try {
      return await session.transport.handle(req, body, info, () => {
        ended = true;
        this.#idle.release(session);
      });
    } catch (error) {
      if (!ended) this.#idle.release(session);
      throw error;
    }
  }

  // Below the cap again: the next time it is reached is told again.
  #roomAgain(): void {
    if (this.#sessions.size + this.#opening < this.#options.maxSessions) {
      this.#full = false;
    }
  }

  #forget(sid: string): Promise<void> | void {
    const session = this.#sessions.get(sid);
    if (session?.events instanceof SessionEventStore) session.events.clear();
    this.#sessions.delete(sid);
    this.#idle.delete(sid);
    this.#roomAgain();
    // A DELETE ends a shared session on every instance before it answers.
    return this.#options.shared?.remove(sid);
  }
}

/** Ends a session: its kept events go, its server (and transport) closes. */
async function end(session: Session): Promise<void> {
  if (session.events instanceof SessionEventStore) session.events.clear();
  await session.server.close().catch(() => {
    // Nothing lost: the session is ended; its transport's errors went to its onerror.
  });
}
