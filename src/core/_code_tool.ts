/**
 * The code tool: one tool whose input is a program over the agent's tools.
 * Each call the program makes comes back here and runs through the agent's
 * tool chain (middleware, approval, scopes, the tool's own middleware such
 * as an imported tool's pin check), with the tool's timeout and result cap,
 * as a direct call would.
 *
 * Approval inside a program: a gated call stops the sandbox and parks the
 * code tool's call, its approval request carrying the program's journal —
 * the calls already made, with what they returned — as `state`. Approved
 * with `approve(pending)`, the program runs again from the top; a call that
 * matches the journal (same position, tool and arguments) is answered from
 * it and not made again, and the approved call runs with `approved` set.
 *
 * @module
 */

import type { ToolSnapshot } from "./_chain.ts";
import type { CodeModeOptions, TypeChecker } from "./code_mode.ts";
import { ToolError } from "./errors.ts";
import type { ToolMiddleware } from "./middleware.ts";
import { declarations, identifiers, NAMESPACE } from "./_code_types.ts";
import { rawTool, type ToolDef } from "./tool.ts";
import { CODE_PROGRAM_FAILED, type Journal, runProgram } from "./_code_run.ts";

/** What the code tool needs from the agent. */
export interface CodeToolConfig {
  /** The tools programs may call, read afresh per program. */
  readonly tools: () => ToolSnapshot;
  /** The agent's middleware. */
  readonly middleware: readonly ToolMiddleware[];
  /** Agent-level strict input. */
  readonly strictInput: boolean;
  /** The agent's default per-call timeout in ms; 0 for none. */
  readonly timeout: number;
  /** The agent's default result cap; 0 for none. */
  readonly maxResultBytes: number;
}

const DESCRIPTION =
  "Runs a TypeScript program over the tools below and returns its result. " +
  "Write one async arrow function, e.g. `async () => { const a = await " +
  `${NAMESPACE}.some_tool({ … }); return a; }\`. Call tools only through ` +
  `\`${NAMESPACE}\`; the program has no network, files or environment. ` +
  "Only the return value (JSON) and console output come back.\n\n";

/** The text a program that was approved without its journal reads. */
export const NO_JOURNAL_TEXT =
  "program not run: it was approved without its journal of earlier calls; the host must approve with approve(pending)";

/** Builds the code tool over `config` with `options`. */
export function codeTool(
  config: CodeToolConfig,
  options: CodeModeOptions,
): ToolDef {
  const executor = options.executor;
  const checker = options.typeCheck === true
    ? checkerOf(executor, options)
    : undefined;
  const api = () => {
    const snapshot = config.tools();
    const named = new Map<string, ToolDef>();
    for (const [id, name] of identifiers([...snapshot.values()])) {
      named.set(id, snapshot.get(name) as ToolDef);
    }
    return { snapshot, named, types: declarations(named) };
  };
  return rawTool({
    name: options.name ?? "code",
    description: DESCRIPTION + describe(api),
    inputSchema: {
      type: "object",
      properties: {
        code: {
          type: "string",
          description: "TypeScript: an async arrow function over `codemode`",
        },
      },
      required: ["code"],
    },
    run: async (args, ctx) => {
      const code = programOf(args);
      const { snapshot, named, types } = api();
      let journal: Journal = { v: 1, calls: [] };
      if (ctx.call?.approved === true) {
        const saved = readJournal(ctx.call.approval?.state);
        if (saved === undefined) {
          throw new ToolError(CODE_PROGRAM_FAILED, NO_JOURNAL_TEXT);
        }
        journal = saved;
      }
      if (checker !== undefined) {
        const checked = await checker.check(code, types, {
          signal: ctx.signal,
        });
        if (!checked.ok) {
          throw new ToolError(
            CODE_PROGRAM_FAILED,
            `the program does not type-check; no tool was called:\n${checked.diagnostics}`,
          );
        }
      }
      return await runProgram(code, {
        executor,
        config,
        snapshot,
        named,
        journal,
        ctx,
      });
    },
  });
}

function checkerOf(
  executor: CodeModeOptions["executor"],
  options: CodeModeOptions,
): TypeChecker {
  const check = (executor as Partial<TypeChecker>).check;
  if (typeof check !== "function") {
    throw new TypeError(
      `codeMode: typeCheck needs an executor that can type-check (a check method); ${
        options.name ?? "code"
      }'s executor has none`,
    );
  }
  return executor as TypeChecker;
}

function programOf(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = undefined;
  }
  const code = (parsed as { code?: unknown } | null)?.code;
  if (typeof code !== "string") {
    throw new ToolError(
      "INVALID_INPUT",
      'the code tool takes { "code": string }: the program as TypeScript',
    );
  }
  return code;
}

function readJournal(state: string | undefined): Journal | undefined {
  if (state === undefined) return undefined;
  try {
    const j = JSON.parse(state) as Journal;
    return j?.v === 1 && Array.isArray(j.calls) ? j : undefined;
  } catch {
    // A state that does not parse is no journal: the caller refuses to run.
    return undefined;
  }
}

/** The API as the description shows it; a toolSource that fails now shows the registered tools only. */
function describe(api: () => { types: string }): string {
  try {
    return api().types;
  } catch {
    // The toolSource is not ready at construction: each run reads it afresh.
    return "(the tools are listed when the agent runs)";
  }
}
