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
import { jsonRpcError } from "./http_guard.ts";
import { cancelRequests, DROPPED_REASON, requestIds } from "./http_requests.ts";
import { type ConnectionInfo, watchResponse } from "./response_watch.ts";

/** The default idle time after which a session expires, in milliseconds: 10 minutes (ADR 0041). */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 10 * 60 * 1000;

interface Session {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Requests and streams (a GET stream included) still open: a session in use never expires. */
  open: number;
}

/**
 * The sessions of one handler. A session is idle when nothing of it is open
 * (no request in flight, no SSE stream) and its last request is older than
 * the idle timeout; idle sessions are closed by a sweep that runs while
 * sessions exist (an unref'd timer, so it never keeps a process alive) and
 * before each request.
 */
export class SessionStore {
  readonly #newServer: () => Server;
  readonly #idle: number;
  readonly #sessions = new Map<string, Session>();
  #sweeper?: ReturnType<typeof setInterval>;

  /** Builds a store making servers with `newServer` and expiring them after `idle` ms. */
  constructor(newServer: () => Server, idle: number) {
    this.#newServer = newServer;
    this.#idle = idle;
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
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
  }

  async #open(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const server = this.#newServer();
    let registered = false;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
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
      lastSeen: Date.now(),
      open: 0,
    };
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
    let response: Response;
    try {
      response = await session.transport.handleRequest(
        req,
        body === undefined ? undefined : { parsedBody: body },
      );
    } catch (error) {
      session.open--;
      throw error;
    }
    const ids = requestIds(body);
    return watchResponse(response, req, info, (end) => {
      session.open--;
      session.lastSeen = Date.now();
      if (end === "dropped") {
        cancelRequests(session.transport, ids, DROPPED_REASON);
      }
    });
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
    await Promise.all(expired.map((s) => s.server.close().catch(() => {})));
  }

  #forget(sid: string): void {
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

// Deno's own unref; other runtimes' timers are left as they are.
function unrefTimer(timer: number): void {
  const deno =
    (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  deno?.unrefTimer?.(timer);
}
