/**
 * The hook between the HTTP handler and the bridge for what belongs to an
 * endpoint rather than to one server: a handler made with a factory makes
 * many servers (one per request, by default), and marks each with one
 * scope object of its own; the bridge keys what must hold across those
 * servers — the default `requestState` key — by that scope. Neither knows
 * the other.
 *
 * @module
 */

const scopes = new WeakMap<object, object>();

/**
 * Marks `server` as made for the endpoint `scope` (an object standing for
 * it). A server already marked keeps its first scope: a server shared by
 * two endpoints keeps verifying what it signed.
 *
 * @example A handler marks what its factory made
 * ```ts
 * import { scopeOfServer, setServerScope } from "./server_scope.ts";
 * import assert from "node:assert/strict";
 *
 * const endpoint = {};
 * const server = {};
 * setServerScope(server, endpoint);
 * setServerScope(server, {});
 * assert.equal(scopeOfServer(server), endpoint);
 * ```
 */
export function setServerScope(server: object, scope: object): void {
  if (!scopes.has(server)) scopes.set(server, scope);
}

/**
 * The endpoint `server` was made for, or `undefined` (made outside a
 * handler's factory: stdio, a test's in-memory pair).
 *
 * @example
 * ```ts
 * import { scopeOfServer } from "./server_scope.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(scopeOfServer({}), undefined);
 * ```
 */
export function scopeOfServer(server: object): object | undefined {
  return scopes.get(server);
}
