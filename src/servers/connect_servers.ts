/**
 * `connectServers`: every server of an `mcpServers` configuration, connected
 * at once, as one live tool list for an agent.
 *
 * @module
 */

import type { OAuthClientProvider } from "../auth/client/oauth_client.ts";
import { acceptEraStore, type EraStore } from "../runtime/era/era_store.ts";
import type { ProtocolEra } from "../runtime/era/era.ts";
import type { ToolDef } from "../core/tool.ts";
import type { ResultRendering } from "../bridge/render.ts";
import type { InputHandler } from "../bridge/input.ts";
import { acceptPinStore, type PinReport } from "../bridge/pins.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import type { ToolClient } from "../bridge/peers.ts";
import type { ServerPins } from "./_pins.ts";
import { findShadowing, quarantined, type ShadowFinding } from "./_shadow.ts";
import type { ServerConnectError } from "../runtime/errors.ts";
import {
  parseServersConfig,
  type ServerPermissions,
  type ServersConfig,
} from "./config.ts";
import { commandLine } from "../runtime/process/command.ts";
import {
  ServersError,
  type SkippedServerTool,
  ToolNameTakenError,
} from "./errors.ts";
import type { Store } from "../store/contract.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";
import { ServerCatalog } from "./_catalog.ts";
import type { CatalogOptions } from "./catalog.ts";
import {
  ManagedServer,
  type ReconnectOptions,
  type ServerContext,
  type ServerState,
} from "./_server.ts";

import {
  promptFrom,
  promptsOf,
  readFrom,
  resourcesOf,
  type ServerPrompt,
  type ServerResource,
  type ServerResourceTemplate,
  templatesOf,
} from "./_resources.ts";
import type {
  GetPromptResult,
  ListOptions,
  ReadResourceResult,
} from "../bridge/remote_resources.ts";

export type { ReconnectOptions, ServerState } from "./_server.ts";
export type {
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
} from "./_resources.ts";
export { ServerListError } from "./_resources.ts";
export type { ServerPins } from "./_pins.ts";
export type { ShadowFinding } from "./_shadow.ts";

/** A name and a version: how a client introduces itself, and a server's `serverInfo`. */
export interface PeerInfo {
  /** The program's name. */
  readonly name: string;
  /** Its version. */
  readonly version: string;
}

