/**
 * Code mode: the model writes one program over the agent's tools instead
 * of calling them one by one. The program runs in a sandbox an
 * {@linkcode Executor} provides (the subprocess and worker executors of
 * `@weft/mcp/sandbox`); each tool call it makes comes back to the host and
 * goes through the agent's tool chain — approval, scopes, pins, middleware
 * — exactly as a direct call does. Only the program's return value and its
 * (bounded) console output go back to the model.
 *
 * The executor contract has the shape of `@cloudflare/codemode`'s
 * `Executor`, so executors written for one plug into the other.
 *
 * @module
 */

/** A host function a program calls: one tool, taking its argument object. */
export type SandboxFn = (...args: unknown[]) => Promise<unknown>;

/**
 * What running a program produced. Never thrown: a failure is `error`.
 *
 * @example
 * ```ts
 * import type { ExecuteResult } from "@weft/mcp/core";
 * const ok: ExecuteResult = { result: 42, logs: ["counted"] };
 * const failed: ExecuteResult = { result: undefined, error: "program timed out after 5 s" };
 * console.log(ok.result, failed.error);
 * ```
 */
export interface ExecuteResult {
  /** The program's return value (JSON data); `undefined` on failure. */
  result: unknown;
  /** Why the program failed, naming the cause; absent on success. */
  error?: string;
  /** What the program printed (`console.*`), one entry per call, bounded by the executor. */
  logs?: string[];
}

/**
 * Functions a program sees under one namespace: `fns.read_file` is
 * `<name>.read_file(…)` inside the sandbox.
 *
 * @example
 * ```ts
 * import type { ResolvedProvider } from "@weft/mcp/core";
 * const provider: ResolvedProvider = {
 *   name: "codemode",
 *   fns: { add: async (input) => (input as { a: number; b: number }).a + 1 },
 * };
 * console.log(Object.keys(provider.fns));
 * ```
 */
export interface ResolvedProvider {
  /** The namespace: a JavaScript identifier. */
  name: string;
  /** The functions, by the name the program calls them with. */
  fns: Record<string, SandboxFn>;
  /** JavaScript evaluated in the sandbox, with the program, after the namespace exists. */
  prelude?: string;
}

/**
 * Per-run options of an executor.
 *
 * @example
 * ```ts
 * import type { ExecuteOptions } from "@weft/mcp/core";
 * const options: ExecuteOptions = { signal: AbortSignal.timeout(1_000) };
 * console.log(options.signal?.aborted);
 * ```
 */
export interface ExecuteOptions {
  /** Stops the program: the sandbox ends and the result says so. */
  signal?: AbortSignal;
  /**
   * `@cloudflare/codemode`'s connector bindings, accepted for its
   * `Executor` contract; weft's executors pass no bindings into a sandbox
   * and refuse a run that is given any.
   */
  connectors?: readonly unknown[];
}

/**
 * Runs a program in a sandbox with the given functions callable from it.
 * Implementations never throw: every failure is `ExecuteResult.error`. The
 * program is an async arrow function (`async () => { … }`) or the body of
 * one, in JavaScript or TypeScript.
 *
 * @example A trivial executor (no isolation: for tests only)
 * ```ts
 * import type { ExecuteResult, Executor } from "@weft/mcp/core";
 * const constant: Executor = {
 *   execute: (): Promise<ExecuteResult> => Promise.resolve({ result: 1 }),
 * };
 * console.log(await constant.execute("async () => 1", {}));
 * ```
 */
export interface Executor {
  /** Runs `code` with `providersOrFns` (providers, or functions under `codemode`). */
  execute(
    code: string,
    providersOrFns: ResolvedProvider[] | Record<string, SandboxFn>,
    options?: ExecuteOptions,
  ): Promise<ExecuteResult>;
}

/**
 * What type checking a program found.
 *
 * @example
 * ```ts
 * import type { CheckResult } from "@weft/mcp/core";
 * const result: CheckResult = { ok: false, diagnostics: "TS2353 [ERROR]: …" };
 * console.log(result.ok);
 * ```
 */
export interface CheckResult {
  /** True when the program type-checks against the declarations. */
  ok: boolean;
  /** The checker's diagnostics, positions relative to the program; `""` when ok. */
  diagnostics: string;
}

/**
 * An executor that can also type-check a program against declarations
 * before it runs (`CodeModeOptions.typeCheck`).
 *
 * @example
 * ```ts
 * import type { TypeChecker } from "@weft/mcp/core";
 * const lenient: TypeChecker = {
 *   check: () => Promise.resolve({ ok: true, diagnostics: "" }),
 * };
 * console.log((await lenient.check("async () => 1", "")).ok);
 * ```
 */
export interface TypeChecker {
  /** Checks `code` against `declarations`; never throws (a failure to check is a diagnostic). */
  check(
    code: string,
    declarations: string,
    options?: ExecuteOptions,
  ): Promise<CheckResult>;
}

/**
 * Code mode for an agent (`AgentOptions.codeMode`).
 *
 * @experimental Code mode may change.
 *
 * @example
 * ```ts
 * import { Agent, type CodeModeOptions, type ExecuteResult } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * const options: CodeModeOptions = {
 *   executor: { execute: (): Promise<ExecuteResult> => Promise.resolve({ result: 1 }) },
 * };
 * const agent = new Agent(script(say("ok")), { codeMode: options });
 * console.log(agent.tools.map((t) => t.name)); // ["code"]
 * ```
 */
export interface CodeModeOptions {
  /** Runs the programs (`subprocessExecutor()` from `@weft/mcp/sandbox`). */
  executor: Executor | (Executor & TypeChecker);
  /**
   * The code tool's name.
   * @default "code"
   */
  name?: string;
  /**
   * Keep the tools directly callable beside the code tool; otherwise the
   * model reaches them only through programs.
   * @default false
   */
  direct?: boolean;
  /**
   * Type-check each program against the generated declarations before it
   * runs (the executor must implement {@linkcode TypeChecker}); a program
   * that fails calls no tool, and the model reads the diagnostics.
   * @default false
   */
  typeCheck?: boolean;
}

const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else " +
    "enum export extends false finally for function if import in instanceof " +
    "new null return super switch this throw true try typeof var void while " +
    "with yield let static implements interface package private protected " +
    "public await arguments eval").split(" "),
);

/**
 * A tool name as the JavaScript identifier a program calls it by: `-`, `.`
 * and white space become `_`, other characters that cannot appear in an
 * identifier drop, a leading digit gets `_` before it and a reserved word
 * `_` after it (the rule `@cloudflare/codemode` sanitizes names with).
 *
 * @example
 * ```ts
 * import { identifierOf } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * assert.equal(identifierOf("get-sum"), "get_sum");
 * assert.equal(identifierOf("3d.render"), "_3d_render");
 * assert.equal(identifierOf("delete"), "delete_");
 * ```
 */
export function identifierOf(name: string): string {
  let id = name.replace(/[-.\s]/g, "_").replace(/[^a-zA-Z0-9_$]/g, "");
  if (id === "") id = "_";
  if (/^[0-9]/.test(id)) id = "_" + id;
  if (RESERVED.has(id)) id += "_";
  return id;
}
