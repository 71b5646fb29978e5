/**
 * The bridge between weft, an agent framework, and the Model Context
 * Protocol. Import a connected MCP session's tools as weft tools, export weft
 * tools and whole agents on an MCP server, and serve them over stdio or
 * Streamable HTTP on web standards.
 *
 * This entry point holds what a program that imports, exports and serves
 * needs. The rest lives behind subpaths: `@weft/mcp/core` (schema views,
 * middleware, events, messages, run policy), `@weft/mcp/bridge` (import
 * failures one by one, content rendering), `@weft/mcp/runtime` (transport
 * errors and defaults), `@weft/mcp/providers` (the AI SDK adapter's options
 * and errors), `@weft/mcp/servers` (the mcpServers config, its types and
 * errors), `@weft/mcp/testing` (scripted models) and `@weft/mcp/cli`.
 *
 * @example Export a tool and import it back over an in-memory pair
 * ```ts
 * import {
 *   Client,
 *   exportTools,
 *   importTools,
 *   InMemoryTransport,
 *   Server,
 *   tool,
 * } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const add = tool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => String(a + b),
 * });
 * const server = new Server({ name: "calc", version: "1.0.0" });
 * exportTools(server, add);
 *
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * const { tools } = await importTools(client);
 * assert.equal(await tools[0].invoke('{"a":1,"b":2}'), "3");
 * await client.close();
 * ```
 *
 * @module
 */

// Tools: build them from a schema library or a raw JSON Schema document.
export { rawTool, tool } from "./src/core/tool.ts";
export { parseSchema } from "./src/core/schema.ts";
export { withJsonSchema } from "./src/core/schema_input.ts";
export type { ToolContext, ToolDef, ToolOptions } from "./src/core/tool.ts";
export { SchemaError, ToolError } from "./src/core/errors.ts";
export type { ToolAnnotations } from "./src/core/tool.ts";
export { content, image } from "./src/core/content.ts";

// The agent: a model, tools and the loop between them.
export { Agent } from "./src/core/agent.ts";
export type { AgentOptions } from "./src/core/agent.ts";
export type { ToolSearchOptions } from "./src/core/tool_search.ts";
export type {
  CodeModeOptions,
  ExecuteResult,
  Executor,
} from "./src/core/code_mode.ts";
export { RunError } from "./src/core/run.ts";
// What a run and a server set hold, for reading them (the steps' calls and
// results, each server's state).
export type { PendingCall, RunResult, StepRecord } from "./src/core/run.ts";
export type { Message } from "./src/core/messages.ts";
export type { RunEvent } from "./src/core/events.ts";
export type { Model } from "./src/core/model.ts";
export { subagent } from "./src/core/subagent.ts";
export {
  answer,
  approve,
  deny,
  resolve,
  resolveError,
} from "./src/core/decisions.ts";
export { InputRequiredError } from "./src/core/input.ts";
export type { InputResponse, PendingInput } from "./src/core/input.ts";
export { SamplingUnavailableError } from "./src/core/sampling.ts";

// Models: any AI SDK language model (OpenAI, Anthropic, Ollama, ...).
export { aiSdkModel } from "./src/providers/ai_sdk.ts";

// The bridge: MCP tools in, weft tools and agents out.
export { importTools } from "./src/bridge/import.ts";
export type {
  ApprovalRule,
  ImportOptions,
  ImportPolicy,
  ImportResult,
} from "./src/bridge/import.ts";
export { ImportError } from "./src/bridge/import_error.ts";
export type { InputHandler } from "./src/bridge/input.ts";
export { RemoteToolError } from "./src/bridge/remote_error.ts";
export { exportTools, setRequestStateKey } from "./src/bridge/export.ts";
export { serveAgent } from "./src/bridge/serve.ts";
export { exportResources } from "./src/bridge/resources.ts";
export { resource, resourceTemplate } from "./src/bridge/resource_def.ts";
export { exportPrompts } from "./src/bridge/prompts.ts";
export { prompt } from "./src/bridge/prompt_def.ts";
// Serving MCP tasks (serveTasks) is in "@weft/mcp/tasks".

// Tracing: OpenTelemetry spans and metrics, recorded once the host registers a provider.
export { configureTracing } from "./src/trace/otel.ts";
export type { TracingOptions } from "./src/trace/otel.ts";

// Many servers from one mcpServers config, as every MCP host writes it.
export { connectServers } from "./src/servers/connect_servers.ts";
export type { ServerStatus } from "./src/servers/connect_servers.ts";

// Runtimes: stdio and Streamable HTTP, serving and connecting.
export { serveStdio } from "./src/runtime/process/serve_stdio.ts";
export { stdioTransport } from "./src/runtime/process/stdio_transport.ts";
export { connectStdio } from "./src/runtime/process/connect_stdio.ts";
export type { ConnectStdioOptions } from "./src/runtime/process/connect_stdio.ts";
export { httpHandler } from "./src/runtime/http/handler.ts";
export type { HttpHandlerOptions } from "./src/runtime/http/handler.ts";
export { kvStore } from "./src/runtime/http/kv_store.ts";
// OAuth on both sides (jwtVerifier, oauthClient, ...) is in "@weft/mcp/auth".
export { connectHttp } from "./src/runtime/client/connect_http.ts";
export type { ConnectHttpOptions } from "./src/runtime/client/connect_http.ts";
export { McpClient } from "./src/runtime/client/disposable_client.ts";

// The MCP SDK classes the examples use, so every page spells one import.
export { Client, InMemoryTransport, Server } from "./src/runtime/sdk.ts";