/** Options of {@link connectServers}. */
export interface ConnectServersOptions {
  /**
   * The deadline for connecting every server and listing its tools. A
   * server not up when it ends is reported as failed (in the phase it was
   * in, the signal's reason as the cause); the others are kept.
   */
  signal?: AbortSignal;
  /**
   * Milliseconds each server has to answer `initialize` (a server's own
   * `initializeTimeout` wins). Default 30000.
   * @default 30000
   */
  initializeTimeout?: number;
  /**
   * How a lost server is brought back on the next call, and a server that
   * failed at start in the background: `maxAttempts` tries in a row
   * (default 5) without a call getting through, waiting `initialDelay` ms
   * (default 250) doubled each attempt, up to `maxDelay` (default 10000),
   * each wait jittered down to half. `false`: never; a lost server's calls
   * fail, a server that failed at start stays failed.
   * @default `{ maxAttempts: 5, initialDelay: 250, maxDelay: 10000 }`
   */
  reconnect?: ReconnectOptions | false;
  /**
   * Failures after `connectServers` resolved: a refresh that failed (the
   * last good list is kept), tools a refresh skipped, a name a server lost
   * to another after a refresh (a `ServersError` naming both), a failed
   * reconnect or start retry, a server given up; with `pins`, tools a
   * refresh found changed or new (a `PinDriftError`, once per change); a
   * new shadowing finding. Default: the message on stderr.
   * @default the message on stderr
   */
  onError?: (error: Error) => void;
  /**
   * Where stdio servers' stderr goes. Default: ours, each line prefixed
   * `[<server name>] `. A function gets the server's name and each line.
   * @default ours, each line prefixed `[<server name>]`
   */
  stderr?: "inherit" | "ignore" | ((server: string, line: string) => void);
  /**
   * How the clients introduce themselves. Default `{ name: "weft-mcp", version: "0.1.0" }`.
   * @default `{ name: "weft-mcp", version: "0.1.0" }`
   */
  clientInfo?: PeerInfo;
  /**
   * The fetch HTTP servers are reached with; `globalThis.fetch` when absent.
   * @default `globalThis.fetch`
   */
  fetch?: typeof globalThis.fetch;
  /**
   * OAuth clients for HTTP servers that require authorization (an entry
   * may say `"auth": "oauth"`): by server name, or a function of it.
   * One `oauthClient` may serve several servers: its state is kept per
   * server URL and issuer.
   */
  auth?:
    | Readonly<Record<string, OAuthClientProvider>>
    | ((server: string) => OAuthClientProvider | undefined);
  /**
   * What the model reads of a result with structured content, for every
   * server (a server's own `render` wins): `"structured"` (the default) its
   * JSON, `"text"` the content items, `"both"` (see `importTools`).
   * @default `"structured"`
   */
  render?: ResultRendering;
  /**
   * Forward a SIGINT or SIGTERM this process gets to the stdio servers'
   * process groups. Default true. `false` for a host that ends them itself
   * (`close()` from its own signal listener); see `connectStdio`.
   * @default true
   */
  forwardSignals?: boolean;
  /**
   * Where each server's protocol era is kept (see `connectHttp`'s
   * `eraStore`): a persistent store (or a `Deno.Kv`, taken as
   * `denoKvStore(kv)`) spares the `server/discover` probe on the next
   * start; anything else is a `TypeError` here. Default: this process's memory.
   * @default this process's memory
   */
  eraStore?: EraStore;
  /**
   * Answers at once what a server asks for during a call (`importTools`'
   * `onInput`). Without it such a call parks in the agent run, with the
   * request on `RunResult.pending`, until `answer` resumes it. The clients
   * declare the elicitation capability either way.
   */
  onInput?: InputHandler;
  /**
   * Where each server's tool list is kept (a store, or `{ store, ttlMs }`):
   * a server with a good entry is not connected at start — its tools are
   * built from the entry (state `cached`) and it connects when one of them
   * is first called, listing again first; a tool it changed since is not
   * called (`StaleToolError`, the new definition in the next step); a
   * first connection that fails is tried again on a later call after the
   * `reconnect` backoff, and given up after `maxAttempts`. A
   * stale or missing entry (default validity: one day) is filled by
   * connecting as usual; every listing, a refresh on
   * `notifications/tools/list_changed` too, rewrites it. A raw `Deno.Kv`
   * is taken as `denoKvStore(kv)`; anything else is a `TypeError` here.
   */
  catalog?: Store | DenoKvLike | CatalogOptions;
  /**
   * Pin every server's tool definitions in `store` (see `importTools`'
   * `pins`), each server under its name with its URL, or its command and
   * arguments. A tool whose definition changed since it was pinned, or a
   * new tool on a pinned server, keeps its pinned definition before the
   * model and its calls wait for approval (`PendingCall.approval` carries
   * the reason and a diff), on every listing: the first, a reconnect's,
   * one after `notifications/tools/list_changed`. `approve` pins the new
   * definition and runs the call; `deny` keeps the old pin.
   * `ServerStatus.pins` reports each server's last comparison.
   */
  pins?: ServerPins;
  /**
   * Tools that shadow another server's (a name equal or confusable with
   * another server's tool — case, homoglyphs, `-`/`_`/`.` — or a
   * description that names another server's tool) are always reported on
   * `ServerStatus.shadowing`, and those found after the start to
   * `onError`. `"quarantine"`: their calls also wait for approval
   * (`PendingCall.approval.reason` `"tool_shadowed"`), every call.
   * @default "report"
   */
  shadowing?: "report" | "quarantine";
  /**
   * MCP Apps for every server (an entry's own `apps` wins): see
   * `importTools`' `apps`. `appServers()` hands them to `appHost`.
   * @default false
   */
  apps?: boolean;
}

