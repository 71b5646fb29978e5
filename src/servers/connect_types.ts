/**
 * What `connectServers` takes and gives: its options, the set it resolves
 * to, and each server's status in it.
 *
 * @module
 */

import type { OAuthClientProvider } from "../auth/client/oauth_client.ts";
import type { EraStore } from "../runtime/era/era_store.ts";
import type { ProtocolEra } from "../runtime/era/era.ts";
import type { ToolDef } from "../core/tool.ts";
import type { ResultRendering } from "../bridge/render.ts";
import type { InputHandler } from "../bridge/input.ts";
import type { PinReport } from "../bridge/pins.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import type { ToolClient } from "../bridge/peers.ts";
import type {
  GetPromptResult,
  ListOptions,
  ReadResourceResult,
} from "../bridge/remote_resources.ts";
import type { ServerConnectError } from "../runtime/errors.ts";
import type { Store } from "../store/contract.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";
import type { ReconnectOptions } from "./_backoff.ts";
import type { CatalogOptions } from "./catalog.ts";
import type { ServerPermissions } from "./config.ts";
import type { ServersError, SkippedServerTool } from "./errors.ts";
import type { ServerPins } from "./_pins.ts";
import type {
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
} from "./_resources.ts";
import type { ServerState } from "./_server.ts";
import type { ShadowFinding } from "./_shadow.ts";

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
