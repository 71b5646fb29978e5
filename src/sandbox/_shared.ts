/**
 * What both executors share: the providers as the sandbox sees them (names
 * as identifiers), bounded logs, and error texts without colour codes.
 *
 * @module
 */

import {
  type ExecuteResult,
  identifierOf,
  type ResolvedProvider,
  type SandboxFn,
} from "../core/code_mode.ts";
import type { RunnerMessage } from "./_runner.ts";

/** One run as {@link answerProgram} sees it. */
export interface ProgramRun {
  readonly logs: LogBuffer;
  readonly fns: ReadonlyMap<string, SandboxFn>;
  /** Ends the run with `outcome` (a second end is ignored). */
  end(outcome: ExecuteResult): void;
  /** Sends a call's answer back to the program. */
  reply(answer: RunnerMessage): void;
}

/**
 * The host's side of what a running program sends, the same for every
 * executor: a log line is kept (bounded), its end ends the run, and a call
 * of a host function is answered with its value or its error's message.
 */
export function answerProgram(message: RunnerMessage, run: ProgramRun): void {
  if (message.t === "log") run.logs.add(plain(String(message.s)));
  else if (message.t === "done") {
    run.logs.drop(message.d ?? 0);
    run.end(
      message.ok
        ? { result: message.v }
        : { result: undefined, error: plain(String(message.e)) },
    );
  } else if (message.t === "call") {
    const f = run.fns.get(`${message.ns}.${message.fn}`);
    const answer = f === undefined
      ? Promise.reject(new Error(`no function ${message.ns}.${message.fn}`))
      : Promise.resolve().then(() => f(...(message.args ?? [])));
    answer.then(
      (v) => run.reply({ t: "ret", id: message.id, ok: true, v }),
      (e) =>
        run.reply({
          t: "ret",
          id: message.id,
          ok: false,
          e: e instanceof Error ? e.message : String(e),
        }),
    );
  }
}

/** The host functions by `<namespace>.<identifier>`, and each namespace's identifiers. */
export interface Resolved {
  readonly fns: Map<string, SandboxFn>;
  readonly ns: Record<string, string[]>;
}

/**
 * The providers' functions under identifiers (get-sum → get_sum), as
 * Cloudflare's executors name them; the refusal text when two names of one
 * namespace become the same identifier.
 */
export function resolveProviders(
  providers: readonly ResolvedProvider[],
): Resolved | string {
  const fns = new Map<string, SandboxFn>();
  const ns: Record<string, string[]> = {};
  for (const p of providers) {
    const names = new Map<string, string>();
    for (const [name, f] of Object.entries(p.fns)) {
      const id = identifierOf(name);
      const taken = names.get(id);
      if (taken !== undefined) {
        return `tool names ${JSON.stringify(taken)} and ${
          JSON.stringify(name)
        } both become ${JSON.stringify(id)} in namespace ${
          JSON.stringify(p.name)
        }`;
      }
      names.set(id, name);
      fns.set(`${p.name}.${id}`, f);
    }
    ns[p.name] = [...names.keys()];
  }
  return { fns, ns };
}

/** Keeps logs within a line count and a byte budget, counting the rest. */
export class LogBuffer {
  readonly #kept: string[] = [];
  #bytes = 0;
  #dropped = 0;
  constructor(readonly maxLines: number, readonly maxBytes: number) {}

  /** Adds one line, or counts it as dropped. */
  add(line: string): void {
    const room = this.maxBytes - this.#bytes;
    if (this.#kept.length >= this.maxLines || room <= 0) {
      this.#dropped++;
      return;
    }
    const cut = line.length > room ? line.slice(0, room) : line;
    this.#kept.push(cut);
    this.#bytes += cut.length;
  }

  /** Counts `n` lines the child did not send. */
  drop(n: number): void {
    if (Number.isFinite(n) && n > 0) this.#dropped += n;
  }

  /** The kept lines, and a last line counting the dropped ones. */
  lines(): string[] {
    return this.#dropped === 0
      ? [...this.#kept]
      : [...this.#kept, `(${this.#dropped} more log lines dropped)`];
  }
}

/** `text` without terminal colour codes (Deno colours its error messages). */
export function plain(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
