/**
 * The hook between a server's tool registry (the bridge's `exportTools`)
 * and the HTTP handler's stateless fast path, which answers `tools/list`
 * and `tools/call` from the registry without the SDK's `Protocol` in
 * between. The registry sits on the server's record (`server_state.ts`);
 * the handler reads it there per request. Neither knows the other.
 *
 * @module
 */

import { serverStateOf } from "./server_state.ts";

/**
 * A server's own `tools/list` and `tools/call`, callable directly.
 *
 * @example What the handler reads off a server's record
 * ```ts
 * import { servedToolsOf } from "./served_tools.ts";
 * import { serverState } from "./server_state.ts";
 * import assert from "node:assert/strict";
 *
 * const server = {};
 * serverState(server).tools = {
 *   served: () => ({
 *     list: () => ({ tools: [] }),
 *     call: () => Promise.resolve({ content: [] }),
 *   }),
 *   scopesOf: () => undefined,
 *   namedScopes: () => [],
 * };
 * assert.deepEqual(servedToolsOf(server)?.list(), { tools: [] });
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

/**
 * The tools `server` serves directly, or `undefined` (no registry, or its
 * handlers were replaced): read from the server's record, where the
 * bridge's registry keeps them.
 *
 * @example
 * ```ts
 * import { servedToolsOf } from "./served_tools.ts";
 * import assert from "node:assert/strict";
 * assert.equal(servedToolsOf({}), undefined);
 * ```
 */
export function servedToolsOf(server: object): ServedTools | undefined {
  return serverStateOf(server)?.tools?.served();
}
