/**
 * One server of a `connectServers` set: the state machine that keeps it
 * connected (the first start, the retries of a start that failed, the
 * reconnect of a lost connection, the first connection of a server built
 * from the catalog, the give-up, the close), and the route of every
 * request over the connection it has now. The connection itself is
 * `_connection.ts`'s, its tool list `_tool_listing.ts`'s, how its failures
 * are named `_server_failure.ts`'s.
 *
 * @module
 */

import type { ProtocolEra } from "../runtime/era/era.ts";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import type {
  AnySchema,
  SchemaOutput,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  ClientRequest,
  Implementation,
  Request as McpRequest,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolDef } from "../core/tool.ts";
import type { ImportError } from "../bridge/import_error.ts";
import type { PinReport } from "../bridge/pins.ts";
import type { McpClient } from "../runtime/client/disposable_client.ts";
import { ConnectionLostError, ServerConnectError } from "../runtime/errors.ts";
import { commandLine } from "../runtime/process/command.ts";
import { delay, reconnectDelay, type ReconnectOptions } from "./_backoff.ts";
import { RoutedClient } from "./_routed_client.ts";
import type { ServerSpec } from "./config.ts";
import { ReconnectLimitError } from "./errors.ts";
import type { Launch } from "./_permissions.ts";
import { StaleToolError } from "./_catalog.ts";
import { ServerConnection } from "./_connection.ts";
import type { ServerContext } from "./_server_context.ts";
import {
  closedError,
  isFinal,
  lostCall,
  named,
  startFailure,
} from "./_server_failure.ts";
import { ToolListing } from "./_tool_listing.ts";

export type { ReconnectOptions } from "./_backoff.ts";
export type { ServerContext } from "./_server_context.ts";

/**
 * Where a server stands: `connected`; `cached` (its tools read from the
 * catalog, not connected yet: it connects on its first call); `lost` (reconnected on the next
 * call); `retrying` (it failed at start and is being started again in the
 * background, under the reconnect policy); `failed` (did not start and is
 * not retried — `reconnect: false`, or it wants authorization — or given
 * up); `closed`.
 */
export type ServerState =
  | "connected"
  | "cached"
  | "lost"
  | "retrying"
  | "failed"
  | "closed";

/** A server of a set. */
export class ManagedServer {
  readonly spec: ServerSpec;
  readonly target: string;
  readonly #ctx: ServerContext;
  readonly #routed: RoutedClient;
  readonly #closing = new AbortController();
  readonly #listing: ToolListing;
  readonly #conn: ServerConnection;
  #attempts = 0;
  /** Failed first connections in a row of a server built from the catalog. */
  #deferredFailures = 0;
  #startFailure?: ServerConnectError;
  #retrying?: Promise<void>;
  #gaveUp?: ServerConnectError;
  #reconnecting?: Promise<McpClient>;
  #closed = false;

  constructor(spec: ServerSpec, ctx: ServerContext) {
    this.spec = spec;
    this.#ctx = ctx;
    this.target = spec.kind === "stdio"
      ? commandLine(spec.config.command, spec.config.args ?? [])
      : new URL(spec.config.url).href;
    this.#routed = new RoutedClient(this);
    this.#listing = new ToolListing(this, ctx, this.#closing.signal);
    this.#conn = new ServerConnection(this, ctx, this.#closing.signal);
  }

  /** The server's imported tools (last good list). */
  get tools(): readonly ToolDef[] {
    return this.#listing.tools;
  }

