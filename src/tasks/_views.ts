/**
 * What a task record reads as: the texts a caller sees, the 2026-07-28
 * detailed task, a terminal task's result, a progress report as a status
 * message. Pure functions of the record.
 *
 * @module
 */

import type { ToolProgress } from "../core/tool.ts";
import { quote } from "../core/errors.ts";
import { RELATED_TASK } from "./_caller.ts";
import type { TaskRecord } from "./_record.ts";

/** The text of a task taken over whose tool cannot resume. */
export function notResumableText(tool: string): string {
  return `the instance running this task stopped, and tool ${
    quote(tool)
  } cannot be resumed; call it again`;
}

/** The status message of a task resumed on another instance. */
export const RESUMED_TEXT =
  "resumed on another instance after the one running it stopped";

/** The status message of a task cancelled by its caller. */
export const CANCELLED_TEXT = "The task was cancelled by its caller.";

/**
 * The 2026-07-28 view of a record (the extension's detailed task): its
 * questions while `input_required`, its result once `completed`. A tool's
 * own failure (an `isError` result) is a completed call there, as a
 * direct call would answer it; `failed` with an error is a task its
 * instance lost.
 */
export function taskV2(record: TaskRecord): Record<string, unknown> {
  const base: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttl,
    pollIntervalMs: record.pollInterval,
  };
  if (record.statusMessage !== undefined) {
    base.statusMessage = record.statusMessage;
  }
  switch (record.status) {
    case "input_required":
      return {
        ...base,
        inputRequests: record.input === undefined
          ? {}
          : { [record.input.key]: record.input.request },
      };
    case "completed":
      return { ...base, result: completeResult(record) };
    case "failed":
      return record.lost === true
        ? {
          ...base,
          error: { code: -32603, message: record.statusMessage ?? "failed" },
        }
        : { ...base, status: "completed", result: completeResult(record) };
    default:
      return base;
  }
}

export function completeResult(record: TaskRecord): Record<string, unknown> {
  return { ...(record.result ?? { content: [] }), resultType: "complete" };
}

export function resultOf(record: TaskRecord): Record<string, unknown> {
  const result = record.result ??
    {
      content: [{
        type: "text",
        text: record.statusMessage ?? `the task ended ${record.status}`,
      }],
      isError: true,
    };
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return {
    ...result,
    _meta: { ...meta, [RELATED_TASK]: { taskId: record.taskId } },
  };
}

export function firstText(result: Record<string, unknown>): string | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const first = content[0] as { type?: unknown; text?: unknown } | undefined;
  return first?.type === "text" && typeof first.text === "string"
    ? first.text
    : undefined;
}

export function progressText(update: ToolProgress): string {
  if (update.message !== undefined) return update.message;
  if (update.progress === undefined) return "working";
  return update.total === undefined
    ? `${update.progress}`
    : `${update.progress}/${update.total}`;
}
