/**
 * `connectHttp`: a connected client for a Streamable HTTP endpoint.
 *
 * @module
 */

import { withAppsCapability } from "../app_capability.ts";
import type {
  ClientCapabilities,
  FetchLike,
  Implementation,
} from "../sdk_types.ts";
import {
  type ClientLink,
  closeClientOnAbort,
  DEFAULT_CLIENT_INFO,
  DEFAULT_INITIALIZE_TIMEOUT,
  handshake,
  McpClient,
} from "./disposable_client.ts";
import type { ConnectionLostError } from "../errors.ts";
import { isSessionNotFound, LosslessHttpTransport } from "./_http_transport.ts";
import { setSessionRenewal } from "./_session_renewal.ts";
import { oauthFetch } from "../../auth/client/oauth_fetch.ts";
import {
  authorizationErrorIn,
  refusingFetch,
} from "../../auth/client/refusal.ts";
import type { OAuthClientProvider } from "../../auth/client/oauth_client.ts";
import {
  EraClientTransport,
  type EraInfo,
  type ProtocolPreference,
} from "../era/era_client.ts";
import { acceptEraStore, type EraStore } from "../era/era_store.ts";
import { probeHttp } from "./_http_probe.ts";

/**
 * Options of {@link connectHttp}.
 *
 * @example Send a header with every request
 * ```ts
 * import {
 *   connectHttp,
 *   type ConnectHttpOptions,
 *   exportTools,
 *   httpHandler,
 *   importTools,
 *   rawTool,
 *   Server,
 * } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const echo = rawTool({
 *   name: "echo",
 *   description: "Echoes its arguments.",
 *   run: (args) => args,
 * });
 * const http = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   httpHandler(() => {
 *     const server = new Server({ name: "demo", version: "1.0.0" });
 *     exportTools(server, echo);
 *     return server;
 *   }),
 * );
 * const url = `http://127.0.0.1:${http.addr.port}/mcp`;
 *
 * const options: ConnectHttpOptions = { headers: { authorization: "Bearer demo" } };
 * const client = await connectHttp(url, options);
 * const { tools } = await importTools(client);
 * assert.deepEqual(tools.map((t) => t.name), ["echo"]);
 * await client.close();
 * await http.shutdown();
 * ```
 */
