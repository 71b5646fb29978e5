/**
 * The server the runtimes serve, by the members they use. Typed
 * structurally, so an SDK `Server` from any copy of
 * `@modelcontextprotocol/sdk` in the supported range fits, a second
 * physical copy of the same version included.
 *
 * @module
 */

import type { Transport } from "./sdk_types.ts";

/**
 * An MCP server the runtimes can connect to a transport and close: the SDK's
 * `Server` (and `McpServer`'s `server`) in every supported version.
 *
 * @example Serve the SDK's server on a transport
 * ```ts
 * import { InMemoryTransport, Server } from "@weft/mcp";
 * import type { ConnectableServer } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const server: ConnectableServer = new Server({ name: "demo", version: "1.0.0" });
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * await server.close();
 * assert.ok(true);
 * ```
 */
export interface ConnectableServer {
  /** Starts serving on `transport`. */
  connect(transport: Transport): Promise<void>;
  /** Closes the connection and the transport. */
  close(): Promise<void>;
}
