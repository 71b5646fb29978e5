/**
 * The SDK v2 contender of `bench/http_bench.ts`'s era rows: the same ten
 * tools as `bench/_http_bench_server.ts`, written with the SDK v2's
 * `McpServer` and served by its `createMcpHandler` (one fresh instance per
 * request, both eras: `legacy: "stateless"`), on 127.0.0.1, port 0,
 * printing its port on stdout, serving until killed.
 *
 *     deno run -A --config tests/interop/deno.json bench/_v2_bench_server.ts
 *
 * The SDK v2 packages are test-only dependencies: they live in
 * tests/interop's import map, so this file runs with that config.
 *
 * @module
 */

import { z } from "zod";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

function newServer(): McpServer {
  const server = new McpServer({ name: "bench", version: "1" });
  for (let i = 0; i < 10; i++) {
    server.registerTool(i === 0 ? "echo" : `tool_${i}`, {
      description: `Echo the text (${i}).`,
      inputSchema: z.object({ text: z.string() }),
    }, ({ text }) => ({
      content: [{ type: "text", text: "heard: " + text }],
    }));
  }
  return server;
}

const handler = createMcpHandler(newServer, { legacy: "stateless" });
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (req) => handler.fetch(req),
);
console.log(server.addr.port);
