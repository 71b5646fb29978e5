/**
 * The refusals every request kind of the HTTP server transport shares: a
 * request for another (or no) session, an unsupported protocol version,
 * and the answers that hold nothing once sent. The SDK transport's words.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcError } from "./guard.ts";
import type { EndListener, StreamTable } from "./_stream_table.ts";

/** A request answered with no stream: it holds nothing once answered. */
export function without(onEnd: EndListener, response: Response): Response {
  onEnd("delivered");
  return response;
}

/** A refusal the server hears of (`onerror`), as the client reads it. */
export function refuse(
  table: StreamTable,
  status: number,
  code: number,
  message: string,
): Response {
  table.fail(new Error(message));
  return jsonRpcError(status, code, message);
}

/** A refusal, as an answer that holds nothing. */
export function decline(
  table: StreamTable,
  onEnd: EndListener,
  status: number,
  code: number,
  message: string,
): Response {
  return without(onEnd, refuse(table, status, code, message));
}

/** Session mode: the refusal of a request not for this initialized session. */
export function checkSession(
  table: StreamTable,
  req: Request,
): Response | undefined {
  if (table.options.sessionId === undefined) return undefined;
  if (!table.initialized) {
    return refuse(table, 400, -32000, "Bad Request: Server not initialized");
  }
  const id = req.headers.get("mcp-session-id");
  if (!id) {
    return refuse(
      table,
      400,
      -32000,
      "Bad Request: Mcp-Session-Id header is required",
    );
  }
  if (id !== table.sessionId) {
    return refuse(table, 404, -32001, "Session not found");
  }
  return undefined;
}

/** The refusal of an `MCP-Protocol-Version` the SDK does not support. */
export function checkVersion(
  table: StreamTable,
  header: string | null,
): Response | undefined {
  if (
    header === null || table.options.modern === true ||
    SUPPORTED_PROTOCOL_VERSIONS.includes(header)
  ) {
    return undefined;
  }
  const list = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
  return refuse(
    table,
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${header} (supported versions: ${list})`,
  );
}

/** Both checks of a request that is not `initialize`. */
export function checkRequest(
  table: StreamTable,
  req: Request,
): Response | undefined {
  return checkSession(table, req) ??
    checkVersion(table, req.headers.get("mcp-protocol-version"));
}
