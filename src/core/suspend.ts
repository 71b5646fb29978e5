/**
 * Suspending a run: the host must stop (a deploy, a restart) while calls
 * whose work goes on elsewhere are in flight — an imported MCP tool called
 * as a server task runs on its server, not in this process. Given
 * `GenerateOptions.suspend`, such a call stops waiting when the signal
 * fires, without cancelling its work, and throws a
 * {@linkcode CallSuspendedError}; the loop parks it like a call that asked
 * for input: the run ends successfully with the call on `RunResult.pending`,
 * its `suspended` saying what still runs and holding the opaque state it
 * resumes with. Plain JSON data: the host saves the run and, in another
 * process, resumes it with `resume(pending)`; the call then waits for the
 * same work again (an imported task is polled by its id, the tool is not
 * called again).
 *
 * @module
 */

import { quote } from "./errors.ts";

/**
 * A call suspended while its work went on elsewhere, on
 * `PendingCall.suspended`: what still runs, and the opaque state the call
 * resumes with (`resume`).
 */
export interface PendingSuspension {
  /** The MCP server the work runs on (the name it introduced itself with); `""` for a local tool. */
  readonly server: string;
  /** The tool as the server names it (for an imported tool), else the tool's own name. */
  readonly tool: string;
  /** What still runs, for the host: e.g. `task 1f3… of tool "crawl" is still running on server "jobs"`. */
  readonly message: string;
  /** Opaque: handed back to the tool by `resume` (`CallInfo.suspended`). */
  readonly state: string;
}

/**
 * A call stopped waiting because its run was suspended; its work goes on.
 * In the agent loop the call parks with `suspended` (resume it with
 * `resume`); elsewhere nothing suspends a call. Reads
 * `weft: tool call suspended: tool "x"`.
 *
 * @example Using `CallSuspendedError`
 * ```ts
 * import { CallSuspendedError } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const err = new CallSuspendedError("crawl", {
 *   server: "jobs",
 *   tool: "crawl",
 *   message: 'task t1 of tool "crawl" is still running on server "jobs"',
 *   state: "{}",
 * });
 * assert.equal(err.message, 'weft: tool call suspended: tool "crawl"');
 * ```
 */
export class CallSuspendedError extends Error {
  /** The tool whose call was suspended. */
  readonly tool: string;
  /** What still runs, and the state to resume with. */
  readonly suspended: PendingSuspension;

  /** Builds the error for `tool`, suspended as `suspended`. */
  constructor(
    tool: string,
    suspended: PendingSuspension,
    options?: ErrorOptions,
  ) {
    super(`weft: tool call suspended: tool ${quote(tool)}`, options);
    this.name = "CallSuspendedError";
    this.tool = tool;
    this.suspended = suspended;
  }
}

/** The suspension `err` (or a cause below it) carries; undefined when none. */
export function suspendedOf(err: unknown): PendingSuspension | undefined {
  let current = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof CallSuspendedError) return current.suspended;
    current = current.cause;
  }
  return undefined;
}
