/**
 * The connection a server of a set has now: how a fresh one is opened and
 * wired (its process launched with its permissions, the elicitation
 * forwarded, a close and a `tools/list_changed` heard), whether it was
 * lost, and what it said when it died (a permission denied on its stderr,
 * a host `allowedHosts` refused).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { forwardElicitation } from "../bridge/input.ts";
import type { McpClient } from "../runtime/client/disposable_client.ts";
import { ConnectionLostError } from "../runtime/errors.ts";
import { connectSpec } from "./_connect.ts";
import type { ServerSpec } from "./config.ts";
import type { EgressRefusedError } from "./errors.ts";
import {
  type Launch,
  launchOf,
  type PermissionDenial,
} from "./_permissions.ts";
import type { RoutedClient } from "./_routed_client.ts";
import { DenialTap } from "./_denial_tap.ts";
import type { ServerContext } from "./_server_context.ts";
import { named } from "./_server_failure.ts";

/** The server a connection belongs to. */
export interface ConnectedServer {
  readonly spec: ServerSpec;
  readonly target: string;
  /** The client its tools use: a 2025 server's elicitation reaches their calls through it. */
  readonly client: RoutedClient;
  /** Whether MCP Apps are on for it. */
  readonly apps: boolean;
  /** Lists its tools again (on `notifications/tools/list_changed`). */
  refresh(): void;
}

/** One server's current connection. */
export class ServerConnection {
  readonly #server: ConnectedServer;
  readonly #ctx: ServerContext;
  /** Aborted when the server is closed. */
  readonly #closing: AbortSignal;
  /** Its stderr, read for permission denials (a stdio server with `permissions`). */
  readonly #denials = new DenialTap();
  #client?: McpClient;
  #lostCause?: Error;
  #launch?: Launch;
  #refusal?: EgressRefusedError;

  constructor(
    server: ConnectedServer,
    ctx: ServerContext,
    closing: AbortSignal,
  ) {
    this.#server = server;
    this.#ctx = ctx;
    this.#closing = closing;
  }

  /** The client of the connection, lost or not; `undefined` when there is none. */
  get current(): McpClient | undefined {
    return this.#client;
  }

  /** Why the connection was lost; `undefined` while it holds. */
  get lostCause(): Error | undefined {
    return this.#lostCause;
  }

  /** How a stdio server is started (its permissions applied), once known. */
  get launch(): Launch | undefined {
    return this.#launch;
  }

  /** The last request `allowedHosts` refused. */
  get refusal(): EgressRefusedError | undefined {
    return this.#refusal;
  }

  /** How many permission denials its stderr reported. */
  get denials(): number {
    return this.#denials.count;
  }

  /**
   * The last denial its stderr reported, when one came after the count
   * `before` (a denial still waiting for its target line counts now).
   */
  deniedSince(before: number): PermissionDenial | undefined {
    const denial = this.#denials.last();
    return denial !== undefined && this.#denials.count !== before
      ? denial
      : undefined;
  }

  /** `client`, opened by `open`, is the connection now. */
  use(client: McpClient): void {
    this.#client = client;
  }

  /** Leaves the connection: resolves to the client it had, to close. */
  drop(): McpClient | undefined {
    const client = this.#client;
    this.#client = undefined;
    return client;
  }

  /** `client` lost, for `cause`, when it is still the connection. */
  lost(client: McpClient, cause: Error): void {
    if (this.#client === client) this.#lostCause ??= cause;
  }

  /** Closes `client`; a close that failed (a process that may outlive us) goes to the host's `onError`. */
  async close(client: McpClient | undefined): Promise<void> {
    await client?.close().catch((cause) => {
      this.#ctx.report(
        new Error(
          `server "${this.#server.spec.name}": closing its connection failed; its process may still run`,
          { cause },
        ),
      );
    });
  }

  /**
   * A fresh connection, wired, under `signal` (its connector closes it
   * when `signal` aborts); `use` makes it the connection. Rejects with a
   * `ServerConnectError` in phase `spawn` or `initialize`.
   */
  async open(signal: AbortSignal): Promise<McpClient> {
    const ctx = this.#ctx;
    const server = this.#server;
    const { spec } = server;
    let client: McpClient;
    if (spec.kind === "stdio" && this.#launch === undefined) {
      try {
        this.#launch = await launchOf(spec.name, spec.config);
      } catch (error) {
        throw named(server, error, "spawn");
      }
    }
    try {
      client = await connectSpec(spec, {
        launch: this.#launch,
        onEgressRefused: (error) => {
          this.#refusal = error;
        },
        ...(spec.kind === "stdio" && spec.config.permissions !== undefined
          ? { tapStderr: (line: string) => this.#denials.tap(line) }
          : {}),
        signal,
        initializeTimeout: ctx.initializeTimeout,
        clientInfo: ctx.clientInfo,
        stderr: ctx.stderr,
        fetch: ctx.fetch,
        apps: server.apps,
        forwardSignals: ctx.forwardSignals,
        eraStore: ctx.eraStore,
        auth: ctx.auth,
      });
    } catch (error) {
      throw named(server, error, "initialize");
    }
    this.#lostCause = undefined;
    // A 2025 server's elicitation/create reaches the imported tools' calls.
    forwardElicitation(client, server.client);
    client.onclose = () => {
      if (this.#client === client && !this.#closing.aborted) {
        this.#lostCause ??= new ConnectionLostError("the connection closed");
      }
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.#client === client) server.refresh();
    });
    return client;
  }
}
