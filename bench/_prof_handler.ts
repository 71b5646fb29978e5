/**
 * A stateless `httpHandler` answering `tools/call` in process (no
 * sockets), one request after another, for a CPU profile of the success
 * path: the ten tools of `bench/_http_bench_server.ts`, a server per
 * request (the default options), 2026-07-28 requests or, with `legacy`,
 * 2025-11-25 ones (`-list`: `tools/list` instead). Prints the time per request (noisy: for profiles, not
 * figures).
 *
 *     deno run -A --cpu-prof --cpu-prof-dir=prof bench/_prof_handler.ts [modern|legacy|modern-list|legacy-list] [requests]
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { z } from "zod";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/mcp/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";

const input = z.object({ text: z.string() });
const tools = Array.from({ length: 10 }, (_, i) =>
  tool({
    name: i === 0 ? "echo" : `tool_${i}`,
    description: `Echo the text (${i}).`,
    input,
    run: ({ text }) => "heard: " + text,
  }));
const handler = httpHandler(() => {
  const server = new Server({ name: "bench", version: "1" });
  exportTools(server, ...tools);
  return server;
});
const mode = Deno.args[0] ?? "modern";
const modern = !mode.startsWith("legacy");
const list = mode.endsWith("-list");
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: list ? "tools/list" : "tools/call",
  params: list ? (modern ? { _meta: meta } : {}) : {
    name: "echo",
    arguments: { text: "hello" },
    ...(modern ? { _meta: meta } : {}),
  },
});
const headers: Record<string, string> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  host: "localhost",
};
if (modern) {
  Object.assign(headers, {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": list ? "tools/list" : "tools/call",
    ...(list ? {} : { "mcp-name": "echo" }),
  });
}
const n = Number(Deno.args[1] ?? 20000);
const started = performance.now();
const cpu = cpuUsage();
for (let i = 0; i < n; i++) {
  const res = await handler(
    new Request("http://localhost/mcp", { method: "POST", headers, body }),
  );
  if (!(await res.text()).includes(list ? "tool_9" : "heard: hello")) {
    throw new Error("no answer");
  }
}
const used = cpuUsage(cpu);
console.log(
  `${((performance.now() - started) * 1000 / n).toFixed(1)} µs a request, ${
    ((used.user + used.system) / n).toFixed(1)
  } µs CPU (the process's, with the requests built here)`,
);
