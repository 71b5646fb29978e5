/**
 * Who a task request comes from, and how its client is reached: the owner
 * a task is bound to (verified caller, session, or anonymous), the
 * connection an anonymous sessionless caller lists by, the request
 * context of a taken-over run, and the asking of a 2025-11-25 question on
 * a request's or a session's stream.
 *
 * @module
 */

import type { CallExtra } from "../bridge/task_hook.ts";
import type { InputResponse } from "../core/input.ts";
import { principalOf } from "../core/auth.ts";
import type { TaskRecord } from "./_record.ts";

/** The `_meta` key naming the task a message belongs to. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** Sends one request to the client of a live call (`extra.sendRequest`). */
export type Asker = (
  request: { method: "elicitation/create"; params: Record<string, unknown> },
  taskId: string,
  signal: AbortSignal,
) => Promise<InputResponse>;

/** What pushing a question needs of the SDK's server. */
export interface PushServer {
  request?: (
    request: { method: string; params: Record<string, unknown> },
    schema: unknown,
    options: Record<string, unknown>,
  ) => Promise<unknown>;
  getClientCapabilities?: () => { elicitation?: unknown } | undefined;
}

/** How long after a poll a question waits for a `tasks/result` caller before it is pushed, ms. */
export function pushDelay(pollInterval: number): number {
  return Math.min(Math.max(2 * pollInterval, 200), 2_000);
}

/** How long a pushed question waits for its answer before `tasks/result` callers may ask it. */
export const PUSH_TIMEOUT_MS = 30_000;

/** The longest a `tasks/result` caller is asked a question before the request is withdrawn, ms. */
const MAX_ASK_MS = 2_147_483_647;

/**
 * The SDK parses a request's result with the schema it is given; an answer
 * to a task's question is checked by `checkAnswer` instead (with a text
 * saying what was wrong), so it is taken as it came.
 */
export const ANY_RESULT = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
});

/** The connection a request came in on: the server's transport (one per stateless HTTP request). */
export function connectionOf(server: object): object {
  return (server as { transport?: object }).transport ?? server;
}

/**
 * Who may see a task made by this request, and whose limits it counts
 * against: the verified caller, else the session, else `""` (anonymous
 * and sessionless: one bucket for limits; listed per connection).
 */
export function ownerOf(extra: CallExtra): string {
  // The client id and subject encoded apart (a `:` in either cannot make
  // two principals one).
  const principal = principalOf(extra.authInfo);
  if (principal !== undefined) return `principal:${principal}`;
  return extra.sessionId === undefined ? "" : `session:${extra.sessionId}`;
}

export function askerOf(extra: CallExtra): Asker {
  return async (request, taskId, signal) => {
    const params = {
      ...request.params,
      _meta: { [RELATED_TASK]: { taskId } },
    };
    const result = await extra.sendRequest(
      { method: "elicitation/create", params } as never,
      ANY_RESULT as never,
      { signal, timeout: MAX_ASK_MS },
    );
    return result as unknown as InputResponse;
  };
}

/**
 * The request context of a takeover's run: no signal of the request; the
 * caller's verified identity kept only when it is the task's owner (a
 * task an anonymous caller made never runs with a poller's token).
 */
export function detached(extra: CallExtra, record: TaskRecord): CallExtra {
  const signal = new AbortController().signal;
  return record.owner.startsWith("principal:") &&
      record.owner === ownerOf(extra)
    ? { ...extra, signal }
    : { ...extra, signal, authInfo: undefined };
}
