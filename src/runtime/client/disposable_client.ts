/**
 * The client `connectStdio` and `connectHttp` return: an SDK `Client` that
 * owns its connection, is `AsyncDisposable`, and fails calls with the
 * connection's own error when the connection is lost.
 *
 * @module
 */

import { Client } from "../sdk_client.ts";
import type {
  AnySchema,
  ClientOptions,
  ClientRequest,
  Implementation,
  Request as McpRequest,
  RequestOptions,
  SchemaOutput,
  Transport,
} from "../sdk_types.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ConnectionLostError,
  InitializeTimeoutError,
  ServerConnectError,
} from "../errors.ts";
import { linkSignal } from "../../core/abort.ts";
import type { EraInfo } from "../era/era_client.ts";
import { isPlainResultResponse, laneSchema } from "./_response_lane.ts";
import { resultDelivery, shareDeadlines } from "./_protocol_lane.ts";
import { clientHandshake } from "../../seam/sdk_internals.ts";
import {
  SessionKeeper,
  type SessionRenewal,
  sessionRenewalOf,
} from "./_session_renewal.ts";

/** A result response `isPlainResultResponse` accepted. */
type PlainResult = { id: string | number; result: Record<string, unknown> };

/** The name and version a runtime client introduces itself with by default. */
export const DEFAULT_CLIENT_INFO: Implementation = {
  name: "weft-mcp",
  version: "0.1.0",
};

/**
 * How a connector ties a {@link McpClient} to the connection it owns.
 * Connectors implement it; users do not need to.
 */
export interface ClientLink {
  /** Why the connection ended, once it has ended on its own; else `undefined`. */
  lost(): ConnectionLostError | undefined;
  /**
   * Ends the connection. `closeProtocol` closes the SDK side (the
   * transport); the link decides what runs before and after it (a DELETE
   * of the HTTP session, killing a child). Called on every `close()`;
   * must be idempotent.
   */
  close(closeProtocol: () => Promise<void>): Promise<void>;
  /** The protocol era the connection speaks, once connected. */
  protocolEra?(): EraInfo | undefined;
  /** The server's latest name and version (modern results carry it), if known. */
  serverInfo?(): Implementation | undefined;
}

/** The default of `initializeTimeout`: 30 s. */
export const DEFAULT_INITIALIZE_TIMEOUT = 30_000;

/** Where {@link handshake} connects, and under which deadlines. */
export interface HandshakeOptions {
  /** The caller's signal: aborting rejects with its reason, unchanged. */
  readonly signal?: AbortSignal;
  /** The initialize deadline in ms. Default `DEFAULT_INITIALIZE_TIMEOUT`. */
  readonly initializeTimeout?: number;
  /** The server's name, for the error. */
  readonly name: string;
  /** The command line or URL, for the error. */
  readonly target: string;
}

/**
 * Connects `client` over `transport` (the MCP initialize handshake) under the
 * caller's signal and the initialize deadline. A failure closes the client,
 * then rejects with the signal's reason when the signal ended it, else with
 * a `ServerConnectError` in phase `initialize` whose cause is the failure
 * (an `InitializeTimeoutError` when the deadline passed). The one handshake
 * of `connectStdio`, `connectHttp` and `connectSse`.
 */
