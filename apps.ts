/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension) on the host side:
 * reading which imported tools ship a view ({@link toolUi},
 * {@link appToolInfo}), declaring the extension
 * ({@link withAppsCapability}), and {@link appHost}, the backend a browser
 * page talks to — it runs the agent, serves views only from their own
 * servers, lets a view call only its own server's app tools through the
 * agent's policy, and labels what a view says as coming from the app.
 *
 * @example Read the view of an App server's tool
 * ```ts
 * import { toolUi } from "@weft/mcp/apps";
 * import assert from "node:assert/strict";
 *
 * const ui = toolUi({
 *   name: "get-time",
 *   _meta: { ui: { resourceUri: "ui://get-time/mcp-app.html", visibility: ["model", "app"] } },
 * });
 * assert.equal(ui.resourceUri, "ui://get-time/mcp-app.html");
 * ```
 *
 * @module
 */

export {
  APP_EXTENSION,
  APP_MIME_TYPE,
  appToolInfo,
  toolUi,
} from "./src/bridge/app_meta.ts";
export type {
  AppServer,
  AppToolInfo,
  AppVisibility,
  ToolUi,
} from "./src/bridge/app_meta.ts";
export { withAppsCapability } from "./src/runtime/app_capability.ts";
export type { ToolAppOptions } from "./src/core/app_view.ts";
export { appHost } from "./src/apps/app_host.ts";
export type {
  AppHostHandler,
  AppHostOptions,
  AppServers,
} from "./src/apps/app_host.ts";
export type { AppRecord, RunRecord } from "./src/apps/run_record.ts";
export { AppGateError } from "./src/apps/errors.ts";
export type { AppGate } from "./src/apps/errors.ts";
