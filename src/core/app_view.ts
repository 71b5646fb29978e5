/**
 * A tool's interactive view (MCP Apps): the HTML document a host renders in
 * a sandboxed iframe beside the tool's result, and what the host must allow it.
 *
 * @module
 */

/**
 * The view a tool ships (`tool({ …, app })`): exported, it is served as the
 * `ui://<server>/<tool>` resource (`text/html;profile=mcp-app`) and named on
 * the tool's `_meta.ui.resourceUri`.
 *
 * @example A tool with a view
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import type { ToolAppOptions } from "@weft/mcp/apps";
 * import assert from "node:assert/strict";
 *
 * const app: ToolAppOptions = {
 *   html: "<!doctype html><p>the time</p>",
 *   csp: { connectDomains: ["https://api.example.com"] },
 * };
 * const clock = rawTool({ name: "clock", description: "Now.", app, run: () => "12:00" });
 * assert.equal(clock.app?.html.startsWith("<!doctype"), true);
 * ```
 */
export interface ToolAppOptions {
  /** The whole HTML document of the view. */
  readonly html: string;
  /**
   * The origins the view may reach, for the host's Content-Security-Policy:
   * `connectDomains` (fetch, WebSocket), `resourceDomains` (scripts, styles,
   * images, fonts, media), `frameDomains` (nested iframes), `baseUriDomains`
   * (`<base>`). None: the host's restrictive default (no network).
   */
  readonly csp?: {
    readonly connectDomains?: readonly string[];
    readonly resourceDomains?: readonly string[];
    readonly frameDomains?: readonly string[];
    readonly baseUriDomains?: readonly string[];
  };
  /** Browser features the view asks for (the iframe's `allow`); the host decides. */
  readonly permissions?: {
    readonly camera?: Record<string, never>;
    readonly microphone?: Record<string, never>;
    readonly geolocation?: Record<string, never>;
    readonly clipboardWrite?: Record<string, never>;
  };
  /** The dedicated origin the view asks to run on (host-specific format). */
  readonly domain?: string;
  /** Whether the view prefers a border drawn by the host. */
  readonly prefersBorder?: boolean;
  /**
   * Who may call the tool: `["model", "app"]` (the default), `["app"]` (only
   * its views: a host keeps it from the model) or `["model"]`.
   */
  readonly visibility?: readonly ("model" | "app")[];
}
