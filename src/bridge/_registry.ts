/**
 * The bridge's tool registry on an SDK server: one registry per `Server`
 * (its record's `tools`, `_state.ts`), whose own `tools/list` and
 * `tools/call` handlers are installed once, on the first registration (on
 * `@weft/mcp`'s `Server`, queued until its handler maps are first read).
 * `exportTools` and `serveAgent` both register here. The registry is also
 * what the runtime asks of the server's tools (`ServerTools`: the fast
 * path's view, the scopes its tools need) and what a task host runs after
 * a takeover: one object found once, no lookups of its own. A call runs in
 * `_tool_call.ts`.
 *
 * @module
 */

import type { ToolServer as Server } from "./peers.ts";
// The SDK's `*.js` subpaths carry no types under Deno; `@ts-types` points at
// the extensionless twin, which resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolRequest,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServedTools } from "../core/served_tools.ts";
import type { ServerTools } from "../core/server_state.ts";
import { deferredHandlers } from "../core/deferred_handlers.ts";
import { requestHandlers, serverCapabilities } from "../seam/sdk_internals.ts";
import { declareLogging, installSetLevel } from "./_logging.ts";
import type { TaskTool } from "./task_hook.ts";
import { type BridgeState, bridgeState } from "./_state.ts";
import {
  CALL_REQUEST,
  calledWith,
  callTool,
  runDetached,
} from "./_tool_call.ts";

import type { CallExtra, Exported, SharedEntries } from "./_exported.ts";

export { argumentText } from "./_tool_result.ts";

/**
 * One server's registry, on its record. A class, not an object literal: a
 * literal's allocation site can be pretenured, and an old-space registry
 * pointing at its young server keeps servers made per request alive until
 * a full collection. It is its own fast view (`served()`): `list` and
 * `call` are methods, not closures.
 */
export class Registry implements ServerTools, ServedTools {
  /** The entries by name: `shared.tools` itself while `shared` is set. */
  tools: Map<string, Exported>;
  /** The shared entries `tools` still is, not yet copied. */
  shared: SharedEntries | undefined;
  listing: readonly Tool[] | undefined;
  /** What the server's handler map held for each method once ours were set. */
  installed: { readonly list: unknown; readonly call: unknown } | undefined;
  /**
   * Whether our handlers wait in the server's queue (`deferredHandlers`):
   * nothing has read its handler maps since, so nothing replaced them.
   */
  deferred: boolean;
  /** The server it serves. */
  readonly server: Server;
  /** The server's record (its task runner is read there). */
  readonly state: BridgeState;

  constructor(server: Server, state: BridgeState) {
    this.tools = NO_ENTRIES.tools as Map<string, Exported>;
    this.shared = NO_ENTRIES;
    this.listing = undefined;
    this.installed = undefined;
    this.deferred = false;
    this.server = server;
    this.state = state;
  }

  /**
   * Itself, when the server's `tools/list` and `tools/call` are still the
   * registry's own (nobody replaced them after `exportTools`), else
   * `undefined`: what the HTTP handler's stateless fast path answers from.
   */
  served(): this | undefined {
    if (this.deferred) return this;
    const installed = this.installed;
    if (installed === undefined) return undefined;
    const handlers = requestHandlers(this.server);
    if (
      handlers === undefined ||
      handlers.get("tools/call") !== installed.call ||
      handlers.get("tools/list") !== installed.list
    ) return undefined;
    return this;
  }

  /** The `tools/list` result. */
  list(): ListToolsResult {
    return { tools: listing(this) as Tool[] };
  }

  /**
   * Runs the call the request's `params` ask for; resolves to the result
   * the handler returns (not yet checked as a `CallToolResult`: the SDK's
   * `Server` does that after).
   */
  call(
    params: Record<string, unknown>,
    extra: unknown,
  ): Promise<CallToolResult> {
    return callTool(this, calledWith(params), extra as CallExtra);
  }

  /** The scopes a call of `tool` needs (the HTTP handler asks: 403 step-up). */
  scopesOf(tool: string): readonly string[] | undefined {
    return this.tools.get(tool)?.scopes;
  }

  /** Every scope a tool names (the resource metadata's `scopes_supported`). */
  namedScopes(): readonly string[] {
    return [...this.tools.values()].flatMap((e) => e.scopes ?? []);
  }

  /** `name` as a task tool (for a takeover), when it is one. */
  taskTool(name: string): TaskTool | undefined {
    const entry = this.tools.get(name);
    if (entry?.taskSupport === undefined) return undefined;
    return {
      taskSupport: entry.taskSupport,
      resumable: entry.resumable === true,
      run: (args, extra, options) => runDetached(entry, args, extra, options),
    };
  }
}

/** The registry's first entries: none, shared (copied on first use). */
const NO_ENTRIES: SharedEntries = { tools: new Map() };

