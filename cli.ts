/**
 * `weft-mcp`: see an MCP server's tools as a weft model sees them, or call
 * one through the bridge.
 *
 *     deno task start                                  # inspect the bundled example
 *     deno run -A cli.ts inspect -- npx -y @modelcontextprotocol/server-everything
 *     deno run -A cli.ts inspect http://127.0.0.1:8000/mcp
 *     deno run -A cli.ts call lookup_order '{"order_id":"1234"}'
 *
 * `inspect` prints, per tool, what `importTools` makes of it: the name,
 * whether the loop runs it in parallel (the server marked it
 * `readOnlyHint: true`) or sequentially, the description, the input schema,
 * the schema keywords the core does not interpret, the output schema; then
 * the tools that could not be imported and why. `call` runs one tool and
 * prints the text the model would read. `weft-mcp --help` has the rest.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { DefaultTarget } from "./src/cli/connect.ts";
import { runCli } from "./src/cli/run.ts";

// The CLI as a module: run it with your own output and default target,
// parse its command line, format an inspection. Its other parts stay in
// src/cli/.
export type { CliCommand, EnvSetting, Target } from "./src/cli/args.ts";
export { parseCommandLine, UsageError } from "./src/cli/args.ts";
export type { DefaultTarget } from "./src/cli/connect.ts";
export type { Inspection } from "./src/cli/format.ts";
export { formatInspection } from "./src/cli/format.ts";
export type { CliOutput, RunCliOptions } from "./src/cli/run.ts";
export { runCli } from "./src/cli/run.ts";
export { ExitCode } from "./src/cli/usage.ts";

function bundledServer(): DefaultTarget | undefined {
  const example = new URL("./examples/server.ts", import.meta.url);
  if (example.protocol !== "file:") return undefined;
  const env: Record<string, string> = {};
  // The child should find the same module cache (no network on a fresh clone).
  let denoDir: string | undefined;
  try {
    denoDir = Deno.env.get("DENO_DIR");
  } catch {
    denoDir = undefined; // no --allow-env: the default cache
  }
  if (denoDir !== undefined) env.DENO_DIR = denoDir;
  return {
    command: Deno.execPath(),
    args: ["run", "-A", fileURLToPath(example)],
    cwd: fileURLToPath(new URL("./", import.meta.url)),
    env,
    label: "examples/server.ts",
  };
}

/**
 * Runs `weft-mcp` on `args` with this process's stdout and stderr and the
 * bundled server as the default target; SIGINT closes the server and
 * resolves 130. Resolves to the exit code.
 */
async function main(args: readonly string[]): Promise<number> {
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    return await runCli(args, {
      defaultTarget: bundledServer(),
      signal: interrupt.signal,
    });
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
