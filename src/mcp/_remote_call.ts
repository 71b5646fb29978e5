/**
 * The handler of an imported tool: the model's argument text goes to
 * `tools/call` under the server's name, the result comes back as text.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
// The SDK's `*.js` subpaths carry no types under Deno; the extensionless
// subpath resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type Progress,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { parseArguments } from "../core/bridge.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { ContentItem } from "../core/content.ts";
import { isPlainJson, parseLossless, stringifyExact } from "../core/json.ts";
import type {
  InvokeOptions,
  ProgressFn,
  ToolArguments,
  ToolProgress,
  ToolResult,
} from "../core/tool.ts";
import { linkSignal } from "../core/abort.ts";
import { McpTransportError, RemoteToolError } from "./remote_error.ts";
import type { InputHandler } from "./input.ts";
import {
  type Flight,
  importInput,
  inputGone,
  type LegacyInput,
  legacyInput,
  readImportState,
  serverNameOf,
  withDefaults,
} from "./_elicit.ts";
import {
  type InputAnswer,
  type InputRequest,
  InputRequiredError,
  type InputResponse,
} from "../core/input.ts";
import { renderContent, type RenderOptions } from "./render.ts";

// The SDK times every request out after 60 s unless told otherwise. A tool
// call is bounded by weft's own policy instead (the tool's timeout, the
// run's signal), so the SDK timer is set to the largest delay
// setTimeout takes (about 24.8 days; a larger one would fire at once).
const NO_SDK_TIMEOUT = 2_147_483_647;

const BLANK = /^[ \t\n\r]*$/;

/** How an imported tool's calls render and answer their server's requests for input. */
export interface RemoteOptions extends RenderOptions {
  /** Answers the server's requests for input at once; absent: the call parks (`InputRequiredError`). */
  readonly onInput?: InputHandler;
}

/**
 * Builds the invoke body of `serverName` on `client`: it resolves to the
 * rendered text and, given `onResult`, hands it the whole result (the text,
 * the remote content items as sent and the structured content). `toolName`
 * (the composed, prefixed name) is the one error texts name; `render`
 * chooses what the text is made of (`renderContent`).
 *
 * Given no signal, the request carries none: nothing can cancel the call,
 * so there is nothing to link (`invoke`'s default context signal never
 * aborts). Given one, the request runs under a child of it, unlinked when
 * it settles (the SDK never removes the abort listener it adds).
 * Given a progress function, the request asks for progress (the SDK's
 * `onprogress`, which sends a progress token) and each remote
 * `notifications/progress` reaches it as `{ progress, total, message }`;
 * given none, nothing is asked.
 *
 * A server that asks for input — an `input_required` result (2026-07-28)
 * or an `elicitation/create` during the call (2025, see `_elicit.ts`) — is
 * answered by `onInput` and the call goes on (retried with the server's
 * `requestState` and the `inputResponses`, up to {@link MAX_INPUT_ROUNDS}
 * rounds); without `onInput` the call rejects with an `InputRequiredError`
 * (the loop parks it), and the call resumed with `answer` sends the answer.
 */
export function remoteInvoke(
  client: Client,
  serverName: string,
  toolName: string,
  options: RemoteOptions = {},
): (args: ToolArguments, options: InvokeOptions) => Promise<string> {
  const legacy = legacyInput(client);
  const remote: Remote = {
    client,
    serverName,
    toolName,
    onInput: options.onInput,
    legacy,
    server: legacy?.server ?? serverNameOf(client),
  };
  const render: RenderOptions = { render: options.render };
  return async (args, options) => {
    const params: Record<string, unknown> = {
      name: serverName,
      arguments: decodeArguments(args, toolName) as Record<string, unknown>,
    };
    const { signal, progress } = options;
    const onprogress = progress === undefined ? undefined : forward(progress);
    const link = signal === undefined || signal === null
      ? undefined
      : linkSignal(signal);
    let result: Record<string, unknown>;
    try {
      result = await callRounds(remote, params, {
        answer: options.call?.answer,
        signal: link?.signal,
        onprogress,
      });
    } finally {
      link?.unlink();
    }
    const text = renderContent(result, render);
    if (result.isError === true) throw new RemoteToolError(text);
    if (typeof options.onResult === "function") {
      options.onResult(wholeResult(result, text));
    }
    return text;
  };
}

/** The most `input_required` rounds one call answers with `onInput` before it fails. */
export const MAX_INPUT_ROUNDS = 10;

