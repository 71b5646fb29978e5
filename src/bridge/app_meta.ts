/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): the names and the
 * tool metadata both sides read — a tool's view (`_meta.ui.resourceUri`, and
 * the deprecated flat `_meta["ui/resourceUri"]`) and who may see it
 * (`_meta.ui.visibility`).
 *
 * @module
 */

import type { ToolDef } from "../core/tool.ts";
import type { ToolClient } from "./peers.ts";

/** The extension's identifier, as a client declares it under `capabilities.extensions`. */
export const APP_EXTENSION = "io.modelcontextprotocol/ui";

/** The MIME type of a view's HTML document. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The deprecated flat `_meta` key naming a tool's view (real servers still send it). */
export const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri";

/** Who may call an app tool: the model, the view, or both (the default). */
export type AppVisibility = "model" | "app";

/** What a tool's `_meta` says about its view. */
export interface ToolUi {
  /** The view's `ui://` resource, when the tool has one. */
  readonly resourceUri?: string;
  /** Who may call the tool; `["model", "app"]` when the server says nothing. */
  readonly visibility: readonly AppVisibility[];
}

const BOTH: readonly AppVisibility[] = Object.freeze(["model", "app"]);

/**
 * Reads a listed tool's view and visibility from its `_meta`: `ui.resourceUri`
 * first, else the flat `ui/resourceUri`; a URI not starting `ui://` is no
 * view. A visibility that is not a list of `"model"`/`"app"` reads as the
 * default, both.
 *
 * @example Read a tool's view
 * ```ts
 * import { toolUi } from "@weft/mcp/apps";
 * import assert from "node:assert/strict";
 *
 * const ui = toolUi({ name: "t", _meta: { "ui/resourceUri": "ui://t/view.html" } });
 * assert.equal(ui.resourceUri, "ui://t/view.html");
 * assert.deepEqual(ui.visibility, ["model", "app"]);
 * ```
 */
export function toolUi(tool: unknown): ToolUi {
  const meta = recordOf(recordOf(tool)?._meta);
  const ui = recordOf(meta?.ui);
  const uri = typeof ui?.resourceUri === "string"
    ? ui.resourceUri
    : meta?.[LEGACY_RESOURCE_URI_KEY];
  const visibility = visibilityOf(ui?.visibility);
  return typeof uri === "string" && uri.startsWith("ui://")
    ? { resourceUri: uri, visibility }
    : { visibility };
}

function visibilityOf(value: unknown): readonly AppVisibility[] {
  if (
    !Array.isArray(value) ||
    !value.every((v) => v === "model" || v === "app")
  ) return BOTH;
  return Object.freeze([...value] as AppVisibility[]);
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** What an imported tool of an MCP App server is, for a host (`appHost`). */
export interface AppToolInfo extends ToolUi {
  /** The server it came from (the name views are labelled with). */
  readonly server: string;
  /** Its name on that server (before any prefix). */
  readonly tool: string;
}

const APP_TOOLS = new WeakMap<object, AppToolInfo>();

/** Marks `tool` (a tool `importTools` built with `apps`) as the server's app tool. */
export function tagAppTool(tool: object, info: AppToolInfo): void {
  APP_TOOLS.set(tool, Object.freeze(info));
}

/**
 * The server, name, view and visibility of a tool `importTools` imported
 * with `apps`; `undefined` for any other tool.
 *
 * @example Find an imported tool's view
 * ```ts
 * import { appToolInfo } from "@weft/mcp/apps";
 * import { rawTool } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const local = rawTool({ name: "t", description: "", run: () => "" });
 * assert.equal(appToolInfo(local), undefined);
 * ```
 */
export function appToolInfo(tool: object): AppToolInfo | undefined {
  return APP_TOOLS.get(tool);
}

/**
 * One MCP App server as `appHost` reads it: its name (the one its views and
 * tools are labelled with), the client its requests go through, and its
 * tools as imported with `apps` — the app-only ones (`ImportResult.appTools`)
 * included. `ConnectedServers.appServers()` gives these.
 *
 * @example An app server from one importTools call
 * ```ts
 * import { Client, importTools } from "@weft/mcp";
 * import type { AppServer } from "@weft/mcp/apps";
 *
 * async function appServer(name: string, client: Client): Promise<AppServer> {
 *   const { tools, appTools = [] } = await importTools(client, { apps: { server: name } });
 *   return { name, client, tools: [...tools, ...appTools] };
 * }
 * console.log(typeof appServer);
 * ```
 */
export interface AppServer {
  /** The server's name. */
  readonly name: string;
  /** The client its `resources/read` requests go through. */
  readonly client: ToolClient;
  /** Its imported tools, app-only ones included. */
  readonly tools: readonly ToolDef[];
}
