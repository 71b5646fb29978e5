/**
 * An MCP App server in Deno: one tool, `get_time`, that ships a view. The
 * view is a whole HTML document; `exportTools` serves it as
 * `ui://clock/get_time` (`text/html;profile=mcp-app`) and names it on the
 * tool's `_meta.ui.resourceUri`. A host without views still reads the text.
 *
 *     deno run -A examples/apps/clock_server.ts   # speaks MCP on stdio
 *
 * The view speaks the extension's postMessage protocol by hand (a few
 * lines, no framework): `ui/initialize`, then it shows each
 * `ui/notifications/tool-result`, and its button sends `tools/call`, which
 * the host passes on only because the tool's visibility includes "app".
 *
 * @module
 */

import { exportTools, Server, serveStdio, tool } from "../../mod.ts";
import { z } from "zod";

const VIEW = `<!doctype html>
<html><head><meta charset="utf-8"><title>clock</title>
<style>body{font:16px system-ui;margin:12px}#time{font:20px monospace}</style></head>
<body><p>Server time: <span id="time">waiting…</span></p>
<button id="again">Ask again</button>
<script>
let next = 0;
const pending = new Map();
function request(method, params) {
  const id = ++next;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve) => pending.set(id, resolve));
}
function show(result) {
  const time = result && result.structuredContent && result.structuredContent.time;
  document.getElementById("time").textContent = time || "(no time)";
}
addEventListener("message", (event) => {
  const m = event.data || {};
  if (m.id !== undefined && pending.has(m.id) && !m.method) {
    pending.get(m.id)(m.result);
    pending.delete(m.id);
  } else if (m.method === "ui/notifications/tool-result") {
    show(m.params);
  } else if (m.id !== undefined && m.method) {
    parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
  }
});
document.getElementById("again").onclick = async () =>
  show(await request("tools/call", { name: "get_time", arguments: {} }));
request("ui/initialize", {
  protocolVersion: "2026-01-26",
  appInfo: { name: "clock view", version: "1.0.0" },
  appCapabilities: {},
}).then(() =>
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*")
);
</script></body></html>`;

const getTime = tool({
  name: "get_time",
  description: "The server's current time, as an ISO 8601 string.",
  input: z.object({}),
  output: z.object({ time: z.string() }),
  app: { html: VIEW, prefersBorder: true },
  run: () => ({ time: new Date().toISOString() }),
});

const server = new Server({ name: "clock", version: "1.0.0" });
exportTools(server, getTime);
await serveStdio(server);
