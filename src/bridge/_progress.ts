/**
 * Progress over MCP. When a `tools/call` carries `_meta.progressToken`, the
 * registry gives the call a {@link ProgressSink}: the tool's `ctx.progress`
 * reports go out as `notifications/progress`, in order, with a strictly
 * increasing `progress`, all before the call's result. The agent
 * tool feeds the same sink with its child run's cadence.
 *
 * @module
 */

import type { ServerNotification } from "@modelcontextprotocol/sdk/types";
import { quote } from "../core/errors.ts";
import type { EventHandler, RunEvent } from "../core/events.ts";
import type { ProgressFn, ToolProgress } from "../core/tool.ts";
import type { CallExtra } from "./_exported.ts";

/** The progress channel of one `tools/call` that asked for progress. */
export interface ProgressSink {
  /** Sends one report as `notifications/progress`; a no-op once closed or cancelled. */
  readonly send: ProgressFn;
  /** Stops sending and settles once every notification sent so far is written (or failed). */
  close(): Promise<void>;
}

/**
 * The sink for one call, or `undefined` when the client sent no
 * `_meta.progressToken`. The `progress` sent is the tool's when it is a
 * finite number above the last one sent; otherwise (none given, or not
 * above) it is the last one plus 1 (the first: 1). `total` and `message` go
 * out as given. Notifications are sent one after another, so they arrive in
 * order; a failed send is dropped, never a failure of the call; nothing is
 * sent after `close` or after the request's signal ended.
 */
export function progressSink(extra: CallExtra): ProgressSink | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last: number | undefined;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();
  const signal = extra.signal;
  return {
    send(update: ToolProgress): void {
      if (closed || signal.aborted) return;
      const given = update?.progress;
      const progress = typeof given === "number" && Number.isFinite(given) &&
          (last === undefined || given > last)
        ? given
        : (last ?? 0) + 1;
      last = progress;
      const params: ServerNotification["params"] & Record<string, unknown> = {
        progressToken: token,
        progress,
      };
      const total = update?.total;
      if (typeof total === "number" && Number.isFinite(total)) {
        params.total = total;
      }
      const message = update?.message;
      if (typeof message === "string") params.message = message;
      const notification = {
        method: "notifications/progress",
        params,
      } as ServerNotification;
      queue = queue.then(() => extra.sendNotification(notification)).catch(
        () => {
          // Nothing lost: a progress note the closed transport refused; the result still goes out.
        },
      );
    },
    close(): Promise<void> {
      closed = true;
      return queue;
    },
  };
}

/**
 * The agent tool's observer of its child run: one report per finished tool
 * call or step (`progressMessage`), and one per progress report of a child
 * tool (`toolProgressMessage`), each as a message with no number of its own
 * (the sink numbers them).
 */
export function runReporter(send: ProgressFn): EventHandler {
  return (event: RunEvent): void => {
    const message = event.type === "tool_progress"
      ? toolProgressMessage(event)
      : progressMessage(event);
    if (message !== undefined) send({ message });
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

/**
 * The message for a child tool's progress report: `tool "x": <message>`;
 * without a message, `tool "x": <progress>/<total>`, `tool "x": <progress>`,
 * or `tool "x": progress` when it gave neither.
 */
export function toolProgressMessage(
  event: { readonly name: string } & ToolProgress,
): string {
  const name = quote(event.name);
  if (event.message !== undefined) return `tool ${name}: ${event.message}`;
  if (event.progress === undefined) return `tool ${name}: progress`;
  if (event.total === undefined) return `tool ${name}: ${event.progress}`;
  return `tool ${name}: ${event.progress}/${event.total}`;
}
