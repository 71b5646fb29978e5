/**
 * The rounds of an imported tool's call when its server asks for input:
 * `input_required` results answered by `onInput` and retried (2026-07-28),
 * 2025 `elicitation/create` requests answered or parked while the call
 * waits, and a parked call's resumption with `answer`.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type Progress,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  askKey,
  type InputAnswer,
  type InputRequest,
  InputRequiredError,
  type InputResponse,
} from "../core/input.ts";
import { McpTransportError } from "./remote_error.ts";
import type { InputHandler } from "./input.ts";
import {
  type Flight,
  importInput,
  inputGone,
  type LegacyInput,
  readImportState,
  withDefaults,
} from "./_elicit.ts";

// The SDK times every request out after 60 s unless told otherwise. A tool
// call is bounded by weft's own policy instead (the tool's timeout, the
// run's signal), so the SDK timer is set to the largest delay
// setTimeout takes (about 24.8 days; a larger one would fire at once).
const NO_SDK_TIMEOUT = 2_147_483_647;

/** The most `input_required` rounds one call answers with `onInput` before it fails. */
export const MAX_INPUT_ROUNDS = 10;

/** One imported tool's server side. */
export interface Remote {
  readonly client: Client;
  readonly serverName: string;
  readonly toolName: string;
  readonly onInput?: InputHandler;
  readonly legacy: LegacyInput | null;
  readonly server: string;
}

export interface CallState {
  readonly answer?: InputAnswer;
  readonly signal?: AbortSignal;
  readonly onprogress?: (remote: Progress) => void;
  /** The method sent (default `tools/call`; `tasks/result` for a task's end). */
  readonly method?: string;
  /** The server's task the call runs as, if any. */
  readonly task?: string;
  /** An answer to give the call's first question at once (a task resumed elsewhere). */
  readonly preAnswer?: InputResponse;
  /** Answers to send a 2026-07-28 task first (`tasks/update`), by key. */
  readonly taskResponses?: Readonly<Record<string, InputResponse>>;
  /** The run's suspend signal: a task call stops polling (no `tasks/cancel`) and suspends. */
  readonly suspend?: AbortSignal;
  /** The task resumed is a 2026-07-28 one (polled whole with `tasks/get`). */
  readonly modern?: boolean;
}

/** Runs a call as a server task (set by `_remote_task.ts`: no import cycle). */
export type TaskRounds = (
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
) => Promise<Record<string, unknown>>;

/**
 * The call's final result: the first `tools/call` (or, resumed, its retry
 * or the 2025 request left waiting), then one retry per answered
 * `input_required` round.
 */
export async function callRounds(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
  asTask?: TaskRounds,
): Promise<Record<string, unknown>> {
  let result: Record<string, unknown>;
  const resumed = state.answer === undefined
    ? undefined
    : readImportState(state.answer.state);
  if (
    resumed?.era === "legacy" && resumed.task !== undefined &&
    asTask !== undefined && remote.legacy?.has(resumed.ticket) !== true
  ) {
    // A task's question parked in another process (or connection): the
    // same task is polled again, and its question answered with this one.
    return await asTask(remote, params, {
      ...state,
      task: resumed.task,
      preAnswer: state.answer!.responses[resumed.key ?? askKey(0)] ??
        { action: "cancel" },
    });
  }
  if (resumed?.era === "task" && asTask !== undefined) {
    // A 2026-07-28 task's questions, answered: the same task goes on.
    return await asTask(remote, params, {
      ...state,
      task: resumed.task,
      taskResponses: state.answer!.responses,
    });
  }
  if (resumed === undefined && asTask !== undefined) {
    return await asTask(remote, params, state);
  }
  if (resumed?.era === "legacy") {
    result = await resumeLegacy(remote, resumed, state);
  } else {
    const retry = resumed?.era === "modern"
      ? retryParams(params, state.answer!.responses, resumed.requestState)
      : params;
    result = await sendCall(remote, retry, state);
  }
  for (let round = 0; isInputRequired(result); round++) {
    const requests = inputRequestsOf(result);
    const requestState = typeof result.requestState === "string"
      ? result.requestState
      : undefined;
    if (remote.onInput === undefined) {
      throw new InputRequiredError(
        remote.toolName,
        importInput(remote.server, remote.serverName, requests, {
          era: "modern",
          ...(requestState !== undefined ? { requestState } : {}),
        }),
      );
    }
    if (round >= MAX_INPUT_ROUNDS) {
      throw new McpTransportError(
        new Error(
          `the server asked for input ${MAX_INPUT_ROUNDS} times in a row; giving up`,
        ),
      );
    }
    const responses = await answerAll(remote, requests, state.signal);
    result = await sendCall(
      remote,
      retryParams(params, responses, requestState),
      state,
    );
  }
  return result;
}

/** The original params, with the answers and the server's state echoed byte for byte. */
function retryParams(
  params: Record<string, unknown>,
  responses: Readonly<Record<string, InputResponse>>,
  requestState: string | undefined,
): Record<string, unknown> {
  const retry: Record<string, unknown> = { ...params };
  if (Object.keys(responses).length > 0) retry.inputResponses = responses;
  if (requestState !== undefined) retry.requestState = requestState;
  return retry;
}

function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === "input_required";
}

