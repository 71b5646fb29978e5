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
} from "./src/mcp/import.ts";
export { importTools } from "./src/mcp/import.ts";
export type { SkippedTool } from "./src/mcp/import_error.ts";
export {
  DuplicateNameError,
  EmptyNameError,
  ImportError,
  ListToolsError,
  NonObjectEntryError,
} from "./src/mcp/import_error.ts";
export { McpTransportError, RemoteToolError } from "./src/mcp/remote_error.ts";
export { renderContent } from "./src/mcp/render.ts";
export { toolDigest } from "./src/mcp/pins.ts";
export type { PinReport, PinStore, ToolPins } from "./src/mcp/pins.ts";
export type { InputContext, InputHandler } from "./src/mcp/input.ts";
export type { RenderOptions, ResultRendering } from "./src/mcp/render.ts";
export { exportTools, setRequestStateKey } from "./src/mcp/export.ts";
export { serveAgent } from "./src/mcp/serve.ts";
export type { ServeAgentOptions } from "./src/mcp/serve.ts";
export { exportResources } from "./src/mcp/resources.ts";
export type { ExportResourcesOptions } from "./src/mcp/resources.ts";
export { resource, resourceTemplate } from "./src/mcp/resource_def.ts";
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
} from "./src/mcp/resource_def.ts";
export { exportPrompts } from "./src/mcp/prompts.ts";
export { prompt } from "./src/mcp/prompt_def.ts";
export type { ExportPromptsOptions } from "./src/mcp/prompts.ts";
export type {
  PromptBody,
  PromptDef,
  PromptMessage,
  PromptOptions,
  PromptRequest,
} from "./src/mcp/prompt_def.ts";
export type {
  ToolClient,
  ToolRequest,
  ToolRequestOptions,
  ToolServer,
  Transport,
} from "./src/mcp/peers.ts";
// A connected server's resources and prompts, read from weft.
export {
  getPrompt,
  ListLimitError,
  listPrompts,
  listResources,
  listResourceTemplates,
  ListResultError,
  readResource,
} from "./src/mcp/remote_resources.ts";
export type {
  GetPromptResult,
  ListOptions,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "./src/mcp/remote_resources.ts";
