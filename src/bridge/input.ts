/**
 * Input an MCP server asks for during a call, as `importTools` hands it to
 * the host: the handler that answers at once, and what it learns.
 *
 * @module
 */

import type { InputRequest, InputResponse } from "../core/input.ts";
export { forwardElicitation } from "./_elicit.ts";

/**
 * What an `onInput` handler learns beside the request.
 *
 * @example The context of one request
 * ```ts
 * import type { InputContext } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 * const context: InputContext = { server: "ops", tool: "deploy", signal: new AbortController().signal };
 * assert.equal(context.tool, "deploy");
 * ```
 */
export interface InputContext {
  /** The server that asks (the name it introduced itself with; `""` when unknown). */
  readonly server: string;
  /** The tool, as the server names it. */
  readonly tool: string;
  /** Aborts when the call ends. */
  readonly signal: AbortSignal;
}

/**
 * Answers a server's request for input at once (a UI, a test): resolves
 * to the answer (for an elicitation, `{ action: "accept", content }`,
 * `{ action: "decline" }` or `{ action: "cancel" }`). What it throws fails
 * the call (the model reads `mcp: <message>` for a 2025 server, the
 * handler's error otherwise).
 *
 * @example Accept every form with its defaults
 * ```ts
 * import type { InputHandler } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const acceptDefaults: InputHandler = (request) =>
 *   request.method === "elicitation/create"
 *     ? { action: "accept", content: {} }
 *     : { action: "decline" };
 * assert.deepEqual(
 *   await acceptDefaults(
 *     { method: "elicitation/create", params: { message: "Name?" } },
 *     { server: "s", tool: "t", signal: new AbortController().signal },
 *   ),
 *   { action: "accept", content: {} },
 * );
 * ```
 */
export type InputHandler = (
  request: InputRequest,
  context: InputContext,
) => InputResponse | Promise<InputResponse>;
