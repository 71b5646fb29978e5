/**
 * Input a running call asks for: a question for the person behind the run
 * (an MCP elicitation, in MCP's own shape), the answer that comes back, and
 * the error that parks a call until it does.
 *
 * A call that needs input it cannot get at once throws an
 * {@linkcode InputRequiredError}. In the agent loop that parks the call like
 * an approval: the run ends successfully with the call on
 * `RunResult.pending`, its `input` holding what was asked, and nothing in
 * the transcript — the model never reads the question. The host shows the
 * question to a person and resumes the run with `answer(pending, response)`;
 * the call then runs again, and its tool gets the answer (`ctx.ask` returns
 * it; an imported MCP tool sends it to its server).
 *
 * @module
 */

import { quote } from "./errors.ts";

/**
 * What an elicitation asks: a message, and either a form (`requestedSchema`,
 * a flat JSON Schema object of primitive fields) or, in URL mode, a page to
 * open. The fields are MCP's `elicitation/create` params.
 */
export interface ElicitationParams {
  /** The question, for a person. */
  readonly message: string;
  /** `"form"` (the default when absent) or `"url"`. */
  readonly mode?: "form" | "url";
  /** The form: a JSON Schema object whose properties are strings, numbers, integers, booleans or enums. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** The page to open, in URL mode. */
  readonly url?: string;
  /** The id a URL-mode request names itself by (2025-11-25). */
  readonly elicitationId?: string;
}

/** An elicitation: ask a person. */
export interface ElicitationRequest {
  /** Discriminator: MCP's method name. */
  readonly method: "elicitation/create";
  /** What is asked. */
  readonly params: ElicitationParams;
}

/** Another kind of input an MCP server may ask for (2026-07-28): sampling or the roots. */
export interface OtherInputRequest {
  /** Discriminator: MCP's method name. */
  readonly method: "sampling/createMessage" | "roots/list";
  /** The request's params, as the server sent them. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/** One request for input, in MCP's wire shape (`{ method, params }`). */
export type InputRequest = ElicitationRequest | OtherInputRequest;

/**
 * The answer to one request for input. For an elicitation: `accept` with
 * the form's `content`, `decline`, or `cancel` (MCP's `ElicitResult`). For
 * another kind of request, that request's own result object.
 */
export interface InputResponse {
  /** `accept` (with `content`), `decline` or `cancel`. */
  readonly action: "accept" | "decline" | "cancel";
  /** The form's values, for `accept` of a form request. */
  readonly content?: Readonly<Record<string, unknown>>;
  /** Other fields of a non-elicitation result. */
  readonly [field: string]: unknown;
}

/** What `ctx.ask` takes: the question and the form. */
export interface AskRequest {
  /** The question, for a person. */
  readonly message: string;
  /** The form, a flat JSON Schema object (MCP's `requestedSchema`); absent for a yes/no question. */
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** Asks the caller for input; resolves to the answer. */
export type AskFn = (request: AskRequest) => Promise<InputResponse>;

/**
 * A parked call's request for input, on `PendingCall.input`: who asks,
 * what, and the opaque state the call resumes with. Plain JSON data: a host
 * may store it and resume in another process (see `answer` for what an MCP
 * server of the 2025 era allows).
 */
export interface PendingInput {
  /** The MCP server that asks (the name it introduced itself with); `""` for a local tool's `ctx.ask`. */
  readonly server: string;
  /** The tool as the server names it (for an imported tool), else the tool's own name. */
  readonly tool: string;
  /** The requests, by the key the answer must use. Untrusted when they come from a server. */
  readonly requests: Readonly<Record<string, InputRequest>>;
  /** Opaque: handed back to the tool with the answer. */
  readonly state: string;
}

/** The answer a resumed call runs with, on `CallInfo.answer`. */
export interface InputAnswer {
  /** The answers, by request key. */
  readonly responses: Readonly<Record<string, InputResponse>>;
  /** The pending input's `state`, unchanged. */
  readonly state: string;
}

/**
 * A call needs input before it can finish. In the agent loop the call is
 * parked (never shown to the model); elsewhere (`invoke`, `callTool`) it
 * rejects with this error. Reads `weft: tool call requires input: tool "x"`.
 *
 * @example Using `InputRequiredError`
 * ```ts
 * import { InputRequiredError } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const err = new InputRequiredError("deploy", {
 *   server: "",
 *   tool: "deploy",
 *   requests: { ask_0: { method: "elicitation/create", params: { message: "Which region?" } } },
 *   state: "[]",
 * });
 * assert.equal(err.message, 'weft: tool call requires input: tool "deploy"');
 * ```
 */
export class InputRequiredError extends Error {
  /** The tool that asks. */
  readonly tool: string;
  /** What it asks, and the state to resume with. */
  readonly input: PendingInput;

  /** Builds the error for `tool`, asking `input`. */
  constructor(tool: string, input: PendingInput, options?: ErrorOptions) {
    super(`weft: tool call requires input: tool ${quote(tool)}`, options);
    this.name = "InputRequiredError";
    this.tool = tool;
    this.input = input;
  }
}

/** The input request `err` (or a cause below it) carries; undefined when none. */
export function inputRequiredOf(err: unknown): PendingInput | undefined {
  let current = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof InputRequiredError) return current.input;
    current = current.cause;
  }
  return undefined;
}

/** The key of the `index`-th `ctx.ask` of a call (from 0), in `PendingInput.requests`. */
export function askKey(index: number): string {
  return `ask_${index}`;
}

/** The elicitation `ctx.ask` sends for `request`. */
export function askElicitation(
  request: AskRequest,
): ElicitationRequest {
  if (
    request === null || typeof request !== "object" ||
    typeof request.message !== "string"
  ) {
    throw new TypeError(
      "weft: ctx.ask takes { message, schema? } with a string message",
    );
  }
  return {
    method: "elicitation/create",
    params: {
      message: request.message,
      requestedSchema: request.schema ?? EMPTY_FORM,
    },
  };
}

const EMPTY_FORM: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: {},
});

/**
 * The `ctx.ask` of a call in the agent loop: the answers the call was
 * resumed with (in ask order, from the pending state) are returned in turn;
 * the first ask beyond them parks the call with that one question. A
 * handler that asks is re-run from the top on resume, so it must ask in
 * the same order each time (and do nothing it cannot repeat before asking).
 */
export function loopAsk(tool: string, answer: InputAnswer | undefined): AskFn {
  const answered = answer === undefined ? [] : resumedAnswers(answer);
  let index = 0;
  return (request) => {
    const elicitation = askElicitation(request);
    const at = index++;
    if (at < answered.length) return Promise.resolve(answered[at]);
    return Promise.reject(
      new InputRequiredError(tool, {
        server: "",
        tool,
        requests: { [askKey(at)]: elicitation },
        state: JSON.stringify(answered),
      }),
    );
  };
}

// The answers so far (the state) and the new one, in ask order. A state
// that is not this shape (not ours) counts as none.
function resumedAnswers(answer: InputAnswer): InputResponse[] {
  let before: unknown;
  try {
    before = JSON.parse(answer.state);
  } catch {
    before = [];
  }
  const answered = Array.isArray(before) ? before as InputResponse[] : [];
  const next = answer.responses[askKey(answered.length)];
  return next === undefined ? answered : [...answered, next];
}
