/**
 * The cache hints a server stamps on its cacheable modern results: the
 * `cacheHints` option of `httpHandler` and `serveStdio`, checked once when
 * the option is read.
 *
 * @module
 */

/**
 * The cache hints a server puts on its cacheable modern results
 * (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`, `resources/read`, `server/discover`): how
 * long a client may reuse the result, and whether a shared cache may.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example Lists cached for a minute by each caller
 * ```ts
 * import type { CacheHints } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const hints: CacheHints = { ttlMs: 60_000, scope: "private" };
 * assert.equal(hints.scope, "private");
 * ```
 */
export interface CacheHints {
  /** How long the result may be reused, in ms (`ttlMs`). Default 0: not at all. */
  readonly ttlMs?: number;
  /**
   * `"private"` (default): only the caller may reuse it. `"public"`: any
   * cache may — say it only when the lists are the same for every caller.
   */
  readonly scope?: "public" | "private";
}

/** Cache hints with their defaults applied. */
export interface ResolvedCacheHints {
  /** `ttlMs` of cacheable results. */
  readonly ttlMs: number;
  /** `cacheScope` of cacheable results. */
  readonly scope: "public" | "private";
}

/**
 * The hints stamped on cacheable results: `hints` with the safe defaults
 * (no reuse, private). The scope is the caller's word only: how the server
 * factory is written never narrows or widens it. Throws a `TypeError`
 * naming `where` on a `ttlMs` that is not a non-negative safe integer or an
 * unknown scope.
 */
export function resolveCacheHints(
  hints: CacheHints | undefined,
  where: string,
): ResolvedCacheHints {
  const ttlMs = hints?.ttlMs ?? 0;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    throw new TypeError(
      `${where}: cacheHints.ttlMs must be a non-negative integer of milliseconds, got ${
        String(ttlMs)
      }`,
    );
  }
  const scope = hints?.scope ?? "private";
  if (scope !== "public" && scope !== "private") {
    throw new TypeError(
      `${where}: cacheHints.scope must be "public" or "private", got ${
        JSON.stringify(scope)
      }`,
    );
  }
  return { ttlMs, scope };
}
