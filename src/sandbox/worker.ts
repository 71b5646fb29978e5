/**
 * The worker executor: each program runs in a Web Worker of the host
 * process with `deno: { permissions: "none" }` — no network, files,
 * environment or processes — under a wall-clock deadline. It starts in
 * milliseconds instead of a process's hundreds, but it is **not memory
 * safe**: a worker shares the host's process, and a program that allocates
 * without bound takes the whole host down (Deno has no per-worker heap cap).
 * Use it only for programs you would run in the host anyway.
 *
 * Worker permissions are behind `--unstable-worker-options`; Deno 2.9 ends
 * the process (exit code 70) when a worker asks for them without it, so the
 * executor refuses to be built on a host started without the flag.
 *
 * @module
 */

import type {
  ExecuteOptions,
  ExecuteResult,
  Executor,
  ResolvedProvider,
  SandboxFn,
} from "../core/code_mode.ts";
import { type Clock, SYSTEM_CLOCK } from "./clock.ts";
import { WORKER_RUNNER_URL } from "./_runner.ts";
import type { RunnerMessage } from "./_runner.ts";
import {
  answerProgram,
  LogBuffer,
  plain,
  resolveProviders,
} from "./_shared.ts";

/**
 * How the worker executor runs programs. Every field is optional.
 *
 * @example
 * ```ts
 * import type { WorkerExecutorOptions } from "@weft/mcp/sandbox";
 * const options: WorkerExecutorOptions = { timeout: 2_000, hostHasWorkerOptions: true };
 * console.log(options.timeout);
 * ```
 */
export interface WorkerExecutorOptions {
  /**
   * The wall-clock deadline of one program in ms; the worker is terminated when it passes.
   * @default 30000
   */
  timeout?: number;
  /**
   * The most `console` lines kept per program; the rest are counted.
   * @default 100
   */
  maxLogLines?: number;
  /**
   * The most bytes of logs kept per program.
   * @default 16384
   */
  maxLogBytes?: number;
  /**
   * The host was started with worker options enabled by a means the
   * executor cannot see (`"unstable": ["worker-options"]` in its deno.json,
   * or a host whose command line is not readable at `/proc/self/cmdline`).
   * Without it, the executor reads the command line for
   * `--unstable-worker-options` and refuses when it is missing.
   * @default false
   */
  hostHasWorkerOptions?: boolean;
  /** The timers the deadline uses; default the global ones. */
  clock?: Clock;
}

/**
 * The host cannot give a worker its own permissions: it was started
 * without `--unstable-worker-options`.
 *
 * @example
 * ```ts
 * import { WorkerOptionsMissingError } from "@weft/mcp/sandbox";
 * console.log(new WorkerOptionsMissingError().message);
 * ```
 */
export class WorkerOptionsMissingError extends Error {
  /** Builds the error. */
  constructor() {
    super(
      'workerExecutor: the host was not started with --unstable-worker-options, so a worker cannot be given permissions "none" (Deno would end the process); run the host with that flag, set hostHasWorkerOptions when deno.json\'s unstable list enables it, or use subprocessExecutor',
    );
    this.name = "WorkerOptionsMissingError";
  }
}

/**
 * Whether this process was started with `--unstable-worker-options`, read
 * from `/proc/self/cmdline`; false where it cannot be read.
 *
 * @example
 * ```ts
 * import { hostHasWorkerOptions } from "@weft/mcp/sandbox";
 * console.log(hostHasWorkerOptions());
 * ```
 */
export function hostHasWorkerOptions(): boolean {
  try {
    const args = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
    const end = args.findIndex((a) => a.startsWith("data:") || a === "--");
    return args.slice(0, end < 0 ? args.length : end).includes(
      "--unstable-worker-options",
    );
  } catch {
    // Not Linux, or no read permission: the caller must say (hostHasWorkerOptions).
    return false;
  }
}

/**
 * Runs programs in permissionless Web Workers of the host process. Not
 * memory safe (see the module doc). Never throws from `execute`.
 *
 * @example
 * ```ts ignore
 * // Needs `deno run --unstable-worker-options`.
 * import { workerExecutor } from "@weft/mcp/sandbox";
 * const executor = workerExecutor({ timeout: 2_000 });
 * console.log((await executor.execute("async () => 6 * 7", {})).result); // 42
 * ```
 */
