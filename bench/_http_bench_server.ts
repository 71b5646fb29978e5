/**
 * The server process of `bench/http_bench.ts`: one contender on
 * 127.0.0.1, port 0, printing its port on stdout, serving until killed.
 *
 *     deno run -A bench/_http_bench_server.ts <weft|sdk|plain> <stateless|fresh|sessions|kv>
 *
 * `weft` and `sdk` serve the same SDK `Server` (ten tools exported with
 * `exportTools`), so the difference is the HTTP layer: `httpHandler`
 * against the SDK's `WebStandardStreamableHTTPServerTransport` used as its
 * examples do (a fresh server and transport per request when stateless; one
 * per session, kept in a map, otherwise). `plain` is a server written with
 * the SDK alone — an `McpServer` with the same ten tools registered with
 * `registerTool` — on the SDK's transport the same way.
 *
 * @module
 */

import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
// The Server users write (`import { Server } from "@weft/mcp"`).
import { Server as WeftServer } from "../src/runtime/sdk.ts";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { kvStore } from "../src/runtime/http/kv_store.ts";
import { floorHandler } from "./_floor_handler.ts";

const input = z.object({ text: z.string() });
const tools = Array.from({ length: 10 }, (_, i) =>
  tool({
    name: i === 0 ? "echo" : `tool_${i}`,
    description: `Echo the text (${i}).`,
    input,
    run: ({ text }) => "heard: " + text,
  }));

function newServer(): Server {
  const server = new WeftServer({ name: "bench", version: "1" });
  exportTools(server, ...tools);
  return server;
}

/** The same tools, written with the SDK alone. */
function plainServer(): Server {
  const server = new McpServer({ name: "bench", version: "1" });
  for (let i = 0; i < 10; i++) {
    server.registerTool(i === 0 ? "echo" : `tool_${i}`, {
      description: `Echo the text (${i}).`,
      inputSchema: { text: z.string() },
    }, ({ text }) => ({
      content: [{ type: "text", text: "heard: " + text }],
    }));
  }
  return server.server;
}

function sdkStateless(
  newServer: () => Server,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    return transport.handleRequest(req);
  };
}

function sdkSessions(
  newServer: () => Server,
): (req: Request) => Promise<Response> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (req) => {
    const sid = req.headers.get("mcp-session-id");
    if (sid !== null) {
      const transport = sessions.get(sid);
      if (transport === undefined) return new Response(null, { status: 404 });
      return transport.handleRequest(req);
    }
    const body = await req.json();
    if (!isInitializeRequest(body)) return new Response(null, { status: 400 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await newServer().connect(transport);
    return transport.handleRequest(req, { parsedBody: body });
  };
}

async function weftKv(): Promise<(req: Request) => Promise<Response>> {
  // A fresh KV file per run, removed when the process ends.
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  globalThis.addEventListener("unload", () => {
    kv.close();
    Deno.removeSync(dir, { recursive: true });
  });
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  return httpHandler(newServer, {
    sessions: true,
    store: kvStore(kv),
    maxSessions: 100_000,
  });
}

const [side, mode] = Deno.args;
const sdkServer = side === "plain" ? plainServer : newServer;
const handler = side === "floor"
  ? floorHandler()
  : side === "sdk" || side === "plain"
  ? (mode === "sessions" ? sdkSessions(sdkServer) : sdkStateless(sdkServer))
  : mode === "kv"
  ? await weftKv()
  : httpHandler(newServer, {
    sessions: mode === "sessions",
    // The pooled rows ask for pooling in words; `fresh` is the default.
    reuseServers: mode !== "fresh",
    maxSessions: 100_000,
  });
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  handler,
);
console.log(server.addr.port);
