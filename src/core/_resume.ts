/**
 * Opening a run on a given transcript: checking it, finding the calls that
 * wait for a decision, repairing calls that have no result, and joining
 * late results to the tool message of the step that made the calls.
 *
 * Pending calls are the unanswered calls of the last assistant message,
 * when nothing but tool messages follows it (the shape a parked run leaves).
 * With decisions, each pending call gets its decision, or `DENIED: no
 * decision`. Every other call without a result (an earlier step's, or a
 * pending call on a run without decisions) is repaired with
 * `no result recorded: the call was interrupted`, so the transcript the
 * model reads answers every call.
 *
 * @module
 */

import { type Decision, NO_RESULT_RECORDED } from "./decisions.ts";
import { DuplicateDecisionError, NotPendingError, quote } from "./errors.ts";
import {
  type Message,
  type Part,
  type ToolCallPart,
  type ToolResultPart,
  userMessage,
} from "./messages.ts";

/** What a run starts from. */
export type RunInput = string | readonly Message[];

/** A transcript opened for a run. */
export interface OpenedTranscript {
  /** The transcript, repaired; the caller's messages are never changed. */
  readonly messages: Message[];
  /** The calls waiting for a decision, in call order (empty without decisions). */
  readonly pending: readonly ToolCallPart[];
  /** The index in `messages` of the assistant message holding `pending`. */
  readonly at: number;
}

/**
 * Checks and copies the input: a prompt becomes one user message; a
 * transcript is checked message by message (TypeError naming the first bad
 * one). Calls without results are repaired, except the pending ones when
 * `decide` is true.
 */
export function openTranscript(
  input: RunInput,
  decide: boolean,
): OpenedTranscript {
  if (typeof input === "string") {
    return { messages: [userMessage(input)], pending: [], at: -1 };
  }
  if (!Array.isArray(input)) {
    throw new TypeError(
      "weft: generate takes a prompt string or a transcript (an array of messages)",
    );
  }
  const messages: Message[] = input.map(checkMessage);
  const last = lastAssistant(messages);
  const waiting = last >= 0 && onlyToolsAfter(messages, last)
    ? unanswered(messages, last)
    : [];
  const pending = decide ? waiting : [];
  const skip = new Set(pending);
  // Repair from the end, so the indexes of earlier messages stay put.
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "assistant") continue;
    const missing = unanswered(messages, i).filter((call) => !skip.has(call));
    if (missing.length === 0) continue;
    joinResults(
      messages,
      i,
      missing.map((call) => resultPart(call, NO_RESULT_RECORDED, true)),
    );
  }
  // Repairs add tool messages only, so the last assistant message is found again.
  const at = pending.length > 0 ? lastAssistant(messages) : -1;
  return { messages, pending, at };
}

/**
 * Matches decisions to pending calls; a decision naming a call that is not
 * pending throws `NotPendingError`, a second decision for one call
 * `DuplicateDecisionError`, an unknown decision type `TypeError`.
 */
export function matchDecisions(
  pending: readonly ToolCallPart[],
  decisions: readonly Decision[],
): Map<string, Decision> {
  const ids = new Set(pending.map((call) => call.id));
  const byId = new Map<string, Decision>();
  for (const decision of decisions) {
    const type = (decision as { type?: unknown } | null)?.type;
    if (
      type !== "approve" && type !== "deny" && type !== "resolve" &&
      type !== "resolve_error" && type !== "answer" && type !== "resume"
    ) {
      throw new TypeError(
        `weft: unknown decision type ${
          quote(String(type))
        }; build decisions with approve, deny, resolve, resolveError, answer or resume`,
      );
    }
    if (!ids.has(decision.id)) throw new NotPendingError(decision.id);
    if (byId.has(decision.id)) throw new DuplicateDecisionError(decision.id);
    byId.set(decision.id, decision);
  }
  return byId;
}

/**
 * Adds `results` (answers to calls of the assistant message at `at`) to the
 * tool message that follows it, or to a new one right after it, keeping the
 * results in call order.
 */
export function joinResults(
  messages: Message[],
  at: number,
  results: readonly ToolResultPart[],
): void {
  if (results.length === 0) return;
  const order = new Map(
    messages[at].content.filter(isCall).map((call, i) => [call.id, i]),
  );
  const rank = (part: Part): number =>
    (part.type === "tool_result" ? order.get(part.callId) : undefined) ??
      Number.MAX_SAFE_INTEGER;
  // A stable sort: parts that answer no call of this message keep their order, last.
  const inCallOrder = (parts: readonly Part[]): Part[] =>
    [...parts].sort((a, b) => rank(a) - rank(b));
  const target = toolMessageAfter(messages, at);
  if (target < 0) {
    messages.splice(at + 1, 0, { role: "tool", content: inCallOrder(results) });
  } else {
    messages[target] = {
      role: "tool",
      content: inCallOrder([...messages[target].content, ...results]),
    };
  }
}

/** The first tool message after `at`, before the next assistant message; -1 when none. */
function toolMessageAfter(messages: readonly Message[], at: number): number {
  for (let i = at + 1; i < messages.length; i++) {
    if (messages[i].role === "assistant") return -1;
    if (messages[i].role === "tool") return i;
  }
  return -1;
}

/** A result part for `call`. */
export function resultPart(
  call: ToolCallPart,
  content: string,
  isError: boolean,
): ToolResultPart {
  return {
    type: "tool_result",
    callId: call.id,
    name: call.name,
    content,
    isError,
  };
}

function checkMessage(message: unknown, index: number): Message {
  const m = message as { role?: unknown; content?: unknown } | null;
  const ok = typeof m === "object" && m !== null &&
    (m.role === "user" || m.role === "assistant" || m.role === "tool") &&
    Array.isArray(m.content);
  if (!ok) {
    throw new TypeError(
      `weft: transcript entry ${index} is not a message (a role of "user", "assistant" or "tool" and a content array)`,
    );
  }
  return message as Message;
}

function isCall(part: Part): part is ToolCallPart {
  return part.type === "tool_call";
}

function lastAssistant(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "assistant") return i;
  }
  return -1;
}

function onlyToolsAfter(messages: readonly Message[], at: number): boolean {
  for (let i = at + 1; i < messages.length; i++) {
    if (messages[i].role !== "tool") return false;
  }
  return true;
}

/** The calls of the assistant message at `at` that no result answers before the next assistant message. */
function unanswered(messages: readonly Message[], at: number): ToolCallPart[] {
  const calls = messages[at].content.filter(isCall);
  if (calls.length === 0) return [];
  const answered = new Set<string>();
  for (let i = at + 1; i < messages.length; i++) {
    if (messages[i].role === "assistant") break;
    for (const part of messages[i].content) {
      if (part.type === "tool_result") answered.add(part.callId);
    }
  }
  return calls.filter((call) => !answered.has(call.id));
}
