/**
 * One server of a `connectServers` set: its connection, its imported tools,
 * their refresh on `notifications/tools/list_changed`, and its reconnects.
 *
 * @module
 */

import type { EraStore } from "../runtime/era/era_store.ts";
import type { ProtocolEra } from "../runtime/era/era.ts";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import type {
  AnySchema,
  SchemaOutput,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ClientRequest,
  type Implementation,
  type Request as McpRequest,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolDef } from "../core/tool.ts";
import { importTools } from "../bridge/import.ts";
import { forwardElicitation, type InputHandler } from "../bridge/input.ts";
import type { ResultRendering } from "../bridge/render.ts";
import type { ImportError } from "../bridge/import_error.ts";
import type { PinReport } from "../bridge/pins.ts";
import { pinsFor, type ServerPins } from "./_pins.ts";
import type { McpClient } from "../runtime/client/disposable_client.ts";
import {
  ConnectionLostError,
  type ConnectPhase,
  ServerConnectError,
} from "../runtime/errors.ts";
import { commandLine } from "../runtime/process/command.ts";
import { delay, reconnectDelay, type ReconnectOptions } from "./_backoff.ts";
import { connectSpec } from "./_connect.ts";
import {
  AuthorizationError,
  type OAuthClientProvider,
} from "../auth/client/oauth_client.ts";
import { RoutedClient } from "./_routed_client.ts";
import { ServerConfigError, type ServerSpec } from "./config.ts";
import {
  EgressRefusedError,
  PinDriftError,
  ReconnectLimitError,
  ServerPermissionError,
} from "./errors.ts";
import {
  type Launch,
  launchOf,
  type PermissionDenial,
  permissionDenial,
} from "./_permissions.ts";
import {
  compareEntry,
  type ServerCatalog,
  StaleToolError,
} from "./_catalog.ts";

export type { ReconnectOptions } from "./_backoff.ts";

