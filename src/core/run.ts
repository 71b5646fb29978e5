/**
 * What a run produces: the {@linkcode RunResult} on success and the
 * {@linkcode RunError} (with the partial result) on failure.
 *
 * @module
 */

import { type ApprovalRequest, errorText } from "./errors.ts";
import type { PendingInput } from "./input.ts";
import type { PendingSuspension } from "./suspend.ts";
import type { Message, ToolCallPart, ToolResultPart } from "./messages.ts";
import type {
  ModelResponseInfo,
  ModelWarning,
  ProviderMetadata,
  StopReason,
  Usage,
} from "./model.ts";

/**
 * A call parked for a decision: it has a `tool_start` event and no result.
 * Parked for approval, it has no `input`; parked because its tool asked for
 * input, `input` holds what was asked (answer it with `answer`); suspended
 * with its run (`GenerateOptions.suspend`) while its work goes on
 * elsewhere, `suspended` says what still runs (continue it with `resume`).
 */
export interface PendingCall {
  /** The call id. */
  readonly id: string;
  /** The tool name as called. */
  readonly name: string;
  /** The argument JSON text, verbatim. */
  readonly args: string;
  /** What the call's tool asked for; absent for a call parked for approval. */
  readonly input?: PendingInput;
  /** What still runs, for a call suspended with its run; continue it with `resume`. */
  readonly suspended?: PendingSuspension;
  /**
   * Why the tool asked for approval, when it said (an imported tool whose
   * pinned definition changed: the reason and a diff); absent for a
   * `requireApproval` tool. For the person deciding, never for the model.
   */
  readonly approval?: ApprovalRequest;
}

/** One step of a run. */
export interface StepRecord {
  /** The step index, from 0. */
  readonly index: number;
  /** The model's stop reason. */
  readonly stopReason: StopReason;
  /** The model call's own usage. */
  readonly usage: Usage;
  /** The step's answer text. */
  readonly text: string;
  /** The calls the model made, in call order. */
  readonly toolCalls: readonly ToolCallPart[];
  /** The results, in call order (parked calls have none). */
  readonly results: readonly ToolResultPart[];
  /** The provider's warnings about the step's model call, in order; absent when none. */
  readonly warnings?: readonly ModelWarning[];
  /** What the provider said about its response (id, the model that answered, when); absent when nothing. */
  readonly response?: ModelResponseInfo;
  /** The provider's data about the call from its finish; absent when none. */
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * A finished run (or, on `RunError.result`, the part that ran).
 *
 * @example Read a run's answer and transcript
 * ```ts
 * import { Agent } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const result = await new Agent(script(say("done"))).generate("go");
 * assert.equal(result.text, "done");
 * assert.equal(result.steps.length, 1);
 * assert.equal(result.messages[0].role, "user");
 * ```
 */
export interface RunResult {
  /** The run id. */
  readonly id: string;
  /** The text of the last assistant message, `""` when it held only tool calls. */
  readonly text: string;
  /** The submitted value of an `output` agent's last successful `submit_output`; undefined otherwise. */
  readonly output?: unknown;
  /** The whole transcript, the prompt included. */
  readonly messages: readonly Message[];
  /** One record per step. */
  readonly steps: readonly StepRecord[];
  /** The summed model usage. */
  readonly usage: Usage;
  /** The last step's stop reason; undefined when no step finished. */
  readonly stopReason?: StopReason;
  /** Calls parked for a decision (approval, input a tool asked for, or suspended work); empty when none. */
  readonly pending: readonly PendingCall[];
  /**
   * The results a resume's `decisions` gave the transcript's pending calls,
   * in call order: what an approved or answered call returned, the text of
   * a denied or resolved one, `DENIED: no decision` for one left undecided.
   * They join the transcript before step 0 and belong to no step (`steps`
   * holds model calls only). Empty for a run without decisions; a call
   * parked again is on `pending`, not here.
   */
  readonly resumed: readonly ToolResultPart[];
}

/**
 * A failed run. `step` is the step that failed (`maxSteps` for an exhausted
 * budget), `cause` the failure, `result` the transcript so far. Reads
 * `weft: run failed at step N: <cause text>`, counting steps from 1 (`step`
 * is the 0-based index, so the text says `step + 1`).
 *
 * @example Using `RunError`
 * ```ts
 * import { RunError } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const err = new RunError(2, new Error("boom"), {
 *   id: "r", text: "", messages: [], steps: [], pending: [], resumed: [],
 *   usage: { inputTokens: 0, outputTokens: 0 },
 * });
 * assert.equal(err.message, "weft: run failed at step 3: boom");
 * ```
 */
export class RunError extends Error {
  /** The failing step's 0-based index (the message counts from 1). */
  readonly step: number;
  /** The partial result. */
  readonly result: RunResult;

  /** Builds the error for `step`, its `cause`, and the partial `result`. */
  constructor(step: number, cause: unknown, result: RunResult) {
    // Steps count from 1 in the text, as progress does; the cause's own
    // "weft: " prefix is not repeated.
    super(
      `weft: run failed at step ${step + 1}: ${
        errorText(cause).replace(/^weft: /, "")
      }`,
      { cause },
    );
    this.name = "RunError";
    this.step = step;
    this.result = result;
  }
}
