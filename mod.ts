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
export type {
  ToolCall,
  ToolCaller,
  ToolMiddleware,
} from "./src/core/middleware.ts";
export { composeMiddleware } from "./src/core/middleware.ts";
export type { Schema } from "./src/core/schema.ts";
export { parseSchema } from "./src/core/schema.ts";
export type { JsonType, RawJson } from "./src/core/json.ts";
export {
  isRawJson,
  jsonTypeOf,
  parseLossless,
  stringifyExact,
} from "./src/core/json.ts";
export type {
  CallInfo,
  InvokeOptions,
  ProgressFn,
  RawToolDef,
  StandardSchemaWithJSON,
  ToolContext,
  ToolDef,
  ToolOptions,
  ToolProgress,
  TypedToolDef,
} from "./src/core/tool.ts";
export { rawTool, tool } from "./src/core/tool.ts";
export {
  DEFAULT_MAX_RESULT_BYTES,
  failureError,
  failureText,
  formatDuration,
  isPanic,
  truncateResult,
} from "./src/core/policy.ts";
export { modelRequestsAllowed } from "./src/core/env.ts";
// --- end core tools ---

// --- core: agent loop, models, subagents (agent-loop) ---
export { Agent } from "./src/core/agent.ts";
export type {
  AgentOptions,
  CallToolOptions,
  GenerateOptions,
} from "./src/core/agent.ts";
export { RunError } from "./src/core/run.ts";
export type { PendingCall, RunResult, StepRecord } from "./src/core/run.ts";
export {
  runSubagent,
  subagent,
  SUBAGENT_PROMPT_DESCRIPTION,
} from "./src/core/subagent.ts";
export type {
  RunSubagentOptions,
  SubagentOptions,
} from "./src/core/subagent.ts";
export { addUsage } from "./src/core/model.ts";
export type {
  FinishEvent,
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  ModelStreamOptions,
  ModelTool,
  ReasoningEvent,
  StopReason,
  TextEvent,
  ToolCallEvent,
  Usage,
} from "./src/core/model.ts";
export {
  lastAssistantText,
  messageText,
  userMessage,
} from "./src/core/messages.ts";
export type {
  Message,
  Part,
  ReasoningPart,
  Role,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from "./src/core/messages.ts";
export type {
  EventHandler,
  ReasoningDeltaEvent,
  RunEvent,
  RunFinishEvent,
  RunStartEvent,
  StepFinishEvent,
  StepStartEvent,
  TextDeltaEvent,
  ToolFinishEvent,
  ToolProgressEvent,
  ToolStartEvent,
} from "./src/core/events.ts";
export {
  SUBMIT_OUTPUT,
  SUBMIT_OUTPUT_DESCRIPTION,
  SUBMIT_OUTPUT_RESULT,
} from "./src/core/output.ts";
export { CANCELED_BEFORE_START } from "./src/core/dispatch.ts";
// --- end agent loop ---

// --- bridge: import (mcp-import) ---
export type { ImportOptions, ImportResult } from "./src/mcp/import.ts";
export { importTools } from "./src/mcp/import.ts";
export type { SkippedTool } from "./src/mcp/import_error.ts";
export {
  DuplicateNameError,
  EmptyNameError,
  ImportError,
  ListToolsError,
  NilEntryError,
} from "./src/mcp/import_error.ts";
export { McpTransportError, RemoteToolError } from "./src/mcp/remote_error.ts";
export { renderContent } from "./src/mcp/render.ts";
// --- end import ---

// --- bridge: export and serve (mcp-export) ---
export { exportTools } from "./src/mcp/export.ts";
export { serveAgent } from "./src/mcp/serve.ts";
// --- end export ---

// --- runtime: stdio and HTTP (runtime) ---
export { stdioTransport } from "./src/runtime/process/stdio_transport.ts";
export type { StdioTransportOptions } from "./src/runtime/process/stdio_transport.ts";
export { serveStdio } from "./src/runtime/process/serve_stdio.ts";
export type { ServeStdioOptions } from "./src/runtime/process/serve_stdio.ts";
export {
  connectStdio,
  DEFAULT_INHERITED_ENV,
  defaultEnvironment,
} from "./src/runtime/process/connect_stdio.ts";
export type { ConnectStdioOptions } from "./src/runtime/process/connect_stdio.ts";
export { httpHandler } from "./src/runtime/http/handler.ts";
export type {
  HttpHandler,
  HttpHandlerOptions,
  HttpHandlerStats,
  HttpRequestInfo,
} from "./src/runtime/http/handler.ts";
export type { RemoteAddress } from "./src/runtime/http/guard.ts";
export { kvStore } from "./src/runtime/http/kv_store.ts";
export type {
  HttpSessionStore,
  KvAtomicLike,
  KvEntryLike,
  KvKeyLike,
  KvLike,
  KvStoreOptions,
} from "./src/runtime/http/kv_store.ts";
export { DEFAULT_SESSION_IDLE_TIMEOUT } from "./src/runtime/http/sessions.ts";
export { DEFAULT_SESSION_EVENTS } from "./src/runtime/http/event_store.ts";
export { connectHttp } from "./src/runtime/client/connect_http.ts";
export type { ConnectHttpOptions } from "./src/runtime/client/connect_http.ts";
export {
  DEFAULT_CLIENT_INFO,
  McpClient,
} from "./src/runtime/client/disposable_client.ts";
export type { ClientLink } from "./src/runtime/client/disposable_client.ts";
export { DEFAULT_KILL_GRACE } from "./src/runtime/process/process_group.ts";
export {
  ConnectionLostError,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  HttpRefusalError,
  LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  ServerExitError,
  TransportClosedError,
} from "./src/runtime/errors.ts";
// --- end runtime ---
