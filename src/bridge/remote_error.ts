/**
 * The two ways a call of an imported tool fails, both tool errors — data the
 * model sees, never run errors.
 *
 * @module
 */

import { errorText, ToolError } from "../core/errors.ts";

/** The text of a remote `isError` result that rendered empty. */
const emptyRemoteErrorText = "mcp: tool returned an error";

/**
 * The server answered `isError: true`. The message is the result's rendering
 * verbatim (no code, no prefix), or `mcp: tool returned an error` when it
 * renders empty. `code` is `""`.
 *
 * @example Using `RemoteToolError`
 * ```ts
 * import { RemoteToolError } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * assert.equal(new RemoteToolError("rate limited").message, "rate limited");
 * assert.equal(new RemoteToolError("").message, "mcp: tool returned an error");
 * ```
 */
export class RemoteToolError extends ToolError {
  /** Builds the error from the rendered result text. */
  constructor(rendered: string, options?: ErrorOptions) {
    super("", rendered === "" ? emptyRemoteErrorText : rendered, options);
    this.name = "RemoteToolError";
  }
}

/**
 * A `tools/call` request failed: the transport, a JSON-RPC error, a result
 * that is not an object, or the call's signal ending. Reads
 * `mcp: <the failure's message>`; the failure is the `cause`. `code` is `""`.
 *
 * @example Using `McpTransportError`
 * ```ts
 * import { McpTransportError } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 * const err = new McpTransportError(new Error("Connection closed"));
 * assert.equal(err.message, "mcp: Connection closed");
 * ```
 */
export class McpTransportError extends ToolError {
  /** Wraps the request's failure `cause`. */
  constructor(cause: unknown) {
    super("", `mcp: ${errorText(cause)}`, { cause });
    this.name = "McpTransportError";
  }
}
