/**
 * The step loop: snapshot the tools, stream the model, run its calls, repeat
 * until the model answers without calls, a call is parked, the structured
 * output is submitted, or the step budget is spent.
 *
 * @module
 */

import { MaxStepsError } from "./errors.ts";
import type { EventHandler } from "./events.ts";
import type { Decision } from "./decisions.ts";
import type { Message, ToolResultPart } from "./messages.ts";
import type { ToolMiddleware } from "./middleware.ts";
import type { Model, ModelRequest } from "./model.ts";
import type { OutputRecorder } from "./output.ts";
import type { PendingCall, RunResult } from "./run.ts";
import { RunState } from "./_run_state.ts";
import { recordingChain, type ToolSnapshot } from "./_chain.ts";
import { type CallOutcome, executeCalls, refuseCalls } from "./dispatch.ts";
import type { ToolDef } from "./tool.ts";
import { type ModelTurn, readTurn, type TurnSink } from "./_turn.ts";
import {
  type OpenedTranscript,
  openTranscript,
  type RunInput,
} from "./_resume.ts";
import { applyDecisions, pendingOf } from "./_apply.ts";
import type { AuthInfo } from "./auth.ts";
import { telemetry } from "./telemetry.ts";
import { stepTools, type ToolSearch } from "./_tool_search.ts";

/** The agent's settings as the loop reads them. */
export interface LoopConfig {
  /** The agent itself: its identity goes on the lineage. */
  readonly self: object;
  /** The model. */
  readonly model: Model;
  /** The agent's name, `""` when unnamed. */
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  /** The registered tools. */
  readonly tools: readonly ToolDef[];
  /** Tools re-read every step, after the registered ones. */
  readonly toolSource?: () => readonly (ToolDef | null | undefined)[];
  /** The step budget (at least 1). */
  readonly maxSteps: number;
  /** The most calls in flight per step (at least 1). */
  readonly parallelism: number;
  /** The agent's middleware. */
  readonly middleware: readonly ToolMiddleware[];
  /** The default per-call timeout in ms; 0 for none. */
  readonly timeout: number;
  /** The default result cap; 0 for none. */
  readonly maxResultBytes: number;
  /** Agent-level strict input. */
  readonly strictInput: boolean;
  /** The agent's observer. */
  readonly onEvent?: EventHandler;
  /** The submission record; present exactly for output agents. */
  readonly outputs?: OutputRecorder;
  /** The tool search, under `toolSearch`: the model sees the tools found. */
  readonly search?: ToolSearch;
}

/** Per-run options of the loop. */
export interface LoopOptions {
  /** Cancels the run; its reason becomes the run's failure. */
  readonly signal?: AbortSignal;
  /** Suspends the run: suspendable calls park, no further step starts. */
  readonly suspend?: AbortSignal;
  /** This run's observer, called after the agent's. */
  readonly onEvent?: EventHandler;
  /** The agents already running above this run, outermost first. */
  readonly lineage?: readonly object[];
  /** The caller the run acts for, passed to every call's context. */
  readonly auth?: AuthInfo;
  /** The run id; a random 128-bit hex id when absent. */
  readonly runId?: string;
  /** Decisions on the transcript's pending calls, applied before step 0. */
  readonly decisions?: readonly Decision[];
  /** Awaited after each step the run goes on from, with the transcript so far. */
  readonly checkpoint?: (messages: readonly Message[]) => void | Promise<void>;
}

/**
 * Runs `input` (a prompt, or a transcript to continue) to the end; rejects
 * with a `RunError`, or with a `TypeError` for input that is not a prompt
 * or a transcript.
 */
