/**
 * The MCP bridge in full: importing a connected session's tools, exporting
 * tools and agents on an SDK `Server`, the import failures one by one, the
 * remote-call errors, the content renderer, and the structural `Server` and
 * `Client` shapes the bridge accepts (any copy of the SDK in the supported
 * range fits them).
 *
 * @example Render a tool result the way an imported tool does
 * ```ts
 * import { renderContent } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 *
 * const text = renderContent({ content: [{ type: "text", text: "hello" }] });
 * assert.equal(text, "hello");
 * ```
 *
 * @module
 */

export type {
  ApprovalRule,
  ImportOptions,
  ImportPolicy,
  ImportResult,
} from "./src/bridge/import.ts";
export { importTools } from "./src/bridge/import.ts";
export type { SkippedTool } from "./src/bridge/import_error.ts";
export {
  DuplicateNameError,
  EmptyNameError,
  ImportError,
  ListToolsError,
  NonObjectEntryError,
} from "./src/bridge/import_error.ts";
export {
  McpTransportError,
  RemoteToolError,
} from "./src/bridge/remote_error.ts";
export { renderContent } from "./src/bridge/render.ts";
export { toolDigest } from "./src/bridge/pins.ts";
export type { PinReport, PinStore, ToolPins } from "./src/bridge/pins.ts";
export type { InputContext, InputHandler } from "./src/bridge/input.ts";
export type { RenderOptions, ResultRendering } from "./src/bridge/render.ts";
export { exportTools, setRequestStateKey } from "./src/bridge/export.ts";
export { serveAgent } from "./src/bridge/serve.ts";
export type { ServeAgentOptions } from "./src/bridge/serve.ts";
export { exportResources } from "./src/bridge/resources.ts";
export type { ExportResourcesOptions } from "./src/bridge/resources.ts";
export { resource, resourceTemplate } from "./src/bridge/resource_def.ts";
export type {
  Completer,
  Icon,
  ResourceBody,
  ResourceDef,
  ResourceListing,
  ResourceOptions,
  ResourceReadRequest,
  ResourceTemplateDef,
  ResourceTemplateOptions,
} from "./src/bridge/resource_def.ts";
export { exportPrompts } from "./src/bridge/prompts.ts";
export { prompt } from "./src/bridge/prompt_def.ts";
export type { ExportPromptsOptions } from "./src/bridge/prompts.ts";
export type {
  PromptBody,
  PromptDef,
  PromptMessage,
  PromptOptions,
  PromptRequest,
} from "./src/bridge/prompt_def.ts";
export type {
  ToolClient,
  ToolRequest,
  ToolRequestOptions,
  ToolServer,
  Transport,
} from "./src/bridge/peers.ts";
// A connected server's resources and prompts, read from weft.
export {
  getPrompt,
  ListLimitError,
  listPrompts,
  listResources,
  listResourceTemplates,
  ListResultError,
  readResource,
} from "./src/bridge/remote_resources.ts";
export type {
  GetPromptResult,
  ListOptions,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "./src/bridge/remote_resources.ts";
