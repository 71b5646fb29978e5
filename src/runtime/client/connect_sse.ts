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
import { lostRequest } from "./_http_calls.ts";
import { postedRequestId } from "./_message_ids.ts";
import type { ConnectHttpOptions } from "./connect_http.ts";
import type { FetchLike } from "../sdk_types.ts";
import {
  authorizationErrorIn,
  refusingFetch,
} from "../../auth/client/refusal.ts";
import { oauthFetch } from "../../auth/client/oauth_fetch.ts";
import { AuthorizationError } from "../../auth/client/oauth_client.ts";

/**
 * Connects to a legacy HTTP+SSE MCP endpoint over the SDK's (deprecated)
 * `SSEClientTransport` and resolves to an initialized client that owns the
 * connection. Prefer {@link connectHttp} for any server that speaks
 * Streamable HTTP; this is for the servers that do not yet. Integers beyond
 * 2^53 are rounded by the SDK's JSON reader on this transport.
 *
 * Headers and OAuth as `connectHttp`: `headers` go with every request;
 * with `auth`, the event stream and every message carry its bearer token,
 * and a 401 runs the flow (refresh first, else authorization) before the
 * request is sent again. `protocol` and `eraStore` do not apply (this
 * transport speaks the legacy era only).
 *
 * Rejects as `connectHttp` does: the signal's reason; an
 * `AuthorizationError` when the server wants authorization the connection
 * could not give (a 401 without `auth`, or one that stands); else a
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
  const endpoint = new URL(url);
  const base: FetchLike = options.fetch ??
    ((input, init) => fetch(input, init));
  const naming = { server: options.name ?? endpoint.host, url: endpoint };
  // A 401 or a 403 Bearer challenge that stands is an AuthorizationError.
  const guarded = options.auth === undefined
    ? refusingFetch(base, naming)
    : oauthFetch(options.auth, naming, base);
  // The event stream's failures reach the SDK as an event's text only:
  // the refusal is kept here to reject the connect with.
  let refusal: AuthorizationError | undefined;
  // A message's POST failing at the network loses its call
  // (`ConnectionLostError`), as on `connectHttp`.
  const fetcher: FetchLike = async (input, init) => {
    try {
      return await guarded(input, init);
    } catch (error) {
      if (error instanceof AuthorizationError) refusal ??= error;
      throw postedRequestId(init) === undefined
        ? error
        : lostRequest(error, init);
    }
  };
  const transport = new SSEClientTransport(endpoint, {
    requestInit: options.headers === undefined
      ? undefined
      : { headers: options.headers },
    fetch: fetcher,
  });
  let unwatch = () => {};
  let closing: Promise<void> | undefined;
  const link: ClientLink = {
    lost: (): ConnectionLostError | undefined => undefined,
    close: (closeProtocol) => {
      closing ??= (async () => {
        unwatch();
        await closeProtocol().catch(() => {
          // Nothing lost: the client is closing; the transport's own errors went to its onerror.
        });
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
  try {
    await handshake(client, transport, {
      signal,
      initializeTimeout: options.initializeTimeout,
      name: naming.server,
      target: endpoint.href,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw authorizationErrorIn(error) ?? refusal ?? error;
  }
  unwatch = closeClientOnAbort(signal, client);
  return client;
}
