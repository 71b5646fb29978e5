/**
 * The MCP SDK's `Server`, `Client` and `InMemoryTransport`, offered under
 * `@weft/mcp` so every page spells one import. Each is a subclass of the
 * SDK class of the copy this module depends on, adding nothing: an instance
 * is an instance of the SDK class, goes wherever the SDK's goes, and behaves
 * exactly as the SDK documents it.
 *
 * @module
 */

import { Client as SdkClient } from "@modelcontextprotocol/sdk/client";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport as SdkInMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type {
  ClientOptions,
  Implementation,
  ServerOptions,
} from "./sdk_types.ts";

// The SDK classes, documented by the SDK itself; marked internal so the
// documentation of this package stops at the subclasses below.
/** @internal */
class SdkServerBase extends SdkServer {}
/** @internal */
class SdkClientBase extends SdkClient {}
/** @internal */
class SdkInMemoryTransportBase extends SdkInMemoryTransport {}

/**
 * The MCP SDK's low-level `Server` (`@modelcontextprotocol/sdk/server`):
 * `new Server(info, options?)`, `connect(transport)`, `close()`,
 * `setRequestHandler(schema, handler)` and the rest, as the SDK documents
 * them. Hand it to `exportTools`, `serveAgent`, `serveStdio` or
 * `httpHandler`, or to any SDK API that takes the SDK's `Server`.
 *
 * @example Serve a tool on a server and list it from a client
 * ```ts
 * import { Client, exportTools, InMemoryTransport, rawTool, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * exportTools(server, rawTool({
 *   name: "echo",
 *   description: "Echoes its arguments.",
 *   inputSchema: { type: "object" },
 *   run: (args) => args,
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo-client", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assert.deepEqual(tools.map((t) => t.name), ["echo"]);
 * await client.close();
 * ```
 */
export class Server extends SdkServerBase {
  /**
   * Builds a server from its `{ name, version }` and the SDK's server
   * options (`capabilities`, `instructions`, ...).
   */
  constructor(info: Implementation, options?: ServerOptions) {
    super(info, options);
  }
}

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

/**
 * The MCP SDK's in-memory transport (`@modelcontextprotocol/sdk/inMemory.js`):
 * `InMemoryTransport.createLinkedPair()` returns two linked ends, one for a
 * client and one for a server, in the same process. The ends are the SDK's
 * own `InMemoryTransport` instances.
 *
 * @example Link a client and a server in one process
 * ```ts
 * import { Client, InMemoryTransport, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo-client", version: "1.0.0" });
 * await client.connect(clientSide);
 * assert.deepEqual(await client.ping(), {});
 * await client.close();
 * ```
 */
export class InMemoryTransport extends SdkInMemoryTransportBase {}
