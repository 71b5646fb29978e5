/**
 * Executing one step's tool calls: starts in call order under a concurrency
 * limit, sequential tools as barriers, results in call order, run policy
 * (timeout, result cap) and containment around each call. A failing call
 * never cancels its siblings; only the run's signal does.
 *
 * @module
 */

import type { AuthInfo } from "./auth.ts";
import { linkSignal, raceAbort } from "./abort.ts";
import {
  errorText,
  InvalidInputError,
  ToolError,
  ToolTimeoutError,
} from "./errors.ts";
import type { AudioContent, ImageContent } from "./content.ts";
import type { ToolCallPart, ToolResultPart, ToolView } from "./messages.ts";
import type { ToolCaller } from "./middleware.ts";
import { failureText, formatDuration, truncateResult } from "./policy.ts";
import {
  approvalRequestOf,
  isApprovalRequired,
  type ToolSnapshot,
} from "./_chain.ts";
import type { ApprovalRequest } from "./errors.ts";
import {
  type AskFn,
  type InputAnswer,
  inputRequiredOf,
  loopAsk,
  type PendingInput,
} from "./input.ts";
import { telemetry, type ToolAbout } from "./telemetry.ts";
import { type PendingSuspension, suspendedOf } from "./suspend.ts";
import type {
  CallInfo,
  ProgressFn,
  ToolDef,
  ToolProgress,
  ToolResult,
} from "./tool.ts";

/** The result text of a call that could not get a slot before the run was cancelled. */
export const CANCELED_BEFORE_START = "run canceled before the tool started";

/** The result text of a call in a step that hit the output token limit. */
export function notExecutedText(name: string): string {
  return `tool call ${name} was not executed: the response hit the output token limit`;
}

/** A call's outcome: a result for the transcript, or parked for approval or input. */
export type CallOutcome =
  | { readonly kind: "result"; readonly part: ToolResultPart }
  | {
    readonly kind: "parked";
    readonly call: ToolCallPart;
    /** What the call asked for, when it parked for input. */
    readonly input?: PendingInput;
    /** Why the tool asked for approval, when it said. */
    readonly approval?: ApprovalRequest;
    /** What still runs, when the call was suspended with its run. */
    readonly suspended?: PendingSuspension;
  };

/** Receives the tool events; the run assigns their sequence numbers. */
export interface ToolEvents {
  /** A call started. */
  start(call: ToolCallPart): void;
  /** A call finished with the capped text. */
  finish(call: ToolCallPart, content: string, isError: boolean): void;
  /**
   * A running call reported progress (already checked: finite numbers, a
   * string message). Absent when nobody listens: then calls get no
   * `ctx.progress` at all.
   */
  progress?(call: ToolCallPart, update: ToolProgress): void;
  /** A call's tool shipped a view (after its finish); absent: views are only recorded. */
  app?(call: ToolCallPart, view: ToolView): void;
}

/** Everything one step's dispatch needs. */
export interface DispatchOptions {
  /** The run id, for `CallInfo`. */
  readonly runId: string;
  /** The step index, for `CallInfo`. */
  readonly step: number;
  /** Whether these calls were approved on a resume, for `CallInfo`; default false. */
  readonly approved?: boolean;
  /** The answers resumed calls run with, by call id (`CallInfo.answer`, `ctx.ask`). */
  readonly answers?: ReadonlyMap<string, InputAnswer>;
  /** What each approved call's approval was given for, by call id (`CallInfo.approval`). */
  readonly approvals?: ReadonlyMap<string, ApprovalRequest>;
  /** The run's signal: the only thing that cancels calls. */
  readonly signal: AbortSignal;
  /** The run's suspend signal (`CallInfo.suspend`), when it has one. */
  readonly suspend?: AbortSignal;
  /** The states suspended calls continue with, by call id (`CallInfo.suspended`). */
  readonly resumes?: ReadonlyMap<string, string>;
  /** The agents above each call, this agent last. */
  readonly lineage: readonly object[];
  /** The caller the run acts for (`ctx.auth`), when it was given one. */
  readonly auth?: AuthInfo;
  /** The most calls in flight at once (at least 1). */
  readonly parallelism: number;
  /** The step's snapshot (for policy and barriers). */
  readonly tools: ToolSnapshot;
  /** The step's tool chain. */
  readonly caller: ToolCaller;
  /** The whole results the chain reported, by call id (`recordingChain`): where media come from. */
  readonly reported?: ReadonlyMap<string, ToolResult>;
  /** The agent's default per-call timeout in ms; 0 for none. */
  readonly timeout: number;
  /** The agent's default result cap in bytes; 0 for none. */
  readonly maxResultBytes: number;
  /** Where tool events go. */
  readonly events: ToolEvents;
}