  /** Whether MCP Apps are on for this server (its entry, else the set's option). */
  get apps(): boolean {
    return (this.spec.config.apps ?? this.#ctx.apps) === true;
  }

  /** Its app-only tools (with `apps`): for views, never in `tools`. */
  get appTools(): readonly ToolDef[] {
    return this.#listing.appTools;
  }

  /** The client its tools use: every request goes to the current connection. */
  get client(): RoutedClient {
    return this.#routed;
  }

  /** How a stdio server is started (its permissions applied), once known. */
  get startedAs(): Launch | undefined {
    return this.#conn.launch;
  }

  /** How the last listing compared with the pins (with the `pins` option). */
  get pinReport(): PinReport | undefined {
    return this.#listing.pinReport;
  }

  /** The tools the last listing skipped. */
  get skipped(): ImportError | undefined {
    return this.#listing.skipped;
  }

  /**
   * Why it is not up: the give-up, else its last failure to start (while
   * it is retried, or for good); `undefined` for a server that started.
   */
  get failure(): ServerConnectError | undefined {
    return this.#gaveUp ?? this.#startFailure;
  }

  /** Where it stands. */
  get state(): ServerState {
    if (this.#closed) return "closed";
    if (this.#gaveUp !== undefined) return "failed";
    if (this.#listing.deferred !== undefined) return "cached";
    if (this.#startFailure !== undefined) {
      return this.#retrying !== undefined ? "retrying" : "failed";
    }
    if (
      this.#conn.current === undefined || this.#conn.lostCause !== undefined
    ) {
      return "lost";
    }
    return "connected";
  }

  /** The `serverInfo` of the current connection. */
  get serverInfo(): Implementation | undefined {
    return this.#conn.current?.getServerVersion();
  }

  /** The capabilities of the current connection. */
  get capabilities(): ServerCapabilities | undefined {
    return this.#conn.current?.getServerCapabilities();
  }
  /** The protocol era of the connection, when connected. */
  get protocolEra(): ProtocolEra | undefined {
    return this.#conn.current?.getProtocolEra()?.era;
  }

  /**
   * The first start, under `deadline`: connects and lists. Resolves to the
   * `ServerConnectError` (naming the phase) when it fails, and then leaves
   * nothing running; `retryStart` may bring it up later.
   */
  async launch(deadline: AbortSignal): Promise<ServerConnectError | undefined> {
    if (await this.#listing.fromCatalog(deadline)) return undefined;
    try {
      await this.#start(deadline);
      return undefined;
    } catch (error) {
      this.#startFailure = named(this, error, "initialize");
      return this.#startFailure;
    }
  }

  /**
   * Starts a server that failed at start again, in the background: up to
   * `maxAttempts` tries, each after the reconnect backoff. Each failure is
   * reported (and is the server's `failure` meanwhile); a start that works
   * brings its tools into the set; after the last failure the server is
   * given up and that is reported once. A failure for authorization (an
   * `AuthorizationError` cause) or of the entry itself (a
   * `ServerConfigError`) is not retried: at the first start the
   * server is `failed` at once, later the retries stop at it. Ends at once
   * on `close()`.
   */
  retryStart(policy: Required<ReconnectOptions>): Promise<void> {
    if (
      this.#startFailure === undefined || this.#closed ||
      isFinal(this.#startFailure)
    ) {
      return Promise.resolve();
    }
    this.#retrying ??= this.#retryStart(policy).finally(() => {
      this.#retrying = undefined;
    });
    return this.#retrying;
  }

  async #retryStart(policy: Required<ReconnectOptions>): Promise<void> {
    let last = this.#startFailure!;
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      await delay(reconnectDelay(attempt, policy), this.#closing.signal);
      if (this.#closed) return;
      try {
        await this.#start(this.#closing.signal);
      } catch (error) {
        if (this.#closed) return;
        last = named(this, error, "initialize");
        this.#startFailure = last;
        this.#ctx.report(last);
        this.#ctx.changed();
        // Time does not bring a token: the server stays failed, its
        // failure the AuthorizationError, until the host acts.
        if (isFinal(last)) return;
        continue;
      }
      this.#startFailure = undefined;
      const skipped = this.#listing.skipped;
      if (skipped !== undefined) this.#ctx.report(skipped);
      this.#ctx.changed();
      return;
    }
    // Named in the phase it kept failing in; the cause is the last failure's own.
    this.#giveUp(
      new ServerConnectError(
        this.spec.name,
        this.target,
        last.phase,
        new ReconnectLimitError(policy.maxAttempts, last.cause),
      ),
    );
  }

  // Connects and lists, under `deadline`. Rejects with a
  // `ServerConnectError` naming the phase; leaves nothing running then.
  async #start(deadline: AbortSignal): Promise<void> {
    // The deadline bounds the start only: a connector closes its client
    // when its signal aborts, so it gets a child detached once started.
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(deadline.reason);
    if (deadline.aborted) onAbort();
    else deadline.addEventListener("abort", onAbort, { once: true });
    const conn = this.#conn;
    const denied = conn.denials;
    const refused = conn.refusal;
    try {
      conn.use(await conn.open(attempt.signal));
      try {
        await this.#listing.list(attempt.signal);
        // Drift at the start is on the status; only later drift is news.
        this.#listing.reportDrift(false);
      } catch (error) {
        await conn.close(conn.drop());
        throw error;
      }
    } catch (error) {
      const refusal = conn.refusal;
      throw startFailure(this, named(this, error, "initialize"), {
        refusal: refusal !== refused ? refusal : undefined,
        denial: () => conn.deniedSince(denied),
      });
    } finally {
      deadline.removeEventListener("abort", onAbort);
    }
  }

  /** Ends the connection (and the process); idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new Error("the servers were closed"));
    await this.#reconnecting?.catch(() => {
      // Nothing lost: the call that awaits the reconnect sees its failure.
    });
    await this.#retrying;
    await this.#conn.close(this.#conn.drop());
  }

  /**
   * Lists again (coalesced: a change during a refresh runs one more); a
   * failure keeps the last good list and is reported.
   */
  refresh(): Promise<void> {
    return this.#listing.refresh();
  }

  /** A request over the current connection, reconnecting first when it was lost. */
  async request<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    const listing = this.#listing;
    if (request.method === "tools/list" && listing.serving !== undefined) {
      return { tools: [...listing.serving] } as SchemaOutput<T>;
    }
    const deferred = listing.deferred;
    const client = await this.#ready();
    if (deferred !== undefined && request.method === "tools/call") {
      // First call of a server built from the catalog: it was listed again
      // on connecting; a tool it changed since is never called as cached.
      const name = (request.params as { name?: unknown } | undefined)?.name;
      if (typeof name === "string") {
        const change = listing.compare(deferred, name);
        if (change !== "same") {
          throw new StaleToolError(this.spec.name, name, change);
        }
      }
    }
    let result: SchemaOutput<T>;
    const denied = this.#conn.denials;
    try {
      result = await client.request(request, resultSchema, options);
    } catch (error) {
      if (error instanceof ConnectionLostError) {
        this.#conn.lost(client, error);
        // A server that died of a permission it was not granted says so
        // on stderr: the call names the permission.
        throw lostCall(this, error, this.#conn.deniedSince(denied));
      }
      throw error;
    }
    if (request.method === "tools/list") listing.record(result);
    // A call that got through ends a run of reconnects (a listing does
    // not: a server that lists fine but dies on every call keeps counting).
    if (request.method === "tools/call") this.#attempts = 0;
    // A call during which the server changed its tools returns once the
    // new list is in: the next step sees it.
    if (request.method === "tools/call" && listing.refreshing !== undefined) {
      await listing.refreshing;
    }
    return result;
  }

  async #ready(): Promise<McpClient> {
    if (this.#closed) throw closedError(this);
    if (this.#gaveUp !== undefined) throw this.#gaveUp;
    const client = this.#conn.current;
    if (client !== undefined && this.#conn.lostCause === undefined) {
      return client;
    }
    if (this.#listing.deferred !== undefined) {
      this.#reconnecting ??= this.#connectDeferred().finally(() => {
        this.#reconnecting = undefined;
      });
      return await this.#reconnecting;
    }
    const { reconnect } = this.#ctx;
    if (reconnect === false) {
      throw new ServerConnectError(
        this.spec.name,
        this.target,
        "call",
        this.#conn.lostCause ?? new Error("not connected"),
      );
    }
    this.#reconnecting ??= this.#reconnect(reconnect).finally(() => {
      this.#reconnecting = undefined;
    });
    return await this.#reconnecting;
  }

