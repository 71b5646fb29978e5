import { z } from "zod";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/mcp/export.ts";
const input = z.object({ text: z.string() });
const tools = Array.from({ length: 10 }, (_, i) => tool({ name: i === 0 ? "echo" : `tool_${i}`, description: `d${i}`, input, run: ({ text }) => "heard: " + text }));
const t = performance.now();
const n = 30000;
for (let i = 0; i < n; i++) { const s = new Server({ name: "b", version: "1" }); exportTools(s, ...tools); }
console.log(((performance.now() - t) * 1000 / n).toFixed(2), "µs");
