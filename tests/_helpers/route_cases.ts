/**
 * One table of cases for every route that answers `tools/call` (see
 * `route_rig.ts`): each a request and the answer every route it applies
 * to must give — status, content type and the JSON-RPC messages, pinned
 * byte for byte. HTTP-only cases (headers, `Accept`, bodies, batches,
 * scopes) name the HTTP routes; the stdio lane has no headers to refuse.
 */

import type { Answer, CaseRequest, Era, RouteName } from "./route_rig.ts";
import { HTTP_ROUTES, MAX_BODY_BYTES } from "./route_rig.ts";

/** One case: its request, where it applies, and the answer expected in each era. */
export interface RouteCase {
  readonly label: string;
  readonly request: CaseRequest;
  /** The routes it applies to (default: every route). */
  readonly routes?: readonly RouteName[];
  /** The eras it applies to (default: both). */
  readonly eras?: readonly Era[];
  /** Whether the direct route answers it itself (no SDK `Protocol` connected). */
  readonly direct?: boolean;
  /** The answer, per era (a route without status/type compares messages only). */
  readonly expect: Partial<Record<Era, Answer>>;
  /** Per route and era, where the transport makes a difference the spec allows. */
  readonly except?: Partial<Record<RouteName, Partial<Record<Era, Answer>>>>;
}

const LEGACY: readonly Era[] = ["2025-11-25"];
const MODERN: readonly Era[] = ["2026-07-28"];
const CALL = { name: "echo", arguments: { text: "hi" } };

