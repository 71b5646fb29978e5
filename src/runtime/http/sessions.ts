/**
 * Session mode of the HTTP handler: one SDK server and transport per
 * `Mcp-Session-Id`, ended by DELETE or by idle expiry.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import {
  negotiatedVersion,
  primes,
  primingRequest,
  SessionEventStore,
} from "./event_store.ts";
import { jsonRpcError } from "./guard.ts";
import { cancelRequests, DROPPED_REASON, requestIds } from "./requests.ts";
import { type ConnectionInfo, watchResponse } from "./response_watch.ts";

/** The default idle time after which a session expires, in milliseconds: 10 minutes (ADR 0041). */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 10 * 60 * 1000;

/** The `retry` field of a resumable stream's priming event, in ms: how long a client waits before reconnecting. */
export const SSE_RETRY = 1000;

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  /** Idle time after which a session expires, in ms. */
  readonly idle: number;
  /** SSE events each session keeps for resuming; 0 turns resumability off. */
  readonly events: number;
  /** Close a call's resumable SSE stream still open after this many ms; never when absent. */
  readonly closeStreamsAfter?: number;
}

type RequestId = string | number;

/** One POST's requests still unanswered, watched so a drop can be judged. */
interface Flight {
  /** Requests of the POST whose answer has not been sent yet. */
  remaining: number;
  /** Whether the POST's stream carried an event with an id (a priming event counts). */
  carried: boolean;
  /** The stream was dropped while the calls ran on: the session stays in use until they answer. */
  detached: boolean;
}

interface Session {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The session's SSE events, for resuming with Last-Event-ID; absent when resumability is off. */
  readonly events?: SessionEventStore;
  /** The protocol version the session negotiated. */
  readonly protocol: string;
  lastSeen: number;
  /** Requests and streams (a GET stream included) still open: a session in use never expires. */
  open: number;
  /** Unanswered requests by id, for the drop rule (see {@link SessionStore}). */
  readonly flights: Map<RequestId, Flight>;
}

/**
 * The sessions of one handler. A session is idle when nothing of it is open
 * (no request in flight, no SSE stream) and its last request is older than
 * the idle timeout; idle sessions are closed by a sweep that runs while
 * sessions exist (an unref'd timer, so it never keeps a process alive) and
 * before each request.
 *
 * A dropped stream is no cancellation when it carried an event id (a
 * priming event, or any event of a resumable session): its calls run on,
 * their answers go to the session's events, and the client gets them by
 * resuming with `Last-Event-ID` (the 2025-11-25 spec: a disconnect is not a
 * cancellation). A stream dropped before it carried any id cannot be
 * resumed, so its calls are cancelled.
 */
export class SessionStore {
  readonly #newServer: () => Server;
  readonly #idle: number;
  readonly #events: number;
  readonly #closeAfter?: number;
  readonly #sessions = new Map<string, Session>();
  #sweeper?: ReturnType<typeof setInterval>;

  /** Builds a store making servers with `newServer`, expiring them after `options.idle` ms. */
  constructor(newServer: () => Server, options: SessionStoreOptions) {
    this.#newServer = newServer;
    this.#idle = options.idle;
    this.#events = options.events;
    this.#closeAfter = options.closeStreamsAfter;
  }

