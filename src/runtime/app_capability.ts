/**
 * Declaring MCP Apps support (the `io.modelcontextprotocol/ui` extension)
 * in a client's capabilities.
 *
 * @module
 */

import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";

/**
 * The client capabilities with the MCP Apps extension declared
 * (`extensions["io.modelcontextprotocol/ui"]`, `mimeTypes:
 * ["text/html;profile=mcp-app"]`) on top of `base`.
 *
 * @example Declare MCP Apps support
 * ```ts
 * import { withAppsCapability } from "@weft/mcp/apps";
 * import assert from "node:assert/strict";
 *
 * const caps = withAppsCapability({ elicitation: {} });
 * assert.deepEqual(caps.extensions, {
 *   "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
 * });
 * ```
 */
export function withAppsCapability(
  base: ClientCapabilities,
): ClientCapabilities {
  return {
    ...base,
    extensions: {
      ...base.extensions,
      "io.modelcontextprotocol/ui": {
        mimeTypes: ["text/html;profile=mcp-app"],
      },
    },
  };
}