/** One server of a {@link ConnectedServers} set, as it stands now. */
export interface ServerStatus {
  /** The config key. */
  readonly name: string;
  /** The command line or URL. */
  readonly target: string;
  /** The prefix of its tools' names. */
  readonly prefix: string;
  /**
   * `connected`; `cached` (its tools from the catalog, connected on the
   * first call); `lost` (reconnected on the next call); `retrying` (failed
   * at start, started again in the background); `failed` (did not start
   * and is not retried — `reconnect: false`, or it wants authorization —
   * or given up); `closed`.
   */
  readonly state: ServerState;
  /** Its tools as the model sees them (prefixed); empty for a server that never started. */
  readonly tools: readonly ToolDef[];
  /** Its `serverInfo`, when connected. */
  readonly serverInfo?: PeerInfo;
  /** The protocol era it speaks (`"modern"`: 2026-07-28, `"legacy"`: `initialize`), when connected. */
  readonly protocol?: ProtocolEra;
  /**
   * Why it is not up: its last failure to start (`retrying`, `failed`), or
   * the give-up (its cause a `ReconnectLimitError`).
   */
  readonly error?: ServerConnectError;
  /** Its tools left out now: a name another server has (`ToolNameTakenError`), a schema refused. */
  readonly skipped?: readonly SkippedServerTool[];
  /** How its last listing compared with the pins (with the `pins` option): the tools that wait for approval. */
  readonly pins?: PinReport;
  /**
   * The exact command line a stdio server runs with, its `permissions`
   * applied (`deno run --no-prompt --allow-read=/srv ...`); absent for an
   * HTTP server and before the first start.
   */
  readonly launch?: string;
  /** A stdio server's `permissions`, as its entry gives them; absent when it has none. */
  readonly permissions?: ServerPermissions;
  /** Its tools that shadow another server's tool (see `ConnectServersOptions.shadowing`); absent when none. */
  readonly shadowing?: readonly ShadowFinding[];
}

/** What {@link connectServers} resolves to. `await using` closes every server. */
export interface ConnectedServers extends AsyncDisposable {
  /** Every server's tools, in config order, then listing order: the list as it is now. */
  readonly tools: readonly ToolDef[];
  /**
   * The same list as a tool source: `new Agent(model, { toolSource })`
   * reads it each step, so tools a server adds or removes
   * (`notifications/tools/list_changed`) reach the next step.
   */
  readonly toolSource: () => readonly ToolDef[];
  /**
   * As things stand now: `undefined` when every server is up and every
   * tool imported; else one {@link ServersError} naming each server not up
   * (retried, failed or given up: phase and cause) and each skipped tool.
   * The rest are usable either way.
   */
  readonly error: ServersError | undefined;
  /** Each server, in config order. */
  servers(): ServerStatus[];
  /**
   * The name of the server a tool of this set comes from (the config key),
   * `undefined` for any other tool: `toolSearch`'s `serverOf`.
   */
  serverOf(tool: ToolDef): string | undefined;
  /**
   * Every resource of the servers that are up (or cached: connected now)
   * and do not lack the resources capability, in config order, each tagged
   * with its `server`; each server's list every page, up to `limit`
   * (default 1000). A server's failure rejects with a `ServerListError`
   * naming it.
   */
  listResources(options?: ListOptions): Promise<ServerResource[]>;
  /** Every resource template, as `listResources` lists resources. */
  listResourceTemplates(
    options?: ListOptions,
  ): Promise<ServerResourceTemplate[]>;
  /** Every prompt of the servers that do not lack the prompts capability, as `listResources`. */
  listPrompts(options?: ListOptions): Promise<ServerPrompt[]>;
  /** One resource of the server named (the config key); an unknown name rejects with a `TypeError`. */
  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal },
  ): Promise<ReadResourceResult>;
  /** One prompt of the server named, its arguments filled in. */
  getPrompt(
    server: string,
    name: string,
    options?: { arguments?: Record<string, string>; signal?: AbortSignal },
  ): Promise<GetPromptResult>;
  /**
   * The servers with MCP Apps on, as `appHost` reads them: each one's name,
   * client (requests go to its current connection) and tools as they are
   * now, its app-only tools (never in `tools`) included.
   */
  appServers(): AppServer[];
  /**
   * Each server as a client, by its config key: a request goes over its
   * current connection, reconnected when lost. For what `importTools` does
   * not import, as the skills of `@weft/mcp/skills`' `importSkills`.
   */
  clients(): Record<string, ToolClient>;
  /** Ends every connection and process. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects every server of an `mcpServers` configuration — the object
 * Claude Desktop, Cursor and VS Code read, or the whole document holding
 * it — concurrently, under one deadline, and imports their tools: each
 * named `<server>_<tool>` by default (a server's `prefix`, `""` for none),
 * each under its server's `policy`.
 *
 * A server that fails to spawn, to initialize or to list is named in
 * `error` with its phase and cause, and so is each tool that could not be
 * imported (a bad schema, or a prefixed name an earlier server already
 * has); everything else is usable. Under `reconnect` (the default) a
 * server that failed is started again in the background (state
 * `retrying`), each failure going to `onError`; its tools join the list
 * when it comes up, and it is given up after `maxAttempts`. A server that
 * wants authorization (the failure's cause an `AuthorizationError`) is not
 * retried: it is `failed` at once, and a retry that meets one stops there. A
 * configuration that is wrong is refused before anything starts, with a
 * `ServerConfigError` naming the server and the field; one found only at
 * the start (`permissions` on an entry that cannot enforce them) is the
 * failure's cause, and that server is `failed` at once, never retried.
 *
 * The tools stay current: a server's `notifications/tools/list_changed`
 * lists it again (a call during which the list changed returns once the
 * new list is in); a failed refresh keeps the last good list and goes to
 * `onError`, and so does a name a server loses to an earlier one after a
 * refresh. A server that goes away — its process exits, its HTTP session
 * is forgotten — is reconnected on the next call (see `reconnect`); the
 * call in flight when it died fails with a `ServerConnectError` (phase
 * `call`), which the model reads as the tool's error.
 *
 * `close()` or `await using` ends every server, and every process with its
 * descendants; a SIGINT or SIGTERM to this process ends them too.
 *
 * @example Using `connectServers`
 * ```ts ignore
 * import { Agent, connectServers } from "@weft/mcp";
 * await using servers = await connectServers({
 *   mcpServers: {
 *     memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
 *     docs: { type: "http", url: "https://example.com/mcp", policy: { requireApproval: true } },
 *   },
 * }, { signal: AbortSignal.timeout(30_000) });
 * if (servers.error) console.warn(servers.error.message);
 * const agent = new Agent(model, { toolSource: servers.toolSource });
 * ```
 */