export interface ConnectHttpOptions {
  /** Headers sent with every request (an `Authorization` header, say). */
  headers?: HeadersInit;
  /** Aborting ends the connection; during the handshake, rejects with its reason. */
  signal?: AbortSignal;
  /** How the client introduces itself. Default `{ name: "weft-mcp", version: "0.1.0" }`. */
  clientInfo?: Implementation;
  /**
   * The client capabilities to advertise. Default `{ elicitation: {} }`:
   * a server may ask for input during a call, which `importTools` answers
   * (its `onInput`) or parks in the agent run for `answer`.
   */
  capabilities?: ClientCapabilities;
  /**
   * MCP Apps: declare the `io.modelcontextprotocol/ui` extension
   * (`mimeTypes: ["text/html;profile=mcp-app"]`) on top of `capabilities`.
   * Pair with `importTools`' `apps`. Default false.
   */
  apps?: boolean;
  /** The fetch to use; `globalThis.fetch` when absent. */
  fetch?: FetchLike;
  /**
   * OAuth for a server that requires it: an `oauthClient(...)` or any SDK
   * `OAuthClientProvider`. Every request carries its bearer token; a 401
   * runs the flow (refresh first, else authorization), a 403
   * `insufficient_scope` steps up to the union of the scopes held and
   * named (at most `maxStepUps` times a request), and the request goes
   * again. A refusal that stands — or any 401 without `auth` — rejects the
   * connect or the call with an `AuthorizationError`.
   */
  auth?: OAuthClientProvider;
  /** Installed as the client's `onerror` before the handshake. */
  onerror?: (error: Error) => void;
  /** The server's name in errors. Default: the URL's host. */
  name?: string;
  /**
   * Milliseconds the server has to answer `initialize`; then the connect
   * rejects with a `ServerConnectError` (phase `initialize`). Default 30000.
   */
  initializeTimeout?: number;
  /**
   * The protocol era. `"auto"` (the default) sends a `server/discover`
   * first and speaks 2026-07-28 to a server that answers it, the
   * `initialize` handshake to any other (the verdict is kept: see
   * `eraStore`). `"legacy"` pins the handshake and sends no probe;
   * `"modern"` never falls back (`server/discover` is still sent unless a
   * kept verdict holds its answer): a server that does not speak the pinned
   * era fails the connect.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  protocol?: ProtocolPreference;
  /**
   * Where each server's era is kept: a store of `@weft/mcp/store`, or a
   * `Deno.Kv` (taken as `denoKvStore(kv)`); anything else is a `TypeError`
   * at the call. Default: this process's memory, so a reconnect sends no
   * probe; a persistent store keeps it across restarts.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  eraStore?: EraStore;
}

/**
 * Connects to the MCP endpoint at `url` over the SDK's fetch-based
 * `StreamableHTTPClientTransport` and resolves to an initialized client
 * that owns the connection: `close()` or `await using` ends the session
 * with a DELETE (when the server keeps sessions) and closes the transport.
 *
 * Three things are added to the SDK's transport, through its `fetch` hook:
 * - Integers beyond 2^53 keep their digits in both directions (the SDK
 *   parses responses with `JSON.parse`).
 * - A call cancelled through its `signal` also drops its HTTP request, so
 *   a stateless server — where the `notifications/cancelled` lands on a
 *   fresh server — stops the tool too. The call rejects with the
 *   signal's reason, unchanged.
 * - A call whose response stream ends without its answer (the server died,
 *   the connection broke) fails at once with a `ConnectionLostError`
 *   (`the HTTP response stream ended before the response`) instead of
 *   waiting for the SDK's 60-second timeout. A stream the server closed
 *   cleanly after an event id (SEP-1699 resumability) is resumed by the SDK
 *   with `Last-Event-ID`; if that resumption fails, the call fails the same
 *   way at once. A call whose HTTP request fails before its response begins
 *   — nothing listens any more, or the server died or closed the connection
 *   before the response headers — fails with a `ConnectionLostError` too
 *   (`the HTTP request failed before the response (the server could not be
 *   reached, or it closed the connection)`), its `cause` the fetch's own
 *   `TypeError`.
 *
 * A server that answers `404 Session not found` (it restarted, or its
 * session store lost the session) gets a new session, as the protocol asks
 * of a client: the request that met the 404 begins one — an `initialize`
 * and `notifications/initialized` on the same connection, shared by every
 * request that met the same 404 — and is sent once more. If the server
 * does not know the new session either, that request rejects with a
 * `SessionNotFoundError` (it is not sent a third time); a new session that
 * cannot be begun rejects it with a `ServerConnectError` in phase
 * `initialize`, and the next request tries again. A 2026-07-28 connection
 * holds no session.
 *
 * A handshake that fails rejects with the signal's reason when the signal
 * ended it; with an `AuthorizationError` (`status`, `scope`, `challenge`,
 * `server`) when the server wants authorization the connection could not
 * give (a 401, a 403 `insufficient_scope`); else with a
 * `ServerConnectError` naming the server, the URL and the phase
 * (`initialize`): the server refused, could not be reached, or did not
 * answer within `initializeTimeout`. A call the server refuses so rejects
 * with an `AuthorizationError` too.
 *
 * @example Using `connectHttp`
 * ```ts ignore
 * import { connectHttp } from "@weft/mcp";
 * await using client = await connectHttp("http://127.0.0.1:8000/mcp");
 * const { tools } = await client.listTools();
 * ```
 */
export async function connectHttp(
  url: string | URL,
  options: ConnectHttpOptions = {},
): Promise<McpClient> {
  const signal = options.signal;
  signal?.throwIfAborted();
  // Checked before anything starts: a wrong store is a TypeError here.
  const eraStore = acceptEraStore(
    options.eraStore,
    "connectHttp: options.eraStore",
  );
  const endpoint = new URL(url);
  const base: FetchLike = options.fetch ??
    ((input, init) => fetch(input, init));
  const naming = { server: options.name ?? endpoint.host, url: endpoint };
  // A 401 or a 403 Bearer challenge that stands is an AuthorizationError.
  const fetcher = options.auth === undefined
    ? refusingFetch(base, naming)
    : oauthFetch(options.auth, naming, base);
  const http = new LosslessHttpTransport(endpoint, {
    headers: options.headers,
    fetch: fetcher,
    // The wrappers hand on the runtime's own bodies unless a fetch is given.
    runtimeBodies: options.fetch === undefined,
  });
  const transport = new EraClientTransport(http, {
    transport: "http",
    protocol: options.protocol,
    store: eraStore,
    key: endpoint.href,
    dropCall: (id) => http.dropCall(id),
    probe: (request, probeSignal) =>
      probeHttp(request, probeSignal, {
        url: endpoint,
        headers: options.headers,
        fetch: fetcher,
      }),
  });
  const link = new HttpLink(http, transport, {
    initializeTimeout: options.initializeTimeout ?? DEFAULT_INITIALIZE_TIMEOUT,
    server: naming.server,
    target: endpoint.href,
  });
  const client = new McpClient(
    options.clientInfo ?? DEFAULT_CLIENT_INFO,
    { capabilities: capabilitiesOf(options) },
    link,
  );
  if (options.onerror !== undefined) client.onerror = options.onerror;
  try {
    await handshake(client, transport, {
      signal,
      initializeTimeout: options.initializeTimeout,
      name: naming.server,
      target: new URL(url).href,
    });
  } catch (error) {
    // Authorization the server wants and the connection could not give
    // (or an OAuth flow that needs the user) is the host's to act on:
    // surfaced as itself, not as a failed handshake.
    throw authorizationErrorIn(error) ?? error;
  }
  link.closeOnAbort(signal, client);
  return client;
}

class HttpLink implements ClientLink {
  readonly #transport: LosslessHttpTransport;
  readonly #era: EraClientTransport;
  #closing?: Promise<void>;
  #unwatch: () => void = () => {};

