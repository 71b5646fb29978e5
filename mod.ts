/**
 * @weft/mcp: the bridge between weft, an agent framework, and the Model
 * Context Protocol. Import a connected MCP session's tools as weft tools,
 * export weft tools and whole agents on an MCP server, and serve them over
 * stdio or Streamable HTTP on web standards.
 *
 * @module
 */

// --- core: errors, schemas, tools (core-tools) ---
export * from "./src/core/errors.ts";
export type { ToolCall, ToolCaller, ToolMiddleware } from "./src/core/middleware.ts";
export { composeMiddleware } from "./src/core/middleware.ts";
export type { Schema } from "./src/core/schema.ts";
export type {
  CallInfo,
  InvokeOptions,
  ToolContext,
  ToolDef,
  ToolOptions,
} from "./src/core/tool.ts";
// --- end core tools ---

// --- core: agent loop, models, subagents (agent-loop) ---
// --- end agent loop ---

// --- bridge: import (mcp-import) ---
// --- end import ---

// --- bridge: export and serve (mcp-export) ---
// --- end export ---

// --- runtime: stdio and HTTP (runtime) ---
// --- end runtime ---
