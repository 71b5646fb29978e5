/**
 * Many servers, a small request, a fast cold start: an `mcpServers` config
 * of four servers (the bundled example server under four names), an agent
 * that sees only `search_tools` until it has found what it needs
 * (`toolSearch`), and a catalog that lets the next start build the tools
 * without starting a single server.
 *
 *     deno run -A examples/many_tools.ts
 *
 * The first start connects every server and fills the catalog; the second
 * (a cold start, as a new isolate would make) starts none: its servers are
 * `cached` until a tool of theirs is called, and only that one starts. The
 * final text goes to stdout, what happened to stderr.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { Agent, connectServers, type RunResult } from "../mod.ts";
import type { ServersConfig } from "../servers.ts";
import { memoryStore, type Store } from "../store.ts";
import { callTools, say, script } from "../testing.ts";

const SERVER = fileURLToPath(new URL("./server.ts", import.meta.url));

/** The agent's final answer (scripted). */
export const FINAL_TEXT = "Order 1234 has shipped.";

/** Four servers, as a host's `mcp.json` would hold them. */
export function config(): ServersConfig {
  const server = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", SERVER],
  };
  return {
    mcpServers: {
      shop: server,
      warehouse: server,
      billing: server,
      support: server,
    },
  };
}

/** One start of the servers and one run of the agent over them. */
async function start(
  store: Store,
  log: (line: string) => void,
): Promise<RunResult> {
  await using servers = await connectServers(config(), {
    catalog: store,
    signal: AbortSignal.timeout(30_000),
  });
  const states = () =>
    servers.servers().map((s) => `${s.name}=${s.state}`).join(" ");
  log(`started: ${states()}`);
  const model = script(
    callTools({ name: "search_tools", args: { query: "warehouse order" } }),
    callTools({ name: "warehouse_lookup_order", args: { order_id: "1234" } }),
    say(FINAL_TEXT),
  );
  const agent = new Agent(model, {
    toolSource: servers.toolSource,
    toolSearch: { serverOf: servers.serverOf, maxResults: 3 },
  });
  const result = await agent.generate("Where is order 1234?");
  log(
    `tools per model request: ${
      model.requests().map((r) => r.tools.length).join(", ")
    } (of ${servers.tools.length + 1})`,
  );
  for (const step of result.steps) {
    for (const r of step.results) log(`${r.name} -> ${r.content}`);
  }
  log(`after the run: ${states()}`);
  return result;
}

/** Starts twice over one catalog; resolves to the second run. */
export async function run(
  log: (line: string) => void = console.error,
): Promise<RunResult> {
  // A Deno KV, Redis or Postgres store keeps it across processes.
  await using store = memoryStore();
  log("first start (the catalog is empty):");
  await start(store, log);
  log("cold start (the catalog is warm):");
  return await start(store, log);
}

if (import.meta.main) {
  const result = await run();
  console.log(result.text);
}
