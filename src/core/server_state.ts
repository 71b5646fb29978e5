/**
 * A server's bridge state in one record: everything the bridge keeps for
 * one SDK `Server` — its tool registry (what the HTTP handler's fast path
 * serves, the scopes its tools need, its task tools), its resources,
 * prompts and completions, its task runner, its logging levels, its
 * requestState key — and the endpoint (HTTP handler) that made it. One
 * object slot holds the record on the server itself (servers are often
 * made per request: see `object_slot.ts`); every module reads and writes
 * its field of that one record, found once.
 *
 * The core types the fields the runtime reads (`endpoint`, `tools`); the
 * fields only the bridge reads are typed there (`src/bridge/_state.ts`
 * narrows them), so the core imports no bridge type. The bridge writes
 * every field but `endpoint`, which the HTTP handler marks.
 *
 * This file is the only one that keeps a slot keyed by a server
 * (tests/architecture_test.ts holds it).
 *
 * @module
 */

import { objectSlot } from "./object_slot.ts";
import type { ServedTools } from "./served_tools.ts";

/**
 * What the runtime asks of a server's tool registry (the bridge's
 * `exportTools`), without knowing the bridge.
 */
export interface ServerTools {
  /**
   * The tools served directly (the HTTP handler's stateless fast path),
   * or `undefined` when the server's `tools/list` and `tools/call`
   * handlers are no longer the registry's own.
   */
  served(): ServedTools | undefined;
  /** The scopes a call of `tool` needs (absent: none or unknown tool). */
  scopesOf(tool: string): readonly string[] | undefined;
  /** Every scope a registered tool names. */
  namedScopes(): readonly string[];
}

/**
 * One server's bridge state. A class with every field set in its
 * constructor: one shape for every server's record, one allocation.
 *
 * @example A record made once, found again
 * ```ts
 * import { serverState, serverStateOf } from "./server_state.ts";
 * import assert from "node:assert/strict";
 *
 * const server = {};
 * assert.equal(serverStateOf(server), undefined);
 * const state = serverState(server);
 * assert.equal(serverState(server), state);
 * assert.equal(serverStateOf(server), state);
 * ```
 */
export class ServerState {
  /** The endpoint (an HTTP handler) the server was made for, if any. */
  endpoint: object | undefined;
  /** The tool registry (`exportTools`, `serveAgent`). */
  tools: ServerTools | undefined;
  /** The resources registry (`exportResources`); typed by the bridge. */
  resources: unknown;
  /** The prompts registry (`exportPrompts`); typed by the bridge. */
  prompts: unknown;
  /** Where `completion/complete` looks values up; typed by the bridge. */
  completions: unknown;
  /** The task runner `serveTasks` installed; typed by the bridge. */
  taskRunner: unknown;
  /** `logging/setLevel`'s levels by session (servers not the SDK's); typed by the bridge. */
  logLevels: unknown;
  /** What `setRequestStateKey` set; typed by the bridge. */
  requestState: unknown;

  constructor() {
    this.endpoint = undefined;
    this.tools = undefined;
    this.resources = undefined;
    this.prompts = undefined;
    this.completions = undefined;
    this.taskRunner = undefined;
    this.logLevels = undefined;
    this.requestState = undefined;
  }
}

// Kept on the server itself: servers are often made per request.
const states = objectSlot<ServerState>("weft.serverState");

/**
 * The record of `server`, made on first use.
 *
 * @example
 * ```ts
 * import { serverState } from "./server_state.ts";
 * import assert from "node:assert/strict";
 *
 * const server = {};
 * serverState(server).endpoint = {};
 * assert.equal(typeof serverState(server).endpoint, "object");
 * ```
 */
export function serverState(server: object): ServerState {
  let state = states.get(server);
  if (state === undefined) states.set(server, state = new ServerState());
  return state;
}

/**
 * The record of `server`, or `undefined` when nothing was kept for it yet.
 *
 * @example
 * ```ts
 * import { serverStateOf } from "./server_state.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(serverStateOf({}), undefined);
 * ```
 */
export function serverStateOf(server: object): ServerState | undefined {
  return states.get(server);
}

/**
 * Marks `server` as made for the endpoint `scope` (an object standing for
 * an HTTP handler, whose factory makes many servers): the bridge keys what
 * must hold across them — the default `requestState` key — by it. A
 * server already marked keeps its first scope: a server shared by two
 * endpoints keeps verifying what it signed.
 *
 * @example A handler marks what its factory made
 * ```ts
 * import { scopeOfServer, setServerScope } from "./server_state.ts";
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
  const state = serverState(server);
  state.endpoint ??= scope;
}

/**
 * The endpoint `server` was made for, or `undefined` (made outside a
 * handler's factory: stdio, a test's in-memory pair).
 *
 * @example
 * ```ts
 * import { scopeOfServer } from "./server_state.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(scopeOfServer({}), undefined);
 * ```
 */
export function scopeOfServer(server: object): object | undefined {
  return states.get(server)?.endpoint;
}
