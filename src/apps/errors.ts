/**
 * What `appHost` refuses a page or a view, as a value: the gate and why.
 *
 * @module
 */

/**
 * Which gate refused:
 * - `not_ui_uri`: a view read of a URI that is not `ui://`;
 * - `foreign_resource`: a `ui://` URI no tool of the view's server names;
 * - `wrong_mime_type`: the server answered a view read with another MIME type;
 * - `foreign_tool`: a view called a tool its server does not have (another server's);
 * - `not_app_visible`: a view called a tool whose visibility lacks `"app"`;
 * - `view_changed`: with `pins`, the view changed since it was pinned and
 *   the page denied it;
 * - `not_app_message`: a view's message that is not text from the app;
 * - `unknown_server`, `unknown_run`: the page named neither;
 * - `unknown_call`: a decision on a view call that is not waiting for approval.
 */
export type AppGate =
  | "not_ui_uri"
  | "foreign_resource"
  | "wrong_mime_type"
  | "foreign_tool"
  | "not_app_visible"
  | "view_changed"
  | "not_app_message"
  | "unknown_server"
  | "unknown_run"
  | "unknown_call";

/**
 * A request `appHost` refused: `gate` says which check, the message what
 * was asked and of which server. Answered as HTTP 403 (404 for an unknown
 * run, server or parked call) with `{ error: { gate, message } }`.
 *
 * @example Tell a refusal by its gate
 * ```ts
 * import { AppGateError } from "@weft/mcp/apps";
 * import assert from "node:assert/strict";
 *
 * const error = new AppGateError("not_ui_uri", 'view read of "https://x": only ui:// URIs are views');
 * assert.equal(error.gate, "not_ui_uri");
 * ```
 */
export class AppGateError extends Error {
  /** The gate that refused. */
  readonly gate: AppGate;

  /** Builds the refusal. */
  constructor(gate: AppGate, message: string, options?: ErrorOptions) {
    super(`appHost: ${message}`, options);
    this.name = "AppGateError";
    this.gate = gate;
  }

  /** The HTTP status it is answered with. */
  get status(): number {
    return this.gate === "unknown_run" || this.gate === "unknown_server" ||
        this.gate === "unknown_call"
      ? 404
      : 403;
  }
}
