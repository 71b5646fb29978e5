/**
 * The server side of `bench/listen_memory.ts`: an `httpHandler` on
 * 127.0.0.1 (port printed on stdout) whose `maxListens` is the count asked
 * for, plus `GET /__memory`, which collects garbage (run with
 * `--v8-flags=--expose-gc`) and answers this process's RSS, heap and open
 * listen streams as JSON.
 *
 *     deno run -A --v8-flags=--expose-gc bench/_listen_memory_server.ts <n> [fresh|reuse|bare]
 *
 * `bare`: no MCP at all, the floor — each POST answered with an SSE stream
 * carrying one `acknowledged` event and held open until the client goes.
 *
 * @module
 */

import { exportTools, httpHandler, rawTool, Server } from "../mod.ts";

const n = Number(Deno.args[0] ?? 2000);
const mode = Deno.args[1] ?? "fresh";
const reuse = mode === "reuse";
let bareOpen = 0;

/** The floor: an SSE stream of one event, held until the client goes. */
function bare(req: Request): Response {
  bareOpen++;
  let done = false;
  const end = () => {
    if (!done) bareOpen--;
    done = true;
  };
  req.signal.addEventListener("abort", end, { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        new TextEncoder().encode(
          'event: message\ndata: {"method":"notifications/subscriptions/acknowledged"}\n\n',
        ),
      );
    },
    cancel: end,
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream" },
  });
}

const echo = rawTool({
  name: "echo",
  description: "Echoes.",
  run: (args) => args,
});

const handler = httpHandler(() => {
  const server = new Server({ name: "listen-bench", version: "1" });
  exportTools(server, echo);
  return server;
}, { maxListens: n, reuseServers: reuse, onerror: () => {} });

const gc = (globalThis as { gc?: () => void }).gc;

async function memory(): Promise<Response> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { rss, heapUsed, heapTotal, external } = Deno.memoryUsage();
  return Response.json({
    rss,
    heapUsed,
    heapTotal,
    external,
    listens: mode === "bare" ? bareOpen : handler.stats().listens,
    gc: gc !== undefined,
  });
}

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (req, info) =>
    new URL(req.url).pathname === "/__memory"
      ? memory()
      : mode === "bare"
      ? bare(req)
      : handler(req, info),
);
console.log(server.addr.port);
