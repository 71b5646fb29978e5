/**
 * Export: resources registered on an MCP server — one registry per server
 * that every module offering resources registers into (`exportResources`;
 * MCP Apps' `ui://` views and Skills' `skill://` files are resources like
 * any other), with the bridge's own `resources/list`,
 * `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe` handlers.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolServer as Server } from "./peers.ts";
import { type BridgeState, bridgeState } from "./_state.ts";
import { errorText } from "../core/errors.ts";
import type { AuthInfo } from "../core/auth.ts";
import {
  onUpdated,
  type ResourceDef,
  type ResourceTemplateDef,
} from "./resource_def.ts";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  pageOf,
  pageSizeOf,
  ProtocolError,
} from "./_pages.ts";
import {
  checkSurface,
  installSurface,
  notifyClient,
  type SurfaceServer,
} from "./_surface.ts";
import { checkCompletions, enableCompletions } from "./_completions.ts";

/**
 * Options of {@linkcode exportResources}.
 *
 * @example Pages of ten
 * ```ts
 * import type { ExportResourcesOptions } from "@weft/mcp/bridge";
 * const options: ExportResourcesOptions = { pageSize: 10 };
 * ```
 */
export interface ExportResourcesOptions {
  /**
   * How many entries one page of `resources/list` and
   * `resources/templates/list` holds (default 50, at most 1000). The
   * server's last setting holds for both lists.
   */
  readonly pageSize?: number;
}

/** One server's resources (its record's `resources`). */
export class ResourceRegistry {
  readonly resources = new Map<string, ResourceDef>();
  readonly templates = new Map<string, ResourceTemplateDef>();
  /** What stops each subscribed URI's listening. */
  readonly subscribed = new Map<string, () => void>();
  pageSize: number;
  /** Whether the server's `onclose` ends the subscriptions yet. */
  watchingClose = false;

  constructor(pageSize: number) {
    this.pageSize = pageSize;
  }

  /** The definition serving `uri`: a fixed resource first, then the first template that matches. */
  find(
    uri: string,
  ):
    | {
      def: ResourceDef | ResourceTemplateDef;
      variables: Record<string, string>;
    }
    | undefined {
    const fixed = this.resources.get(uri);
    if (fixed !== undefined) return { def: fixed, variables: {} };
    for (const def of this.templates.values()) {
      const variables = def.match(uri);
      if (variables !== undefined) return { def, variables };
    }
    return undefined;
  }

  unsubscribeAll(): void {
    for (const off of this.subscribed.values()) off();
    this.subscribed.clear();
  }
}

/**
 * Registers resources and resource templates on an MCP server, beside its
 * tools. A fixed resource (`resource`) is listed by `resources/list` and
 * read by its URI; a template (`resourceTemplate`) is listed by
 * `resources/templates/list` and reads any URI it matches. Both lists are
 * paginated (`options.pageSize`, an opaque `nextCursor`; a cursor the
 * server did not write is Invalid params, -32602). `resources/read` of a URI
 * nothing serves is Invalid params (`unknown resource "<uri>"`, with
 * `data: { uri }`), as the spec's 2026 revision and the TypeScript SDK
 * answer; a `read` that throws answers Internal error (-32603)
 * `resource "<uri>" could not be read: <message>`.
 *
 * A client may subscribe to any URI the server serves
 * (`resources/subscribe`; an unknown one is refused as above): when the
 * definition's owner calls `notifyUpdated` (`def.notifyUpdated()`, or
 * `template.notifyUpdated(uri)`), each server the client subscribed on —
 * its session, on a server made per session — is sent
 * `notifications/resources/updated` with the URI; a session that did not
 * subscribe, unsubscribed or closed hears nothing. (A stateless HTTP
 * request has no session to send it on: the subscription ends with the
 * request.)
 *
 * One registry per server: a later call adds to it (a URI or template
 * registered again is replaced), and on a connected server sends
 * `notifications/resources/list_changed`. The server gets the `resources`
 * capability (`{ subscribe: true, listChanged: true }`) declared before
 * connect, and `completions` when a template has completers. Throws a
 * `TypeError`, registering nothing, on a value that is not a definition,
 * a URI or template repeated within the call, a connected server without
 * the capability, or one whose resources handlers someone else installed.
 *
 * @example Export a resource and read it from a client
 * ```ts
 * import { Client, exportResources, InMemoryTransport, resource, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "docs", version: "1.0.0" });
 * exportResources(server, [
 *   resource({ uri: "docs://readme", name: "readme", mimeType: "text/plain", text: "hello" }),
 * ]);
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "reader", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { contents } = await client.readResource({ uri: "docs://readme" });
 * assert.deepEqual(contents, [{ uri: "docs://readme", mimeType: "text/plain", text: "hello" }]);
 * await client.close();
 * ```
 */