  /** The number of live sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Routes a request to its session, or opens one for an initialize request. */
  async handle(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    await this.#sweep();
    const id = req.headers.get("mcp-session-id");
    if (id === null) {
      if (req.method === "POST" && isInitializeRequest(body)) {
        return this.#open(req, body, info);
      }
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required",
      );
    }
    const session = this.#sessions.get(id);
    if (session === undefined) {
      return jsonRpcError(404, -32001, "Session not found");
    }
    return this.#forward(session, req, body, info);
  }

  /** Closes every session and stops the sweep. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#stopSweep();
    await Promise.all(sessions.map(end));
  }

  async #open(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const server = this.#newServer();
    let registered = false;
    const events = this.#events > 0
      ? new SessionEventStore(this.#events)
      : undefined;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        eventStore: events,
        retryInterval: events === undefined ? undefined : SSE_RETRY,
        onsessioninitialized: (sid) => {
          registered = true;
          this.#sessions.set(sid, session);
          this.#startSweep();
        },
        onsessionclosed: (sid) => this.#forget(sid),
      });
    const session: Session = {
      server,
      transport,
      events,
      protocol: negotiatedVersion(body),
      lastSeen: Date.now(),
      open: 0,
      flights: new Map(),
    };
    if (events !== undefined) watchSends(session);
    await server.connect(transport);
    const response = await this.#forward(session, req, body, info);
    if (!registered) await server.close().catch(() => {});
    return response;
  }

  async #forward(
    session: Session,
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    session.lastSeen = Date.now();
    session.open++;
    // Resumable sessions prime their streams by the negotiated version.
    const resumable = session.events !== undefined && body !== undefined;
    const forwarded = resumable ? primingRequest(req, session.protocol) : req;
    let response: Response;
    try {
      response = await session.transport.handleRequest(
        forwarded,
        body === undefined ? undefined : { parsedBody: body },
      );
    } catch (error) {
      session.open--;
      throw error;
    }
    const ids = requestIds(body);
    const flight = resumable && ids.length > 0
      ? this.#track(session, ids, primes(forwarded, body))
      : undefined;
    const closer = resumable && ids.length > 0 &&
        this.#closeAfter !== undefined && isEventStream(response) &&
        primes(forwarded, body)
      ? setTimeout(() => {
        // The client resumes with Last-Event-ID after the retry interval.
        for (const id of ids) session.transport.closeSSEStream(id);
      }, this.#closeAfter)
      : undefined;
    return watchResponse(response, req, info, (end) => {
      clearTimeout(closer);
      if (end === "dropped") {
        if (flight !== undefined && flight.carried && flight.remaining > 0) {
          // Resumable: the calls run on; the session stays in use until
          // their answers are in its events.
          flight.detached = true;
          return;
        }
        cancelRequests(session.transport, ids, DROPPED_REASON);
      }
      if (flight !== undefined) {
        for (const id of ids) session.flights.delete(id);
      }
      release(session);
    });
  }

  #track(session: Session, ids: RequestId[], primed: boolean): Flight {
    const flight: Flight = {
      remaining: ids.length,
      carried: primed,
      detached: false,
    };
    for (const id of ids) session.flights.set(id, flight);
    return flight;
  }

  async #sweep(): Promise<void> {
    const now = Date.now();
    const expired: Session[] = [];
    for (const [sid, session] of this.#sessions) {
      if (session.open === 0 && now - session.lastSeen >= this.#idle) {
        this.#sessions.delete(sid);
        expired.push(session);
      }
    }
    if (this.#sessions.size === 0) this.#stopSweep();
    await Promise.all(expired.map(end));
  }

  #forget(sid: string): void {
    this.#sessions.get(sid)?.events?.clear();
    this.#sessions.delete(sid);
    if (this.#sessions.size === 0) this.#stopSweep();
  }

  #startSweep(): void {
    if (this.#sweeper !== undefined) return;
    const every = Math.max(10, Math.min(Math.floor(this.#idle / 2), 60_000));
    const sweeper = setInterval(() => void this.#sweep(), every);
    this.#sweeper = sweeper;
    unrefTimer(Number(sweeper));
  }

  #stopSweep(): void {
    if (this.#sweeper === undefined) return;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/** A request or stream of the session ended. */
function release(session: Session): void {
  session.open--;
  session.lastSeen = Date.now();
}

/**
 * Watches what the session's server sends: an event tied to a tracked
 * request marks its stream as having carried an id (with an event store,
 * every event has one); its answer settles the request, and the last answer
 * of a dropped stream's calls releases the session.
 */
function watchSends(session: Session): void {
  const transport = session.transport;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (session.flights.size > 0) {
      const answer = answerId(message);
      const id = answer ?? options?.relatedRequestId;
      const flight = id === undefined ? undefined : session.flights.get(id);
      if (flight !== undefined && id !== undefined) {
        flight.carried = true;
        if (answer !== undefined) {
          session.flights.delete(id);
          flight.remaining--;
          if (flight.detached && flight.remaining === 0) {
            // Released once the SDK has stored the answer.
            return send(message, options).finally(() => release(session));
          }
        }
      }
    }
    return send(message, options);
  };
}

function answerId(message: unknown): RequestId | undefined {
  const m = message as { id?: unknown; result?: unknown; error?: unknown };
  if (m.result === undefined && m.error === undefined) return undefined;
  return typeof m.id === "string" || typeof m.id === "number"
    ? m.id
    : undefined;
}

function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return type.split(";")[0].trim().toLowerCase() === "text/event-stream";
}

/** Ends a session: its kept events go, its server (and transport) closes. */
async function end(session: Session): Promise<void> {
  session.events?.clear();
  await session.server.close().catch(() => {});
}

// Deno's own unref; other runtimes' timers are left as they are.
function unrefTimer(timer: number): void {
  const deno =
    (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  deno?.unrefTimer?.(timer);
}
