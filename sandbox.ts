/**
 * Code mode's sandboxes: executors that run a model's program with no
 * permissions, for `AgentOptions.codeMode`. The subprocess executor runs
 * each program in a `deno run` child without `--allow-*` flags, remote
 * imports or environment, under a deadline and a heap cap, and can
 * type-check a program before it runs. The worker executor runs programs in
 * permissionless Web Workers of the host (faster to start, not memory safe;
 * it needs a host started with `--unstable-worker-options`).
 *
 * @experimental Code mode may change.
 *
 * @example An agent in code mode
 * ```ts
 * import { Agent, tool } from "@weft/mcp";
 * import { subprocessExecutor } from "@weft/mcp/sandbox";
 * import { callTools, say, script } from "@weft/mcp/testing";
 * import { z } from "zod";
 *
 * const add = tool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   output: z.object({ sum: z.number() }),
 *   run: ({ a, b }) => ({ sum: a + b }),
 * });
 * await using executor = subprocessExecutor({ timeout: 10_000 });
 * const program = "async () => (await codemode.add({ a: 1, b: 2 })).sum";
 * const agent = new Agent(
 *   script(callTools({ name: "code", args: { code: program } }), say("3")),
 *   { tools: [add], codeMode: { executor } },
 * );
 * const result = await agent.generate("What is 1 + 2?");
 * console.log(result.steps[0].results[0].content); // "3"
 * ```
 *
 * @module
 */

export {
  SubprocessExecutor,
  subprocessExecutor,
  type SubprocessExecutorOptions,
} from "./src/sandbox/subprocess.ts";
export {
  hostHasWorkerOptions,
  WorkerExecutor,
  workerExecutor,
  type WorkerExecutorOptions,
  WorkerOptionsMissingError,
} from "./src/sandbox/worker.ts";
export type { Clock } from "./src/sandbox/clock.ts";
export type {
  CheckResult,
  CodeModeOptions,
  ExecuteOptions,
  ExecuteResult,
  Executor,
  ResolvedProvider,
  SandboxFn,
  TypeChecker,
} from "./src/core/code_mode.ts";
export { identifierOf } from "./src/core/code_mode.ts";
