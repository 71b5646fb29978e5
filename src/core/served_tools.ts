/**
 * The hook between a server's tool registry (the bridge's `exportTools`)
 * and the HTTP handler's stateless fast path, which answers `tools/list`
 * and `tools/call` from the registry without the SDK's `Protocol` in
 * between. The registry sets one lookup for every server; the handler
 * asks it per request. Neither knows the other.
 *
 * @module
 */

/**
 * A server's own `tools/list` and `tools/call`, callable directly.
 *
 * @example A lookup a registry sets, and what the handler reads
 * ```ts
 * import { servedToolsOf, serveToolsFrom } from "./served_tools.ts";
 * import assert from "node:assert/strict";
 *
 * const server = {};
 * serveToolsFrom((s) =>
 *   s === server
 *     ? {
 *       list: () => ({ tools: [] }),
 *       call: () => Promise.resolve({ content: [] }),
 *     }
 *     : undefined
 * );
 * assert.deepEqual(servedToolsOf(server)?.list(), { tools: [] });
 * serveToolsFrom(() => undefined);
 * ```
 */
export interface ServedTools {
  /** The `tools/list` result. */
  list(): Record<string, unknown>;
  /**
   * Runs the `tools/call` handler on the request's `params` (an object)
   * and the SDK handler context `extra`; resolves to its result, rejects
   * with the protocol error the SDK would answer.
   */
  call(
    params: Record<string, unknown>,
    extra: unknown,
  ): Promise<Record<string, unknown>>;
}

/** The registry's lookup (one for the process). */
let registryLookup: ((server: object) => ServedTools | undefined) | undefined;

/**
 * Sets the lookup asked for every server: the tool registry's, which
 * keeps its registries on the servers themselves, so a server made per
 * request takes no lookup of its own.
 *
 * @example
 * ```ts
 * import { servedToolsOf, serveToolsFrom } from "./served_tools.ts";
 * import assert from "node:assert/strict";
 *
 * const server = {};
 * serveToolsFrom((s) =>
 *   s === server
 *     ? { list: () => ({ tools: [] }), call: () => Promise.resolve({}) }
 *     : undefined
 * );
 * assert.deepEqual(servedToolsOf(server)?.list(), { tools: [] });
 * serveToolsFrom(() => undefined);
 * ```
 */
export function serveToolsFrom(
  lookup: (server: object) => ServedTools | undefined,
): void {
  registryLookup = lookup;
}

/**
 * The tools `server` serves directly, or `undefined` (no registry, or its
 * handlers were replaced).
 *
 * @example
 * ```ts
 * import { servedToolsOf } from "./served_tools.ts";
 * import assert from "node:assert/strict";
 * assert.equal(servedToolsOf({}), undefined);
 * ```
 */
export function servedToolsOf(server: object): ServedTools | undefined {
  return registryLookup?.(server);
}