export const CASES: readonly RouteCase[] = [
  // Refusals.
  {
    label: "Accept: application/json alone",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { accept: "application/json" },
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
      "2026-07-28": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
    },
  },
  {
    label: "Accept: text/event-stream alone",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { accept: "text/event-stream" },
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
      "2026-07-28": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
    },
  },
  {
    label: "no Accept",
    request: { method: "tools/call", params: CALL, headers: { accept: null } },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
      "2026-07-28": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
    },
  },
  {
    label: "Accept: */*",
    request: { method: "tools/call", params: CALL, headers: { accept: "*/*" } },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
      "2026-07-28": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
    },
  },
  {
    label: "Content-Type: text/plain",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "content-type": "text/plain" },
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 415, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Unsupported Media Type: Content-Type must be application/json"}, "id": null}]},
      "2026-07-28": {"status": 415, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Unsupported Media Type: Content-Type must be application/json"}, "id": null}]},
    },
  },
  {
    label: "no Content-Type",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "content-type": null },
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 415, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Unsupported Media Type: Content-Type must be application/json"}, "id": null}]},
      "2026-07-28": {"status": 415, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Unsupported Media Type: Content-Type must be application/json"}, "id": null}]},
    },
  },
  {
    label: "a malformed body",
    request: {
      method: "tools/call",
      params: CALL,
      raw: '{"jsonrpc":"2.0","id":1,',
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}]},
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}]},
    },
  },
  {
    label: "not JSON-RPC (no jsonrpc member)",
    request: {
      method: "tools/call",
      params: CALL,
      raw:
        '{"id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: Invalid JSON-RPC message"}, "id": null}]},
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "Invalid params: MCP-Protocol-Version names 2026-07-28, but the request has no io.modelcontextprotocol/protocolVersion in params._meta"}}]},
    },
  },
  {
    label: "an oversized body",
    request: {
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(MAX_BODY_BYTES) } },
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 413, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Payload Too Large: request body exceeds 16384 bytes"}, "id": null}]},
      "2026-07-28": {"status": 413, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Payload Too Large: request body exceeds 16384 bytes"}, "id": null}]},
    },
  },
  {
    label: "an unsupported MCP-Protocol-Version",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-protocol-version": "1999-01-01" },
    },
    routes: HTTP_ROUTES,
    eras: LEGACY,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)"}, "id": null}]},
    },
  },
  {
    label: "a modern MCP-Protocol-Version without the envelope",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-protocol-version": "2026-07-28" },
    },
    routes: HTTP_ROUTES,
    eras: LEGACY,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "Invalid params: MCP-Protocol-Version names 2026-07-28, but the request has no io.modelcontextprotocol/protocolVersion in params._meta"}}]},
    },
  },
  {
    label: "no MCP-Protocol-Version",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-protocol-version": null },
    },
    routes: HTTP_ROUTES,
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "heard: hi"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header is absent"}}]},
    },
  },
  {
    label: "MCP-Protocol-Version disagreeing with the envelope",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-protocol-version": "2025-11-25" },
    },
    routes: HTTP_ROUTES,
    eras: MODERN,
    // deno-fmt-ignore
    expect: {
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the envelope names protocol version 2026-07-28 but MCP-Protocol-Version says 2025-11-25"}}]},
    },
  },
  {
    label: "Mcp-Method disagreeing",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-method": "tools/list" },
    },
    routes: HTTP_ROUTES,
    eras: MODERN,
    // deno-fmt-ignore
    expect: {
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the body's method is tools/call but Mcp-Method says tools/list"}}]},
    },
  },
  {
    label: "no Mcp-Method",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-method": null },
    },
    routes: HTTP_ROUTES,
    eras: MODERN,
    // deno-fmt-ignore
    expect: {
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the body's method is tools/call but the Mcp-Method header is absent"}}]},
    },
  },
  {
    label: "Mcp-Name disagreeing",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-name": "sum" },
    },
    routes: HTTP_ROUTES,
    eras: MODERN,
    // deno-fmt-ignore
    expect: {
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the body's params.name is \"echo\" but Mcp-Name says \"sum\""}}]},
    },
  },
  {
    label: "no Mcp-Name",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "mcp-name": null },
    },
    routes: HTTP_ROUTES,
    eras: MODERN,
    // deno-fmt-ignore
    expect: {
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32020, "message": "Header mismatch: the body's params.name is \"echo\" but the Mcp-Name header is absent"}}]},
    },
  },
  {
    label: "a batch of two calls",
    request: {
      batch: [{ method: "tools/call", params: CALL }, { method: "tools/list" }],
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"tools": [{"name": "echo", "description": "Echoes.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}, {"name": "sum", "description": "Adds, structured.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "liar", "description": "Breaks its output schema.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {}}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "boom", "description": "Throws.", "inputSchema": {"type": "object"}}, {"name": "steps", "description": "Reports progress.", "inputSchema": {"type": "object"}}, {"name": "guarded", "description": "Needs a scope.", "inputSchema": {"type": "object"}}, {"name": "ask", "description": "Asks its caller.", "inputSchema": {"type": "object"}}, {"name": "grow", "description": "Adds a tool while it runs.", "inputSchema": {"type": "object"}}, {"name": "wait", "description": "Waits for its signal.", "inputSchema": {"type": "object"}}]}, "jsonrpc": "2.0", "id": "#1"}, {"result": {"content": [{"type": "text", "text": "heard: hi"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: a JSON-RPC batch may not carry modern (2026-07-28) requests"}}]},
    },
  },
  {
    label: "a notification-shaped call",
    request: { method: "tools/call", params: CALL, id: null },
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 202, "type": "none", "messages": []},
      "2026-07-28": {"status": 202, "type": "none", "messages": []},
    },
  },
  {
    label: "scopes lacking",
    request: {
      method: "tools/call",
      params: { name: "guarded" },
      token: "orders:read",
    },
    routes: HTTP_ROUTES,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 403, "type": "json", "messages": [{"error": "insufficient_scope", "error_description": "the token lacks the scope orders:write"}]},
      "2026-07-28": {"status": 403, "type": "json", "messages": [{"error": "insufficient_scope", "error_description": "the token lacks the scope orders:write"}]},
    },
  },
  // A session-less request on the sessions route: its shape is refused
  // first, as the SDK transport orders it.
  {
    label: "no session, Accept: application/json alone",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { accept: "application/json" },
      sessionless: true,
    },
    routes: ["sessions"],
    eras: LEGACY,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 406, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}, "id": null}]},
    },
  },
  {
    label: "no session, Content-Type: text/plain",
    request: {
      method: "tools/call",
      params: CALL,
      headers: { "content-type": "text/plain" },
      sessionless: true,
    },
    routes: ["sessions"],
    eras: LEGACY,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 415, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Unsupported Media Type: Content-Type must be application/json"}, "id": null}]},
    },
  },
  {
    label: "no session, a well-formed call",
    request: { method: "tools/call", params: CALL, sessionless: true },
    routes: ["sessions"],
    eras: LEGACY,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 400, "type": "json", "messages": [{"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}, "id": null}]},
    },
  },
  // Answers.
  {
    label: "a listing",
    request: { method: "tools/list", params: {} },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"tools": [{"name": "echo", "description": "Echoes.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}, {"name": "sum", "description": "Adds, structured.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "liar", "description": "Breaks its output schema.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {}}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "boom", "description": "Throws.", "inputSchema": {"type": "object"}}, {"name": "steps", "description": "Reports progress.", "inputSchema": {"type": "object"}}, {"name": "guarded", "description": "Needs a scope.", "inputSchema": {"type": "object"}}, {"name": "ask", "description": "Asks its caller.", "inputSchema": {"type": "object"}}, {"name": "grow", "description": "Adds a tool while it runs.", "inputSchema": {"type": "object"}}, {"name": "wait", "description": "Waits for its signal.", "inputSchema": {"type": "object"}}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"tools": [{"name": "echo", "description": "Echoes.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}, {"name": "sum", "description": "Adds, structured.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "liar", "description": "Breaks its output schema.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {}}, "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"], "additionalProperties": false}}, {"name": "boom", "description": "Throws.", "inputSchema": {"type": "object"}}, {"name": "steps", "description": "Reports progress.", "inputSchema": {"type": "object"}}, {"name": "guarded", "description": "Needs a scope.", "inputSchema": {"type": "object"}}, {"name": "ask", "description": "Asks its caller.", "inputSchema": {"type": "object"}}, {"name": "grow", "description": "Adds a tool while it runs.", "inputSchema": {"type": "object"}}, {"name": "wait", "description": "Waits for its signal.", "inputSchema": {"type": "object"}}], "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}, "ttlMs": 0, "cacheScope": "private"}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "a call",
    request: { method: "tools/call", params: CALL },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "heard: hi"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "heard: hi"}], "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "scopes granted",
    request: {
      method: "tools/call",
      params: { name: "guarded" },
      token: "orders:write",
    },
    routes: HTTP_ROUTES,
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "for app"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "for app"}], "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "bad arguments",
    request: {
      method: "tools/call",
      params: { name: "echo", arguments: { text: 5 } },
    },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "INVALID_INPUT: tool \"echo\": field \"text\": expected string, got number"}], "isError": true}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "INVALID_INPUT: tool \"echo\": field \"text\": expected string, got number"}], "isError": true, "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "an unknown tool",
    request: { method: "tools/call", params: { name: "nope", arguments: {} } },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "unknown tool \"nope\""}}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "unknown tool \"nope\""}}]},
    },
  },
  {
    label: "a numeric name",
    request: { method: "tools/call", params: { name: 5 } },
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "MCP error -32602: Invalid tools/call request: [\n  {\n    \"expected\": \"string\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"params\",\n      \"name\"\n    ],\n    \"message\": \"Invalid input: expected string, received number\"\n  }\n]"}}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32602, "message": "MCP error -32602: Invalid tools/call request: [\n  {\n    \"expected\": \"string\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"params\",\n      \"name\"\n    ],\n    \"message\": \"Invalid input: expected string, received number\"\n  }\n]"}}]},
    },
  },
  {
    label: "a structured result",
    request: {
      method: "tools/call",
      params: { name: "sum", arguments: { a: 1, b: 2 } },
    },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}, "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "an output-schema failure",
    request: { method: "tools/call", params: { name: "liar", arguments: {} } },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "tool \"liar\" result does not match its output schema: field \"sum\": expected number, got string"}], "isError": true}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "tool \"liar\" result does not match its output schema: field \"sum\": expected number, got string"}], "isError": true, "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "a thrown failure",
    request: { method: "tools/call", params: { name: "boom" } },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "kaput"}], "isError": true}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "kaput"}], "isError": true, "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "progress",
    request: {
      method: "tools/call",
      params: { name: "steps", _meta: { progressToken: "p1" } },
    },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"method": "notifications/progress", "params": {"progressToken": "p1", "progress": 1, "total": 2, "message": "step 1"}, "jsonrpc": "2.0"}, {"method": "notifications/progress", "params": {"progressToken": "p1", "progress": 2, "total": 2, "message": "step 2"}, "jsonrpc": "2.0"}, {"result": {"content": [{"type": "text", "text": "walked"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"method": "notifications/progress", "params": {"progressToken": "p1", "progress": 1, "total": 2, "message": "step 1"}, "jsonrpc": "2.0"}, {"method": "notifications/progress", "params": {"progressToken": "p1", "progress": 2, "total": 2, "message": "step 2"}, "jsonrpc": "2.0"}, {"result": {"content": [{"type": "text", "text": "walked"}], "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
  },
  {
    label: "an input request",
    request: { method: "tools/call", params: { name: "ask" } },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "tool \"ask\" asked for input, but no session carries the client's answer (a 2025 client served statelessly); serve with sessions to ask such clients"}], "isError": true}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [], "resultType": "input_required", "inputRequests": {"ask_0": {"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": {"type": "object", "properties": {"pick": {"type": "string"}}}}}}, "requestState": "<signed>", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
    // deno-fmt-ignore
    except: {
      sessions: {
        "2025-11-25": {"status": 200, "type": "sse", "messages": [{"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": {"type": "object", "properties": {"pick": {"type": "string"}}}}, "jsonrpc": "2.0", "id": 0}]},
      },
      stdio: {
        "2025-11-25": {"messages": [{"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": {"type": "object", "properties": {"pick": {"type": "string"}}}}, "jsonrpc": "2.0", "id": 0}, {"result": {"content": [{"type": "text", "text": "{\"action\":\"accept\",\"content\":{\"pick\":\"blue\"}}"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      },
    },
  },
  {
    label: "a task asked",
    request: { method: "tools/call", params: { ...CALL, task: { ttl: 1000 } } },
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32603, "message": "Server does not support task creation (required for tools/call)"}}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"jsonrpc": "2.0", "id": "#0", "error": {"code": -32603, "message": "Server does not support task creation (required for tools/call)"}}]},
    },
  },
  {
    label: "a list change during a call",
    request: { method: "tools/call", params: { name: "grow" } },
    direct: true,
    // deno-fmt-ignore
    expect: {
      "2025-11-25": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "grown"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      "2026-07-28": {"status": 200, "type": "sse", "messages": [{"result": {"content": [{"type": "text", "text": "grown"}], "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "routes", "version": "1"}}}, "jsonrpc": "2.0", "id": "#0"}]},
    },
    // deno-fmt-ignore
    except: {
      stdio: {
        "2025-11-25": {"messages": [{"method": "notifications/tools/list_changed", "jsonrpc": "2.0"}, {"result": {"content": [{"type": "text", "text": "grown"}]}, "jsonrpc": "2.0", "id": "#0"}]},
      },
    },
  },
];
