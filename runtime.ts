/**
 * The runtimes in full: stdio on web streams and child-process servers, the
 * Streamable HTTP handler and client, their defaults, and the error classes a
 * connection can fail with.
 *
 * @example Tell a refused request from a server failure
 * ```ts
 * import { httpHandler, Server } from "@weft/mcp";
 * import { HttpRefusalError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const handler = httpHandler(() => new Server({ name: "demo", version: "1.0.0" }));
 * const res = await handler(new Request("http://localhost/mcp", { method: "PUT" }));
 * assert.equal(res.status, 405);
 * assert.equal(typeof HttpRefusalError, "function");
 * ```
 *
 * @module
 */

export { stdioTransport } from "./src/runtime/process/stdio_transport.ts";
export type { StdioTransportOptions } from "./src/runtime/process/stdio_transport.ts";
export { serveStdio } from "./src/runtime/process/serve_stdio.ts";
export type { ServeStdioOptions } from "./src/runtime/process/serve_stdio.ts";
export type { CacheHints } from "./src/runtime/era/cache_hints.ts";
export {
  connectStdio,
  DEFAULT_INHERITED_ENV,
  defaultEnvironment,
} from "./src/runtime/process/connect_stdio.ts";
export type { ConnectStdioOptions } from "./src/runtime/process/connect_stdio.ts";
export { DEFAULT_INITIALIZE_TIMEOUT } from "./src/runtime/client/disposable_client.ts";
export { connectSse } from "./src/runtime/client/connect_sse.ts";
export { httpHandler } from "./src/runtime/http/handler.ts";
export type {
  HttpHandler,
  HttpHandlerStats,
  HttpRequestInfo,
  ListenAddress,
} from "./src/runtime/http/handler.ts";
export type { HttpHandlerOptions } from "./src/runtime/http/handler_options.ts";
export { kvStore } from "./src/runtime/http/kv_store.ts";
// OAuth (the resource server's verify option, the OAuth client): "@weft/mcp/auth".
export type { HttpSessionStore } from "./src/runtime/http/store_sessions.ts";
export type {
  KvAtomicLike,
  KvEntryLike,
  KvKeyLike,
  KvLike,
  KvStoreOptions,
} from "./src/runtime/http/kv_store.ts";
export {
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_MAX_BODY_DEPTH,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_UNREAD_BYTES,
  DEFAULT_SESSION_EVENT_BYTES,
} from "./src/runtime/http/limits.ts";
export type { RemoteAddress } from "./src/runtime/http/guard.ts";
export { DEFAULT_SESSION_IDLE_TIMEOUT } from "./src/runtime/http/sessions.ts";
export { DEFAULT_SESSION_EVENTS } from "./src/runtime/http/event_store.ts";
export { connectHttp } from "./src/runtime/client/connect_http.ts";
export type { ConnectHttpOptions } from "./src/runtime/client/connect_http.ts";
export {
  DEFAULT_CLIENT_INFO,
  McpClient,
} from "./src/runtime/client/disposable_client.ts";
export type { ClientLink } from "./src/runtime/client/disposable_client.ts";
export { ProtocolNegotiationError } from "./src/runtime/era/era_client.ts";
export type {
  EraInfo,
  ProtocolPreference,
} from "./src/runtime/era/era_client.ts";
export type { ProtocolEra } from "./src/runtime/era/era.ts";
export { memoryEraStore } from "./src/runtime/era/era_store.ts";
export type {
  EraKeyValueStore,
  EraStore,
} from "./src/runtime/era/era_store.ts";
export { DEFAULT_KILL_GRACE } from "./src/runtime/process/process_group.ts";
export {
  CommandNotFoundError,
  ConnectionLostError,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  HttpRefusalError,
  InitializeTimeoutError,
  LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  ServerConnectError,
  ServerExitError,
  TransportClosedError,
  UnreadLimitError,
} from "./src/runtime/errors.ts";
export type { ConnectPhase } from "./src/runtime/errors.ts";
export { SessionNotFoundError } from "./src/runtime/client/session_error.ts";
export type { ConnectableServer } from "./src/runtime/connectable.ts";
export type {
  AnySchema,
  ClientCapabilities,
  ClientOptions,
  ClientRequest,
  FetchLike,
  Implementation,
  Request,
  RequestOptions,
  SchemaOutput,
  ServerOptions,
  Transport,
} from "./src/runtime/sdk_types.ts";