  // The first connection of a server built from the catalog: connect and
  // list again (the set sees the new list). A failure leaves it cached and
  // the next call tries again — after the reconnect backoff, as a lost
  // connection's reconnect does, so a server that keeps failing is not
  // started anew on every call; past `maxAttempts` failures in a row (at
  // the first with `reconnect: false`, or one for authorization) it is
  // given up.
  async #connectDeferred(): Promise<McpClient> {
    const { reconnect } = this.#ctx;
    const failures = this.#deferredFailures;
    if (failures > 0 && reconnect !== false) {
      await delay(reconnectDelay(failures, reconnect), this.#closing.signal);
      if (this.#closed) throw closedError(this);
    }
    try {
      await this.#start(this.#closing.signal);
    } catch (error) {
      const count = ++this.#deferredFailures;
      // Time does not bring a token, nor a retry `reconnect: false` forbids.
      const retried = reconnect !== false && !isFinal(error);
      if (retried && count < reconnect.maxAttempts) throw error;
      const failed = named(this, error, "initialize");
      throw this.#giveUp(
        retried
          ? new ServerConnectError(
            this.spec.name,
            this.target,
            failed.phase,
            new ReconnectLimitError(count, failed.cause),
          )
          : failed,
      );
    }
    this.#deferredFailures = 0;
    this.#listing.connected();
    this.#ctx.changed();
    return this.#conn.current!;
  }

  async #reconnect(policy: Required<ReconnectOptions>): Promise<McpClient> {
    const conn = this.#conn;
    await conn.close(conn.drop());
    let last: unknown = conn.lostCause;
    while (this.#attempts < policy.maxAttempts) {
      const attempt = ++this.#attempts;
      await delay(reconnectDelay(attempt, policy), this.#closing.signal);
      if (this.#closed) break;
      try {
        const client = await conn.open(this.#closing.signal);
        conn.use(client);
        void this.refresh();
        return client;
      } catch (error) {
        last = error;
        if (this.#closed) break;
        this.#ctx.report(error as Error);
        if (isFinal(error)) break; // the same entry fails the same way
      }
    }
    if (this.#closed) throw closedError(this);
    throw this.#giveUp(
      new ServerConnectError(
        this.spec.name,
        this.target,
        "call",
        new ReconnectLimitError(this.#attempts, last),
      ),
    );
  }

  // The server is given up for good: `failure` and the host are told.
  #giveUp(error: ServerConnectError): ServerConnectError {
    this.#gaveUp = error;
    this.#ctx.report(error);
    this.#ctx.changed();
    return error;
  }
}
