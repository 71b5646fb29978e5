/**
 * One trace from an agent to two weft servers: the planner agent (a
 * scripted model, so no provider is needed) calls `lookup` on a server it
 * starts as a child over stdio and on one it serves itself over HTTP on
 * 127.0.0.1. Run it with Deno's built-in OpenTelemetry and the console
 * exporter to see the spans:
 *
 *     OTEL_DENO=true OTEL_EXPORTER_OTLP_PROTOCOL=console deno run -A examples/traced.ts
 *
 * or send them to a collector (`OTEL_EXPORTER_OTLP_ENDPOINT`). Run with
 * `--serve-stdio`, it is the stdio server.
 *
 * @module
 */

import {
  Agent,
  connectHttp,
  connectStdio,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  Server,
  serveStdio,
} from "../mod.ts";
import { callTools, say, script } from "../testing.ts";

/** The server of both transports: one tool, `lookup`. */
function lookupServer(): Server {
  const server = new Server({ name: "orders", version: "1.0.0" });
  exportTools(
    server,
    rawTool({
      name: "lookup",
      description: "Looks an order up.",
      inputSchema: { type: "object" },
      run: () => "order 1234: shipped",
    }),
  );
  return server;
}

if (Deno.args[0] === "--serve-stdio") {
  // The client ends its server with SIGTERM: exit normally, so that Deno
  // flushes the spans still buffered.
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  await serveStdio(lookupServer());
} else {
  const stop = new AbortController();
  const http = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, httpHandler(() => lookupServer(), { signal: stop.signal }));
  await using viaStdio = await connectStdio(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--serve-stdio"],
    // With OTEL_DENO=true here, connectStdio passes every OTEL_* variable
    // on (its envPassthrough): the child's spans join this trace, under
    // the service name set here.
    env: { OTEL_SERVICE_NAME: "orders-stdio" },
    name: "stdio",
    stderr: "inherit",
  });
  await using viaHttp = await connectHttp(
    `http://127.0.0.1:${http.addr.port}/mcp`,
  );
  const tools = [
    ...(await importTools(viaStdio, { prefix: "stdio_" })).tools,
    ...(await importTools(viaHttp, { prefix: "http_" })).tools,
  ];
  const agent = new Agent(
    script(
      callTools({ name: "stdio_lookup", args: {} }, {
        name: "http_lookup",
        args: {},
      }),
      say("Order 1234 has shipped."),
    ),
    { name: "planner", tools },
  );
  console.log((await agent.generate("Where is order 1234?")).text);
  stop.abort();
  await http.finished;
}
