/**
 * The MCP SDK's `Client`, offered under `@weft/mcp` (see ./sdk.ts): a
 * subclass of the SDK class adding nothing. Apart from ./sdk.ts so the
 * client runtimes do not load the SDK's server.
 *
 * @module
 */

import { Client as SdkClient } from "@modelcontextprotocol/sdk/client";
import type { ClientOptions, Implementation } from "./sdk_types.ts";

// The SDK class, documented by the SDK itself; marked internal so the
// documentation of this package stops at the subclass below.
/** @internal */
class SdkClientBase extends SdkClient {}

/**
 * The MCP SDK's `Client` (`@modelcontextprotocol/sdk/client`):
 * `new Client(info, options?)`, `connect(transport)`, `listTools()`,
 * `callTool(params)`, `close()` and the rest, as the SDK documents them.
 * Hand it to `importTools`, or to any SDK API that takes the SDK's `Client`.
 *
 * @example Connect a client and read the server's name
 * ```ts
 * import { Client, InMemoryTransport, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo-client", version: "1.0.0" });
 * await client.connect(clientSide);
 * assert.equal(client.getServerVersion()?.name, "demo");
 * await client.close();
 * ```
 */
export class Client extends SdkClientBase {
  /**
   * Builds a client from its `{ name, version }` and the SDK's client
   * options (`capabilities`, ...).
   */
  constructor(info: Implementation, options?: ClientOptions) {
    super(info, options);
  }
}