export class WorkerExecutor implements Executor {
  readonly #timeout: number;
  readonly #maxLogLines: number;
  readonly #maxLogBytes: number;
  readonly #clock: Clock;

  /** Builds the executor; throws `WorkerOptionsMissingError` on a host without worker options. */
  constructor(options: WorkerExecutorOptions = {}) {
    if (options.hostHasWorkerOptions !== true && !hostHasWorkerOptions()) {
      throw new WorkerOptionsMissingError();
    }
    this.#timeout = positive(options.timeout, 30_000);
    this.#maxLogLines = positive(options.maxLogLines, 100);
    this.#maxLogBytes = positive(options.maxLogBytes, 16_384);
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** Runs `code` in a fresh worker; see {@linkcode Executor.execute}. */
  execute(
    code: string,
    providersOrFns: ResolvedProvider[] | Record<string, SandboxFn>,
    options: ExecuteOptions = {},
  ): Promise<ExecuteResult> {
    if ((options.connectors?.length ?? 0) > 0) {
      return Promise.resolve({
        result: undefined,
        error:
          "connectors are not supported: tools reach the program only as functions",
      });
    }
    const providers = Array.isArray(providersOrFns)
      ? providersOrFns
      : [{ name: "codemode", fns: providersOrFns }];
    const resolved = resolveProviders(providers);
    if (typeof resolved === "string") {
      return Promise.resolve({ result: undefined, error: resolved });
    }
    const { fns, ns } = resolved;
    const signal = options.signal;
    const logs = new LogBuffer(this.#maxLogLines, this.#maxLogBytes);
    return new Promise<ExecuteResult>((resolve) => {
      let settled = false;
      let timer: unknown;
      let worker: Worker | undefined;
      const end = (outcome: ExecuteResult): void => {
        if (settled) return;
        settled = true;
        this.#clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        worker?.terminate();
        const kept = logs.lines();
        resolve(kept.length > 0 ? { ...outcome, logs: kept } : outcome);
      };
      const onAbort = (): void =>
        end({
          result: undefined,
          error: `the program was stopped: ${
            signal?.reason instanceof Error
              ? signal.reason.message
              : String(signal?.reason)
          }`,
        });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        worker = new Worker(WORKER_RUNNER_URL, {
          type: "module",
          deno: { permissions: "none" },
        } as WorkerOptions);
      } catch (err) {
        return end({
          result: undefined,
          error: `the worker did not start: ${String(err)}`,
        });
      }
      const w = worker;
      w.onerror = (event) => {
        event.preventDefault();
        end({
          result: undefined,
          error: `the program's worker failed: ${plain(String(event.message))}`,
        });
      };
      w.onmessage = (event: MessageEvent<RunnerMessage>) => {
        const message = event.data;
        if (message.t === "ready") {
          timer = this.#clock.setTimeout(
            () =>
              end({
                result: undefined,
                error: `the program timed out after ${this.#timeout} ms`,
              }),
            this.#timeout,
          );
          w.postMessage({
            t: "run",
            code,
            ns,
            preludes: providers.flatMap((p) => p.prelude ?? []),
            maxLogs: this.#maxLogLines,
          });
        } else {
          answerProgram(message, {
            logs,
            fns,
            end,
            reply: (answer) => {
              if (!settled) w.postMessage(answer);
            },
          });
        }
      };
    });
  }
}

/**
 * A worker executor with `options`; see {@linkcode WorkerExecutor}. Throws
 * `WorkerOptionsMissingError` on a host without `--unstable-worker-options`.
 *
 * @example
 * ```ts
 * import { WorkerOptionsMissingError, workerExecutor } from "@weft/mcp/sandbox";
 * try {
 *   const executor = workerExecutor({ timeout: 2_000 });
 *   console.log((await executor.execute("async () => 1", {})).result);
 * } catch (err) {
 *   console.log(err instanceof WorkerOptionsMissingError); // on a host without the flag
 * }
 * ```
 */
export function workerExecutor(
  options: WorkerExecutorOptions = {},
): WorkerExecutor {
  return new WorkerExecutor(options);
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0
    ? value
    : fallback;
}