export function runLoop(
  config: LoopConfig,
  input: RunInput,
  options: LoopOptions = {},
): Promise<RunResult> {
  const signal = options.signal ?? new AbortController().signal;
  const decisions = options.decisions ?? [];
  let opened: OpenedTranscript;
  let run: RunState;
  try {
    opened = openTranscript(input, decisions.length > 0);
    run = new RunState(opened.messages, {
      runId: options.runId,
      observers: [config.onEvent, options.onEvent],
      signal,
    });
  } catch (err) {
    // A rejection, never a throw: bad input fails the promise.
    return Promise.reject(err);
  }
  const at: DriveContext = { opened, decisions, signal, options };
  const hooks = telemetry();
  // Nothing records: no wrapper, no extra promise.
  if (!hooks.enabled()) return drive(config, run, at);
  const info = config.model.info;
  return hooks.run(
    { agent: config.name, runId: run.id, ...(info ? { model: info } : {}) },
    () => drive(config, run, at),
  );
}

interface DriveContext {
  readonly opened: OpenedTranscript;
  readonly decisions: readonly Decision[];
  readonly signal: AbortSignal;
  readonly options: LoopOptions;
}

/** The run itself, from `run_start` to the result or the RunError. */
async function drive(
  config: LoopConfig,
  run: RunState,
  at: DriveContext,
): Promise<RunResult> {
  const { opened, decisions, signal, options } = at;
  const lineage = [...(options.lineage ?? []), config.self];
  config.outputs?.open(run.id);
  try {
    const info = config.model.info;
    run.emit({
      type: "run_start",
      runId: run.id,
      agent: config.name,
      ...(info ? { model: info } : {}),
    });
    if (
      decisions.length > 0 &&
      await applyDecisions(config, run, {
        opened,
        decisions,
        lineage,
        signal,
        suspend: options.suspend,
        auth: options.auth,
      })
    ) {
      return finish(run);
    }
    for (let step = 0; step < config.maxSteps; step++) {
      // Suspended: the run ends between steps, its transcript whole (every
      // call answered); `generate(messages)` goes on from there.
      if (options.suspend?.aborted === true && !signal.aborted) {
        return finish(run);
      }
      if (
        await runStep(config, run, {
          step,
          lineage,
          signal,
          suspend: options.suspend,
          auth: options.auth,
        })
      ) {
        return finish(run);
      }
      if (options.checkpoint !== undefined) {
        await options.checkpoint(run.result().messages);
      }
    }
    throw run.fail(config.maxSteps, new MaxStepsError());
  } finally {
    config.outputs?.close(run.id);
  }
}

/** The successful end: `run_finish`, then the result. */
function finish(run: RunState): RunResult {
  const result = run.result();
  run.emit({
    type: "run_finish",
    runId: run.id,
    usage: result.usage,
    steps: result.steps.length,
    ...(result.pending.length > 0 ? { pending: result.pending } : {}),
  });
  return result;
}

interface StepContext {
  readonly step: number;
  readonly lineage: readonly object[];
  readonly signal: AbortSignal;
  readonly suspend?: AbortSignal;
  readonly auth?: AuthInfo;
}

/** One step; resolves true when the run is done, rejects with the RunError. */
async function runStep(
  config: LoopConfig,
  run: RunState,
  at: StepContext,
): Promise<boolean> {
  const { step, signal } = at;
  if (signal.aborted) throw run.fail(step, signal.reason);
  let tools: ToolSnapshot;
  try {
    tools = stepTools(config, run.messages);
  } catch (err) {
    throw run.fail(step, err);
  }
  run.emit({ type: "step_start", runId: run.id, index: step });
  const request: ModelRequest = {
    system: config.instructions,
    messages: withoutViews(run.messages),
    tools: [...tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    })),
    sequentialTools: config.parallelism === 1,
  };
  const turn = await readStepTurn(config, run, request, at);
  run.appendAssistant(turn);
  const outcomes = await runCalls(config, run, turn, { ...at, tools });
  const results: ToolResultPart[] = [];
  const parked: PendingCall[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === "result") results.push(outcome.part);
    else {
      parked.push(
        pendingOf(
          outcome.call,
          outcome.input,
          outcome.approval,
          outcome.suspended,
        ),
      );
    }
  }
  if (results.length > 0) run.messages.push({ role: "tool", content: results });
  run.pending.push(...parked);
  recordStep(run, step, turn, results);
  // Cancellation wins over every other ending, the step budget included.
  if (signal.aborted) throw run.fail(step, signal.reason);
  if (parked.length > 0) return true;
  if (run.takeSubmissions(config.outputs, results)) return true;
  return turn.calls.length === 0;
}

