/**
 * Structured output: the reserved `submit_output` tool and the per-run
 * record of what it received. The run ends after a step in which the tool
 * succeeded; the submitted value rides on `RunResult.output`.
 *
 * @module
 */

import { tool, type ToolDef } from "./tool.ts";
import type { SchemaInput } from "./schema_input.ts";

/** The reserved name of the structured-output tool. */
export const SUBMIT_OUTPUT = "submit_output";

/** The pinned description of `submit_output`. */
export const SUBMIT_OUTPUT_DESCRIPTION =
  "Submit your final answer. Call this exactly once, when you are done: the run ends with it.";

/** The pinned result text of a successful submission. */
export const SUBMIT_OUTPUT_RESULT = "recorded";

/**
 * Submissions by run and call. A run opens its slot when it starts and
 * closes it when it ends, so a handler that finishes late (after a timeout)
 * records nothing and nothing outlives the run.
 */
export class OutputRecorder {
  #runs = new Map<string, Map<string, unknown>>();

  /** Starts recording for `runId`. */
  open(runId: string): void {
    this.#runs.set(runId, new Map());
  }

  /** Forgets `runId`. */
  close(runId: string): void {
    this.#runs.delete(runId);
  }

  /** Records a decoded submission, when the run is open. */
  record(runId: string, callId: string, value: unknown): void {
    this.#runs.get(runId)?.set(callId, value);
  }

  /** Takes the submission of `callId`; `found` is false when there is none. */
  take(runId: string, callId: string): { found: boolean; value?: unknown } {
    const calls = this.#runs.get(runId);
    if (calls === undefined || !calls.has(callId)) return { found: false };
    const value = calls.get(callId);
    calls.delete(callId);
    return { found: true, value };
  }
}

/** Builds an agent's `submit_output` tool over the output schema. */
export function outputTool(
  schema: SchemaInput<unknown>,
  recorder: OutputRecorder,
): ToolDef {
  return tool({
    name: SUBMIT_OUTPUT,
    description: SUBMIT_OUTPUT_DESCRIPTION,
    input: schema,
    run(value, ctx): string {
      // Outside the loop (callTool, MCP) there is no run to record into.
      if (ctx.call !== undefined) {
        recorder.record(ctx.call.runId, ctx.call.callId, value);
      }
      return SUBMIT_OUTPUT_RESULT;
    },
  });
}