export async function handshake(
  client: McpClient,
  transport: Transport,
  options: HandshakeOptions,
): Promise<void> {
  const { signal } = options;
  const limit = options.initializeTimeout ?? DEFAULT_INITIALIZE_TIMEOUT;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new InitializeTimeoutError(limit)),
    limit,
  );
  const onAbort = () => deadline.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await client.connect(transport, { signal: deadline.signal });
  } catch (error) {
    await client.close();
    if (signal?.aborted) throw signal.reason;
    const cause = deadline.signal.aborted ? deadline.signal.reason : error;
    throw new ServerConnectError(
      options.name,
      options.target,
      "initialize",
      cause,
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Closes `client` when `signal` aborts (at once if it already has).
 * Returns the function that stops watching; connectors call it on close.
 */
export function closeClientOnAbort(
  signal: AbortSignal | undefined,
  client: McpClient,
): () => void {
  if (signal === undefined) return () => {};
  const onAbort = () => void client.close();
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/**
 * An SDK `Client` that owns its connection: `close()` (or `await using`)
 * ends it — the child process and its descendants for `connectStdio`, the
 * HTTP session for `connectHttp`.
 *
 * Failures are rewritten in two cases, and only these. A request whose
 * `signal` aborted rejects with the signal's reason, unchanged (the SDK
 * wraps it in an `McpError`). A request that failed because the connection
 * was lost — the server process exited, an HTTP response stream broke
 * before its answer, an HTTP request failed before its response — rejects
 * with a {@link ConnectionLostError} naming the cause (e.g.
 * `server process was killed by SIGKILL`; no `mcp: ` prefix — through
 * `importTools` the model reads
 * `mcp: server process was killed by SIGKILL`), at once, instead of the
 * SDK's `Connection closed` or a hang until the SDK's timeout.
 *
 * A request's `signal` reaches the SDK as a child detached when the request
 * settles: the SDK never removes its abort listeners, so a caller's
 * `AbortSignal.timeout` would otherwise keep the process alive after close.
 *
 * @example Dispose of a connection with `await using`
 * ```ts
 * import { connectHttp, httpHandler, McpClient, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const http = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   httpHandler(() => new Server({ name: "demo", version: "1.0.0" })),
 * );
 * {
 *   await using client = await connectHttp(`http://127.0.0.1:${http.addr.port}/mcp`);
 *   assert.ok(client instanceof McpClient);
 *   assert.equal(client.getServerVersion()?.name, "demo");
 * } // closed here
 * await http.shutdown();
 * ```
 */
export class McpClient extends Client implements AsyncDisposable {
  readonly #link: ClientLink;

  /** Builds a client; `link` is the connector's handle on the connection. */
  constructor(
    info: Implementation,
    options: ClientOptions | undefined,
    link: ClientLink,
  ) {
    super(info, options);
    this.#link = link;
    // One timer for every request's deadline, not one per request.
    shareDeadlines(this);
    const session = sessionRenewalOf(link);
    if (session !== undefined) {
      this.#keeper = new SessionKeeper(
        session,
        () => this.#initializeAgain(session),
      );
    }
  }

  /** Renews the HTTP session after a 404, on a connection that holds one. */
  readonly #keeper?: SessionKeeper;

  /**
   * Sends a request like the SDK's `request`, with the failure rewrites
   * described on the class. On a connection with sessions, a request the
   * server answers `404 Session not found` begins a new session (one
   * `initialize`, shared by every request that met the same 404) and is
   * sent once more; a second 404 rejects with a `SessionNotFoundError`.
   */
  override request<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    const keeper = this.#keeper;
    if (keeper === undefined || request.method === "initialize") {
      return this.#send(request, resultSchema, options);
    }
    return keeper.run(
      () => this.#send(request, resultSchema, options),
      options?.signal,
    );
  }

  /** The SDK `Client`'s handshake again, on the same transport, without a session id. */
  async #initializeAgain(session: SessionRenewal): Promise<void> {
    const fields = clientHandshake(this);
    const result = await super.request(
      {
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: fields?.capabilities ?? {},
          clientInfo: fields?.clientInfo ?? DEFAULT_CLIENT_INFO,
        },
      } as ClientRequest,
      InitializeResultSchema,
      { timeout: session.initializeTimeout },
    );
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      throw new Error(
        `the server's protocol version is not supported: ${result.protocolVersion}`,
      );
    }
    fields?.record(result);
    this.transport?.setProtocolVersion?.(result.protocolVersion);
    await this.notification({ method: "notifications/initialized" });
  }

  async #send<T extends AnySchema>(
    request: ClientRequest | McpRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    // The SDK adds an abort listener to the signal it is given and never
    // removes it; a caller's `AbortSignal.timeout` would then keep the
    // process alive until it fires. The SDK gets a child, detached when the
    // request settles (the handshake included: `connect` goes through here).
    const parent = options?.signal;
    const link = parent === undefined ? undefined : linkSignal(parent);
    try {
      // A plain `tools/call` result is taken as it is (the SDK's schema
      // would give back the same); anything else is parsed by the schema.
      return await super.request(
        request,
        laneSchema(resultSchema),
        link === undefined ? options : { ...options, signal: link.signal },
      );
    } catch (error) {
      throw this.#rewrite(error, options?.signal);
    } finally {
      link?.unlink();
    }
  }

  /**
   * Connects like the SDK's `connect`; then a plain result response goes
   * straight to its request, past the SDK's zod checks of every message's
   * kind (anything else takes the SDK's way).
   */
  override async connect(
    transport: Transport,
    options?: RequestOptions,
  ): Promise<void> {
    const before = transport.onmessage;
    await super.connect(transport, options);
    const sdk = transport.onmessage;
    if (sdk === undefined) return;
    transport.onmessage = (message, extra) => {
      const deliver = isPlainResultResponse(message)
        ? resultDelivery(this, message as PlainResult)
        : undefined;
      if (deliver === undefined) return sdk(message, extra);
      before?.(message, extra);
      deliver();
    };
  }

  /**
   * The protocol era this connection speaks (`"modern"`: 2026-07-28,
   * `"legacy"`: the `initialize` handshake), the revision, and whether the
   * verdict came from the era store; `undefined` before the handshake.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  getProtocolEra(): EraInfo | undefined {
    return this.#link.protocolEra?.();
  }

  /** The server's name and version: from `initialize`, or in the modern era from the latest result. */
  override getServerVersion(): Implementation | undefined {
    return this.#link.serverInfo?.() ?? super.getServerVersion();
  }

  /** Closes the SDK side and ends the connection this client owns. Idempotent. */
  override async close(): Promise<void> {
    await this.#link.close(() => super.close());
  }

  /** Same as {@link McpClient.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #rewrite(error: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (
      error instanceof McpError && error.data instanceof ConnectionLostError
    ) return error.data;
    const lost = this.#link.lost();
    if (lost === undefined) return error;
    if (
      !(error instanceof McpError) || error.code === ErrorCode.ConnectionClosed
    ) return lost;
    return error;
  }
}
