/**
 * The subprocess executor: each program runs in a fresh `deno run` child
 * with no permissions — no network, files, environment, processes or
 * system information (`--no-prompt`, no `--allow-*`), no remote, npm or
 * JSR code (`--no-remote`, `--no-npm`), no config or lock file, an empty
 * environment — under a wall-clock deadline and a V8 heap cap. Its tool
 * calls come back to the host over stdin/stdout, one JSON message a line.
 * A pool of children already started (`pool`) cuts the start-up; a child
 * runs one program and ends.
 *
 * @module
 */

import type {
  CheckResult,
  ExecuteOptions,
  ExecuteResult,
  Executor,
  ResolvedProvider,
  SandboxFn,
  TypeChecker,
} from "../core/code_mode.ts";
import { Child, type ChildOptions } from "./_child.ts";
import { type Clock, SYSTEM_CLOCK } from "./clock.ts";
import { checkProgram } from "./_check.ts";
import { answerProgram, LogBuffer, resolveProviders } from "./_shared.ts";

/**
 * How the subprocess executor runs programs. Every field is optional.
 *
 * @example
 * ```ts
 * import { subprocessExecutor, type SubprocessExecutorOptions } from "@weft/mcp/sandbox";
 * const options: SubprocessExecutorOptions = { timeout: 5_000, memoryMb: 64, pool: 2 };
 * await using executor = subprocessExecutor(options);
 * console.log((await executor.execute("async () => 6 * 7", {})).result); // 42
 * ```
 */
export interface SubprocessExecutorOptions {
  /**
   * The wall-clock deadline of one program in ms, from the moment it is
   * handed to its child; the child is killed when it passes.
   * @default 30000
   */
  timeout?: number;
  /**
   * The V8 heap cap of a child in MiB (`--max-old-space-size`); a program
   * that needs more ends with an out-of-memory error.
   * @default 128
   */
  memoryMb?: number;
  /**
   * Children kept started and waiting for a program; 0 starts one per program.
   * @default 0
   */
  pool?: number;
  /**
   * The most `console` lines kept per program; the rest are counted.
   * @default 100
   */
  maxLogLines?: number;
  /**
   * The most bytes of logs kept per program (each line cut to fit).
   * @default 16384
   */
  maxLogBytes?: number;
  /**
   * The longest message a child may send (a call's arguments, the result), in bytes.
   * @default 8388608
   */
  maxMessageBytes?: number;
  /**
   * The deadline of one type check (`deno check`) in ms.
   * @default 60000
   */
  checkTimeout?: number;
  /** The Deno executable; default `Deno.execPath()`. */
  deno?: string;
  /** The timers the deadline uses; default the global ones. */
  clock?: Clock;
}

/**
 * Runs programs in permissionless `deno run` children. Never throws from
 * `execute` or `check`; `close` ends the pooled children.
 *
 * @example
 * ```ts
 * import { SubprocessExecutor } from "@weft/mcp/sandbox";
 * await using executor = new SubprocessExecutor({ timeout: 5_000 });
 * const out = await executor.execute(
 *   "async () => (await codemode.add({ a: 1, b: 2 })) as number",
 *   { add: async (input) => (input as { a: number; b: number }).a + 2 },
 * );
 * console.log(out.result); // 3
 * ```
 */
export class SubprocessExecutor implements Executor, TypeChecker {
  readonly #timeout: number;
  readonly #checkTimeout: number;
  readonly #memoryMb: number;
  readonly #poolSize: number;
  readonly #maxLogLines: number;
  readonly #maxLogBytes: number;
  readonly #child: ChildOptions;
  readonly #clock: Clock;
  readonly #pool: Child[] = [];
  readonly #live = new Set<Child>();
  #closed = false;

