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
import { exportTools } from "../src/mcp/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { kvStore } from "../src/runtime/http/kv_store.ts";

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

/**
 * The floor: a minimal correct stateless server for the same ten tools,
 * doing only the protocol work a `tools/call` or `tools/list` needs — the
 * method and body checks, in the modern era (2026-07-28) the version and
 * `Mcp-Method`/`Mcp-Name` headers against the body, the tool lookup, the
 * argument check, the result (with `resultType` and the server info when
 * modern) as one SSE event. What any MCP server must spend per request.
 */
function floorHandler(): (req: Request) => Promise<Response> {
  const SERVER_INFO = { name: "bench", version: "1" };
  const MODERN = "2026-07-28";
  const listing = Array.from({ length: 10 }, (_, i) => ({
    name: i === 0 ? "echo" : `tool_${i}`,
    description: `Echo the text (${i}).`,
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
  }));
  const names = new Set(listing.map((t) => t.name));
  const sse = (message: unknown): Response =>
    new Response(`event: message\ndata: ${JSON.stringify(message)}\n\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  const error = (id: unknown, code: number, message: string): Response =>
    new Response(
      JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }),
      {
        status: 400,
        headers: { "content-type": "application/json" },
      },
    );
  return async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    // deno-lint-ignore no-explicit-any
    let body: any;
    try {
      body = await req.json();
    } catch {
      return error(null, -32700, "Parse error");
    }
    if (typeof body?.method !== "string" || body.id === undefined) {
      return error(null, -32600, "Invalid Request");
    }
    const params = body.params ?? {};
    const version = params._meta?.["io.modelcontextprotocol/protocolVersion"];
    const modern = version !== undefined;
    if (modern) {
      if (
        version !== MODERN ||
        req.headers.get("mcp-protocol-version") !== version ||
        req.headers.get("mcp-method") !== body.method ||
        (body.method === "tools/call" &&
          req.headers.get("mcp-name") !== params.name)
      ) return error(body.id, -32020, "Header mismatch");
    }
    let result: Record<string, unknown>;
    if (body.method === "tools/list") {
      result = { tools: listing };
    } else if (body.method === "tools/call") {
      if (!names.has(params.name)) {
        return sse({
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32602, message: "unknown tool" },
        });
      }
      const text = params.arguments?.text;
      result = typeof text === "string"
        ? { content: [{ type: "text", text: "heard: " + text }] }
        : {
          content: [{ type: "text", text: "INVALID_INPUT" }],
          isError: true,
        };
    } else return error(body.id, -32601, "Method not found");
    if (modern) {
      result.resultType = "complete";
      result._meta = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
    }
    return sse({ result, jsonrpc: "2.0", id: body.id });
  };
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
