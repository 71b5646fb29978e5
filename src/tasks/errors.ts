/**
 * The errors of serving tasks: protocol errors a `tasks/*` request is
 * answered with, and the reason a cancelled task's signal aborts with.
 *
 * @module
 */

/** JSON-RPC Invalid params. */
const INVALID_PARAMS = -32602;

/**
 * A `tasks/get`, `tasks/result` or `tasks/cancel` the server refuses: an
 * unknown (or expired, or another caller's) task id, or a cancel of a task
 * already finished. Answered as a JSON-RPC error, Invalid params (-32602).
 *
 * @example Tell a refused task request apart
 * ```ts
 * import { TaskAccessError } from "@weft/mcp/tasks";
 * const error = TaskAccessError.notFound("t1");
 * console.log(error instanceof TaskAccessError, error.code, error.message);
 * ```
 */
export class TaskAccessError extends Error {
  /** The JSON-RPC error code: -32602. */
  readonly code: number = INVALID_PARAMS;
  /** The task id asked about. */
  readonly taskId: string;

  /** Builds the error for `taskId` with `message`. */
  constructor(taskId: string, message: string) {
    super(message);
    this.name = "TaskAccessError";
    this.taskId = taskId;
  }

  /** No such task for this caller (never made, expired past its TTL, or another caller's). */
  static notFound(taskId: string): TaskAccessError {
    return new TaskAccessError(
      taskId,
      `task not found: ${taskId} (unknown, expired past its ttl, or not this caller's)`,
    );
  }

  /** A cancel of a task that already ended. */
  static terminal(taskId: string, status: string): TaskAccessError {
    return new TaskAccessError(
      taskId,
      `cannot cancel task ${taskId}: it already ended ${status}`,
    );
  }
}

/**
 * The reason a task's `AbortSignal` aborts with when the task was cancelled
 * (`tasks/cancel`, here or on another instance sharing the store).
 *
 * @example Recognise a cancelled task in a tool
 * ```ts
 * import { TaskCancelledError } from "@weft/mcp/tasks";
 * const reason = new TaskCancelledError("t1");
 * console.log(reason instanceof TaskCancelledError, reason.message);
 * ```
 */
export class TaskCancelledError extends Error {
  /** The cancelled task's id. */
  readonly taskId: string;

  /** Builds the reason for `taskId`. */
  constructor(taskId: string) {
    super(`task ${taskId} was cancelled`);
    this.name = "TaskCancelledError";
    this.taskId = taskId;
  }
}