  constructor(
    transport: LosslessHttpTransport,
    era: EraClientTransport,
    naming: { initializeTimeout: number; server: string; target: string },
  ) {
    this.#transport = transport;
    this.#era = era;
    // Sessions are the `initialize` era's: a 2026-07-28 connection has none.
    setSessionRenewal(this, {
      ...naming,
      current: () =>
        era.era?.era === "legacy" ? transport.sessionId : undefined,
      isGone: isSessionNotFound,
      forget: () => transport.forgetSession(),
    });
  }

  protocolEra(): EraInfo | undefined {
    return this.#era.era;
  }

  serverInfo(): Implementation | undefined {
    return this.#era.serverInfo;
  }

  lost(): ConnectionLostError | undefined {
    return undefined; // losses are per call, carried by each failed call
  }

  close(closeProtocol: () => Promise<void>): Promise<void> {
    this.#closing ??= this.#shutdown(closeProtocol);
    return this.#closing;
  }

  closeOnAbort(signal: AbortSignal | undefined, client: McpClient): void {
    this.#unwatch = closeClientOnAbort(signal, client);
  }

  async #shutdown(closeProtocol: () => Promise<void>): Promise<void> {
    this.#unwatch();
    await this.#transport.terminateSession();
    await closeProtocol().catch(() => {
      // Nothing lost: the client is closing; the transport's own errors went to its onerror.
    });
  }
}

// The declared capabilities: the given ones (default elicitation), with the
// MCP Apps extension when asked.
function capabilitiesOf(
  options: { capabilities?: ClientCapabilities; apps?: boolean },
): ClientCapabilities {
  const base = options.capabilities ?? { elicitation: {} };
  return options.apps === true ? withAppsCapability(base) : base;
}
