/**
 * Export: prompts registered on an MCP server — one registry per server,
 * with the bridge's own `prompts/list` and `prompts/get` handlers, the
 * arguments completed by `completion/complete`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolServer as Server } from "./peers.ts";
import type { AuthInfo } from "../core/auth.ts";
import { quote } from "../core/errors.ts";
import { bridgeState } from "./_state.ts";
import type { PromptDef } from "./prompt_def.ts";
import { INVALID_PARAMS, pageOf, pageSizeOf, ProtocolError } from "./_pages.ts";
import {
  checkSurface,
  installSurface,
  notifyClient,
  type SurfaceServer,
} from "./_surface.ts";
import { checkCompletions, enableCompletions } from "./_completions.ts";
/**
 * Options of {@linkcode exportPrompts}.
 *
 * @example Pages of ten
 * ```ts
 * import type { ExportPromptsOptions } from "@weft/mcp/bridge";
 * const options: ExportPromptsOptions = { pageSize: 10 };
 * ```
 */
export interface ExportPromptsOptions {
  /** How many prompts one page of `prompts/list` holds (default 50, at most 1000). */
  readonly pageSize?: number;
}

/** One server's prompts (its record's `prompts`). */
export class PromptRegistry {
  readonly prompts = new Map<string, PromptDef>();
  pageSize: number;

  constructor(pageSize: number) {
    this.pageSize = pageSize;
  }
}

/**
 * Registers prompts on an MCP server: `prompts/list` lists them (paginated,
 * `options.pageSize`), `prompts/get` fills one in — an unknown name is
 * Invalid params (`unknown prompt "<name>"`), invalid arguments too (see
 * `prompt`), a `get` that throws Internal error (-32603)
 * `prompt "<name>" failed: <message>` — and `completion/complete` asks
 * each argument's completer (none: no values). The server gets the
 * `prompts` (`{ listChanged: true }`) and `completions` capabilities
 * declared before connect. A later call adds to the registry (a name
 * registered again is replaced) and, on a connected server, sends
 * `notifications/prompts/list_changed`. Throws a `TypeError`, registering
 * nothing, as `exportResources` does.
 *
 * @example Export a prompt and get it from a client
 * ```ts
 * import { Client, exportPrompts, InMemoryTransport, prompt, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "prompts", version: "1.0.0" });
 * exportPrompts(server, [
 *   prompt({ name: "greet", description: "Say hello.", get: () => "Hello!" }),
 * ]);
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "reader", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { messages } = await client.getPrompt({ name: "greet" });
 * assert.deepEqual(messages, [{ role: "user", content: { type: "text", text: "Hello!" } }]);
 * await client.close();
 * ```
 */
export function exportPrompts(
  server: Server,
  defs: readonly PromptDef[],
  options?: ExportPromptsOptions,
): void {
  const caller = "exportPrompts";
  if (!Array.isArray(defs)) {
    throw new TypeError(
      `${caller}(server, defs): defs must be an array of prompt() definitions`,
    );
  }
  const pageSize = options?.pageSize === undefined
    ? undefined
    : pageSizeOf(options.pageSize, caller);
  const seen = new Set<string>();
  defs.forEach((def, i) => {
    if (def?.kind !== "prompt") {
      throw new TypeError(`${caller}: defs[${i}] is not a prompt() definition`);
    }
    if (seen.has(def.name)) {
      throw new TypeError(
        `${caller}: prompt ${quote(def.name)} is given twice`,
      );
    }
    seen.add(def.name);
  });
  const s = server as unknown as SurfaceServer;
  const state = bridgeState(s);
  let registry = state.prompts;
  if (registry === undefined) {
    const fresh = new PromptRegistry(pageSizeOf(undefined, caller));
    const surface = {
      caller,
      capability: "prompts",
      declared: { listChanged: true },
      methods: ["prompts/list", "prompts/get"],
      install: () => installHandlers(s, fresh),
    };
    // Both surfaces are checked before either is installed.
    checkSurface(s, surface);
    checkCompletions(s, caller);
    installSurface(s, surface);
    enableCompletions(s, "prompt", (name) => fresh.prompts.get(name), caller);
    state.prompts = registry = fresh;
  }
  if (pageSize !== undefined) registry.pageSize = pageSize;
  for (const def of defs) registry.prompts.set(def.name, def);
  if (defs.length > 0) notifyClient(s, "notifications/prompts/list_changed");
}

function installHandlers(
  server: SurfaceServer,
  registry: PromptRegistry,
): void {
  server.setRequestHandler(
    ListPromptsRequestSchema,
    (({ params }: { params?: { cursor?: unknown } }) => {
      const { page, nextCursor } = pageOf(
        [...registry.prompts.values()],
        params?.cursor,
        registry.pageSize,
        "prompts/list",
      );
      return {
        prompts: page.map((d) => d.listing),
        ...(nextCursor !== undefined && { nextCursor }),
      };
    }) as never,
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    ((
      { params }: {
        params: { name: string; arguments?: Record<string, string> };
      },
      extra: { signal: AbortSignal; authInfo?: unknown },
    ) => {
      const def = registry.prompts.get(params.name);
      if (def === undefined) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `unknown prompt ${quote(params.name)}`,
        );
      }
      const auth = extra.authInfo as AuthInfo | undefined;
      return def.get(params.arguments ?? {}, {
        name: def.name,
        signal: extra.signal,
        ...(auth !== undefined && { auth }),
      });
    }) as never,
  );
}