/** Runs `calls` and resolves to their outcomes in call order; never rejects. */
export async function executeCalls(
  calls: readonly ToolCallPart[],
  options: DispatchOptions,
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = new Array(calls.length);
  const running = new Set<Promise<void>>();
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const tool = options.tools.get(call.name);
    const barrier = tool?.sequential === true;
    // A barrier waits for every call in flight; others wait for a free slot.
    const room = barrier ? 0 : options.parallelism - 1;
    while (running.size > room && !options.signal.aborted) {
      await Promise.race(running);
    }
    if (options.signal.aborted) {
      outcomes[i] = result(
        call,
        cap(CANCELED_BEFORE_START, tool, options),
        true,
      );
      continue;
    }
    const started: Promise<void> = runCall(call, tool, options).then(
      (outcome) => {
        outcomes[i] = outcome;
        running.delete(started);
      },
    );
    running.add(started);
    if (barrier) await started;
  }
  await Promise.all(running);
  return outcomes;
}

/** Fails every call unexecuted, with no events (a `max_tokens` step). */
export function refuseCalls(
  calls: readonly ToolCallPart[],
  options: Pick<DispatchOptions, "tools" | "maxResultBytes">,
): CallOutcome[] {
  return calls.map((call) => {
    const tool = options.tools.get(call.name);
    return result(call, cap(notExecutedText(call.name), tool, options), true);
  });
}

async function runCall(
  call: ToolCallPart,
  tool: ToolDef | undefined,
  options: DispatchOptions,
): Promise<CallOutcome> {
  options.events.start(call);
  const run = options.signal;
  const link = linkSignal(run);
  const timeout = tool?.timeout !== undefined ? tool.timeout : options.timeout;
  let timedOut: ToolTimeoutError | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (timeout > 0) {
    timer = setTimeout(() => {
      timedOut = new ToolTimeoutError(
        call.name,
        timeout,
        formatDuration(timeout),
      );
      link.abort(timedOut);
    }, timeout);
  }
  const answer = options.answers?.get(call.id);
  const ctx: {
    signal: AbortSignal;
    call: CallInfo;
    lineage: readonly object[];
    progress?: ProgressFn;
    ask: AskFn;
    auth?: AuthInfo;
  } = {
    signal: link.signal,
    call: callInfo(call, options, answer),
    lineage: options.lineage,
    ask: loopAsk(call.name, answer),
  };
  if (options.auth !== undefined) ctx.auth = options.auth;
  // Only when someone listens: no closure per call otherwise.
  let done = false;
  const onProgress = options.events.progress;
  if (onProgress !== undefined) {
    ctx.progress = (update) => {
      // Nothing once the call has ended or its signal has (cancel, timeout).
      if (done || link.signal.aborted) return;
      onProgress.call(options.events, call, checkedProgress(update));
    };
  }
  let content: string;
  let isError = true;
  let media: ToolResultPart["media"];
  let view: ToolView | undefined;
  try {
    const hooks = telemetry();
    const work = () =>
      raceAbort(
        options.caller({ id: call.id, name: call.name, args: call.args }, ctx),
        link.signal,
      );
    content = hooks.enabled()
      ? await hooks.tool(
        aboutCall(call, tool, options.runId),
        work,
        failureKind,
      )
      : await work();
    isError = false;
    const whole = options.reported?.get(call.id);
    media = mediaOf(whole, content);
    view = whole?.view;
  } catch (err) {
    if (run.aborted) content = errorText(run.reason);
    else if (timedOut !== undefined) content = timedOut.message;
    else {
      const parked = parkedOf(call, err);
      if (parked !== undefined) return parked;
      content = failureText(call.name, err);
    }
  } finally {
    done = true;
    clearTimeout(timer);
    link.unlink();
  }
  content = cap(content, tool, options);
  options.events.finish(call, content, isError);
  if (view !== undefined) options.events.app?.(call, view);
  return result(call, content, isError, media, view);
}

