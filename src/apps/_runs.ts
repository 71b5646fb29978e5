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
import type { Parked } from "./_parked.ts";

/** One run of the host. */
export class HostRun {
  readonly id: string;
  readonly log: RunRecord[] = [];
  messages: readonly Message[] = [];
  /** Labelled view words waiting for the next turn. */
  readonly queued: string[] = [];
  /** The latest model context of each view, by `server/tool`. */
  readonly context = new Map<string, string>();
  /** What its views wait on (calls, changed views), by id. */
  readonly parked = new Map<string, Parked>();
  /** How many requests of its views parked (for their ids). */
  viewCalls = 0;
  status: "running" | "idle" | "failed" = "idle";
  error?: string;
  result?: RunResult;

  constructor(id: string) {
    this.id = id;
  }
}
