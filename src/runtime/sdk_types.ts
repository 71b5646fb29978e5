/**
 * The MCP SDK types the runtime's signatures use, under names of this
 * package. Each is the SDK's own type (the copy this module depends on),
 * not a copy of its shape: a value of one is a value of the other, both
 * ways. The SDK documents their members.
 *
 * @module
 */

import type {
  FetchLike as SdkFetchLike,
  Transport as SdkTransport,
} from "@modelcontextprotocol/sdk/shared/transport";
import type { RequestOptions as SdkRequestOptions } from "@modelcontextprotocol/sdk/shared/protocol";
import type { ClientOptions as SdkClientOptions } from "@modelcontextprotocol/sdk/client";
import type { ServerOptions as SdkServerOptions } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import type {
  AnySchema as SdkAnySchema,
  SchemaOutput as SdkSchemaOutput,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  ClientCapabilities as SdkClientCapabilities,
  ClientRequest as SdkClientRequest,
  Implementation as SdkImplementation,
  Request as SdkRequest,
} from "@modelcontextprotocol/sdk/types.js";

// The SDK's declarations, documented by the SDK; marked internal so this
// package's documentation stops at the names below.
/** @internal */
type TransportOfSdk = SdkTransport;
/** @internal */
type FetchLikeOfSdk = SdkFetchLike;
/** @internal */
type RequestOptionsOfSdk = SdkRequestOptions;
/** @internal */
type ClientOptionsOfSdk = SdkClientOptions;
/** @internal */
type ServerOptionsOfSdk = SdkServerOptions;
/** @internal */
type AnySchemaOfSdk = SdkAnySchema;
/** @internal */
type SchemaOutputOfSdk<T extends SdkAnySchema> = SdkSchemaOutput<T>;
/** @internal */
type ClientCapabilitiesOfSdk = SdkClientCapabilities;
/** @internal */
type ClientRequestOfSdk = SdkClientRequest;
/** @internal */
type ImplementationOfSdk = SdkImplementation;
/** @internal */
type RequestOfSdk = SdkRequest;

/**
 * An MCP transport, the SDK's `Transport` interface: `start()`,
 * `send(message)`, `close()` and the `onmessage`, `onclose` and `onerror`
 * callbacks. `stdioTransport` returns one; a `Server` or `Client` connects
 * on one.
 *
 * @example Serve on a transport
 * ```ts
 * import { InMemoryTransport, Server } from "@weft/mcp";
 * import type { Transport } from "@weft/mcp/runtime";
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
 * The `fetch` the HTTP client transport calls, the SDK's `FetchLike`: a
 * function of `(url, init?)` resolving to a `Response`.
 *
 * @example A fetch that counts requests
 * ```ts
 * import type { FetchLike } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * let calls = 0;
 * const counting: FetchLike = (url, init) => {
 *   calls++;
 *   return fetch(url, init);
 * };
 * assert.equal(typeof counting, "function");
 * assert.equal(calls, 0);
 * ```
 */
export type FetchLike = FetchLikeOfSdk;

/**
 * The options of one SDK request, the SDK's `RequestOptions`: `signal`,
 * `timeout`, `onprogress`, `resetTimeoutOnProgress`, `maxTotalTimeout`.
 *
 * @example Give a request a deadline
 * ```ts
 * import type { RequestOptions } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const options: RequestOptions = { timeout: 5_000 };
 * assert.equal(options.timeout, 5_000);
 * ```
 */
export type RequestOptions = RequestOptionsOfSdk;

/**
 * The options of the SDK's `Client` constructor (`capabilities`, ...).
 *
 * @example Declare a client capability
 * ```ts
 * import type { ClientOptions } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const options: ClientOptions = { capabilities: { roots: {} } };
 * assert.ok(options.capabilities?.roots);
 * ```
 */
export type ClientOptions = ClientOptionsOfSdk;

/**
 * The options of the SDK's `Server` constructor (`capabilities`,
 * `instructions`, ...).
 *
 * @example Declare the tools capability
 * ```ts
 * import type { ServerOptions } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const options: ServerOptions = { capabilities: { tools: {} } };
 * assert.ok(options.capabilities?.tools);
 * ```
 */
export type ServerOptions = ServerOptionsOfSdk;

/**
 * A result schema the SDK's `request` accepts (a zod schema), the SDK's
 * `AnySchema`.
 *
 * @example Request with one of the SDK's result schemas
 * ```ts
 * import type { AnySchema } from "@weft/mcp/runtime";
 * import { EmptyResultSchema } from "@modelcontextprotocol/sdk/types.js";
 * import assert from "node:assert/strict";
 *
 * const schema: AnySchema = EmptyResultSchema;
 * assert.ok(schema);
 * ```
 */
export type AnySchema = AnySchemaOfSdk;

/**
 * The type a result schema validates to, the SDK's `SchemaOutput`.
 *
 * @example The output of the SDK's empty result schema
 * ```ts
 * import type { SchemaOutput } from "@weft/mcp/runtime";
 * import { EmptyResultSchema } from "@modelcontextprotocol/sdk/types.js";
 * import assert from "node:assert/strict";
 *
 * const empty: SchemaOutput<typeof EmptyResultSchema> = {};
 * assert.deepEqual(empty, {});
 * ```
 */
export type SchemaOutput<T extends AnySchema> = SchemaOutputOfSdk<T>;

/**
 * The capabilities a client declares when it connects, the SDK's
 * `ClientCapabilities`.
 *
 * @example Declare roots
 * ```ts
 * import type { ClientCapabilities } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const capabilities: ClientCapabilities = { roots: { listChanged: true } };
 * assert.equal(capabilities.roots?.listChanged, true);
 * ```
 */
export type ClientCapabilities = ClientCapabilitiesOfSdk;

/**
 * A request a client sends, one of the SDK's `ClientRequest` union.
 *
 * @example A ping
 * ```ts
 * import type { ClientRequest } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const ping: ClientRequest = { method: "ping" };
 * assert.equal(ping.method, "ping");
 * ```
 */
export type ClientRequest = ClientRequestOfSdk;

/**
 * A peer's name and version (and optional title), the SDK's
 * `Implementation`.
 *
 * @example Introduce a client
 * ```ts
 * import type { Implementation } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const info: Implementation = { name: "my-host", version: "1.0.0" };
 * assert.equal(info.name, "my-host");
 * ```
 */
export type Implementation = ImplementationOfSdk;

/**
 * Any JSON-RPC request by method and params, the SDK's `Request`.
 *
 * @example A custom method
 * ```ts
 * import type { Request } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const request: Request = { method: "vendor/hello", params: {} };
 * assert.equal(request.method, "vendor/hello");
 * ```
 */
export type Request = RequestOfSdk;
