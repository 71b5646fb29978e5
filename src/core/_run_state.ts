/**
 * The state of one run: the transcript, the step records, the usage, the
 * submitted output and the event delivery with its sequence numbers.
 *
 * @module
 */

import type { ToolEvents } from "./dispatch.ts";
import type { EventHandler, RunEvent } from "./events.ts";
import {
  lastAssistantText,
  type Message,
  type Part,
  type ToolResultPart,
} from "./messages.ts";
import { addUsage, type Usage, ZERO_USAGE } from "./model.ts";
import { type OutputRecorder, SUBMIT_OUTPUT } from "./output.ts";
import {
  type PendingCall,
  RunError,
  type RunResult,
  type StepRecord,
} from "./run.ts";
import type { ModelTurn } from "./_turn.ts";

/** Who watches a run and what bounds it. */
export interface RunStateOptions {
  /** The run id; a random 128-bit hex id when absent. */
  readonly runId?: string;
  /** The observers, in call order. */
  readonly observers: readonly (EventHandler | undefined)[];
  /** The run's signal: after it aborts, nothing more is delivered. */
  readonly signal: AbortSignal;
}

/** The mutable state of one run: transcript, steps, usage, events. */
export class RunState {
  readonly id: string;
  readonly messages: Message[];
  readonly steps: StepRecord[] = [];
  readonly pending: PendingCall[] = [];
  /** The results the resume's decisions gave the pending calls, in call order. */
  readonly resumed: ToolResultPart[] = [];
  #usage: Usage = ZERO_USAGE;
  #output: unknown = undefined;
  #seq = 0;
  #observers: EventHandler[];
  #signal: AbortSignal;

  /** Starts a run on `messages` (the run's own copy of its input transcript). */
  constructor(messages: Message[], options: RunStateOptions) {
    this.id = options.runId ?? randomRunId();
    this.messages = messages;
    this.#observers = options.observers.filter((f) => f !== undefined);
    this.#signal = options.signal;
  }

  /** Delivers an event to the observers; nothing is delivered after cancellation. */
  emit(event: RunEvent): void {
    if (this.#signal.aborted) return;
    for (const observe of this.#observers) {
      try {
        observe(event);
      } catch {
        // An observer cannot break the run it watches.
      }
    }
  }

  /** Whether any observer receives this run's events. */
  get listening(): boolean {
    return this.#observers.length > 0;
  }

  /** The next per-run tool event sequence number, from 1. */
  nextSeq(): number {
    return ++this.#seq;
  }

  /** The tool events of this run: start, finish and (when someone listens) progress. */
  toolEvents(): ToolEvents {
    return {
      start: (call) =>
        this.emit({
          type: "tool_start",
          runId: this.id,
          seq: this.nextSeq(),
          callId: call.id,
          name: call.name,
          args: call.args,
        }),
      finish: (call, content, isError) =>
        this.emit({
          type: "tool_finish",
          runId: this.id,
          seq: this.nextSeq(),
          callId: call.id,
          name: call.name,
          content,
          isError,
        }),
      app: (call, view) =>
        this.emit({
          type: "app",
          runId: this.id,
          seq: this.nextSeq(),
          callId: call.id,
          name: call.name,
          view,
        }),
      progress: this.listening
        ? (call, update) =>
          this.emit({
            type: "tool_progress",
            runId: this.id,
            seq: this.nextSeq(),
            callId: call.id,
            name: call.name,
            ...update,
          })
        : undefined,
    };
  }

  /** Appends the turn's assistant message: reasoning, one text part, calls; none when empty. */
  appendAssistant(turn: ModelTurn): void {
    const content: Part[] = [...turn.reasoning];
    if (turn.text !== "") {
      content.push({
        type: "text",
        text: turn.text,
        ...(turn.textMetadata !== undefined
          ? { providerMetadata: turn.textMetadata }
          : {}),
      });
    }
    content.push(...turn.calls);
    if (content.length > 0) this.messages.push({ role: "assistant", content });
  }

  /** Records a finished step and adds its usage. */
  record(step: StepRecord): void {
    this.steps.push(step);
    this.#usage = addUsage(this.#usage, step.usage);
  }

  /** Reads the step's successful submissions; true when there was one. */
  takeSubmissions(
    outputs: OutputRecorder | undefined,
    results: readonly ToolResultPart[],
  ): boolean {
    if (outputs === undefined) return false;
    let submitted = false;
    for (const part of results) {
      if (part.name !== SUBMIT_OUTPUT || part.isError) continue;
      submitted = true;
      const taken = outputs.take(this.id, part.callId);
      if (taken.found) this.#output = taken.value;
    }
    return submitted;
  }

  /** A snapshot of the run so far. */
  result(): RunResult {
    const messages = [...this.messages];
    return {
      id: this.id,
      text: lastAssistantText(messages),
      ...(this.#output !== undefined ? { output: this.#output } : {}),
      messages,
      steps: [...this.steps],
      usage: this.#usage,
      stopReason: this.steps.at(-1)?.stopReason,
      pending: [...this.pending],
      resumed: [...this.resumed],
    };
  }

  /** The run's failure at `step`, with the partial result. */
  fail(step: number, cause: unknown): RunError {
    return new RunError(step, cause, this.result());
  }
}

/** A random 128-bit run id in hex. */
function randomRunId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
