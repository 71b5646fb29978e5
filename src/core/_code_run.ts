/**
 * Running one code-mode program: the host functions the sandbox calls
 * (each a call through the agent's tool chain), the journal that answers
 * calls already made before an approval, and the tool result the model
 * reads.
 *
 * @module
 */

import { linkSignal, raceAbort } from "./abort.ts";
import {
  approvalRequestOf,
  isApprovalRequired,
  toolChain,
  type ToolSnapshot,
} from "./_chain.ts";
import type { Executor, SandboxFn } from "./code_mode.ts";
import {
  ApprovalRequiredError,
  quote,
  ToolError,
  ToolTimeoutError,
} from "./errors.ts";
import { stringifyExact } from "./json.ts";
import type { ToolMiddleware } from "./middleware.ts";
import { failureText, formatDuration, truncateResult } from "./policy.ts";
import { NAMESPACE } from "./_code_types.ts";
import type { ToolContext, ToolDef, ToolResult } from "./tool.ts";

/** The error code of a program that failed, was refused or did not type-check. */
export const CODE_PROGRAM_FAILED = "PROGRAM_FAILED";

/** The approval reason of a program's gated call that says none of its own. */
export const PROGRAM_CALL = "program_call";

/** The line between a program's result and its logs in the tool result. */
export const LOGS_HEADER = "\n--- logs ---\n";

/** One call a program made, as the journal keeps it. */
export interface Entry {
  /** The tool's name. */
  readonly tool: string;
  /** The arguments as JSON text. */
  readonly args: string;
  /** Whether the call succeeded. */
  readonly ok: boolean;
  /** What the program got: the value, or the error text. */
  readonly value: unknown;
}

/** The calls a program made, by position, and the one approval was asked for. */
export interface Journal {
  /** The format version. */
  readonly v: 1;
  /** By position in call order; null where a call did not finish. */
  readonly calls: (Entry | null)[];
  /** The gated call the approval is for. */
  readonly approved?: {
    readonly index: number;
    readonly tool: string;
    readonly args: string;
  };
}

/** What one program run needs. */
export interface ProgramRun {
  readonly executor: Executor;
  readonly config: {
    readonly middleware: readonly ToolMiddleware[];
    readonly strictInput: boolean;
    readonly timeout: number;
    readonly maxResultBytes: number;
  };
  readonly snapshot: ToolSnapshot;
  readonly named: ReadonlyMap<string, ToolDef>;
  readonly journal: Journal;
  readonly ctx: ToolContext;
}

/**
 * Runs `code`; resolves to the tool's result text, rejects with a
 * `ToolError` (the program failed) or an `ApprovalRequiredError` carrying
 * the journal (a call waits for approval).
 */
export async function runProgram(
  code: string,
  run: ProgramRun,
): Promise<string> {
  const calls = new ProgramCalls(run);
  let result;
  try {
    result = await run.executor.execute(code, [{
      name: NAMESPACE,
      fns: calls.fns(),
    }], { signal: calls.stop.signal });
  } finally {
    await calls.settle();
  }
  if (calls.parked !== undefined) {
    throw parkedError(run, calls.parked, calls.made);
  }
  const logs = result.logs !== undefined && result.logs.length > 0
    ? LOGS_HEADER + result.logs.join("\n")
    : "";
  if (result.error !== undefined) {
    throw new ToolError(CODE_PROGRAM_FAILED, result.error + logs);
  }
  return resultText(result.result) + logs;
}

/** The gated call a program stopped at. */
interface ParkedCall {
  readonly index: number;
  readonly tool: string;
  readonly args: string;
  readonly err: unknown;
}