/** What every server of a set shares. */
export interface ServerContext {
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly initializeTimeout?: number;
  readonly stderr?:
    | "inherit"
    | "ignore"
    | ((server: string, line: string) => void);
  readonly reconnect: Required<ReconnectOptions> | false;
  readonly fetch?: typeof globalThis.fetch;
  readonly forwardSignals?: boolean;
  readonly render?: ResultRendering;
  /** MCP Apps for every server (an entry's own `apps` wins). */
  readonly apps?: boolean;
  readonly eraStore?: EraStore;
  /** The OAuth client of an HTTP server, by its name. */
  readonly auth?: (server: string) => OAuthClientProvider | undefined;
  /** Answers the servers' requests for input at once (`importTools`' `onInput`). */
  readonly onInput?: InputHandler;
  /** Where each server's listing is kept: a warm entry spares the connection at start. */
  readonly catalog?: ServerCatalog;
  /** Where the servers' tool definitions are pinned. */
  readonly pins?: ServerPins;
  /** A failure after connect: a refresh, a reconnect, a retry, a give-up. */
  report(error: Error): void;
  /** The server's tools or state changed. */
  changed(): void;
}

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
  #client?: McpClient;
  #lostCause?: Error;
  #tools: readonly ToolDef[] = [];
  #appTools: readonly ToolDef[] = [];
  #skipped?: ImportError;
  #pinReport?: PinReport;
  #launch?: Launch;
  #denial?: PermissionDenial;
  #refusal?: EgressRefusedError;
  #recent: string[] = [];
  #pendingDenial?: PermissionDenial;
  #denials = 0;
  /** The drift reported so far, as `changed\0<name>` and `added\0<name>`. */
  #drift = new Set<string>();
  #attempts = 0;
  /** Failed first connections in a row of a server built from the catalog. */
  #deferredFailures = 0;
  #startFailure?: ServerConnectError;
  #retrying?: Promise<void>;
  #gaveUp?: ServerConnectError;
  #reconnecting?: Promise<McpClient>;
  #refreshing?: Promise<void>;
  #again = false;
  #closed = false;
  /** The catalog's listing, served to `tools/list` while the tools are built from it. */
  #serving?: readonly unknown[];
  /** The catalog's listing the tools were built from, until the first connection. */
  #deferred?: readonly unknown[];
  /** The entries of the listing in progress, every page. */
  #listing: unknown[] = [];
  /** The entries of the last listing from the server itself. */
  #listed: readonly unknown[] = [];

  constructor(spec: ServerSpec, ctx: ServerContext) {
    this.spec = spec;
    this.#ctx = ctx;
    this.target = spec.kind === "stdio"
      ? commandLine(spec.config.command, spec.config.args ?? [])
      : new URL(spec.config.url).href;
    this.#routed = new RoutedClient(this);
  }

  /** The server's imported tools (last good list). */
  get tools(): readonly ToolDef[] {
    return this.#tools;
  }

  /** Whether MCP Apps are on for this server (its entry, else the set's option). */
  get apps(): boolean {
    return (this.spec.config.apps ?? this.#ctx.apps) === true;
  }

  /** Its app-only tools (with `apps`): for views, never in `tools`. */
  get appTools(): readonly ToolDef[] {
    return this.#appTools;
  }

  /** The client its tools use: every request goes to the current connection. */
  get client(): RoutedClient {
    return this.#routed;
  }

  /** How a stdio server is started (its permissions applied), once known. */
  get startedAs(): Launch | undefined {
    return this.#launch;
  }

  /** How the last listing compared with the pins (with the `pins` option). */
  get pinReport(): PinReport | undefined {
    return this.#pinReport;
  }

  /** The tools the last listing skipped. */
  get skipped(): ImportError | undefined {
    return this.#skipped;
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
    if (this.#deferred !== undefined) return "cached";
    if (this.#startFailure !== undefined) {
      return this.#retrying !== undefined ? "retrying" : "failed";
    }
    if (this.#client === undefined || this.#lostCause !== undefined) {
      return "lost";
    }
    return "connected";
  }

  /** The `serverInfo` of the current connection. */
  get serverInfo(): Implementation | undefined {
    return this.#client?.getServerVersion();
  }

  /** The capabilities of the current connection. */
  get capabilities(): ServerCapabilities | undefined {
    return this.#client?.getServerCapabilities();
  }
  /** The protocol era of the connection, when connected. */
  get protocolEra(): ProtocolEra | undefined {
    return this.#client?.getProtocolEra()?.era;
  }

  /**
   * The first start, under `deadline`: connects and lists. Resolves to the
   * `ServerConnectError` (naming the phase) when it fails, and then leaves
   * nothing running; `retryStart` may bring it up later.
   */
  async launch(deadline: AbortSignal): Promise<ServerConnectError | undefined> {
    if (await this.#fromCatalog(deadline)) return undefined;
    try {
      await this.#start(deadline);
      return undefined;
    } catch (error) {
      this.#startFailure = this.#named(error, "initialize");
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
        last = this.#named(error, "initialize");
        this.#startFailure = last;
        this.#ctx.report(last);
        this.#ctx.changed();
        // Time does not bring a token: the server stays failed, its
        // failure the AuthorizationError, until the host acts.
        if (isFinal(last)) return;
        continue;
      }
      this.#startFailure = undefined;
      if (this.#skipped !== undefined) this.#ctx.report(this.#skipped);
      this.#ctx.changed();
      return;
    }
    // Named in the phase it kept failing in; the cause is the last failure's own.
    this.#gaveUp = new ServerConnectError(
      this.spec.name,
      this.target,
      last.phase,
      new ReconnectLimitError(policy.maxAttempts, last.cause),
    );
    this.#ctx.report(this.#gaveUp);
    this.#ctx.changed();
  }

  // The tools from a good catalog entry, without connecting: true when
  // built. A store that fails is reported, and the server is connected.
  async #fromCatalog(deadline: AbortSignal): Promise<boolean> {
    const catalog = this.#ctx.catalog;
    if (catalog === undefined) return false;
    let cached: unknown[] | undefined;
    try {
      cached = await catalog.read(this.spec);
    } catch (error) {
      this.#ctx.report(this.#catalogError("read", error));
      return false;
    }
    if (cached === undefined) return false;
    this.#serving = cached;
    try {
      await this.#list(deadline);
    } catch {
      return false;
    } finally {
      this.#serving = undefined;
    }
    this.#deferred = cached;
    return true;
  }

  #catalogError(what: string, cause: unknown): ServerConnectError {
    return new ServerConnectError(
      this.spec.name,
      this.target,
      "list",
      new Error(
        `the catalog could not be ${what}: ${
          cause instanceof Error ? cause.message : String(cause)
        }; the server is listed over its connection instead`,
        { cause },
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
    const denied = this.#denials;
    const refused = this.#refusal;
    try {
      this.#client = await this.#open(attempt.signal);
      try {
        await this.#list(attempt.signal);
        // Drift at the start is on the status; only later drift is news.
        this.#reportDrift(false);
      } catch (error) {
        const client = this.#client;
        this.#client = undefined;
        await client.close().catch((cause) => this.#closeFailed(cause));
        throw error;
      }
    } catch (error) {
      const failed = this.#named(error, "initialize");
      // A request allowedHosts refused during the start (OAuth discovery
      // falls back when its metadata cannot be fetched): the start names it.
      const refusal = this.#refusal;
      if (
        refusal !== undefined && refusal !== refused &&
        !chainHas(failed, EgressRefusedError)
      ) {
        throw new ServerConnectError(
          this.spec.name,
          this.target,
          failed.phase,
          new EgressRefusedError(
            this.spec.name,
            new URL(refusal.url),
            refusal.redirectedFrom === undefined
              ? undefined
              : new URL(refusal.redirectedFrom),
            { cause: failed.cause },
          ),
        );
      }
      // A server that died of a permission it was not granted says so on
      // stderr: the start names the permission.
      const denial = this.#lastDenial();
      if (denial === undefined || this.#denials === denied) throw failed;
      throw new ServerConnectError(
        this.spec.name,
        this.target,
        failed.phase,
        new ServerPermissionError(
          this.spec.name,
          denial.permission,
          denial.target,
          { cause: failed.cause },
        ),
      );
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
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch((cause) => this.#closeFailed(cause));
  }

  /** A close that failed (a process that may outlive us), to the host's `onError`. */
  #closeFailed(cause: unknown): void {
    this.#ctx.report(
      new Error(
        `server "${this.spec.name}": closing its connection failed; its process may still run`,
        { cause },
      ),
    );
  }

  /** A request over the current connection, reconnecting first when it was lost. */
  async request<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    if (request.method === "tools/list" && this.#serving !== undefined) {
      return { tools: [...this.#serving] } as SchemaOutput<T>;
    }
    const deferred = this.#deferred;
    const client = await this.#ready();
    if (deferred !== undefined && request.method === "tools/call") {
      // First call of a server built from the catalog: it was listed again
      // on connecting; a tool it changed since is never called as cached.
      const name = (request.params as { name?: unknown } | undefined)?.name;
      if (typeof name === "string") {
        const change = compareEntry(deferred, this.#listed, name);
        if (change !== "same") {
          throw new StaleToolError(this.spec.name, name, change);
        }
      }
    }
    let result: SchemaOutput<T>;
    const denied = this.#denials;
    try {
      result = await client.request(request, resultSchema, options);
    } catch (error) {
      if (error instanceof ConnectionLostError) {
        this.#lost(client, error);
        const lost = new ServerConnectError(
          this.spec.name,
          this.target,
          "call",
          error,
        );
        // A server that died of a permission it was not granted says so
        // on stderr: the call names the permission.
        const denial = this.#lastDenial();
        if (denial !== undefined && this.#denials !== denied) {
          throw new ServerPermissionError(
            this.spec.name,
            denial.permission,
            denial.target,
            { cause: lost },
          );
        }
        throw lost;
      }
      if (isSessionGone(error)) {
        // The server forgot the session: the request never ran; a new
        // session runs it.
        this.#lost(client, error as Error);
        const fresh = await this.#ready();
        return await fresh.request(request, resultSchema, options);
      }
      throw error;
    }
    if (request.method === "tools/list") {
      const tools = (result as { tools?: unknown }).tools;
      if (Array.isArray(tools)) this.#listing.push(...tools);
    }
    // A call that got through ends a run of reconnects (a listing does
    // not: a server that lists fine but dies on every call keeps counting).
    if (request.method === "tools/call") this.#attempts = 0;
    // A call during which the server changed its tools returns once the
    // new list is in: the next step sees it.
    if (request.method === "tools/call" && this.#refreshing !== undefined) {
      await this.#refreshing;
    }
    return result;
  }

  async #open(signal: AbortSignal): Promise<McpClient> {
    const ctx = this.#ctx;
    let client: McpClient;
    if (this.spec.kind === "stdio" && this.#launch === undefined) {
      try {
        this.#launch = await launchOf(this.spec.name, this.spec.config);
      } catch (error) {
        throw this.#named(error, "spawn");
      }
    }
    try {
      client = await connectSpec(this.spec, {
        launch: this.#launch,
        onEgressRefused: (error) => {
          this.#refusal = error;
        },
        ...(this.spec.kind === "stdio" &&
            this.spec.config.permissions !== undefined
          ? { tapStderr: (line: string) => this.#tap(line) }
          : {}),
        signal,
        initializeTimeout: ctx.initializeTimeout,
        clientInfo: ctx.clientInfo,
        stderr: ctx.stderr,
        fetch: ctx.fetch,
        apps: this.apps,
        forwardSignals: ctx.forwardSignals,
        eraStore: ctx.eraStore,
        auth: ctx.auth,
      });
    } catch (error) {
      throw this.#named(error, "initialize");
    }
    this.#lostCause = undefined;
    // A 2025 server's elicitation/create reaches the imported tools' calls.
    forwardElicitation(client, this.#routed);
    client.onclose = () => {
      if (this.#client === client && !this.#closed) {
        this.#lostCause ??= new ConnectionLostError("the connection closed");
      }
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.#client === client) this.refresh();
    });
    return client;
  }

  // Lists into #tools; throws a ServerConnectError (phase list).
  async #list(signal: AbortSignal): Promise<void> {
    this.#listing = [];
    try {
      const result = await importTools(this.#routed, {
        prefix: this.spec.prefix,
        policy: this.spec.config.policy,
        render: this.spec.config.render ?? this.#ctx.render,
        onInput: this.#ctx.onInput,
        signal,
        ...(this.apps ? { apps: { server: this.spec.name } } : {}),
        ...(this.#ctx.pins === undefined ? {} : {
          pins: pinsFor(this.spec, this.#ctx.pins, () => void this.refresh()),
        }),
      });
      this.#tools = result.tools;
      this.#appTools = result.appTools ?? [];
      this.#skipped = result.skipped;
      if (this.#serving === undefined) {
        this.#listed = this.#listing;
        await this.#keep(this.#listed);
      }
      this.#pinReport = result.pins;
    } catch (error) {
      if (error instanceof ServerConnectError) throw error;
      throw new ServerConnectError(this.spec.name, this.target, "list", error);
    }
  }

  // Writes the listing to the catalog; a store that fails is reported.
  async #keep(listing: readonly unknown[]): Promise<void> {
    const catalog = this.#ctx.catalog;
    if (catalog === undefined) return;
    try {
      await catalog.write(this.spec, listing);
    } catch (error) {
      this.#ctx.report(this.#catalogError("written", error));
    }
  }

  /**
   * Lists again (coalesced: a change during a refresh runs one more); a
   * failure keeps the last good list and is reported.
   */
  refresh(): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#again = true;
      return this.#refreshing;
    }
    const run = async (): Promise<void> => {
      do {
        this.#again = false;
        const before = this.#tools;
        try {
          await this.#list(this.#closing.signal);
        } catch (error) {
          if (this.#closed) return;
          this.#ctx.report(error as Error);
          continue;
        }
        if (this.#skipped !== undefined) this.#ctx.report(this.#skipped);
        this.#reportDrift(true);
        if (before !== this.#tools) this.#ctx.changed();
      } while (this.#again && !this.#closed);
    };
    this.#refreshing = run().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  // Node writes a denial over several lines: the last few are read
  // together, and a denial is counted once, when its target is in (or
  // after a line more, without one).
  #tap(line: string): void {
    this.#recent.push(line);
    if (this.#recent.length > 8) this.#recent.shift();
    const denial = permissionDenial(this.#recent.join("\n"));
    if (denial === undefined) return;
    const pending = this.#pendingDenial;
    if (denial.target === "" && pending === undefined) {
      this.#pendingDenial = denial;
      return;
    }
    this.#pendingDenial = undefined;
    this.#denial = denial;
    this.#denials++;
    this.#recent = [];
  }

  // The last denial; one still waiting for its target line counts now.
  #lastDenial(): PermissionDenial | undefined {
    const pending = this.#pendingDenial;
    if (pending !== undefined) {
      this.#pendingDenial = undefined;
      this.#denial = pending;
      this.#denials++;
      this.#recent = [];
    }
    return this.#denial;
  }

  // Drift a refresh found that was not reported yet: once per tool and
  // definition (a tool approved and changed again is news again).
  #reportDrift(announce: boolean): void {
    const report = this.#pinReport;
    if (report === undefined) return;
    const held = new Set([
      ...report.changed.map((n) => `changed\0${n}`),
      ...report.added.map((n) => `added\0${n}`),
    ]);
    const changed = report.changed.filter((n) =>
      !this.#drift.has(`changed\0${n}`)
    );
    const added = report.added.filter((n) => !this.#drift.has(`added\0${n}`));
    this.#drift = held;
    if (announce && (changed.length > 0 || added.length > 0)) {
      this.#ctx.report(new PinDriftError(this.spec.name, changed, added));
    }
  }

  #lost(client: McpClient, cause: Error): void {
    if (this.#client === client) this.#lostCause ??= cause;
  }

  async #ready(): Promise<McpClient> {
    if (this.#closed) throw this.#closedError();
    if (this.#gaveUp !== undefined) throw this.#gaveUp;
    const client = this.#client;
    if (client !== undefined && this.#lostCause === undefined) return client;
    if (this.#deferred !== undefined) {
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
        this.#lostCause ?? new Error("not connected"),
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
      if (this.#closed) throw this.#closedError();
    }
    try {
      await this.#start(this.#closing.signal);
    } catch (error) {
      const count = ++this.#deferredFailures;
      // Time does not bring a token, nor a retry `reconnect: false` forbids.
      const retried = reconnect !== false && !isFinal(error);
      if (retried && count < reconnect.maxAttempts) throw error;
      const failed = this.#named(error, "initialize");
      this.#gaveUp = retried
        ? new ServerConnectError(
          this.spec.name,
          this.target,
          failed.phase,
          new ReconnectLimitError(count, failed.cause),
        )
        : failed;
      this.#ctx.report(this.#gaveUp);
      this.#ctx.changed();
      throw this.#gaveUp;
    }
    this.#deferredFailures = 0;
    this.#deferred = undefined;
    this.#ctx.changed();
    return this.#client!;
  }

  async #reconnect(policy: Required<ReconnectOptions>): Promise<McpClient> {
    const old = this.#client;
    this.#client = undefined;
    await old?.close().catch((cause) => this.#closeFailed(cause));
    let last: unknown = this.#lostCause;
    while (this.#attempts < policy.maxAttempts) {
      const attempt = ++this.#attempts;
      await delay(reconnectDelay(attempt, policy), this.#closing.signal);
      if (this.#closed) break;
      try {
        const client = await this.#open(this.#closing.signal);
        this.#client = client;
        void this.refresh();
        return client;
      } catch (error) {
        last = error;
        if (this.#closed) break;
        this.#ctx.report(error as Error);
        if (isFinal(error)) break; // the same entry fails the same way
      }
    }
    if (this.#closed) throw this.#closedError();
    this.#gaveUp = new ServerConnectError(
      this.spec.name,
      this.target,
      "call",
      new ReconnectLimitError(this.#attempts, last),
    );
    this.#ctx.report(this.#gaveUp);
    this.#ctx.changed();
    throw this.#gaveUp;
  }

  /** What a call gets once the servers were closed. */
  #closedError(): ServerConnectError {
    return new ServerConnectError(
      this.spec.name,
      this.target,
      "call",
      new Error("the servers were closed"),
    );
  }

  #named(error: unknown, phase: ConnectPhase): ServerConnectError {
    if (error instanceof ServerConnectError) return error;
    return new ServerConnectError(this.spec.name, this.target, phase, error);
  }
}

/**
 * A failure time does not mend, so never retried: a token the connection
 * could not give (`AuthorizationError`), an entry that cannot be run as
 * written (`ServerConfigError`, e.g. `permissions` on an `npx` entry).
 */
function isFinal(error: unknown): boolean {
  return chainHas(error, AuthorizationError) ||
    chainHas(error, ServerConfigError);
}

/**
 * Whether `type` is in `error`'s cause chain (a start that failed because
 * the server wants authorization the connection could not give is not
 * transient, so it is not retried; an egress refusal neither).
 */
function chainHas(
  error: unknown,
  type: abstract new (...args: never[]) => Error,
): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof type) return true;
    current = (current as Error).cause;
  }
  return false;
}

// A Streamable HTTP server answers 404 on a session it no longer knows.
function isSessionGone(error: unknown): boolean {
  return error instanceof Error &&
    (error as { code?: unknown }).code === 404;
}