  /** Builds the executor; starts `pool` children at once. */
  constructor(options: SubprocessExecutorOptions = {}) {
    this.#timeout = positive(options.timeout, 30_000);
    this.#checkTimeout = positive(options.checkTimeout, 60_000);
    this.#memoryMb = positive(options.memoryMb, 128);
    this.#poolSize = Math.floor(positive(options.pool, 0));
    this.#maxLogLines = positive(options.maxLogLines, 100);
    this.#maxLogBytes = positive(options.maxLogBytes, 16_384);
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#child = {
      deno: options.deno ?? Deno.execPath(),
      memoryMb: this.#memoryMb,
      maxMessageBytes: positive(options.maxMessageBytes, 8 * 1024 * 1024),
    };
    this.#refill();
  }

  /** Runs `code` in a fresh child; see {@linkcode Executor.execute}. */
  async execute(
    code: string,
    providersOrFns: ResolvedProvider[] | Record<string, SandboxFn>,
    options: ExecuteOptions = {},
  ): Promise<ExecuteResult> {
    if (this.#closed) {
      return { result: undefined, error: "the executor is closed" };
    }
    if ((options.connectors?.length ?? 0) > 0) {
      return {
        result: undefined,
        error:
          "connectors are not supported: tools reach the program only as functions",
      };
    }
    const providers = Array.isArray(providersOrFns)
      ? providersOrFns
      : [{ name: "codemode", fns: providersOrFns }];
    const child = this.#take();
    try {
      return await this.#run(child, code, providers, options.signal);
    } catch (err) {
      return { result: undefined, error: `executor failed: ${String(err)}` };
    } finally {
      child.kill();
      await child.ended.catch(() => {
        // Nothing lost: the child was killed; the run's outcome is already returned.
      });
      this.#live.delete(child);
      this.#refill();
    }
  }

  /** Type-checks `code` against `declarations` with `deno check` in a child; see {@linkcode TypeChecker}. */
  check(
    code: string,
    declarations: string,
    options: ExecuteOptions = {},
  ): Promise<CheckResult> {
    return checkProgram(code, declarations, {
      deno: this.#child.deno,
      timeout: this.#checkTimeout,
      clock: this.#clock,
      signal: options.signal,
    });
  }

  /** Ends the pooled children and refuses further programs. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#live];
    this.#pool.length = 0;
    for (const child of all) child.kill();
    await Promise.all(all.map((c) =>
      c.ended.catch(() => {
        // Nothing lost: every child was killed; an exit that fails has nothing to say.
      })
    ));
  }

  /** Same as {@linkcode SubprocessExecutor.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #take(): Child {
    const pooled = this.#pool.shift();
    if (pooled !== undefined) return pooled;
    const child = new Child(this.#child);
    this.#live.add(child);
    return child;
  }

  #refill(): void {
    while (!this.#closed && this.#pool.length < this.#poolSize) {
      const child = new Child(this.#child);
      this.#live.add(child);
      this.#pool.push(child);
    }
  }

  #run(
    child: Child,
    code: string,
    providers: readonly ResolvedProvider[],
    signal: AbortSignal | undefined,
  ): Promise<ExecuteResult> {
    const logs = new LogBuffer(this.#maxLogLines, this.#maxLogBytes);
    const resolved = resolveProviders(providers);
    if (typeof resolved === "string") {
      return Promise.resolve({ result: undefined, error: resolved });
    }
    const { fns, ns } = resolved;
    return new Promise<ExecuteResult>((resolve) => {
      let settled = false;
      let timer: unknown;
      const end = (outcome: ExecuteResult): void => {
        if (settled) return;
        settled = true;
        this.#clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        child.kill();
        const kept = logs.lines();
        resolve(kept.length > 0 ? { ...outcome, logs: kept } : outcome);
      };
      const onAbort = (): void =>
        end({
          result: undefined,
          error: `the program was stopped: ${reasonText(signal?.reason)}`,
        });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      child.listen((message) =>
        answerProgram(message, {
          logs,
          fns,
          end,
          reply: (answer) => void child.send(answer),
        })
      );
      child.ended.then((status) =>
        end({ result: undefined, error: this.#crashText(child, status) })
      );
      child.ready.then((ok) => {
        if (!ok || settled) return;
        timer = this.#clock.setTimeout(
          () =>
            end({
              result: undefined,
              error: `the program timed out after ${this.#timeout} ms`,
            }),
          this.#timeout,
        );
        child.send({
          t: "run",
          code,
          ns,
          preludes: providers.flatMap((p) => p.prelude ?? []),
          maxLogs: this.#maxLogLines,
        });
      });
    });
  }

  #crashText(child: Child, status: Deno.CommandStatus): string {
    const err = child.stderr;
    if (child.overflowed) {
      return "the program sent a message over the size limit and was stopped";
    }
    if (/out of memory|heap limit|allocation failed/i.test(err)) {
      return `the program ran out of memory (heap cap ${this.#memoryMb} MiB)`;
    }
    const how = status.signal !== null
      ? `signal ${status.signal}`
      : `exit code ${status.code}`;
    return `the program's sandbox ended unexpectedly (${how})${
      err === "" ? "" : `: ${err.slice(-500)}`
    }`;
  }
}

/**
 * A subprocess executor with `options`; see {@linkcode SubprocessExecutor}.
 *
 * @example
 * ```ts
 * import { subprocessExecutor } from "@weft/mcp/sandbox";
 * await using executor = subprocessExecutor({ timeout: 2_000 });
 * const out = await executor.execute("async () => await fetch('https://example.com')", {});
 * console.log(out.error); // NotCapable: Requires net access to "example.com:443", …
 * ```
 */
export function subprocessExecutor(
  options: SubprocessExecutorOptions = {},
): SubprocessExecutor {
  return new SubprocessExecutor(options);
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0
    ? value
    : fallback;
}
