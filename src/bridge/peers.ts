/**
 * The SDK objects the bridge works with, by the members it uses. Typing them
 * structurally rather than as the SDK's classes lets any copy of
 * `@modelcontextprotocol/sdk` in the supported range (1.17 to 1.x) pass,
 * including a second physical copy of the same version from another
 * package's `node_modules`: the classes' private members make two copies
 * incompatible types, the members below do not.
 *
 * @module
 */

import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport";

// The SDK's declaration, documented by the SDK; marked internal so this
// package's documentation stops at `Transport` below.
/** @internal */
type TransportOfSdk = SdkTransport;

/**
 * An MCP transport, the SDK's `Transport` interface (the same type
 * `@weft/mcp/runtime` exports under this name): what a server connects on.
 *
 * @example Connect a server on one end of an in-memory pair
 * ```ts
 * import { InMemoryTransport, Server } from "@weft/mcp";
 * import type { Transport } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 *
 * const [, serverSide]: Transport[] = InMemoryTransport.createLinkedPair();
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * await server.connect(serverSide);
 * assert.equal(server.transport, serverSide);
 * await server.close();
 * ```
 */
export type Transport = TransportOfSdk;

/**
 * A low-level MCP `Server` as the bridge needs it: `exportTools` and
 * `serveAgent` accept any object with these members, which the SDK's
 * `Server` has in every supported version.
 *
 * @example Export onto the SDK's server
 * ```ts
 * import { exportTools, rawTool, Server } from "@weft/mcp";
 * import type { ToolServer } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 *
 * const server: ToolServer = new Server({ name: "demo", version: "1.0.0" });
 * const echo = rawTool({
 *   name: "echo",
 *   description: "Echoes its arguments.",
 *   inputSchema: { type: "object" },
 *   run: (args) => args,
 * });
 * exportTools(server, echo);
 * assert.equal(server.transport, undefined);
 * ```
 */
export interface ToolServer {
  /** The transport the server is connected on, `undefined` before `connect`. */
  readonly transport?: unknown;
  /** Connects the server to a transport and starts serving. */
  connect(transport: Transport): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
  /** Adds capabilities before `connect` (the bridge declares `tools`). */
  registerCapabilities(capabilities: {
    tools?: { listChanged?: boolean };
  }): void;
  /** Throws when a handler for `method` is already installed. */
  assertCanSetRequestHandler(method: string): void;
  /**
   * Installs the handler for the requests one of the SDK's request schemas
   * matches. The handler's second argument is the SDK's own handler context
   * (the request's signal, progress token and notification sender).
   */
  setRequestHandler(
    requestSchema: unknown,
    handler: (
      request: ToolRequest,
      extra: unknown,
    ) => Record<string, unknown> | Promise<Record<string, unknown>>,
  ): void;
  /** Tells a connected client that the tool list changed. */
  sendToolListChanged(): Promise<void>;
}

/** A JSON-RPC request as the bridge sends it through a `ToolClient`. */
export interface ToolRequest {
  /** The method, `tools/list` or `tools/call`. */
  method: string;
  /** The request's parameters. */
  params?: Record<string, unknown>;
}

/** The options the bridge passes with a request. */
export interface ToolRequestOptions {
  /** Cancels the request. */
  signal?: AbortSignal;
  /** The SDK's own request timeout, in milliseconds. */
  timeout?: number;
  /** Receives the server's progress notifications for this request. */
  onprogress?: (progress: {
    progress: number;
    total?: number;
    message?: string;
  }) => void;
}

/**
 * An MCP `Client` as the bridge needs it: `importTools` accepts any object
 * whose `request` sends a request and parses the result with the schema it
 * is given, as the SDK's `Client` does in every supported version.
 *
 * @example Import through the SDK's client
 * ```ts
 * import { Client, exportTools, importTools, InMemoryTransport, rawTool, Server } from "@weft/mcp";
 * import type { ToolClient } from "@weft/mcp/bridge";
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
 * const sdkClient = new Client({ name: "demo", version: "1.0.0" });
 * await sdkClient.connect(clientSide);
 *
 * const client: ToolClient = sdkClient;
 * const { tools } = await importTools(client);
 * assert.deepEqual(tools.map((t) => t.name), ["echo"]);
 * await sdkClient.close();
 * ```
 */
export interface ToolClient {
  /** Sends `request` and resolves to its result, parsed by `resultSchema`. */
  request(
    request: ToolRequest,
    resultSchema: unknown,
    options?: ToolRequestOptions,
  ): Promise<unknown>;
}
