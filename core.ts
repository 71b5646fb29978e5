/**
 * The weft core behind the curated `@weft/mcp` surface: schema views and
 * lossless JSON, tool middleware, run policy, the model contract and its
 * events, messages, the error classes and codes, and the texts the loop
 * shows a model. The core knows nothing of MCP or the SDK; it runs on any
 * runtime with web standards.
 *
 * @example Wrap a tool in middleware
 * ```ts
 * import { rawTool, type ToolMiddleware } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 *
 * const seen: string[] = [];
 * const logged: ToolMiddleware = (next) => (call, ctx) => {
 *   seen.push(call.name);
 *   return next(call, ctx);
 * };
 * const echo = rawTool({
 *   name: "echo",
 *   description: "Echoes its arguments.",
 *   inputSchema: { type: "object" },
 *   run: (args) => args,
 *   wrap: [logged],
 * });
 * assert.equal(await echo.invoke('{"a":1}'), '{"a":1}');
 * ```
 *
 * @module
 */

export {
  ApprovalRequiredError,
  CodeDenied,
  CodeInvalidInput,
  CodeNoSuchTool,
  CodeRetry,
  CodeSubagentCycle,
  CodeSubagentFailed,
  CodeSubagentPending,
  DuplicateDecisionError,
  DuplicateToolError,
  InvalidInputError,
  MaxStepsError,
  MissingToolError,
  ModelContractError,
  ModelStreamError,
  NoSuchToolError,
  NotPendingError,
  OutputSchemaError,
  RunConsumedError,
  SchemaError,
  ToolError,
  ToolOutputError,
  ToolPanicError,
  ToolTimeoutError,
} from "./src/core/errors.ts";
export type { ApprovalRequest } from "./src/core/errors.ts";
export type {
  ToolCall,
  ToolCaller,
  ToolMiddleware,
} from "./src/core/middleware.ts";
export { composeMiddleware } from "./src/core/middleware.ts";
export type { Schema } from "./src/core/schema.ts";
export { parseSchema } from "./src/core/schema.ts";
export type { RawJson } from "./src/core/json.ts";
export { isRawJson, parseLossless, stringifyExact } from "./src/core/json.ts";
export type {
  CallInfo,
  InvokeOptions,
  ProgressFn,
  RawToolDef,
  StandardSchemaWithJSON,
  TaskSupport,
  ToolAnnotations,
  ToolArguments,
  ToolContext,
  ToolDef,
  ToolOptions,
  ToolProgress,
  ToolResult,
  TypedToolDef,
} from "./src/core/tool.ts";
// Logging and sampling from inside a tool (ctx.log, ctx.sample).
export type { LogFn, LogLevel, LogOptions } from "./src/core/logging.ts";
export {
  type SampleContent,
  type SampleFn,
  type SampleMessage,
  type SampleOptions,
  type SampleRequest,
  type SampleResult,
  SamplingUnavailableError,
  type SamplingUnavailableReason,
} from "./src/core/sampling.ts";
// The verified caller a tool sees as ctx.auth.
export type { AuthInfo } from "./src/core/auth.ts";
export { audio, content, image } from "./src/core/content.ts";
export type {
  AudioContent,
  ContentAnnotations,
  ContentItem,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  TextContent,
  ToolContent,
} from "./src/core/content.ts";
export {
  answer,
  approve,
  deny,
  NO_DECISION,
  NO_RESULT_RECORDED,
  resolve,
  resolveError,
  resume,
} from "./src/core/decisions.ts";
export type {
  AnswerDecision,
  ApproveDecision,
  Decision,
  DenyDecision,
  ResolveDecision,
  ResumeDecision,
} from "./src/core/decisions.ts";
// A run suspended while work went on elsewhere (an imported tool's server
// task), parked and continued with `resume`.
export { CallSuspendedError } from "./src/core/suspend.ts";
export type { PendingSuspension } from "./src/core/suspend.ts";
// Input a call asks for (elicitation), parked and answered like approvals.
export { InputRequiredError } from "./src/core/input.ts";
export type {
  AskFn,
  AskRequest,
  ElicitationParams,
  ElicitationRequest,
  InputAnswer,
  InputRequest,
  InputResponse,
  OtherInputRequest,
  PendingInput,
} from "./src/core/input.ts";
export { RunStream } from "./src/core/stream.ts";
export { rawTool, tool } from "./src/core/tool.ts";
export { DEFAULT_MAX_RESULT_BYTES } from "./src/core/policy.ts";
export { modelRequestsAllowed } from "./src/core/env.ts";
export { Agent } from "./src/core/agent.ts";
export type {
  AgentOptions,
  CallToolOptions,
  GenerateOptions,
} from "./src/core/agent.ts";
export {
  SEARCH_TOOLS,
  type ToolSearchOptions,
} from "./src/core/tool_search.ts";
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
export type {
  FinishEvent,
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  ModelResponseInfo,
  ModelStreamOptions,
  ModelTool,
  ModelWarning,
  ProviderMetadata,
  ReasoningEvent,
  StopReason,
  TextEvent,
  ToolCallEvent,
  Usage,
  WarningEvent,
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
  ModelWarningEvent,
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
export type {
  StandardIssue,
  StandardJSONSchemaOptions,
  StandardJSONSchemaProps,
  StandardJSONSchemaV1,
  StandardOutput,
  StandardResult,
  StandardSchemaProps,
  StandardSchemaV1,
  StandardTypes,
} from "./src/core/standard_schema.ts";
export { withJsonSchema } from "./src/core/schema_input.ts";
export type {
  JsonSchemaInput,
  SchemaInput,
  SchemaWithConverter,
} from "./src/core/schema_input.ts";
export type {
  CheckResult,
  CodeModeOptions,
  ExecuteOptions,
  ExecuteResult,
  Executor,
  ResolvedProvider,
  SandboxFn,
  TypeChecker,
} from "./src/core/code_mode.ts";
export { identifierOf } from "./src/core/code_mode.ts";
