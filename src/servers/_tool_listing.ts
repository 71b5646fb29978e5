/**
 * One server's tool list: imported over its connection (or built from the
 * catalog's entry before it connects), kept in the catalog, listed again
 * on `notifications/tools/list_changed`, and compared with the pins.
 *
 * @module
 */

import type { ToolDef } from "../core/tool.ts";
import { importTools } from "../bridge/import.ts";
import type { ImportError } from "../bridge/import_error.ts";
import type { PinReport } from "../bridge/pins.ts";
import { ServerConnectError } from "../runtime/errors.ts";
import { compareEntry } from "./_catalog.ts";
import type { ServerSpec } from "./config.ts";
import { PinDriftError } from "./errors.ts";
import { pinsFor } from "./_pins.ts";
import type { RoutedClient } from "./_routed_client.ts";
import type { ServerContext } from "./_server_context.ts";
import { catalogError } from "./_server_failure.ts";

/** The server a listing belongs to. */
export interface ListedServer {
  readonly spec: ServerSpec;
  readonly target: string;
  /** The client its tools use (every request to the current connection). */
  readonly client: RoutedClient;
  /** Whether MCP Apps are on for it. */
  readonly apps: boolean;
}

/** The tools of one server of a set, as last listed. */
export class ToolListing {
  readonly #server: ListedServer;
  readonly #ctx: ServerContext;
  /** Aborted when the server is closed. */
  readonly #closing: AbortSignal;
  #tools: readonly ToolDef[] = [];
  #appTools: readonly ToolDef[] = [];
  #skipped?: ImportError;
  #pinReport?: PinReport;
  /** The drift reported so far, as `changed\0<name>` and `added\0<name>`. */
  #drift = new Set<string>();
  #refreshing?: Promise<void>;
  #again = false;
  /** The catalog's listing, served to `tools/list` while the tools are built from it. */
  #serving?: readonly unknown[];
  /** The catalog's listing the tools were built from, until the first connection. */
  #deferred?: readonly unknown[];
  /** The entries of the listing in progress, every page. */
  #pages: unknown[] = [];
  /** The entries of the last listing from the server itself. */
  #listed: readonly unknown[] = [];

  constructor(server: ListedServer, ctx: ServerContext, closing: AbortSignal) {
    this.#server = server;
    this.#ctx = ctx;
    this.#closing = closing;
  }

  /** The imported tools (last good list). */
  get tools(): readonly ToolDef[] {
    return this.#tools;
  }

  /** The app-only tools (with `apps`). */
  get appTools(): readonly ToolDef[] {
    return this.#appTools;
  }

  /** The tools the last listing skipped. */
  get skipped(): ImportError | undefined {
    return this.#skipped;
  }

  /** How the last listing compared with the pins. */
  get pinReport(): PinReport | undefined {
    return this.#pinReport;
  }

  /** The catalog's listing, while the tools are built from it: `tools/list` answers it. */
  get serving(): readonly unknown[] | undefined {
    return this.#serving;
  }

  /** The catalog's listing the tools were built from, until the first connection. */
  get deferred(): readonly unknown[] | undefined {
    return this.#deferred;
  }

  /** The refresh in progress, if any. */
  get refreshing(): Promise<void> | undefined {
    return this.#refreshing;
  }

  /** The server connected for the first time: its tools are its own now, not the catalog's. */
  connected(): void {
    this.#deferred = undefined;
  }

  /** A `tools/list` page the server answered, kept for the catalog. */
  record(result: unknown): void {
    const tools = (result as { tools?: unknown }).tools;
    if (Array.isArray(tools)) this.#pages.push(...tools);
  }

  /**
   * How tool `name` compares between the catalog's listing `deferred` and
   * the server's own last listing.
   */
  compare(
    deferred: readonly unknown[],
    name: string,
  ): "same" | "changed" | "removed" {
    return compareEntry(deferred, this.#listed, name);
  }

  /**
   * The tools from a good catalog entry, without connecting: true when
   * built. A store that fails is reported, and the server is connected.
   */
  async fromCatalog(deadline: AbortSignal): Promise<boolean> {
    const catalog = this.#ctx.catalog;
    if (catalog === undefined) return false;
    let cached: unknown[] | undefined;
    try {
      cached = await catalog.read(this.#server.spec);
    } catch (error) {
      this.#ctx.report(catalogError(this.#server, "read", error));
      return false;
    }
    if (cached === undefined) return false;
    this.#serving = cached;
    try {
      await this.list(deadline);
    } catch {
      return false; // the server is connected and listed instead
    } finally {
      this.#serving = undefined;
    }
    this.#deferred = cached;
    return true;
  }

  /** Lists into `tools`; throws a `ServerConnectError` (phase `list`). */
  async list(signal: AbortSignal): Promise<void> {
    const server = this.#server;
    const { spec } = server;
    this.#pages = [];
    try {
      const result = await importTools(server.client, {
        prefix: spec.prefix,
        policy: spec.config.policy,
        render: spec.config.render ?? this.#ctx.render,
        onInput: this.#ctx.onInput,
        signal,
        ...(server.apps ? { apps: { server: spec.name } } : {}),
        ...(this.#ctx.pins === undefined ? {} : {
          pins: pinsFor(spec, this.#ctx.pins, () => void this.refresh()),
        }),
      });
      this.#tools = result.tools;
      this.#appTools = result.appTools ?? [];
      this.#skipped = result.skipped;
      if (this.#serving === undefined) {
        this.#listed = this.#pages;
        await this.#keep(this.#listed);
      }
      this.#pinReport = result.pins;
    } catch (error) {
      if (error instanceof ServerConnectError) throw error;
      throw new ServerConnectError(spec.name, server.target, "list", error);
    }
  }

  // Writes the listing to the catalog; a store that fails is reported.
  async #keep(listing: readonly unknown[]): Promise<void> {
    const catalog = this.#ctx.catalog;
    if (catalog === undefined) return;
    try {
      await catalog.write(this.#server.spec, listing);
    } catch (error) {
      this.#ctx.report(catalogError(this.#server, "written", error));
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
          await this.list(this.#closing);
        } catch (error) {
          if (this.#closing.aborted) return;
          this.#ctx.report(error as Error);
          continue;
        }
        if (this.#skipped !== undefined) this.#ctx.report(this.#skipped);
        this.reportDrift(true);
        if (before !== this.#tools) this.#ctx.changed();
      } while (this.#again && !this.#closing.aborted);
    };
    this.#refreshing = run().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * Drift a listing found that was not reported yet: once per tool and
   * definition (a tool approved and changed again is news again). Drift at
   * the start (`announce` false) is on the status only.
   */
  reportDrift(announce: boolean): void {
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
      this.#ctx.report(
        new PinDriftError(this.#server.spec.name, changed, added),
      );
    }
  }
}
