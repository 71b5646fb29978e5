/**
 * What `httpHandler` holds, in heap: a session flood before and after its
 * sessions expire, and stateless requests after they ended. In-process,
 * requests handed to the handler directly.
 *
 *     deno run -A --v8-flags=--expose-gc bench/memory_bench.ts --sessions=5000
 *
 * Prints heap used (after a full GC when `--expose-gc` is given) at the
 * baseline, with the flood's sessions live, once they expired, and after
 * as many stateless requests; the last two should be near the baseline.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";

const count = Number(
  Deno.args.find((a) => a.startsWith("--sessions="))?.slice(11) ?? 5000,
);
const tools = Array.from({ length: 10 }, (_, i) =>
  tool({
    name: `tool_${i}`,
    description: "Echo.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => text,
  }));
const newServer = () => {
  const server = new Server({ name: "mem", version: "1" });
  exportTools(server, ...tools);
  return server;
};
const gc = (globalThis as { gc?: () => void }).gc;

async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
}

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "flood", version: "1" },
  },
});

const base = await heap();
const sessions = httpHandler(newServer, {
  sessions: true,
  sessionIdleTimeout: 5000,
  maxSessions: count,
});
for (let i = 0; i < count; i++) {
  const res = await sessions(post(INIT));
  await res.text();
}
const live = await heap();
const stats = sessions.stats();
await new Promise((resolve) => setTimeout(resolve, 5500));
const expired = await heap();
const after = sessions.stats();

const stateless = httpHandler(newServer);
const call = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "tool_0", arguments: { text: "x" } },
});
for (let i = 0; i < count; i++) {
  const res = await stateless(
    post(call, { "mcp-protocol-version": "2025-11-25" }),
  );
  await res.text();
}
await new Promise((resolve) => setTimeout(resolve, 100));
const ended = await heap();

console.log(
  `gc: ${gc ? "forced" : "not exposed (pass --v8-flags=--expose-gc)"}`,
);
console.log(`baseline                     ${base.toFixed(1)} MiB`);
console.log(
  `${count} sessions live           ${
    live.toFixed(1)
  } MiB  (${stats.sessions} sessions)`,
);
console.log(
  `after they expired           ${
    expired.toFixed(1)
  } MiB  (${after.sessions} sessions, ${after.keptEvents} events)`,
);
console.log(`after ${count} stateless calls ${ended.toFixed(1)} MiB`);
Deno.exit(0);
