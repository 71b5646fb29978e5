import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/mcp/export.ts";
const echoInput = z.object({ text: z.string(), times: z.number().int().optional() });
const w = new Server({ name: "w", version: "0" });
exportTools(w, tool({ name: "echo", description: "", input: echoInput, run: ({ text }) => "heard: " + text }));
const s = new McpServer({ name: "s", version: "0" });
s.registerTool("echo", { inputSchema: echoInput.shape }, ({ text }) => ({ content: [{ type: "text", text: "heard: " + text }] }));
async function connect(server: Server | McpServer) { const [c, t] = InMemoryTransport.createLinkedPair(); await server.connect(t); const cl = new Client({ name: "b", version: "0" }); await cl.connect(c); return cl; }
const wc = await connect(w), sc = await connect(s);
const mode = Deno.args[0] ?? "callTool";
async function one(c: Client) { const t0 = performance.now(); for (let i = 0; i < 200; i++) await c.callTool({ name: "echo", arguments: { text: "hello", times: 2 } }); return (performance.now() - t0) / 200 * 1000; }
const ws: number[] = [], ss: number[] = [];
for (let r = 0; r < 60; r++) { ss.push(await one(sc)); ws.push(await one(wc)); }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1];
console.log("sdk", med(ss).toFixed(2), "weft", med(ws).toFixed(2), "ratio sdk/weft", (med(ss) / med(ws)).toFixed(3));