/** One imported tool's server side. */
interface Remote {
  readonly client: Client;
  readonly serverName: string;
  readonly toolName: string;
  readonly onInput?: InputHandler;
  readonly legacy: LegacyInput | null;
  readonly server: string;
}

interface CallState {
  readonly answer?: InputAnswer;
  readonly signal?: AbortSignal;
  readonly onprogress?: (remote: Progress) => void;
}

/**
 * The call's final result: the first `tools/call` (or, resumed, its retry
 * or the 2025 request left waiting), then one retry per answered
 * `input_required` round.
 */
async function callRounds(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
): Promise<Record<string, unknown>> {
  let result: Record<string, unknown>;
  const resumed = state.answer === undefined
    ? undefined
    : readImportState(state.answer.state);
  if (resumed?.era === "legacy") {
    result = await resumeLegacy(remote, resumed.ticket, state);
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
function inputRequestsOf(
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
async function answerAll(
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
async function sendCall(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
): Promise<Record<string, unknown>> {
  const own = remote.legacy === null ? undefined : new AbortController();
  const signal = own === undefined
    ? state.signal
    : anySignal(own.signal, state.signal);
  const pending = requestCall(remote, params, signal, state.onprogress);
  if (remote.legacy === null) return await pending;
  const flight: Flight = {
    tool: remote.serverName,
    onInput: remote.onInput,
    cancel: (reason) => own!.abort(reason),
  };
  remote.legacy.begin(flight, pending);
  return await flown(remote, flight, pending, state.signal);
}

/** The 2025 call parked under `ticket`, answered and awaited again. */
async function resumeLegacy(
  remote: Remote,
  ticket: string,
  state: CallState,
): Promise<Record<string, unknown>> {
  const taken = remote.legacy?.take(ticket);
  if (taken === undefined) {
    throw new McpTransportError(inputGone(remote.server));
  }
  const key = LEGACY_KEY;
  const response = state.answer!.responses[key] ?? { action: "cancel" };
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

/** The key of a 2025 server's one request in `PendingInput.requests`. */
const LEGACY_KEY = "elicitation";

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
        reject(
          new InputRequiredError(
            remote.toolName,
            importInput(
              remote.server,
              remote.serverName,
              { [LEGACY_KEY]: request },
              { era: "legacy", ticket },
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
): Promise<Record<string, unknown>> {
  try {
    return await remote.client.request(
      { method: "tools/call", params },
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

// The whole result: the text, the remote content items as sent (when it
// sent an array of them) and the structured content (when not null).
function wholeResult(
  result: Record<string, unknown>,
  text: string,
): ToolResult {
  const whole: { text: string; content?: ContentItem[]; structured?: unknown } =
    { text };
  if (Array.isArray(result.content)) {
    whole.content = result.content as ContentItem[];
  }
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    whole.structured = structured;
  }
  return whole;
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

/** A remote `notifications/progress` (the SDK strips the token), passed on as given. */
function forward(progress: ProgressFn): (remote: Progress) => void {
  return (remote) => {
    const update: ToolProgress = { progress: remote.progress };
    if (remote.total !== undefined) update.total = remote.total;
    if (remote.message !== undefined) update.message = remote.message;
    progress(update);
  };
}

/**
 * The `arguments` value to send: an object of plain JSON data as it is
 * (any other object as the JSON text `stringifyExact` writes for it); empty
 * text (JSON whitespace) and `null` mean `{}`; anything else is the parsed text, losslessly (key order kept,
 * integers beyond 2^53 as `JSON.rawJSON` digits), object or not — the
 * server decides what it accepts. Text that is not JSON is refused with the
 * core's `INVALID_INPUT` texts, before anything is sent.
 */
function decodeArguments(args: ToolArguments, toolName: string): unknown {
  if (typeof args !== "string") {
    if (args === undefined || args === null) return {};
    if (isPlainJson(args)) return args;
    // Any other object reads as the JSON text it writes, losslessly.
    return parseLossless(stringifyExact(args) ?? "{}");
  }
  let value: unknown;
  try {
    value = parseLossless(args);
  } catch (err) {
    // Blank text is not JSON: checked only here, off the common path.
    if (BLANK.test(args)) return {};
    // The core's reader words the failure (offset, end of input, trailing
    // data); it throws for any text JSON.parse refuses.
    parseArguments(args, toolName);
    throw new InvalidInputError(toolName, "invalid JSON", { cause: err });
  }
  return value === null ? {} : value;
}
