/**
 * The SDK `Client` a server's tools are imported through: it routes every
 * request to whatever connection the server has now.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import type {
  AnySchema,
  SchemaOutput,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  ClientRequest,
  Implementation,
  Request as McpRequest,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";

/** What the routed client sends its requests to. */
export interface RequestRoute {
  /** Sends a request over the current connection. */
  request<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>>;
  /** The current connection's `serverInfo`. */
  readonly serverInfo: Implementation | undefined;
  /** The current connection's capabilities. */
  readonly capabilities: ServerCapabilities | undefined;
}

/**
 * The SDK `Client` `importTools` is given: every request goes to the
 * server's current connection, so imported tools outlive a reconnect.
 */
export class RoutedClient extends Client {
  readonly #server: RequestRoute;

  /** Builds the client over `server`. */
  constructor(server: RequestRoute) {
    super({ name: "weft-mcp-routed", version: "0" });
    this.#server = server;
  }

  override request<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    return this.#server.request(request, resultSchema, options);
  }

  override getServerVersion(): Implementation | undefined {
    return this.#server.serverInfo;
  }

  override getServerCapabilities(): ServerCapabilities | undefined {
    return this.#server.capabilities;
  }
}
