/**
 * The hook between a server that makes its SDK handler maps on first use
 * (`@weft/mcp`'s `Server`) and the tool registry (`exportTools`), which
 * would otherwise install its `tools/list` and `tools/call` handlers at
 * once on every server a factory makes per request. Neither imports the
 * other: the server carries a method under this symbol.
 *
 * @module
 */

/**
 * The method of a server whose handler maps are not made yet: with no
 * argument it says whether they still are not (and the server is not
 * connected); with `install`, it also queues `install` to run, in order
 * with the SDK's own deferred registrations, before anything reads those
 * maps — the SDK's `Protocol` answering a message, `setRequestHandler`,
 * `assertCanSetRequestHandler`, `removeRequestHandler`, or anyone else.
 *
 * @example A server that defers, as `deferredHandlers` sees it
 * ```ts
 * import { deferHandlers, deferredHandlers } from "./deferred_handlers.ts";
 * import assert from "node:assert/strict";
 *
 * const queued: (() => void)[] = [];
 * const server = {
 *   [deferHandlers](install?: () => void): boolean {
 *     if (install !== undefined) queued.push(install);
 *     return true;
 *   },
 * };
 * assert.equal(deferredHandlers(server, () => {}), true);
 * assert.equal(queued.length, 1);
 * ```
 */
export const deferHandlers: unique symbol = Symbol("weft.deferHandlers");

/** A server that can defer handler installs. */
interface Deferring {
  [deferHandlers](install?: () => void): boolean;
}

/**
 * Whether `server`'s handler maps are not made yet, so that nothing is in
 * them but the SDK's own `ping`, `initialize` and `logging/setLevel`
 * handlers and its notification handlers; with `install`, queues it as
 * `deferHandlers` says. False for any other server (the SDK's own
 * `Server`): the caller installs at once.
 *
 * @example
 * ```ts
 * import { deferredHandlers } from "./deferred_handlers.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(deferredHandlers({}), false);
 * ```
 */
export function deferredHandlers(
  server: object,
  install?: () => void,
): boolean {
  const method = (server as Partial<Deferring>)[deferHandlers];
  return typeof method === "function" && method.call(server, install);
}