/** What a call is told of itself (`ctx.call`). */
function callInfo(
  call: ToolCallPart,
  options: DispatchOptions,
  answer: InputAnswer | undefined,
): CallInfo {
  const approval = options.approvals?.get(call.id);
  const suspended = options.resumes?.get(call.id);
  return {
    runId: options.runId,
    step: options.step,
    callId: call.id,
    name: call.name,
    approved: options.approved === true,
    ...(answer !== undefined ? { answer } : {}),
    ...(approval !== undefined ? { approval } : {}),
    ...(options.suspend !== undefined ? { suspend: options.suspend } : {}),
    ...(suspended !== undefined ? { suspended } : {}),
  };
}

/** The parked outcome of a call that asked for approval or input or was suspended; undefined for a failure. */
function parkedOf(call: ToolCallPart, err: unknown): CallOutcome | undefined {
  if (isApprovalRequired(err)) {
    const approval = approvalRequestOf(err);
    return approval === undefined
      ? { kind: "parked", call }
      : { kind: "parked", call, approval };
  }
  const input = inputRequiredOf(err);
  if (input !== undefined) return { kind: "parked", call, input };
  const suspended = suspendedOf(err);
  if (suspended !== undefined) return { kind: "parked", call, suspended };
  return undefined;
}

/** What the tracing wrapper is told of a call. */
function aboutCall(
  call: ToolCallPart,
  tool: ToolDef | undefined,
  runId: string,
): ToolAbout {
  return {
    name: call.name,
    callId: call.id,
    runId,
    args: call.args,
    ...(tool !== undefined ? { description: tool.description } : {}),
  };
}

/**
 * How a call failed, for tracing: `tool_error` for a failure the tool
 * reported (a `ToolError`, which an MCP `isError` result becomes), none for
 * a call parked for approval, input or a suspension, else the error's class name.
 */
function failureKind(thrown: unknown): string | undefined {
  if (
    isApprovalRequired(thrown) || inputRequiredOf(thrown) !== undefined ||
    suspendedOf(thrown) !== undefined
  ) {
    return undefined;
  }
  if (thrown instanceof InvalidInputError) return "InvalidInputError";
  if (thrown instanceof ToolError) return "tool_error";
  if (thrown instanceof Error) return thrown.constructor.name;
  return "_OTHER";
}

/**
 * The image and audio items of a whole result whose text is `text` (so no
 * middleware rewrote it), as `{ type, data, mimeType }`; undefined when
 * there are none.
 */
function mediaOf(
  whole: ToolResult | undefined,
  text: string,
): readonly (ImageContent | AudioContent)[] | undefined {
  if (whole?.content === undefined || whole.text !== text) return undefined;
  const media: (ImageContent | AudioContent)[] = [];
  for (const item of whole.content) {
    if (item === null || typeof item !== "object") continue;
    const { type, data, mimeType } = item as unknown as Record<string, unknown>;
    if (
      (type === "image" || type === "audio") && typeof data === "string" &&
      typeof mimeType === "string"
    ) {
      media.push(Object.freeze({ type, data, mimeType }));
    }
  }
  return media.length > 0 ? Object.freeze(media) : undefined;
}

/** The fields of a progress report the event carries: finite numbers, a string message. */
function checkedProgress(
  update: ToolProgress | null | undefined,
): ToolProgress {
  const out: ToolProgress = {};
  if (update === null || typeof update !== "object") return out;
  const { progress, total, message } = update;
  if (typeof progress === "number" && Number.isFinite(progress)) {
    out.progress = progress;
  }
  if (typeof total === "number" && Number.isFinite(total)) out.total = total;
  if (typeof message === "string") out.message = message;
  return out;
}

/** `text` under the result cap of `tool` (its own, else the agent's). */
export function cap(
  text: string,
  tool: ToolDef | undefined,
  options: Pick<DispatchOptions, "maxResultBytes">,
): string {
  const limit = tool?.maxResultBytes !== undefined
    ? tool.maxResultBytes
    : options.maxResultBytes;
  return limit > 0 ? truncateResult(text, limit) : text;
}

function result(
  call: ToolCallPart,
  content: string,
  isError: boolean,
  media?: ToolResultPart["media"],
  view?: ToolView,
): CallOutcome {
  return {
    kind: "result",
    part: {
      type: "tool_result",
      callId: call.id,
      name: call.name,
      content,
      isError,
      ...(media !== undefined ? { media } : {}),
      ...(view !== undefined ? { view } : {}),
    },
  };
}
