/**
 * The conformance server: `httpHandler` (sessions on, DNS-rebinding
 * protection on) serving a fresh `conformanceServer()` per session, on
 * 127.0.0.1. Prints its endpoint URL as the first stdout line; runs until
 * killed. Used by `.ci/conformance`.
 *
 * Usage: deno run --allow-net=127.0.0.1 --allow-env --allow-read tests/conformance/server.ts [PORT]
 *
 * @module
 */

import { httpHandler } from "../../mod.ts";
import { conformanceServer } from "./tools.ts";

const port = Number(Deno.args[0] ?? 0);
let handle: ((req: Request) => Promise<Response>) | undefined;
const server = Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => {} },
  (req: Request): Promise<Response> => {
    if (handle === undefined) {
      return Promise.resolve(new Response(null, { status: 503 }));
    }
    return handle(req);
  },
);
const bound = server.addr.port;
handle = httpHandler(conformanceServer, {
  sessions: true,
  allowedHosts: [`127.0.0.1:${bound}`, `localhost:${bound}`],
});
console.log(`http://127.0.0.1:${bound}/mcp`);