export async function connectServers(
  config: ServersConfig,
  options: ConnectServersOptions = {},
): Promise<ConnectedServers> {
  const specs = parseServersConfig(config);
  options.signal?.throwIfAborted();
  const set = new ServerSet(options);
  const servers = specs.map((spec) => new ManagedServer(spec, set.context));
  set.attach(servers);
  const deadline = options.signal ?? new AbortController().signal;
  await Promise.all(servers.map((server) => server.launch(deadline)));
  set.settle();
  return set;
}

class ServerSet implements ConnectedServers {
  #members: ManagedServer[] = [];
  readonly context: ServerContext;
  readonly #reconnect: Required<ReconnectOptions> | false;
  #settled = false;
  #tools: readonly ToolDef[] = [];
  #skipped: readonly SkippedServerTool[] = [];
  #error?: ServersError;
  /** The name collisions seen so far, as `<server>\0<name>`: only new ones are reported. */
  #collisions = new Set<string>();
  #closing?: Promise<void>;
  readonly #quarantine: boolean;
  #shadowing: readonly ShadowFinding[] = [];
  /** Each listed tool's server; a quarantined tool is its own entry. */
  #owners = new Map<ToolDef, ManagedServer>();
  /** The quarantined version of each shadowing tool, kept while it shadows. */
  #gated = new WeakMap<ToolDef, { message: string; tool: ToolDef }>();

