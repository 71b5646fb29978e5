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
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
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

  /**
   * An id this server never issues (not a UUID: a path such as `index/-`,
   * a control character, an over-long string): no task, and the id is not
   * echoed back.
   */
  static malformed(taskId: string): TaskAccessError {
    return new TaskAccessError(
      taskId,
      "task not found: the taskId is not one this server issues (a UUID); send the taskId a tools/call answered",
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
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
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

/**
 * Which limit of `serveTasks` refused a task.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export type TaskLimit = "running" | "kept" | "arguments";

/**
 * A `tools/call` asking for a task that a limit of `serveTasks` refuses:
 * too many of the caller's tasks running on this instance
 * (`maxRunningPerCaller`), too many of its tasks kept
 * (`maxTasksPerCaller`), or arguments too large to keep
 * (`maxArgumentBytes`). Answered as a JSON-RPC error: -32602 (Invalid
 * params) for arguments, -32000 for the counts. Nothing was started.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Tell a refused task apart
 * ```ts
 * import { TaskLimitError } from "@weft/mcp/tasks";
 * const error = new TaskLimitError("running", 16);
 * console.log(error instanceof TaskLimitError, error.code, error.message);
 * ```
 */
export class TaskLimitError extends Error {
  /** The JSON-RPC error code: -32602 for arguments, -32000 for the counts. */
  readonly code: number;
  /** The limit reached. */
  readonly limit: TaskLimit;
  /** Its value (tasks, or bytes for arguments). */
  readonly max: number;

  /** Builds the refusal of `limit`, whose value is `max`. */
  constructor(limit: TaskLimit, max: number) {
    super(limitText(limit, max));
    this.name = "TaskLimitError";
    this.code = limit === "arguments" ? INVALID_PARAMS : -32000;
    this.limit = limit;
    this.max = max;
  }
}

function limitText(limit: TaskLimit, max: number): string {
  switch (limit) {
    case "running":
      return `task refused: this caller already has ${max} tasks running (the most allowed); wait for one to end or cancel one with tasks/cancel`;
    case "kept":
      return `task refused: this caller already has ${max} tasks kept (the most allowed); wait until one's ttl runs out (ask a shorter params.task.ttl)`;
    case "arguments":
      return `task refused: its arguments take more than ${max} bytes as JSON (the most a task keeps); send smaller arguments or call the tool without params.task`;
  }
}

/**
 * A `tasks/*` request (or a `tools/call` asking for a task) that the task
 * store could not serve because it is unreachable: nothing was done.
 * Answered as a JSON-RPC error (-32000) whose text names no store address;
 * over `httpHandler` the request is answered 503 with `Retry-After`, as any
 * request the store could not serve. `cause` holds the store's error.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Tell a store outage apart
 * ```ts
 * import { TaskStoreUnavailableError } from "@weft/mcp/tasks";
 * const error = new TaskStoreUnavailableError(new Error("ECONNREFUSED"));
 * console.log(error instanceof TaskStoreUnavailableError, error.message);
 * ```
 */
export class TaskStoreUnavailableError extends Error {
  /** The JSON-RPC error code: -32000. */
  readonly code: number = -32000;

  /** Builds the error; `cause` is the store's own. */
  constructor(cause: unknown) {
    super(
      "Service Unavailable: the task store is unreachable, so nothing was done; retry later",
      { cause },
    );
    this.name = "TaskStoreUnavailableError";
  }
}
