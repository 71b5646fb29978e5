/**
 * The runs an app host keeps: each one's transcript, its log (the agent's
 * events and what its views did, in order) and what its views said that
 * waits for the next turn.
 *
 * @module
 */

import type { RunRecord } from "./run_record.ts";
import type { Message } from "../core/messages.ts";
import type { RunResult } from "../core/run.ts";
import type { ApprovalRequest } from "../core/errors.ts";

/** A view's call parked for approval, waiting for the page's decision. */
export interface ParkedViewCall {
  /** The id the page decides on (`app_call_<n>`). */
  readonly id: string;
  /** The server whose view made the call. */
  readonly server: string;
  /** The server's name for the tool. */
  readonly tool: string;
  /** The call's arguments. */
  readonly input: Record<string, unknown>;
  /** Why it waits, as the tool said; absent for a `requireApproval` tool. */
  approval?: ApprovalRequest;
  /** Answers the view's waiting `tools/call` with the MCP result. */
  readonly settle: (result: Record<string, unknown>) => void;
}

/** One run of the host. */
export class HostRun {
  readonly id: string;
  readonly log: RunRecord[] = [];
  messages: readonly Message[] = [];
  /** Labelled view words waiting for the next turn. */
  readonly queued: string[] = [];
  /** The latest model context of each view, by `server/tool`. */
  readonly context = new Map<string, string>();
  /** The view calls waiting for approval, by id. */
  readonly parked = new Map<string, ParkedViewCall>();
  /** How many calls its views made (for their ids). */
  viewCalls = 0;
  status: "running" | "idle" | "failed" = "idle";
  error?: string;
  result?: RunResult;

  constructor(id: string) {
    this.id = id;
  }
}