/** The calls of one program run: answered from the journal, or made through the chain. */
class ProgramCalls {
  readonly #run: ProgramRun;
  /**
   * Stops the sandbox (a call parked, or the run ended); calls already
   * running keep their own signal, `live`, and finish.
   */
  readonly stop: ReturnType<typeof linkSignal>;
  /**
   * Ends the calls still running once the program has ended without
   * parking (its deadline passed, or it returned without awaiting them).
   */
  readonly #live: ReturnType<typeof linkSignal>;
  /** What each call got, by position; null where a call did not finish. */
  readonly made: (Entry | null)[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The first call that waits for approval, once one does. */
  parked: ParkedCall | undefined;
  #seq = 0;
  #diverged = false;

  constructor(run: ProgramRun) {
    this.#run = run;
    this.stop = linkSignal(run.ctx.signal);
    this.#live = linkSignal(run.ctx.signal);
  }

  /** The sandbox's functions, one per tool, each tracked while in flight. */
  fns(): Record<string, SandboxFn> {
    const fns: Record<string, SandboxFn> = {};
    const inFlight = this.#inFlight;
    for (const [id, tool] of this.#run.named) {
      fns[id] = (input?: unknown) => {
        const p = this.#call(tool, input);
        inFlight.add(p);
        const done = () => inFlight.delete(p);
        p.then(done, done);
        return p;
      };
    }
    return fns;
  }

  /**
   * Once the program has ended. Parked: calls already running finish, so
   * the journal holds every call made. Otherwise nothing waits for them
   * any more.
   */
  async settle(): Promise<void> {
    if (this.parked === undefined) {
      this.#live.abort(new Error("the program ended before the call did"));
    }
    await Promise.allSettled([...this.#inFlight]);
    this.stop.unlink();
    this.#live.unlink();
  }

  async #call(tool: ToolDef, input: unknown): Promise<unknown> {
    const { ctx, journal } = this.#run;
    const calls = this.made;
    const index = this.#seq++;
    if (this.parked !== undefined) throw new Error("the program was stopped");
    const args = stringifyExact(input ?? {}) ?? "{}";
    const before = journal.calls[index];
    if (before && before.tool === tool.name && before.args === args) {
      calls[index] = before;
      if (before.ok) return before.value;
      throw new Error(String(before.value));
    }
    // A call the journal holds otherwise: the program went another way, and
    // the approval, given for the program as it was, no longer holds.
    if (before) this.#diverged = true;
    const approved = journal.approved;
    const isApproved = !this.#diverged && approved !== undefined &&
      approved.index === index && approved.tool === tool.name &&
      approved.args === args;
    calls[index] = null;
    // The calls a program makes are no tool events of their own: observers
    // see each one as the code call's progress.
    ctx.progress?.({
      progress: index + 1,
      message: `calls tool ${quote(tool.name)}`,
    });
    try {
      const value = await callTool(this.#run, tool, args, {
        index,
        approved: isApproved,
        signal: this.#live.signal,
      });
      calls[index] = { tool: tool.name, args, ok: true, value };
      return value;
    } catch (err) {
      if (isApprovalRequired(err)) {
        if (this.parked === undefined) {
          this.parked = { index, tool: tool.name, args, err };
        }
        this.stop.abort(new Error("a call waits for approval"));
        throw new Error("the program was stopped: a call waits for approval");
      }
      const text = ctx.signal.aborted
        ? "the program was cancelled"
        : failureText(tool.name, err);
      calls[index] = { tool: tool.name, args, ok: false, value: text };
      throw new Error(text);
    }
  }
}

/** The approval a parked program asks for, carrying its journal (`state`). */
function parkedError(
  run: ProgramRun,
  parked: ParkedCall,
  calls: (Entry | null)[],
): ApprovalRequiredError {
  const request = approvalRequestOf(parked.err);
  const next: Journal = {
    v: 1,
    calls,
    approved: { index: parked.index, tool: parked.tool, args: parked.args },
  };
  return new ApprovalRequiredError(run.ctx.call?.name ?? "code", {
    cause: parked.err,
    request: {
      reason: request?.reason ?? PROGRAM_CALL,
      message: `the program calls tool ${quote(parked.tool)} with ${
        clip(parked.args)
      }${request !== undefined ? `: ${request.message}` : ""}`,
      ...(request?.diff !== undefined ? { diff: request.diff } : {}),
      state: JSON.stringify(next),
    },
  });
}

/** The text of a program's return value: a string itself, else its JSON. */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  return stringifyExact(value) ?? String(value);
}

interface CallAt {
  readonly index: number;
  readonly approved: boolean;
  readonly signal: AbortSignal;
}

/** One call through the chain, under the tool's timeout and result cap. */
async function callTool(
  run: ProgramRun,
  tool: ToolDef,
  args: string,
  at: CallAt,
): Promise<unknown> {
  let whole: ToolResult | undefined;
  const caller = toolChain(run.snapshot, {
    middleware: run.config.middleware,
    strictInput: run.config.strictInput,
    onResult: (r) => whole = r,
  });
  const link = linkSignal(at.signal);
  const timeout = tool.timeout ?? run.config.timeout;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (timeout > 0) {
    timer = setTimeout(
      () =>
        link.abort(
          new ToolTimeoutError(tool.name, timeout, formatDuration(timeout)),
        ),
      timeout,
    );
  }
  const outer = run.ctx.call;
  const callId = `${outer?.callId ?? ""}#${at.index}`;
  try {
    const text = await raceAbort(
      caller({ id: callId, name: tool.name, args }, {
        signal: link.signal,
        call: {
          runId: outer?.runId ?? "",
          step: outer?.step ?? 0,
          callId,
          name: tool.name,
          approved: at.approved,
        },
        lineage: run.ctx.lineage ?? [],
        ...(run.ctx.auth !== undefined ? { auth: run.ctx.auth } : {}),
      }),
      link.signal,
    );
    if (
      whole !== undefined && whole.text === text &&
      whole.structured !== undefined
    ) {
      return whole.structured;
    }
    const limit = tool.maxResultBytes ?? run.config.maxResultBytes;
    const capped = limit > 0 ? truncateResult(text, limit) : text;
    return valueOf(capped);
  } finally {
    clearTimeout(timer);
    link.unlink();
  }
}

/** A result text as the program gets it: its JSON value when it is JSON, else the text. */
function valueOf(text: string): unknown {
  const t = text.trimStart();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all: the program gets the text.
    }
  }
  return text;
}

function clip(text: string): string {
  return text.length > 200 ? text.slice(0, 197) + "..." : text;
}
