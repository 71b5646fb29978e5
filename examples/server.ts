/**
 * The expose side, end to end: a typed `lookup_order` tool and a scripted
 * support agent, `getting-started`, served as MCP server
 * `weft-getting-started`/`0` over stdio — for Claude Code, Crush, or another
 * weft through `importTools`. (go-mcp §6.3.)
 *
 *     deno run -A examples/server.ts
 *
 * stdout carries the protocol; logs go to stderr. The process exits when the
 * client closes stdin.
 *
 * @module
 */

import process from "node:process";
import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Agent, serveAgent, tool, type ToolDef } from "../mod.ts";
import { callTools, say, script } from "../testing.ts";

/** The typed tool: an order's id and status. */
export const lookupOrder: ToolDef = tool({
  name: "lookup_order",
  description: "Look up an order by ID.",
  input: z.object({ order_id: z.string().describe("the order to look up") }),
  output: z.record(z.string(), z.string()),
  run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
});

/**
 * The server: `getting-started` (scripted: it looks the order up, then
 * answers) and its `lookup_order` tool. The script is single-use — one
 * agent-tool call per server — as in the Go original.
 */
export function newServer(): Server {
  const model = script(
    callTools({ name: "lookup_order", args: { order_id: "1234" } }),
    say("Order 1234 shipped and is on its way."),
  );
  const agent = new Agent(model, {
    name: "getting-started",
    instructions: "You are a support agent.",
    tools: [lookupOrder],
  });
  const server = new Server({ name: "weft-getting-started", version: "0" });
  serveAgent(server, agent, "Answer where a customer's order is.");
  return server;
}

/** Serves on stdin/stdout until the client closes stdin. */
export async function main(): Promise<void> {
  const server = newServer();
  const closed = Promise.withResolvers<void>();
  server.onclose = () => closed.resolve();
  // The SDK's stdio transport never notices the end of stdin; we do, so a
  // client that closes its end (the SDK's StdioClientTransport does) sees
  // the process exit rather than having to kill it.
  process.stdin.once("end", () => void server.close());
  await server.connect(new StdioServerTransport());
  await closed.promise;
  console.error("server exited");
}

if (import.meta.main) {
  try {
    await main();
  } catch (err) {
    console.error(err);
    Deno.exit(1);
  }
}
