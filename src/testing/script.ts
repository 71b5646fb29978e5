/**
 * Scripted models: a `Model` that plays one turn per model call, in order,
 * and records every request it receives. The loop cannot tell it from a
 * real model.
 *
 * @module
 */

import type {
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  ModelStreamOptions,
  Usage,
} from "../core/model.ts";

/** The usage every scripted finish reports: 10 input and 5 output tokens. */
export const SCRIPT_USAGE: Usage = Object.freeze({
  inputTokens: 10,
  outputTokens: 5,
});

/** The model made more calls than the script has turns. */
export class ScriptExhaustedError extends Error {
  /** Builds the sentinel. */
  constructor() {
    super(
      "script: model script exhausted (agent made more model calls than the script provides)",
    );
    this.name = "ScriptExhaustedError";
  }
}

/** One scripted model call: the events it yields, then optionally a failure. */
export interface Turn {
  /** The events, in order. */
  readonly events: readonly ModelEvent[];
  /** When present, the stream throws `error.value` after the events. */
  readonly error?: { readonly value: unknown };
}

/** One call inside {@linkcode callTools}. */
export interface ScriptedCall {
  /** The tool name. */
  readonly name: string;
  /** Raw JSON text, or a value to JSON-encode; default `{}`. */
  readonly args?: unknown;
  /** The call id; default `call_<i>`, i the 1-based position in the turn. */
  readonly id?: string;
}

/** A scripted model with its request log. */
export interface ScriptModel extends Model {
  /** Reports `{ provider: "@weft/mcp/testing", name: "script" }`. */
  readonly info: ModelInfo;
  /** Every request received so far, in order (the exhausting one included). */
  requests(): readonly ModelRequest[];
  /** The newest request, or undefined before the first call. */
  lastRequest(): ModelRequest | undefined;
}

/**
 * A model that plays `turns` in order, one per `stream` call. An exhausted
 * script throws `ScriptExhaustedError`; an aborted signal throws its reason
 * before the next event. It ignores the `WEFT_MODEL_REQUESTS` kill switch.
 *
 * @example Using `script`
 * ```ts
 * import { callTools, say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 * const model = script(callTools({ name: "search", args: { q: "deno" } }), say("done"));
 * assert.equal(model.requests().length, 0);
 * ```
 */
export function script(...turns: Turn[]): ScriptModel {
  const queue = [...turns];
  const log: ModelRequest[] = [];
  return {
    info: Object.freeze({ provider: "@weft/mcp/testing", name: "script" }),
    requests: () => [...log],
    lastRequest: () => log.at(-1),
    stream(
      request: ModelRequest,
      options: ModelStreamOptions,
    ): AsyncIterable<ModelEvent> {
      log.push(request);
      return play(queue.shift(), options.signal);
    },
  };
}

async function* play(
  turn: Turn | undefined,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  if (turn === undefined) throw new ScriptExhaustedError();
  for (const event of turn.events) {
    signal.throwIfAborted();
    yield event;
  }
  signal.throwIfAborted();
  if (turn.error !== undefined) throw turn.error.value;
}

function finish(reason: "stop" | "tool_calls" | "max_tokens"): ModelEvent {
  return { type: "finish", reason, usage: SCRIPT_USAGE };
}

/** A final answer: one text delta, then finish `stop`. */
export function say(text: string): Turn {
  return { events: [{ type: "text", text }, finish("stop")] };
}

/** One whole tool call per entry, then finish `tool_calls`. */
export function callTools(...calls: ScriptedCall[]): Turn {
  const events: ModelEvent[] = calls.map((call, i) => ({
    type: "tool_call",
    id: call.id ?? `call_${i + 1}`,
    name: call.name,
    args: argsText(call.args),
  }));
  events.push(finish("tool_calls"));
  return { events };
}

/** A structured-output turn: one `submit_output` call with `value` JSON-encoded (a string is raw JSON). */
export function submit(value: unknown): Turn {
  return callTools({ name: "submit_output", args: value });
}

/** A text delta, then finish `max_tokens`. */
export function maxTokens(text: string): Turn {
  return { events: [{ type: "text", text }, finish("max_tokens")] };
}

/** A stream that fails at once with `err`; the run reports `model stream: <err>`. */
export function fail(err: unknown): Turn {
  return { events: [], error: { value: err } };
}

/** A text delta, then the stream fails with `err`. */
export function sayThenFail(text: string, err: unknown): Turn {
  return { events: [{ type: "text", text }], error: { value: err } };
}

/** An unsigned reasoning delta before the events of `then`. */
export function think(text: string, then: Turn): Turn {
  return { ...then, events: [{ type: "reasoning", text }, ...then.events] };
}

/** Exactly these events, nothing appended: for contract violations and odd streams. */
export function raw(...events: unknown[]): Turn {
  return { events: events as ModelEvent[] };
}

/** `turn` with every finish reporting `usage` instead. */
export function withUsage(turn: Turn, usage: Usage): Turn {
  return {
    ...turn,
    events: turn.events.map((e) => (e.type === "finish" ? { ...e, usage } : e)),
  };
}

function argsText(args: unknown): string {
  if (args === undefined) return "{}";
  if (typeof args === "string") return args;
  const text = JSON.stringify(args);
  if (typeof text !== "string") {
    throw new TypeError(
      `callTools: call arguments do not encode as JSON: ${String(args)}`,
    );
  }
  return text;
}
