/**
 * The set `connectServers` resolves to: its servers in config order, the
 * one live tool list made of theirs (`_tool_merge.ts`, `_shadow_gate.ts`),
 * each server's status, and the doors to their resources, prompts, apps
 * and clients.
 *
 * @module
 */

import type { ProtocolEra } from "../runtime/era/era.ts";
import type { ToolDef } from "../core/tool.ts";
import type { PinReport } from "../bridge/pins.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import type { ToolClient } from "../bridge/peers.ts";
import type {
  GetPromptResult,
  ListOptions,
  ReadResourceResult,
} from "../bridge/remote_resources.ts";
import type { ServerConnectError } from "../runtime/errors.ts";
import { commandLine } from "../runtime/process/command.ts";
import type { ServerPermissions } from "./config.ts";
import { ServersError, type SkippedServerTool } from "./errors.ts";
import type { ShadowFinding } from "./_shadow.ts";
import type {
  ConnectedServers,
  ConnectServersOptions,
  PeerInfo,
  ServerStatus,
} from "./connect_types.ts";
import type { ManagedServer, ServerState } from "./_server.ts";
import { type ServerContext, serverContext } from "./_server_context.ts";
import { CollisionLog, mergeTools } from "./_tool_merge.ts";
import { ShadowGate } from "./_shadow_gate.ts";
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

/** The servers of one `connectServers` call, as one set. */
export class ServerSet implements ConnectedServers {
  #members: ManagedServer[] = [];
  readonly context: ServerContext;
  #settled = false;
  #tools: readonly ToolDef[] = [];
  #skipped: readonly SkippedServerTool[] = [];
  #error?: ServersError;
  #collisions = new CollisionLog();
  #closing?: Promise<void>;
  readonly #gate: ShadowGate;
  /** Each listed tool's server; a quarantined tool is its own entry. */
  #owners = new Map<ToolDef, ManagedServer>();

  /** Checks `options` (a `TypeError` for a wrong one) and builds the servers' context. */
  constructor(options: ConnectServersOptions) {
    this.#gate = new ShadowGate(options.shadowing);
    this.context = serverContext(options, () => {
      if (this.#settled && this.#closing === undefined) this.#update();
    });
  }

  /** The set's servers, built over `context`. */
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
    const policy = this.context.reconnect;
    if (policy === false) return;
    for (const server of this.#members) {
      if (server.state === "failed") void server.retryStart(policy);
    }
  }

  // The list, the report and the collisions, as the servers stand now; a
  // name a server lost to another since the last look goes to onError.
  #update(): void {
    const { tools: merged, skipped, owners } = mergeTools(this.#members);
    this.#owners = owners;
    const tools = this.#gate.shade(merged, {
      owners,
      members: this.#members,
      report: this.#settled ? this.context.report : undefined,
    });
    this.#tools = tools;
    this.#skipped = skipped;
    const failures = this.#members.flatMap((s) => s.failure ?? []);
    this.#error = failures.length > 0 || skipped.length > 0
      ? new ServersError(failures, skipped)
      : undefined;
    const fresh = this.#collisions.fresh(skipped);
    // At the first start collisions are in `error`; later ones are news.
    if (this.#settled && fresh.length > 0) {
      this.context.report(new ServersError([], fresh));
    }
  }

  get tools(): readonly ToolDef[] {
    return this.#tools;
  }

  readonly toolSource = (): readonly ToolDef[] => this.#tools;

  get error(): ServersError | undefined {
    return this.#error;
  }

  servers(): ServerStatus[] {
    return this.#members.map((server) => this.#status(server));
  }

  #status(server: ManagedServer): ServerStatus {
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
    const skipped = this.#skipped.filter((s) => s.server === server.spec.name);
    if (skipped.length > 0) status.skipped = skipped;
    const pins = server.pinReport;
    if (pins !== undefined) status.pins = pins;
    const shadowing = this.#gate.findings.filter((f) =>
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
