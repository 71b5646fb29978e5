/**
 * The runs an app host keeps: each one's transcript, its log (the agent's
 * events and what its views did, in order) and what its views said that
 * waits for the next turn.
 *
 * @module
 */

import type { RunEvent } from "../core/events.ts";
import type { Message } from "../core/messages.ts";
import type { RunResult } from "../core/run.ts";

/** What a view did in a run, as the run's log records it. */
export type AppRecord =
  | {
    /** A call a view made (never the model). */
    readonly type: "app_call";
    readonly from: "app";
    readonly server: string;
    /** The server's name for the tool. */
    readonly tool: string;
    readonly input: unknown;
    readonly result: unknown;
    readonly isError: boolean;
  }
  | {
    /** A `ui/message` or `ui/update-model-context` of a view, as it entered the run. */
    readonly type: "app_message" | "app_context";
    readonly from: "app";
    readonly server: string;
    /** The tool whose view spoke. */
    readonly tool: string;
    /** The labelled text the model reads. */
    readonly text: string;
  };

/** One entry of a run's log. */
export type RunRecord = RunEvent | AppRecord;

/** One run of the host. */
export class HostRun {
  readonly id: string;
  readonly log: RunRecord[] = [];
  messages: readonly Message[] = [];
  /** Labelled view words waiting for the next turn. */
  readonly queued: string[] = [];
  /** The latest model context of each view, by `server/tool`. */
  readonly context = new Map<string, string>();
  status: "running" | "idle" | "failed" = "idle";
  error?: string;
  result?: RunResult;

  constructor(id: string) {
    this.id = id;
  }
}