/**
 * Registers `entries` on `server`, replacing same-named tools from earlier
 * calls. Installs the bridge's handlers on first use (see `ensureRegistry`).
 * All checks happen before any state changes: it registers all or nothing.
 * Shared entries registered on a server with no tools yet are held as they
 * are; any other registration copies them first.
 */
export function register(
  server: Server,
  entries: readonly Exported[] | SharedEntries,
  caller: string,
): void {
  const registry = ensureRegistry(server, caller);
  if (registry.tools.size === 0 && !Array.isArray(entries)) {
    const shared = entries as SharedEntries;
    registry.tools = shared.tools as Map<string, Exported>;
    registry.shared = shared;
  } else {
    if (registry.shared !== undefined) {
      registry.tools = new Map(registry.tools);
      registry.shared = undefined;
    }
    const added = Array.isArray(entries)
      ? entries as readonly Exported[]
      : (entries as SharedEntries).tools.values();
    for (const entry of added) registry.tools.set(entry.name, entry);
  }
  registry.listing = undefined;
  if (server.transport !== undefined) {
    // A client that listed before this call is told to list again; the
    // notification is best effort (a closing transport is not our failure).
    server.sendToolListChanged().catch(() => {
      // Nothing lost: a closing transport; the next listing reads the new tools.
    });
  }
}

function ensureRegistry(server: Server, caller: string): Registry {
  const state = bridgeState(server);
  const known = state.tools;
  if (known !== undefined) return known;
  // A server whose handler maps are not made yet has no tools handlers.
  const deferring = deferredHandlers(server);
  for (const method of deferring ? [] : ["tools/list", "tools/call"]) {
    try {
      server.assertCanSetRequestHandler(method);
    } catch (cause) {
      throw new TypeError(
        `${caller}: the server already has a ${method} handler the bridge did not install (an McpServer's, or your own); the bridge keeps one tool registry per server`,
        { cause },
      );
    }
  }
  const registry = new Registry(server, state);
  installHandlers(registry, caller, deferring);
  state.tools = registry;
  return registry;
}

function installHandlers(
  registry: Registry,
  caller: string,
  deferring: boolean,
): void {
  const server = registry.server;
  // A fresh server without the tools capability (the common case, a server
  // made per request): declared first, with no refusal thrown and caught.
  const declared = serverCapabilities(server);
  const fresh = declared !== undefined && declared.tools === undefined &&
    server.transport === undefined;
  if (fresh) server.registerCapabilities({ tools: { listChanged: true } });
  // ctx.log needs the logging capability: declared while it still can be.
  declareLogging(server);
  if (deferring && (fresh || declared?.tools !== undefined)) {
    // The tools capability is declared, and capabilities only grow: the
    // SDK's check when the handlers are set passes then as it would now.
    registry.deferred = true;
    deferredHandlers(server, () => {
      registry.deferred = false;
      setHandlers(registry);
    });
    return;
  }
  if (fresh) {
    setHandlers(registry);
    return;
  }
  try {
    setHandlers(registry);
    return;
  } catch (cause) {
    // The SDK refuses tools handlers on a server without the tools
    // capability. Before connect we declare it, as McpServer does; after
    // connect the capability can no longer change, and the caller must.
    if (server.transport !== undefined) {
      throw new TypeError(
        `${caller}: the server is already connected and does not declare the tools capability; pass capabilities: { tools: {} } to the Server, or register tools before connect`,
        { cause },
      );
    }
  }
  server.registerCapabilities({ tools: { listChanged: true } });
  setHandlers(registry);
}

function setHandlers(registry: Registry): void {
  const server = registry.server;
  server.setRequestHandler(
    ListToolsRequestSchema,
    (): ListToolsResult => registry.list(),
  );
  // The SDK checked the request against CallToolRequestSchema before calling
  // the handler (after CALL_REQUEST set non-object arguments aside), and its
  // context is the SDK's own (see ToolServer).
  server.setRequestHandler(
    CALL_REQUEST,
    (request, extra): Promise<CallToolResult> =>
      callTool(registry, request as CallToolRequest, extra as CallExtra),
  );
  installSetLevel(server);
  const handlers = requestHandlers(server);
  registry.installed = {
    list: handlers?.get("tools/list"),
    call: handlers?.get("tools/call"),
  };
}

function listing(registry: Registry): readonly Tool[] {
  // `execution.taskSupport` is listed only where tasks are served.
  if (registry.state.taskRunner !== undefined) {
    return Array.from(
      registry.tools.values(),
      (e) =>
        e.taskSupport === undefined
          ? e.listing
          : { ...e.listing, execution: { taskSupport: e.taskSupport } },
    );
  }
  if (registry.listing !== undefined) return registry.listing;
  const shared = registry.shared;
  return registry.listing = shared === undefined
    ? Array.from(registry.tools.values(), (e) => e.listing)
    : shared.listing ??= Object.freeze(
      Array.from(shared.tools.values(), (e) => e.listing),
    );
}
