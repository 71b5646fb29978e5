import { z } from "zod";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/mcp/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
const input = z.object({ text: z.string() });
const tools = Array.from(
  { length: 10 },
  (_, i) =>
    tool({
      name: i === 0 ? "echo" : `tool_${i}`,
      description: `Echo (${i}).`,
      input,
      run: ({ text }) => "heard: " + text,
    }),
);
const h = httpHandler(() => {
  const s = new Server({ name: "bench", version: "1" });
  exportTools(s, ...tools);
  return s;
});
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "b", version: "1" },
};
const modern = Deno.args[0] !== "legacy";
const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: {
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
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  });
}
const n = Number(Deno.args[1] ?? 20000);
const t = performance.now();
for (let i = 0; i < n; i++) {
  const res = await h(
    new Request("http://localhost/mcp", { method: "POST", headers, body }),
  );
  await res.text();
}
console.log(
  ((performance.now() - t) * 1000 / n).toFixed(1),
  "µs/request in process",
);
