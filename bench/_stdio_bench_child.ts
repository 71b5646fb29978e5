/**
 * The server side of `bench/stdio_bench.ts`, on stdin/stdout until stdin
 * ends: `weft` (`serveStdio` of a `Server` with `exportTools`), `sdk` (an
 * SDK `McpServer` with `registerTool` on the SDK's `StdioServerTransport`),
 * or `echo` (the floor: each JSON-RPC request line parsed and answered with
 * a result carrying its id, the answers of one read written at once).
 *
 *     deno run -A bench/_stdio_bench_child.ts weft|sdk|echo
 *
 * @module
 */

import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { serveStdio } from "../src/runtime/process/serve_stdio.ts";

const kind = Deno.args[0];
// Profiled (`prof`): a SIGTERM is ignored, the end of stdin ends the process
// normally, and the CPU profile is written.
const ignoreTerm = (): void => {};
if (Deno.args[1] === "prof") Deno.addSignalListener("SIGTERM", ignoreTerm);

if (kind === "weft") {
  const server = new Server({ name: "bench", version: "1" });
  exportTools(
    server,
    tool({
      name: "echo",
      description: "Echo the text.",
      input: z.object({ text: z.string() }),
      run: ({ text }) => "heard: " + text,
    }),
  );
  await serveStdio(server);
  if (Deno.args[1] === "prof") Deno.removeSignalListener("SIGTERM", ignoreTerm);
} else if (kind === "sdk") {
  const server = new McpServer({ name: "bench", version: "1" });
  server.registerTool("echo", {
    description: "Echo the text.",
    inputSchema: { text: z.string() },
  }, ({ text }) => ({ content: [{ type: "text", text: "heard: " + text }] }));
  await server.connect(new StdioServerTransport());
} else {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const out = Deno.stdout.writable.getWriter();
  let rest = "";
  for await (const chunk of Deno.stdin.readable) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    let answers = "";
    for (const line of lines) {
      if (line === "") continue;
      const m = JSON.parse(line);
      if (m.id === undefined) continue;
      const text = m.params?.arguments?.text;
      answers += JSON.stringify({
        jsonrpc: "2.0",
        id: m.id,
        result: { content: [{ type: "text", text: "heard: " + text }] },
      }) + "\n";
    }
    if (answers !== "") await out.write(encoder.encode(answers));
  }
}