export function exportResources(
  server: Server,
  defs: readonly (ResourceDef | ResourceTemplateDef)[],
  options?: ExportResourcesOptions,
): void {
  const caller = "exportResources";
  if (!Array.isArray(defs)) {
    throw new TypeError(
      `${caller}(server, defs): defs must be an array of resource() and resourceTemplate() definitions`,
    );
  }
  const pageSize = options?.pageSize === undefined
    ? undefined
    : pageSizeOf(options.pageSize, caller);
  const uris = new Set<string>();
  defs.forEach((def, i) => {
    const key = def?.kind === "resource"
      ? def.uri
      : def?.kind === "template"
      ? def.uriTemplate
      : undefined;
    if (key === undefined) {
      throw new TypeError(
        `${caller}: defs[${i}] is not a resource() or resourceTemplate() definition`,
      );
    }
    if (uris.has(key)) {
      throw new TypeError(`${caller}: ${JSON.stringify(key)} is given twice`);
    }
    uris.add(key);
  });
  const s = server as unknown as SurfaceServer;
  const completing = defs.some((d) =>
    d.kind === "template" && d.complete !== undefined
  );
  const state = bridgeState(s);
  // Both surfaces are checked before either is installed.
  if (state.resources === undefined) {
    checkSurface(s, { caller, ...RESOURCES_SURFACE });
  }
  if (completing) checkCompletions(s, caller);
  const registry = state.resources ?? registryOf(s, state, caller);
  if (pageSize !== undefined) registry.pageSize = pageSize;
  for (const def of defs) {
    if (def.kind === "resource") registry.resources.set(def.uri, def);
    else registry.templates.set(def.uriTemplate, def);
  }
  if (completing) {
    enableCompletions(
      s,
      "resource",
      (uriTemplate) => registry.templates.get(uriTemplate),
      caller,
    );
  }
  if (defs.length > 0) {
    notifyClient(s, "notifications/resources/list_changed");
  }
}

const RESOURCES_SURFACE = {
  capability: "resources",
  declared: { subscribe: true, listChanged: true },
  methods: [
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
  ],
};

function registryOf(
  server: SurfaceServer,
  state: BridgeState,
  caller: string,
): ResourceRegistry {
  const registry = new ResourceRegistry(pageSizeOf(undefined, caller));
  installSurface(server, {
    caller,
    ...RESOURCES_SURFACE,
    install: () => installHandlers(server, registry),
  });
  state.resources = registry;
  return registry;
}

type Params = { params: Record<string, unknown> };
type Extra = { signal: AbortSignal; authInfo?: unknown };

function installHandlers(
  server: SurfaceServer,
  registry: ResourceRegistry,
): void {
  const on = (schema: unknown, handler: (r: Params, e: Extra) => unknown) =>
    server.setRequestHandler(schema, handler as never);
  on(ListResourcesRequestSchema, ({ params }) => {
    const { page, nextCursor } = pageOf(
      [...registry.resources.values()],
      params?.cursor,
      registry.pageSize,
      "resources/list",
    );
    return { resources: page.map((d) => d.listing), ...nextOf(nextCursor) };
  });
  on(ListResourceTemplatesRequestSchema, ({ params }) => {
    const { page, nextCursor } = pageOf(
      [...registry.templates.values()],
      params?.cursor,
      registry.pageSize,
      "resources/templates/list",
    );
    return {
      resourceTemplates: page.map((d) => d.listing),
      ...nextOf(nextCursor),
    };
  });
  on(
    ReadResourceRequestSchema,
    ({ params }, extra) => read(registry, params, extra),
  );
  on(SubscribeRequestSchema, ({ params }) => {
    subscribe(server, registry, params.uri as string);
    return {};
  });
  on(UnsubscribeRequestSchema, ({ params }) => {
    const uri = params.uri as string;
    registry.subscribed.get(uri)?.();
    registry.subscribed.delete(uri);
    return {};
  });
}

function nextOf(cursor: string | undefined): { nextCursor?: string } {
  return cursor === undefined ? {} : { nextCursor: cursor };
}

function unknownResource(uri: string): ProtocolError {
  return new ProtocolError(
    INVALID_PARAMS,
    `unknown resource ${JSON.stringify(uri)}`,
    { uri },
  );
}

async function read(
  registry: ResourceRegistry,
  params: Record<string, unknown>,
  extra: Extra,
): Promise<Record<string, unknown>> {
  const uri = params.uri as string;
  const found = registry.find(uri);
  if (found === undefined) throw unknownResource(uri);
  const auth = extra.authInfo as AuthInfo | undefined;
  try {
    const contents = await found.def.read({
      uri,
      variables: found.variables,
      signal: extra.signal,
      ...(auth !== undefined && { auth }),
    });
    return { contents };
  } catch (error) {
    throw new ProtocolError(
      INTERNAL_ERROR,
      `resource ${JSON.stringify(uri)} could not be read: ${errorText(error)}`,
    );
  }
}

/**
 * Subscribes `server`'s client to `uri`: the definition serving it tells
 * this server when it changes, until the client unsubscribes or the
 * server closes (or is found closed when an update comes).
 */
function subscribe(
  server: SurfaceServer,
  registry: ResourceRegistry,
  uri: string,
): void {
  const found = registry.find(uri);
  if (found === undefined) throw unknownResource(uri);
  if (registry.subscribed.has(uri)) return;
  const off = onUpdated(found.def, (changed) => {
    if (changed !== uri) return;
    if (server.transport === undefined) {
      registry.unsubscribeAll();
      return;
    }
    notifyClient(server, "notifications/resources/updated", { uri });
  });
  registry.subscribed.set(uri, off);
  if (!registry.watchingClose) {
    registry.watchingClose = true;
    const before = server.onclose;
    server.onclose = () => {
      registry.unsubscribeAll();
      before?.();
    };
  }
}
