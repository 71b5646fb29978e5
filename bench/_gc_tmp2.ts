import { z } from "zod";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/mcp/export.ts";
import { afterThisTurn } from "../src/runtime/http/_turn.ts";
const input = z.object({ text: z.string() });
const tools = Array.from({ length: 10 }, (_, i) => tool({ name: i === 0 ? "echo" : `tool_${i}`, description: `Echo (${i}).`, input, run: ({ text }) => "heard: " + text }));
const factory = () => { const s = new Server({ name: "bench", version: "1" }); exportTools(s, ...tools); return s; };
const gc = (globalThis as unknown as { gc: () => void }).gc;
const what = Deno.args[0];
for (let i = 0; i < 5000; i++) {
  if (what === "factory") factory();
  else if (what === "turn") { const big = new Array(100).fill({}); const box: { r?: () => void } = {}; afterThisTurn(() => box.r?.()); void big; }
  else if (what === "promise") { await Promise.resolve(); }
}
gc(); console.log(what, "right after", (Deno.memoryUsage().heapUsed / 1e6).toFixed(1));
await new Promise((r) => setTimeout(r, 0)); gc(); console.log("after a timer turn", (Deno.memoryUsage().heapUsed / 1e6).toFixed(1));
