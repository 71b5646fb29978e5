/**
 * The expose side, end to end: a typed `lookup_order` tool and a scripted
 * support agent, `getting-started`, served as MCP server
 * `weft-getting-started`/`0` — for Claude Code, Crush, or another weft
 * through `importTools`. (go-mcp §6.3.)
 *
 *     deno run -A examples/server.ts                      # stdio
 *     deno run -A examples/server.ts --http [--port 8000] # Streamable HTTP
 *
 * Over stdio, stdout carries the protocol only and logs go to stderr; the
 * process exits when the client closes stdin. With `--http` it serves
 * stateless Streamable HTTP at `http://127.0.0.1:<port>/mcp` (port 0, the
 * default, picks a free one), prints that URL on stderr, and stops on
 * SIGINT or SIGTERM.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { z } from "zod";
import {
  Agent,
  httpHandler,
  serveAgent,
  Server,
  serveStdio,
  tool,
  type ToolDef,
} from "../mod.ts";
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
 * agent-tool call per server — as in the Go original; that is why this is a
 * factory: stdio builds one server per process, HTTP one per request.
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

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Stops serving: in-flight requests finish, then the promise resolves. */
  signal?: AbortSignal;
  /** Called with the endpoint once the server listens. Default: prints it on stderr. */
  onListen?: (url: URL) => void;
}

/**
 * Serves {@link newServer} over stateless Streamable HTTP on 127.0.0.1 at
 * `/mcp` (anything else is 404) until `signal` aborts.
 */
export async function serveHttp(options: ServeHttpOptions = {}): Promise<void> {
  // The scripted model answers once: a fresh server per request, never reused.
  await using handler = httpHandler(newServer, { reuseServers: false });
  const onListen = options.onListen ??
    ((url: URL) =>
      console.error(`weft-getting-started: serving on ${url.href}`));
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    signal: options.signal,
    onListen: ({ hostname, port }) =>
      onListen(new URL(`http://${hostname}:${port}/mcp`)),
  }, (req, info) => {
    if (new URL(req.url).pathname !== "/mcp") {
      return new Response("not found\n", { status: 404 });
    }
    return handler(req, info);
  });
  await server.finished;
}

/** Runs the example: stdio unless `args` holds `--http` (with `--port <n>`). */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      http: { type: "boolean", default: false },
      port: { type: "string", default: "0" },
    },
  });
  if (!values.http) {
    await serveStdio(newServer()); // returns when the client closes our stdin
    console.error("server exited");
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`--port must be a port number, got ${values.port}`);
  }
  const stop = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM"];
  const onSignal = () => stop.abort();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    await serveHttp({ port, signal: stop.signal });
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
  console.error("server exited");
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (err) {
    console.error(err);
    Deno.exit(1);
  }
}