/** The server's input requests: the entries of `inputRequests` that are objects with a method. */
export function inputRequestsOf(
  result: Record<string, unknown>,
): Record<string, InputRequest> {
  const given = result.inputRequests;
  const requests: Record<string, InputRequest> = {};
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    return requests;
  }
  for (const [key, value] of Object.entries(given)) {
    if (
      value !== null && typeof value === "object" &&
      typeof (value as { method?: unknown }).method === "string"
    ) {
      requests[key] = value as InputRequest;
    }
  }
  return requests;
}

/** Every request answered by the importer's handler, defaults filled in. */
export async function answerAll(
  remote: Remote,
  requests: Readonly<Record<string, InputRequest>>,
  signal: AbortSignal | undefined,
): Promise<Record<string, InputResponse>> {
  const responses: Record<string, InputResponse> = {};
  const context = {
    server: remote.server,
    tool: remote.serverName,
    signal: signal ?? new AbortController().signal,
  };
  for (const [key, request] of Object.entries(requests)) {
    const response = await remote.onInput!(request, context);
    responses[key] = withDefaults(request, response);
  }
  return responses;
}

/**
 * One `tools/call`. With 2025-era routing on this client, the call is a
 * flight while it is outstanding: a server request during it reaches the
 * importer's handler, or parks it (rejecting with `InputRequiredError`
 * while the request goes on waiting for `answer`).
 */
export async function sendCall(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
): Promise<Record<string, unknown>> {
  const own = remote.legacy === null ? undefined : new AbortController();
  const signal = own === undefined
    ? state.signal
    : anySignal(own.signal, state.signal);
  const pending = requestCall(
    remote,
    params,
    signal,
    state.onprogress,
    state.method,
  );
  if (remote.legacy === null) return await pending;
  const pre = state.preAnswer;
  const flight: Flight = {
    tool: remote.serverName,
    onInput: pre === undefined ? remote.onInput : (request, context) => {
      // The answer given to a resumed task's question, once.
      (flight as { onInput?: InputHandler }).onInput = remote.onInput;
      void request;
      void context;
      return Promise.resolve(pre);
    },
    cancel: (reason) => own!.abort(reason),
    asked: 0,
    ...(state.task !== undefined ? { task: state.task } : {}),
  };
  remote.legacy.begin(flight, pending);
  return await flown(remote, flight, pending, state.signal);
}

/** The 2025 call parked under `parked.ticket`, answered and awaited again. */
async function resumeLegacy(
  remote: Remote,
  parked: { readonly ticket: string; readonly key?: string },
  state: CallState,
): Promise<Record<string, unknown>> {
  const taken = remote.legacy?.take(parked.ticket);
  if (taken === undefined) {
    throw new McpTransportError(inputGone(remote.server));
  }
  const response = state.answer!.responses[parked.key ?? askKey(0)] ??
    { action: "cancel" };
  const onAbort = (): void => taken.flight.cancel(state.signal!.reason);
  state.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = flown(
      remote,
      taken.flight,
      taken.result as Promise<Record<string, unknown>>,
      state.signal,
    );
    taken.respond(response);
    return await result;
  } finally {
    state.signal?.removeEventListener("abort", onAbort);
  }
}

/** `pending`'s result, unless the server asks for input first and the call parks. */
function flown(
  remote: Remote,
  flight: Flight,
  pending: Promise<Record<string, unknown>>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const current = {
      signal: signal ?? new AbortController().signal,
      park: (ticket: string, request: InputRequest): void => {
        if (flight.current === current) flight.current = undefined;
        // One key scheme in both eras: the n-th question of the call is
        // `ask_<n>`, as a weft server's `inputRequests` and a local
        // tool's `ctx.ask` name it.
        const key = askKey(flight.asked++);
        reject(
          new InputRequiredError(
            remote.toolName,
            importInput(
              remote.server,
              remote.serverName,
              { [key]: request },
              {
                era: "legacy",
                ticket,
                key,
                ...(flight.task !== undefined ? { task: flight.task } : {}),
              },
            ),
          ),
        );
      },
    };
    flight.current = current;
    pending.then(resolve, reject).finally(() => {
      if (flight.current === current) flight.current = undefined;
    });
  });
}

/** The `tools/call` request; a failure is an `McpTransportError`. */
async function requestCall(
  remote: Remote,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
  onprogress: ((remote: Progress) => void) | undefined,
  method = "tools/call",
): Promise<Record<string, unknown>> {
  try {
    return await remote.client.request(
      { method, params },
      ResultSchema,
      requestOptions(signal, onprogress),
    ) as Record<string, unknown>; // ResultSchema parses an object
  } catch (err) {
    throw new McpTransportError(err);
  }
}

/** A signal that aborts with whichever of `a` and `b` aborts first. */
function anySignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  return b === undefined ? a : AbortSignal.any([a, b]);
}

const UNCANCELLABLE = Object.freeze({ timeout: NO_SDK_TIMEOUT });

// The request options: the signal and the progress handler only when there
// are ones (the common call, neither, shares one frozen object).
function requestOptions(
  signal: AbortSignal | undefined,
  onprogress: ((remote: Progress) => void) | undefined,
): { timeout: number; signal?: AbortSignal; onprogress?: typeof onprogress } {
  if (signal === undefined) {
    return onprogress === undefined
      ? UNCANCELLABLE
      : { timeout: NO_SDK_TIMEOUT, onprogress };
  }
  return onprogress === undefined
    ? { signal, timeout: NO_SDK_TIMEOUT }
    : { signal, timeout: NO_SDK_TIMEOUT, onprogress };
}