/** The model's turn of one step, its deltas and warnings emitted as they come; rejects with the RunError. */
async function readStepTurn(
  config: LoopConfig,
  run: RunState,
  request: ModelRequest,
  at: StepContext,
): Promise<ModelTurn> {
  const { step, signal } = at;
  const sink: TurnSink = {
    text: (text) => run.emit({ type: "text_delta", runId: run.id, text }),
    reasoning: (text) =>
      run.emit({ type: "reasoning_delta", runId: run.id, text }),
    warning: (warning) =>
      run.emit({
        type: "model_warning",
        runId: run.id,
        index: step,
        warning,
      }),
  };
  try {
    const hooks = telemetry();
    if (!hooks.enabled()) {
      return await readTurn(config.model, request, { signal, sink });
    }
    const info = config.model.info;
    return await hooks.chat(
      {
        runId: run.id,
        tools: request.tools.length,
        ...(info ? { model: info } : {}),
      },
      () => readTurn(config.model, request, { signal, sink }),
      (t) => t,
    );
  } catch (err) {
    throw run.fail(step, err);
  }
}

/** The step's record and its `step_finish` event. */
function recordStep(
  run: RunState,
  step: number,
  turn: ModelTurn,
  results: ToolResultPart[],
): void {
  const about = {
    ...(turn.response !== undefined ? { response: turn.response } : {}),
    ...(turn.providerMetadata !== undefined
      ? { providerMetadata: turn.providerMetadata }
      : {}),
  };
  run.record({
    index: step,
    stopReason: turn.reason,
    usage: turn.usage,
    text: turn.text,
    toolCalls: turn.calls,
    results,
    ...(turn.warnings.length > 0 ? { warnings: turn.warnings } : {}),
    ...about,
  });
  run.emit({
    type: "step_finish",
    runId: run.id,
    index: step,
    reason: turn.reason,
    usage: turn.usage,
    ...about,
  });
}

function runCalls(
  config: LoopConfig,
  run: RunState,
  turn: ModelTurn,
  at: StepContext & { tools: ToolSnapshot },
): Promise<CallOutcome[]> | CallOutcome[] {
  if (turn.calls.length === 0) return [];
  if (turn.reason === "max_tokens") {
    return refuseCalls(turn.calls, {
      tools: at.tools,
      maxResultBytes: config.maxResultBytes,
    });
  }
  const { caller, reported } = recordingChain(at.tools, {
    middleware: config.middleware,
    strictInput: config.strictInput,
  });
  return executeCalls(turn.calls, {
    runId: run.id,
    step: at.step,
    signal: at.signal,
    ...(at.suspend !== undefined ? { suspend: at.suspend } : {}),
    lineage: at.lineage,
    auth: at.auth,
    parallelism: config.parallelism,
    tools: at.tools,
    caller,
    reported,
    timeout: config.timeout,
    maxResultBytes: config.maxResultBytes,
    events: run.toolEvents(),
  });
}

// The transcript as a model reads it: a tool result's `view` (an MCP App's
// input and whole result, for the page) stays with the run. Only a message
// holding one is copied.
function withoutViews(messages: readonly Message[]): Message[] {
  return messages.map((m) =>
    m.role === "tool" && m.content.some((p) => "view" in p)
      ? {
        ...m,
        content: m.content.map((p) => {
          if (!("view" in p)) return p;
          const { view: _view, ...rest } = p;
          return rest;
        }),
      }
      : m
  );
}
