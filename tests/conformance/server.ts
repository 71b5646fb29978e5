/**
 * The conformance server: `httpHandler` with sessions, its default
 * DNS-rebinding rule (loopback Host and Origin only), serving a fresh
 * `conformanceServer()` per session, on 127.0.0.1. Prints its endpoint URL
 * as the first stdout line; runs until killed. Used by `.ci/conformance`.
 *
 * Usage: deno run --allow-net=127.0.0.1 --allow-env --allow-read tests/conformance/server.ts [PORT]
 *
 * @module
 */

import { httpHandler } from "../../mod.ts";
import { conformanceServer } from "./tools.ts";

const port = Number(Deno.args[0] ?? 0);
// Streams still open after 100 ms are closed for the client to resume
// (server-sse-polling: test_reconnection takes 300 ms).
const handler = httpHandler(conformanceServer, {
  sessions: true,
  closeStreamsAfter: 100,
});
const server = Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => {} },
  handler,
);
console.log(`http://127.0.0.1:${server.addr.port}/mcp`);
