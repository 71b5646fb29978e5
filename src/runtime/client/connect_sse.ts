/**
 * `connectSse`: a connected client for a legacy HTTP+SSE endpoint (the
 * transport of MCP's 2024-11-05 revision, which the SDK still speaks).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  type ClientLink,
  closeClientOnAbort,
  DEFAULT_CLIENT_INFO,
  handshake,
  McpClient,
} from "./disposable_client.ts";
import type { ConnectionLostError } from "../errors.ts";
import type { ConnectHttpOptions } from "./connect_http.ts";

/**
 * Connects to a legacy HTTP+SSE MCP endpoint over the SDK's (deprecated)
 * `SSEClientTransport` and resolves to an initialized client that owns the
 * connection. Prefer {@link connectHttp} for any server that speaks
 * Streamable HTTP; this is for the servers that do not yet. Integers beyond
 * 2^53 are rounded by the SDK's JSON reader on this transport.
 *
 * Rejects as `connectHttp` does: the signal's reason, or a
 * `ServerConnectError` (phase `initialize`).
 *
 * @example Using `connectSse`
 * ```ts ignore
 * import { connectSse } from "@weft/mcp/runtime";
 * await using client = await connectSse("http://127.0.0.1:8000/sse");
 * const { tools } = await client.listTools();
 * ```
 */
export async function connectSse(
  url: string | URL,
  options: ConnectHttpOptions = {},
): Promise<McpClient> {
  const signal = options.signal;
  signal?.throwIfAborted();
  const transport = new SSEClientTransport(new URL(url), {
    requestInit: options.headers === undefined
      ? undefined
      : { headers: options.headers },
    fetch: options.fetch,
  });
  let unwatch = () => {};
  let closing: Promise<void> | undefined;
  const link: ClientLink = {
    lost: (): ConnectionLostError | undefined => undefined,
    close: (closeProtocol) => {
      closing ??= (async () => {
        unwatch();
        await closeProtocol().catch(() => {});
      })();
      return closing;
    },
  };
  const client = new McpClient(
    options.clientInfo ?? DEFAULT_CLIENT_INFO,
    { capabilities: options.capabilities ?? { elicitation: {} } },
    link,
  );
  if (options.onerror !== undefined) client.onerror = options.onerror;
  await handshake(client, transport, {
    signal,
    initializeTimeout: options.initializeTimeout,
    name: options.name ?? new URL(url).host,
    target: new URL(url).href,
  });
  unwatch = closeClientOnAbort(signal, client);
  return client;
}
