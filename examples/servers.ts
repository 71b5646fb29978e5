/**
 * Many servers, one agent: an `mcpServers` configuration — the bundled
 * example server over stdio, and a server whose command does not exist —
 * connected at once under one deadline with `connectServers`. The good
 * server's tools arrive as `shop_<tool>`, the bad one is named with its
 * phase, and a scripted agent reads the tools through `toolSource` and calls
 * one.
 *
 *     deno run -A examples/servers.ts
 *
 * The final text goes to stdout; the report of the failed server and the
 * tool result go to stderr (and, while the run lasts, each background retry
 * of the failed server: the reconnect policy). Every server is closed before
 * the process ends.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { Agent, connectServers, type RunResult } from "../mod.ts";
import type { ServersConfig } from "../servers.ts";
import { callTools, say, script } from "../testing.ts";

const SERVER = fileURLToPath(new URL("./server.ts", import.meta.url));

/** The agent's final answer (scripted). */
export const FINAL_TEXT = "Order 1234 has shipped.";

/** The configuration, as a host's `mcp.json` would hold it. */
export function config(): ServersConfig {
  return {
    mcpServers: {
      shop: {
        command: Deno.execPath(),
        args: ["run", "-A", "--quiet", SERVER],
      },
      legacy: { command: "weft-example-no-such-server", args: ["--stdio"] },
    },
  };
}

/** Connects the servers, runs the agent, closes everything; resolves to the run. */
export async function run(
  log: (line: string) => void = console.error,
): Promise<RunResult> {
  await using servers = await connectServers(config(), {
    signal: AbortSignal.timeout(30_000),
  });
  if (servers.error) log(servers.error.message);
  const agent = new Agent(
    script(
      callTools({ name: "shop_lookup_order", args: { order_id: "1234" } }),
      say(FINAL_TEXT),
    ),
    { toolSource: servers.toolSource },
  );
  const result = await agent.generate("Where is order 1234?");
  for (const step of result.steps) {
    for (const r of step.results) log(`${r.name} -> ${r.content}`);
  }
  return result;
}

if (import.meta.main) {
  const result = await run();
  console.log(result.text);
}
