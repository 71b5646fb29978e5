/**
 * The task record as the store holds it, and its wire view (the spec's
 * `Task`). One record per task under `task/<id>`, its lease under
 * `task/<id>/lease`, each caller's list under `task/index/<owner>`.
 *
 * @module
 */

import type { ElicitationRequest, InputResponse } from "../core/input.ts";

/** A task's status, as the spec names them. */
export type TaskStatus =
  | "working"
  | "input_required"
  | "completed"
  | "failed"
  | "cancelled";

/** Everything a task is, as stored. Plain JSON. */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** ms the record is kept after its last update. */
  readonly ttl: number;
  /** ms between polls, as advised to the caller. */
  readonly pollInterval: number;
  /** The tool called. */
  readonly tool: string;
  /** Its arguments, as the client sent them. */
  readonly args: unknown;
  /** Who may see it: `""` (whoever holds the id), `session:<id>` or `principal:<principalOf>` (the JSON of client id and subject). */
  readonly owner: string;
  /** With owner `""`: the connection that made it (only that one lists it). */
  readonly connection?: string;
  /** The call's result once terminal (a `CallToolResult`). */
  readonly result?: Record<string, unknown>;
  /** The question the task waits on while `input_required`. */
  readonly input?: {
    readonly key: string;
    readonly request: ElicitationRequest;
  };
  /** Every answer given so far, by ask key (a re-run after a takeover reads them). */
  readonly answers: Readonly<Record<string, InputResponse>>;
  /** Answers refused (not answering the form asked), by ask key: why. */
  readonly refused?: Readonly<Record<string, string>>;
  /** Failed because the instance running it stopped (not by the tool's own failure). */
  readonly lost?: boolean;
  /** A resumable tool's last checkpoint. */
  readonly checkpoint?: unknown;
}

/** The lease: the instance running the task, renewed by its heartbeat. */
export interface TaskLease {
  readonly instance: string;
}

/** The spec's `Task`: what `tasks/get`, `tasks/list`, `tasks/cancel` and `CreateTaskResult` carry. */
export interface WireTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttl: number;
  readonly pollInterval: number;
}

/** The record's wire view. */
export function wireTask(record: TaskRecord): WireTask {
  const task: WireTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttl,
    pollInterval: record.pollInterval,
  };
  return record.statusMessage === undefined
    ? task
    : { ...task, statusMessage: record.statusMessage };
}

/** Whether `status` is final: a terminal task never changes again. */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" ||
    status === "cancelled";
}

/** The shape of the ids this host issues (`crypto.randomUUID()`). */
const TASK_ID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether `id` is one this host could have issued: anything else (a path
 * such as `index/-` or `<id>/lease`, a control character, a long string)
 * names no task and never reaches the store as a key.
 */
export function isTaskId(id: string): boolean {
  return TASK_ID.test(id);
}

/** The store key of task `id`'s record. */
export function recordKey(id: string): string {
  return `task/${id}`;
}

/** The store key of task `id`'s lease. */
export function leaseKey(id: string): string {
  return `task/${id}/lease`;
}

/** The store key of `owner`'s task list. */
export function indexKey(owner: string): string {
  return `task/index/${owner === "" ? "-" : owner}`;
}
