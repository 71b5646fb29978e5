/**
 * The MCP SDK's `Server`, `Client` and `InMemoryTransport`, offered under
 * `@weft/mcp` so every page spells one import. Each is a subclass of the
 * SDK class of the copy this module depends on, adding nothing but that
 * `Server` builds the SDK's default JSON Schema validator (Ajv) when it
 * first validates, not when it is made: an instance is an instance of the
 * SDK class, goes wherever the SDK's goes, and behaves exactly as the SDK
 * documents it.
 *
 * @module
 */

import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport as SdkInMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Implementation, ServerOptions } from "./sdk_types.ts";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv-provider"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";

type Validator = NonNullable<ServerOptions["jsonSchemaValidator"]>;

/**
 * The SDK's default JSON Schema validator (Ajv), built when it first
 * validates: building it costs more than the rest of a server, and a
 * server made per request for a `tools/call` never validates anything.
 */
class LazyAjv implements Validator {
  #ajv?: AjvJsonSchemaValidator;

  getValidator: Validator["getValidator"] = (schema) =>
    (this.#ajv ??= new AjvJsonSchemaValidator()).getValidator(schema);
}

// The client lives in its own file so the HTTP client and the stdio client
// load the SDK's client without its server.
export { Client } from "./sdk_client.ts";

// The SDK classes, documented by the SDK itself; marked internal so the
// documentation of this package stops at the subclasses below.
/** @internal */
class SdkServerBase extends SdkServer {}
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
   * options (`capabilities`, `instructions`, ...). Without a
   * `jsonSchemaValidator`, the SDK's Ajv one is built on first use (a
   * server made per request that never validates never builds it).
   */
  constructor(info: Implementation, options?: ServerOptions) {
    super(
      info,
      options?.jsonSchemaValidator === undefined
        ? { ...options, jsonSchemaValidator: new LazyAjv() }
        : options,
    );
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
