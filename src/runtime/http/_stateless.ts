/**
 * The stateless route of the HTTP handler: each request on a server of its
 * own for as long as it runs — made anew by default; with `reuseServers`
 * taken from a pool of servers whose request ended, and returned to the
 * pool only when nothing of that request is alive and it left no
 * per-client state behind.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
import { EraTransport } from "../era/era_server.ts";
import type { InitMemo } from "../era/envelope.ts";
import type { ResolvedCacheHints } from "../era/cache_hints.ts";
import type { ConnectionInfo, ResponseEnd } from "./_sse_body.ts";
import { HttpServerTransport } from "./_transport.ts";
import type { ListenCap, Release } from "./_listen_cap.ts";
import { principalOf } from "../../core/auth.ts";
import { authOf } from "./_auth.ts";
import { fastToolsFor } from "../fast/fast_tools.ts";
import { directable, DirectCall } from "./_direct.ts";

/** How many idle servers are kept for reuse. */
const IDLE_SERVERS = 64;

/**
 * Whether a body leaves no per-client state on the server that handles it:
 * `initialize` records the client's capabilities and info, and
 * `logging/setLevel` its log level, so a server that saw either is not
 * reused.
 */
function holdsNoClientState(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.every((m) => {
    const method = (m as { method?: unknown } | null)?.method;
    return method !== "initialize" && method !== "logging/setLevel";
  });
}

/** Whether a (modern) body is a `subscriptions/listen` request. */
function isListen(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method ===
    "subscriptions/listen";
}

/** Options of {@link StatelessRoute}. */
export interface StatelessOptions {
  /** `true`: pool servers whose request ended; else a fresh server per request. */
  readonly reuseServers?: boolean;
  /** The bytes one response stream may hold for a client that does not read. */
  readonly maxUnread: number;
  /** Told when a stream was closed by the unread cap. */
  readonly onOverflow: () => void;
  /** Sees a server that failed to close. */
  readonly report: (error: Error) => void;
  /** `auth`: the 403 for tool calls whose scopes the token lacks, asked before the server runs. */
  readonly checkScopes?: (
    server: object,
    req: Request,
    body: unknown,
  ) => Response | undefined;
  /**
   * The modern era's route: each request (one modern request per POST) is
   * served through an `EraTransport` stamping these hints, and the
   * transports serving a request now are kept in `live` (to reach open
   * `subscriptions/listen` streams).
   */
  readonly modern?: {
    readonly cacheHints: ResolvedCacheHints;
    readonly live: Set<EraTransport>;
    /** Told when a `subscriptions/listen` opened. */
    readonly onListen?: () => void;
    /** The cap on open `subscriptions/listen` streams, checked before a server is made. */
    readonly listens?: ListenCap;
  };
}

/** Stateless requests, each on a server of its own while it runs. */
export class StatelessRoute {
  readonly #newServer: (request: Request) => Server;
  readonly #options: StatelessOptions;
  // Servers whose request ended, ready for the next one: only when the
  // handler's options ask for it in words (`reuseServers: true`).
  readonly #reuse: boolean;
  readonly #idle: Server[] = [];
  /** Servers serving a request now (closed by `close`). */
  readonly #busy = new Set<Server>();
  /** Requests answered directly now (closed by `close`). */
  readonly #direct = new Set<DirectCall>();
  /** Modern route: what each (reused) server was last initialized with. */
  readonly #memos = new WeakMap<Server, InitMemo>();
  /**
   * Servers whose SDK `Protocol` is connected for a request now, with the
   * requests waiting for their turn on it: a factory may hand back one
   * shared server, and the SDK connects a server to one transport at a
   * time.
   */
  readonly #turns = new Map<Server, (() => void)[]>();

  /** A route making servers with `newServer`. */
  constructor(
    newServer: (request: Request) => Server,
    options: StatelessOptions,
  ) {
    this.#newServer = newServer;
    this.#options = options;
    this.#reuse = options.reuseServers === true;
  }

