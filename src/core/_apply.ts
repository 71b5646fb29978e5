/**
 * Applying a resume's decisions before step 0: approved calls run (with
 * `approved` in their call info, step 0, and tool events), denied and
 * resolved ones get their text without running, undecided ones read
 * `DENIED: no decision`. The results join the tool message of the step that
 * made the calls, in call order.
 *
 * @module
 */

import type { AuthInfo } from "./auth.ts";
import { recordingChain, type ToolSnapshot } from "./_chain.ts";
import { stepTools } from "./_tool_search.ts";
import { type Decision, deniedText, NO_DECISION } from "./decisions.ts";
import type { InputAnswer, PendingInput } from "./input.ts";
import { type CallOutcome, cap, executeCalls } from "./dispatch.ts";
import type { ToolCallPart, ToolResultPart } from "./messages.ts";
import type { ApprovalRequest } from "./errors.ts";
import type { LoopConfig } from "./_loop.ts";
import type { PendingCall } from "./run.ts";
import type { RunState } from "./_run_state.ts";
import type { PendingSuspension } from "./suspend.ts";
import {
  joinResults,
  matchDecisions,
  type OpenedTranscript,
  resultPart,
} from "./_resume.ts";

/** What applying the decisions needs beside the agent and the run. */
export interface ApplyOptions {
  /** The opened transcript: its pending calls and where they sit. */
  readonly opened: OpenedTranscript;
  /** The decisions given to the run. */
  readonly decisions: readonly Decision[];
  /** The agents above the calls, this agent last. */
  readonly lineage: readonly object[];
  /** The caller the run acts for. */
  readonly auth?: AuthInfo;
  /** The run's signal. */
  readonly signal: AbortSignal;
  /** The run's suspend signal, when it has one. */
  readonly suspend?: AbortSignal;
}

/**
 * Applies the decisions to the run's transcript. Resolves true when the run
 * ends here (an approved call was parked again, or `submit_output` was
 * approved and recorded); rejects with the run's `RunError` at step 0.
 */
export async function applyDecisions(
  config: LoopConfig,
  run: RunState,
  options: ApplyOptions,
): Promise<boolean> {
  const { opened, signal } = options;
  if (signal.aborted) throw run.fail(0, signal.reason);
  let byId: Map<string, Decision>;
  let tools: ToolSnapshot;
  try {
    byId = matchDecisions(opened.pending, options.decisions);
    tools = stepTools(config, opened.messages);
  } catch (err) {
    throw run.fail(0, err);
  }
  // Answered calls run again like approved ones: they had passed any gate
  // (they were running when they asked), and now carry their answer.
  const answers = new Map<string, InputAnswer>();
  for (const decision of byId.values()) {
    if (decision.type === "answer") {
      answers.set(decision.id, {
        responses: decision.responses,
        state: decision.input.state,
      });
    }
  }
  // What each approval was given for, when the decision carried it.
  const approvals = new Map<string, ApprovalRequest>();
  for (const decision of byId.values()) {
    if (decision.type === "approve" && decision.approval !== undefined) {
      approvals.set(decision.id, decision.approval);
    }
  }
  // Resumed calls run again too, with the state they were suspended with.
  const resumes = new Map<string, string>();
  for (const decision of byId.values()) {
    if (decision.type === "resume") {
      resumes.set(decision.id, decision.suspended.state);
    }
  }
  const approved = opened.pending.filter((call) => {
    const type = byId.get(call.id)?.type;
    return type === "approve" || type === "answer" || type === "resume";
  });
  const outcomes = new Map<ToolCallPart, CallOutcome>();
  if (approved.length > 0) {
    const { caller, reported } = recordingChain(tools, {
      middleware: config.middleware,
      strictInput: config.strictInput,
    });
    const done = await executeCalls(approved, {
      runId: run.id,
      step: 0,
      approved: true,
      answers,
      approvals,
      resumes,
      signal,
      suspend: options.suspend,
      lineage: options.lineage,
      auth: options.auth,
      parallelism: config.parallelism,
      tools,
      caller,
      reported,
      timeout: config.timeout,
      maxResultBytes: config.maxResultBytes,
      events: run.toolEvents(),
    });
    approved.forEach((call, i) => outcomes.set(call, done[i]));
  }
  const results: ToolResultPart[] = [];
  const ran: ToolResultPart[] = [];
  const parked: PendingCall[] = [];
  for (const call of opened.pending) {
    const outcome = outcomes.get(call);
    if (outcome?.kind === "parked") {
      parked.push(
        pendingOf(call, outcome.input, outcome.approval, outcome.suspended),
      );
    } else if (outcome?.kind === "result") {
      results.push(outcome.part);
      ran.push(outcome.part);
    } else {
      const [content, isError] = decided(byId.get(call.id));
      const capped = cap(content, tools.get(call.name), config);
      results.push(resultPart(call, capped, isError));
    }
  }
  joinResults(run.messages, opened.at, results);
  run.resumed.push(...results);
  run.pending.push(...parked);
  // Cancellation wins, as it does at the end of a step.
  if (signal.aborted) throw run.fail(0, signal.reason);
  if (parked.length > 0) return true;
  return run.takeSubmissions(config.outputs, ran);
}

/** The pending entry of a parked call: with what it asked for, when it asked. */
export function pendingOf(
  call: ToolCallPart,
  input: PendingInput | undefined,
  approval?: ApprovalRequest,
  suspended?: PendingSuspension,
): PendingCall {
  const entry = { id: call.id, name: call.name, args: call.args };
  const asked = input === undefined ? entry : { ...entry, input };
  const gated = approval === undefined ? asked : { ...asked, approval };
  return suspended === undefined ? gated : { ...gated, suspended };
}

/** The text and error flag of a call answered without running. */
function decided(decision: Decision | undefined): [string, boolean] {
  switch (decision?.type) {
    case "deny":
      return [deniedText(decision.reason), true];
    case "resolve":
      return [decision.content, false];
    case "resolve_error":
      return [decision.content, true];
    default:
      return [NO_DECISION, true];
  }
}
