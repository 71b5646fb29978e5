/**
 * Progress for the agent tool: when a `tools/call` carries a progress token,
 * the child run's finished tool calls and steps go out as
 * `notifications/progress`, in order, before the call's result (ADR 0033).
 *
 * @module
 */

import type { ServerNotification } from "@modelcontextprotocol/sdk/types";
import { quote } from "../core/errors.ts";
import type { EventHandler, RunEvent } from "../core/events.ts";
import type { CallExtra } from "./registry.ts";

/** Turns a child run's events into progress notifications for one call. */
export interface ProgressReporter {
  /** Observes the child run; sends one notification per finished call or step. */
  readonly onEvent: EventHandler;
  /** Settles once every notification sent so far is written (or failed). */
  flush(): Promise<void>;
}

/**
 * The reporter for one call, or `undefined` when the client sent no
 * `_meta.progressToken`. Progress counts 1, 2, 3, …; there is no `total`
 * (a run does not know its step count in advance). Notifications are sent one
 * after another, so they arrive in order; a failed send is dropped, never a
 * failure of the call.
 */
export function progressReporter(
  extra: CallExtra,
): ProgressReporter | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  let queue: Promise<void> = Promise.resolve();
  return {
    onEvent(event: RunEvent): void {
      const message = progressMessage(event);
      if (message === undefined) return;
      progress++;
      const notification: ServerNotification = {
        method: "notifications/progress",
        params: { progressToken: token, progress, message },
      };
      queue = queue.then(() => extra.sendNotification(notification)).catch(
        () => {},
      );
    },
    flush(): Promise<void> {
      return queue;
    },
  };
}

/**
 * The progress message for a run event: `tool "x" finished` (or `failed`)
 * for a finished call, `step N finished` (N from 1) for a finished step;
 * `undefined` for every other event.
 */
export function progressMessage(event: RunEvent): string | undefined {
  if (event.type === "tool_finish") {
    return `tool ${quote(event.name)} ${event.isError ? "failed" : "finished"}`;
  }
  if (event.type === "step_finish") return `step ${event.index + 1} finished`;
  return undefined;
}
