/**
 * The example server on Deno Deploy (or `deno serve`). Two ways to run it:
 *
 * - Stateless (the default), with `reuseServers: false`: a fresh
 *   `newServer()` per request, so any instance can answer any request and
 *   the single-use scripted agent is new every time.
 * - Sessions in Deno KV (`MCP_SESSIONS=kv`): `Mcp-Session-Id`, resumable
 *   streams and DELETE, with the sessions in `Deno.openKv()` — a local file
 *   here, the database every isolate shares on Deno Deploy — so any
 *   instance serves any session.
 *
 *     deno serve -A examples/deploy.ts                            # stateless
 *     MCP_SESSIONS=kv deno serve -A --unstable-kv examples/deploy.ts
 *
 * The handler is the module's default export as it is: `deno serve` then
 * tells it when it listens, and it closes its sessions and open streams on
 * SIGTERM, so a stop exits at once.
 *
 * Every path serves MCP. The handler's DNS-rebinding rule refuses a
 * non-loopback Origin header unless `allowedOrigins` names it; MCP clients
 * outside a browser send none.
 *
 * @module
 */

import { httpHandler, kvStore } from "../mod.ts";
import type { HttpHandler, KvLike } from "../runtime.ts";
import { newServer } from "./server.ts";

/** The session-mode handler with its sessions in `kv`. */
export function kvSessions(kv: KvLike): HttpHandler {
  return httpHandler(newServer, { sessions: true, store: kvStore(kv) });
}

/** What Deno Deploy and `deno serve` call. */
const app: HttpHandler = Deno.env.get("MCP_SESSIONS") === "kv"
  ? kvSessions(await Deno.openKv())
  // The example's scripted model answers once: a fresh server per request.
  : httpHandler(newServer, { reuseServers: false });

export default app satisfies Deno.ServeDefaultExport;