  /** Answers a request on a pooled or fresh server. */
  async handle(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response> {
    const cap = this.#options.modern?.listens;
    if (cap === undefined || !isListen(body)) {
      return await this.#serve(req, body, info, undefined);
    }
    const id = (body as { id: string | number }).id;
    const taken = cap.take(principalOf(authOf(req)), id);
    if (taken instanceof Response) return taken;
    try {
      return await this.#serve(req, body, info, taken);
    } catch (error) {
      taken();
      throw error;
    }
  }

  /**
   * A server for the request — pooled or fresh — whose scopes the caller
   * holds, then the one switch between the two routes: a tools/list or
   * tools/call of exported tools that the transports would hand over
   * unrefused is answered from the server's registry straight into the
   * Response; everything else (refusals included) takes the SDK's path.
   */
  #serve(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
    release: Release | undefined,
  ): Promise<Response> | Response {
    const idle = this.#idle;
    const reusable = this.#reuse && holdsNoClientState(body);
    const server = (reusable ? idle.pop() : undefined) ??
      this.#newServer(req);
    const refusal = this.#options.checkScopes?.(server, req, body);
    if (refusal !== undefined) {
      release?.();
      // Never connected for this request: as good as idle.
      if (reusable && idle.length < IDLE_SERVERS) idle.push(server);
      return refusal;
    }
    const modern = this.#options.modern;
    const tools = directable(req, body, modern !== undefined)
      ? fastToolsFor(server, body)
      : undefined;
    if (tools === undefined) {
      return this.#serveSdk(server, reusable, req, body, info, release);
    }
    const direct = body as { id: string | number; method: string };
    return this.#serveDirect(
      new DirectCall(server, tools, {
        maxUnread: this.#options.maxUnread,
        onOverflow: this.#options.onOverflow,
        modern: modern === undefined ? undefined : {
          cacheHints: modern.cacheHints,
          memo: this.#reuse ? this.#memo(server) : undefined,
        },
      }),
      server,
      reusable,
      { req, body: direct, info, release },
    );
  }

  /**
   * The SDK's path: `server` connected to a transport of the request's
   * own. (Positional: this path makes no record of the request.)
   */
  async #serveSdk(
    server: Server,
    reusable: boolean,
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
    release: Release | undefined,
  ): Promise<Response> {
    const transport = new HttpServerTransport({
      maxUnread: this.#options.maxUnread,
      onOverflow: this.#options.onOverflow,
      modern: this.#options.modern !== undefined,
    });
    const era = this.#eraOf(transport, server, body);
    const busy = this.#busy;
    await this.#take(server);
    busy.add(server);
    try {
      await server.connect(era ?? transport);
    } catch (error) {
      if (era !== undefined) this.#options.modern?.live.delete(era);
      busy.delete(server);
      this.#give(server);
      throw error;
    }
    try {
      return await transport.handle(req, body, info, (end) => {
        release?.();
        this.#sdkEnded(server, era, reusable, end);
      });
    } catch (error) {
      if (era !== undefined) this.#options.modern?.live.delete(era);
      busy.delete(server);
      await server.close().catch(this.#options.report);
      this.#give(server);
      throw error;
    }
  }

  /** Modern route: the transport stamping the era's fields, kept live while it serves. */
  #eraOf(
    transport: HttpServerTransport,
    server: Server,
    body: unknown,
  ): EraTransport | undefined {
    const modern = this.#options.modern;
    if (modern === undefined) return undefined;
    const clientId = (body as { id: string | number }).id;
    const era = new EraTransport(transport, {
      cacheHints: modern.cacheHints,
      clientId: () => clientId,
      onListen: modern.onListen,
      memo: this.#memo(server),
    });
    modern.live.add(era);
    return era;
  }

  /** A request on the SDK's path holds nothing any more: its server closes, then is pooled or given on. */
  #sdkEnded(
    server: Server,
    era: EraTransport | undefined,
    reusable: boolean,
    end: ResponseEnd,
  ): void {
    const { modern, report } = this.#options;
    if (era !== undefined) modern?.live.delete(era);
    // Not busy any more: `close` ended its request (never reused).
    const interrupted = !this.#busy.delete(server);
    if (end === "delivered") {
      const idle = this.#idle;
      server.close().then(() => {
        if (
          reusable && !interrupted && idle.length < IDLE_SERVERS &&
          !idle.includes(server)
        ) {
          idle.push(server);
        }
      }, report).finally(() => this.#give(server));
      return;
    }
    // The transport cancelled the calls; the SDK handles notifications
    // a tick later: close once it has, so the handlers see the
    // cancellation's reason, not a bare close.
    setTimeout(
      () => server.close().catch(report).finally(() => this.#give(server)),
      0,
    );
  }

  async #serveDirect(
    call: DirectCall,
    server: Server,
    reusable: boolean,
    request: {
      req: Request;
      body: { id: string | number; method: string };
      info: ConnectionInfo | undefined;
      release: Release | undefined;
    },
  ): Promise<Response> {
    const { release } = request;
    const idle = this.#idle;
    const live = this.#direct;
    live.add(call);
    try {
      return await call.answer(
        request.req,
        request.body,
        request.info,
        (end) => {
          release?.();
          const interrupted = !live.delete(call);
          if (end === "delivered") {
            call.close();
            if (reusable && !interrupted && idle.length < IDLE_SERVERS) {
              idle.push(server);
            }
            return;
          }
          // As on the SDK's path: the tool sees the cancellation first.
          setTimeout(() => call.close(), 0);
        },
      );
    } catch (error) {
      live.delete(call);
      call.close();
      throw error;
    }
  }

  /**
   * Waits until no other request has `server`'s `Protocol` connected (a
   * fresh server: at once), then holds it until {@link #give}.
   */
  async #take(server: Server): Promise<void> {
    const waiting = this.#turns.get(server);
    if (waiting === undefined) {
      this.#turns.set(server, []);
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  /** `server`'s request ended and its `Protocol` closed: the next one's turn. */
  #give(server: Server): void {
    const waiting = this.#turns.get(server);
    const next = waiting?.shift();
    if (next !== undefined) next();
    else this.#turns.delete(server);
  }

  #memo(server: Server): InitMemo {
    let memo = this.#memos.get(server);
    if (memo === undefined) this.#memos.set(server, memo = {});
    return memo;
  }

  /** Drops the idle servers and closes those serving a request now. */
  async close(): Promise<void> {
    this.#idle.length = 0;
    const serving = [...this.#busy];
    this.#busy.clear();
    const direct = [...this.#direct];
    this.#direct.clear();
    for (const call of direct) call.close();
    await Promise.all([
      ...serving.map((server) => server.close().catch(this.#options.report)),
    ]);
  }
}