  constructor(options: ConnectServersOptions) {
    const shadowing = options.shadowing ?? "report";
    if (shadowing !== "report" && shadowing !== "quarantine") {
      throw new TypeError(
        `connectServers: shadowing must be "report" or "quarantine", got ${
          JSON.stringify(shadowing)
        }`,
      );
    }
    this.#quarantine = shadowing === "quarantine";
    const reconnect = options.reconnect === false ? false : {
      maxAttempts: options.reconnect?.maxAttempts ?? 5,
      initialDelay: options.reconnect?.initialDelay ?? 250,
      maxDelay: options.reconnect?.maxDelay ?? 10_000,
    };
    this.#reconnect = reconnect;
    const onError = options.onError ??
      ((error: Error) => console.error(`weft-mcp: ${error.message}`));
    this.context = {
      clientInfo: options.clientInfo,
      initializeTimeout: options.initializeTimeout,
      stderr: options.stderr,
      reconnect,
      fetch: options.fetch,
      forwardSignals: options.forwardSignals,
      render: options.render,
      apps: options.apps,
      eraStore: acceptEraStore(
        options.eraStore,
        "connectServers: options.eraStore",
      ),
      onInput: options.onInput,
      ...(options.catalog === undefined
        ? {}
        : { catalog: new ServerCatalog(options.catalog) }),
      pins: options.pins === undefined ? undefined : {
        ...options.pins,
        store: acceptPinStore(
          options.pins?.store,
          "connectServers: options.pins.store",
        ),
      },
      auth: authByName(options.auth),
      report: (error) => {
        try {
          onError(error);
        } catch {
          // A failing hook must not break a refresh.
        }
      },
      changed: () => {
        if (this.#settled && this.#closing === undefined) this.#update();
      },
    };
  }

  attach(servers: ManagedServer[]): void {
    this.#members = servers;
  }

  /**
   * Every server has had its first start: the list and the report are
   * made, and the servers that failed are retried under the policy.
   */
  settle(): void {
    this.#update();
    this.#settled = true;
    const policy = this.#reconnect;
    if (policy === false) return;
    for (const server of this.#members) {
      if (server.state === "failed") void server.retryStart(policy);
    }
  }

  // The list, the report and the collisions, as the servers stand now; a
  // name a server lost to another since the last look goes to onError.
  #update(): void {
    const { tools: merged, skipped } = this.#merge();
    const tools = this.#shade(merged);
    this.#tools = tools;
    this.#skipped = skipped;
    const failures = this.#members.flatMap((s) => s.failure ?? []);
    this.#error = failures.length > 0 || skipped.length > 0
      ? new ServersError(failures, skipped)
      : undefined;
    const collisions = new Set<string>();
    const fresh: SkippedServerTool[] = [];
    for (const entry of skipped) {
      if (!(entry.error instanceof ToolNameTakenError)) continue;
      const key = `${entry.server}\0${entry.name}`;
      collisions.add(key);
      if (!this.#collisions.has(key)) fresh.push(entry);
    }
    this.#collisions = collisions;
    // At the first start collisions are in `error`; later ones are news.
    if (this.#settled && fresh.length > 0) {
      this.context.report(new ServersError([], fresh));
    }
  }

  // The findings across the merged list; under "quarantine" each
  // shadowing tool replaced by its gated version. New findings after the
  // start go to onError.
  #shade(merged: ToolDef[]): ToolDef[] {
    const byServer = new Map<ManagedServer, ToolDef[]>();
    for (const tool of merged) {
      const owner = this.#owners.get(tool)!;
      const list = byServer.get(owner);
      if (list === undefined) byServer.set(owner, [tool]);
      else list.push(tool);
    }
    const findings = findShadowing(this.#members.map((server) => ({
      server: server.spec.name,
      prefix: server.spec.prefix,
      tools: byServer.get(server) ?? [],
    })));
    const before = new Set(this.#shadowing.map((f) => f.message));
    this.#shadowing = findings;
    if (this.#settled) {
      for (const finding of findings) {
        if (!before.has(finding.message)) {
          this.context.report(new Error(`shadowing: ${finding.message}`));
        }
      }
    }
    if (!this.#quarantine || findings.length === 0) return merged;
    const byTool = new Map<string, ShadowFinding[]>();
    for (const finding of findings) {
      const list = byTool.get(finding.tool);
      if (list === undefined) byTool.set(finding.tool, [finding]);
      else list.push(finding);
    }
    return merged.map((tool) => {
      const own = byTool.get(tool.name);
      if (own === undefined) return tool;
      const message = own.map((f) => f.message).join("\n");
      let gated = this.#gated.get(tool);
      if (gated === undefined || gated.message !== message) {
        gated = { message, tool: quarantined(tool, own) };
        this.#gated.set(tool, gated);
      }
      this.#owners.set(gated.tool, this.#owners.get(tool)!);
      return gated.tool;
    });
  }

  // Every server's tools; a name an earlier server has is skipped.
  #merge(): { tools: ToolDef[]; skipped: SkippedServerTool[] } {
    const tools: ToolDef[] = [];
    const skipped: SkippedServerTool[] = [];
    const owners = new Map<string, string>();
    this.#owners = new Map();
    for (const server of this.#members) {
      const name = server.spec.name;
      for (const entry of server.skipped?.skipped ?? []) {
        skipped.push({ server: name, name: entry.name, error: entry.error });
      }
      for (const tool of server.tools) {
        const owner = owners.get(tool.name);
        if (owner !== undefined) {
          skipped.push({
            server: name,
            name: tool.name.slice(server.spec.prefix.length),
            error: new ToolNameTakenError(tool.name, owner),
          });
          continue;
        }
        owners.set(tool.name, name);
        this.#owners.set(tool, server);
        tools.push(tool);
      }
    }
    return { tools, skipped };
  }

  get tools(): readonly ToolDef[] {
    return this.#tools;
  }

  readonly toolSource = (): readonly ToolDef[] => this.#tools;

  get error(): ServersError | undefined {
    return this.#error;
  }

  servers(): ServerStatus[] {
    return this.#members.map((server) => {
      const status: {
        name: string;
        target: string;
        prefix: string;
        state: ServerState;
        tools: readonly ToolDef[];
        serverInfo?: PeerInfo;
        protocol?: ProtocolEra;
        error?: ServerConnectError;
        skipped?: readonly SkippedServerTool[];
        pins?: PinReport;
        shadowing?: readonly ShadowFinding[];
        launch?: string;
        permissions?: ServerPermissions;
      } = {
        name: server.spec.name,
        target: server.target,
        prefix: server.spec.prefix,
        state: server.state,
        tools: this.#tools.filter((t) => this.#owners.get(t) === server),
      };
      const info = server.serverInfo;
      if (info !== undefined) {
        status.serverInfo = { name: info.name, version: info.version };
      }
      const protocol = server.protocolEra;
      if (protocol !== undefined) status.protocol = protocol;
      const error = server.failure;
      if (error !== undefined) status.error = error;
      const skipped = this.#skipped.filter((s) =>
        s.server === server.spec.name
      );
      if (skipped.length > 0) status.skipped = skipped;
      const pins = server.pinReport;
      if (pins !== undefined) status.pins = pins;
      const shadowing = this.#shadowing.filter((f) =>
        f.server === server.spec.name
      );
      if (shadowing.length > 0) status.shadowing = shadowing;
      const launch = server.startedAs;
      if (launch !== undefined) {
        status.launch = commandLine(launch.command, [...launch.args]);
      }
      if (
        server.spec.kind === "stdio" &&
        server.spec.config.permissions !== undefined
      ) {
        status.permissions = server.spec.config.permissions;
      }
      return status;
    });
  }

  appServers(): AppServer[] {
    return this.#members.flatMap((s) =>
      s.apps
        ? [{
          name: s.spec.name,
          client: s.client,
          tools: [
            ...this.#tools.filter((t) => this.#owners.get(t) === s),
            ...s.appTools,
          ],
        }]
        : []
    );
  }

  clients(): Record<string, ToolClient> {
    return Object.fromEntries(this.#members.map((s) => [s.spec.name, s]));
  }

  readonly serverOf = (tool: ToolDef): string | undefined =>
    this.#members.find((s) => s.tools.includes(tool))?.spec.name;

  listResources(options?: ListOptions): Promise<ServerResource[]> {
    return resourcesOf(this.#members, options);
  }

  listResourceTemplates(
    options?: ListOptions,
  ): Promise<ServerResourceTemplate[]> {
    return templatesOf(this.#members, options);
  }

  listPrompts(options?: ListOptions): Promise<ServerPrompt[]> {
    return promptsOf(this.#members, options);
  }

  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal },
  ): Promise<ReadResourceResult> {
    return readFrom(this.#members, server, uri, options);
  }

  getPrompt(
    server: string,
    name: string,
    options?: { arguments?: Record<string, string>; signal?: AbortSignal },
  ): Promise<GetPromptResult> {
    return promptFrom(this.#members, server, name, options);
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all(this.#members.map((s) => s.close())).then(
      () => {},
    );
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function authByName(
  auth: ConnectServersOptions["auth"],
): ((server: string) => OAuthClientProvider | undefined) | undefined {
  if (auth === undefined || typeof auth === "function") return auth;
  return (server) => Object.hasOwn(auth, server) ? auth[server] : undefined;
}
