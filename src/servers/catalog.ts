/**
 * Cached catalogs (`connectServers`' `catalog` option): where they are kept,
 * for how long, and the failure of a call to a tool its server changed
 * since.
 *
 * @module
 */

import type { Store } from "../store/contract.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";
import { quote } from "../core/errors.ts";

/**
 * Where `connectServers` keeps its catalogs, and for how long an entry is
 * good.
 *
 * @example A catalog in Deno KV, good for an hour
 * ```ts ignore
 * import { connectServers } from "@weft/mcp";
 * import { denoKvStore } from "@weft/mcp/store";
 * // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 * const store = denoKvStore(await Deno.openKv());
 * await using servers = await connectServers(
 *   { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } },
 *   { catalog: { store, ttlMs: 3_600_000 } },
 * );
 * ```
 */
export interface CatalogOptions {
  /**
   * The store the entries are kept in (memory, Deno KV, Redis, Postgres); a
   * raw `Deno.Kv` is taken as `denoKvStore(kv)`.
   */
  readonly store: Store | DenoKvLike;
  /**
   * Milliseconds an entry is good after the server was listed; a stale
   * entry is listed again at start. Default one day.
   * @default 86400000
   */
  readonly ttlMs?: number;
}

/**
 * The default validity of a catalog entry: one day, in milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_CATALOG_TTL_MS } from "@weft/mcp/servers";
 * console.log(DEFAULT_CATALOG_TTL_MS / 3_600_000); // 24
 * ```
 */
export const DEFAULT_CATALOG_TTL_MS = 86_400_000;

/**
 * A call to a tool whose server changed it since the catalog was written:
 * the server was listed again before the call, and the call did not run,
 * so it never ran with the old definition. The next step has the new one.
 * The tool's call fails with it as the cause (the model reads
 * `mcp: <message>`).
 *
 * @example The text the model reads
 * ```ts
 * import { StaleToolError } from "@weft/mcp/servers";
 * const error = new StaleToolError("github", "create_issue", "changed");
 * console.log(error.message);
 * ```
 */
export class StaleToolError extends Error {
  /** The server's name. */
  readonly server: string;
  /** The tool, as the server names it. */
  readonly tool: string;
  /** `"changed"`: a new definition; `"removed"`: the server no longer lists it. */
  readonly change: "changed" | "removed";

  /** Builds the error for `tool` of `server`. */
  constructor(server: string, tool: string, change: "changed" | "removed") {
    super(
      change === "changed"
        ? `server ${quote(server)} changed the tool ${
          quote(tool)
        } since its definition was cached; the call did not run. Its new definition is available from your next step: call it again with that`
        : `server ${quote(server)} no longer offers the tool ${
          quote(tool)
        }; the call did not run`,
    );
    this.name = "StaleToolError";
    this.server = server;
    this.tool = tool;
    this.change = change;
  }
}
