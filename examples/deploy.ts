/**
 * The example server on Deno Deploy (or `deno serve`): stateless Streamable
 * HTTP, a fresh `newServer()` per request, so any instance can answer any
 * request and the single-use scripted agent is new every time.
 *
 *     deno serve -A examples/deploy.ts    # local: http://localhost:8000/
 *
 * Every path serves MCP. The handler's DNS-rebinding rule refuses a
 * non-loopback Origin header unless `allowedOrigins` names it; MCP clients
 * outside a browser send none.
 *
 * @module
 */

import { httpHandler } from "../mod.ts";
import { newServer } from "./server.ts";

/** The fetch handler Deno Deploy and `deno serve` call. */
const app: Deno.ServeDefaultExport = { fetch: httpHandler(newServer) };

export default app;
