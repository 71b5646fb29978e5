/**
 * A client's own operations on a server's tasks, by task id, in both
 * shapes MCP has: the 2025-11-25 revision's (`params.task`, `tasks/get`,
 * `tasks/result`, `tasks/cancel`, `tasks/list`) and the 2026-07-28 tasks
 * extension's (`resultType: "task"`, `tasks/get` answering the whole task,
 * its result inline; `tasks/cancel` answering a bare result). The shape
 * follows the connection's era (`getProtocolEra()` of a `connectHttp` or
 * `connectStdio` client; any other client speaks 2025-11-25), and answers
 * are read in either shape (`ttl` or `ttlMs`). Every failure is a
 * {@link RemoteTaskError}.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolClient as Client } from "./peers.ts";

/**
 * A finished task's result: the `tools/call` result the task ended with (an
 * `isError` result included), as MCP defines `CallToolResult`.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example
 * ```ts
 * import type { RemoteTaskResult } from "@weft/mcp/tasks";
 *
 * const result: RemoteTaskResult = { content: [{ type: "text", text: "done" }] };
 * console.log(result.content.length);
 * ```
 */
export type RemoteTaskResult = CallToolResult;

/**
 * A task's status, as both shapes name them.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export type RemoteTaskStatus =
  | "working"
  | "input_required"
  | "completed"
  | "failed"
  | "cancelled";

/**
 * A server's task, read in either shape.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface RemoteTask {
  /** The task's id: all a client needs to come back to it. */
  readonly taskId: string;
  /** Where it stands. */
  readonly status: RemoteTaskStatus;
  /** The server's latest words on it (a tool's progress message, a question). */
  readonly statusMessage?: string;
  /** When it was made (ISO 8601). */
  readonly createdAt: string;
  /** When it last changed (ISO 8601). */
  readonly lastUpdatedAt: string;
  /** How long the server keeps it after its last change, ms (`null`: no limit). */
  readonly ttl: number | null;
  /** How often the server asks to be polled, ms, when it says. */
  readonly pollInterval?: number;
  /** The shape the server answered in. */
  readonly shape: "2025-11-25" | "2026-07-28";
}

/**
 * Why a task operation failed; see {@link RemoteTaskError}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export type RemoteTaskErrorReason =
  /** The server refused the request (an unknown task, another caller's, one that already ended): `code` and the server's words. */
  | "refused"
  /** The server does not serve this operation (`-32601`). */
  | "unsupported"
  /** The task was cancelled: it has no result. */
  | "cancelled"
  /** The task failed without a result (the instance running it was lost). */
  | "failed"
  /** The server's answer is not a task (or not a result) in either shape. */
  | "malformed";

/**
 * A task operation failed: `reason` says why, `taskId` which task (empty
 * for a list), `code` the JSON-RPC error code the server answered (for
 * `refused` and `unsupported`), `cause` the failure underneath.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Tell a refused task from any other failure
 * ```ts
 * import { RemoteTaskError } from "@weft/mcp/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new RemoteTaskError("refused", "t1", "task t1: the server refused tasks/get (-32602): task not found", { code: -32602 });
 * assert.ok(error instanceof RemoteTaskError);
 * assert.equal(error.reason, "refused");
 * assert.equal(error.code, -32602);
 * ```
 */
export class RemoteTaskError extends Error {
  /** Why the operation failed. */
  readonly reason: RemoteTaskErrorReason;
  /** The task asked about (`""` for a list). */
  readonly taskId: string;
  /** The JSON-RPC error code the server answered, if it answered one. */
  readonly code: number | undefined;

  /** Builds the error. */
  constructor(
    reason: RemoteTaskErrorReason,
    taskId: string,
    message: string,
    options: { code?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "RemoteTaskError";
    this.reason = reason;
    this.taskId = taskId;
    this.code = options.code;
  }
}

/**
 * Options of every task operation.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface TaskRequestOptions {
  /** Aborting rejects with the signal's reason (the task goes on: see `cancel`). */
  signal?: AbortSignal;
  /** Milliseconds one request may take. Default: the client's (60000 for the SDK's). */
  timeout?: number;
}

/**
 * Options of {@link TaskClient.start}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface StartTaskOptions extends TaskRequestOptions {
  /** The tool's arguments. Default `{}`. */
  arguments?: Record<string, unknown>;
  /**
   * How long the server should keep the task after its last change, ms
   * (it may keep it less: `RemoteTask.ttl` says what it granted). Absent:
   * the server's default.
   */
  ttl?: number;
}

/**
 * Options of {@link TaskClient.result}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface TaskResultOptions extends TaskRequestOptions {
  /**
   * Milliseconds between polls while the task runs. Default: the server's
   * `pollInterval`, else 1000; held within 10 ms – 60 s.
   */
  pollInterval?: number;
}

/**
 * Options of {@link TaskClient.list}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface ListTasksOptions extends TaskRequestOptions {
  /** The `nextCursor` of the page before. */
  cursor?: string;
}

/**
 * The operations of {@link taskClient}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 */
export interface TaskClient {
  /** Calls tool `name` as a task; resolves to the task once the server made it. */
  start(name: string, options?: StartTaskOptions): Promise<RemoteTask>;
  /** The task `taskId` as it stands. */
  get(taskId: string, options?: TaskRequestOptions): Promise<RemoteTask>;
  /**
   * Waits for task `taskId` to end and resolves to its tool's result (an
   * `isError` result included: the tool's own failure); rejects with
   * `cancelled` or `failed` when there is no result.
   */
  result(
    taskId: string,
    options?: TaskResultOptions,
  ): Promise<RemoteTaskResult>;
  /** Cancels task `taskId`; resolves to the task as it stands after. */
  cancel(taskId: string, options?: TaskRequestOptions): Promise<RemoteTask>;
  /** The tasks the server keeps for this caller, a page at a time. */
  list(
    options?: ListTasksOptions,
  ): Promise<{ tasks: RemoteTask[]; nextCursor?: string }>;
}

const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 60_000;

/**
 * Task operations over `client` — any connected MCP client (the SDK's
 * `Client`, what `connectHttp` and `connectStdio` return): one holding
 * only a task id (a restarted caller, another process) gets its status
 * and result and cancels it. The shape follows the connection's era; see
 * the module doc.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Start a task, then come back to it by id on another connection
 * ```ts
 * import { connectHttp, exportTools, httpHandler, rawTool, Server } from "@weft/mcp";
 * import { serveTasks, taskClient } from "@weft/mcp/tasks";
 * import { memoryStore } from "@weft/mcp/store";
 * import assert from "node:assert/strict";
 *
 * const store = memoryStore();
 * const report = rawTool({
 *   name: "report",
 *   description: "Builds the report.",
 *   taskSupport: "required",
 *   run: () => "the report",
 * });
 * const handler = httpHandler(() => {
 *   const server = new Server({ name: "reports", version: "1.0.0" });
 *   exportTools(server, report);
 *   serveTasks(server, { store, pollIntervalMs: 20 });
 *   return server;
 * });
 * const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
 * const url = `http://127.0.0.1:${http.addr.port}/mcp`;
 *
 * const first = await connectHttp(url);
 * const { taskId, ttl } = await taskClient(first).start("report", { ttl: 600_000 });
 * assert.equal(ttl, 600_000);
 * await first.close();
 *
 * const second = await connectHttp(url); // knows only the id
 * const result = await taskClient(second).result(taskId);
 * assert.deepEqual(result.content, [{ type: "text", text: "the report" }]);
 * await second.close();
 * await handler.close();
 * await http.shutdown();
 * ```
 */
export function taskClient(client: Client): TaskClient {
  return {
    start: (name, options) => start(client, name, options),
    get: (taskId, options) => get(client, taskId, options),
    result: (taskId, options) => result(client, taskId, options),
    cancel: (taskId, options) => cancel(client, taskId, options),
    list: (options) => list(client, options),
  };
}

type Shape = RemoteTask["shape"];

/** The shape `client` speaks: 2026-07-28 on a modern connection. */
function shapeOf(client: Client): Shape {
  const era =
    (client as { getProtocolEra?: () => { era?: string } | undefined })
      .getProtocolEra?.()?.era;
  return era === "modern" ? "2026-07-28" : "2025-11-25";
}

async function start(
  client: Client,
  name: string,
  options: StartTaskOptions = {},
): Promise<RemoteTask> {
  const ttl = options.ttl;
  if (ttl !== undefined && (!Number.isFinite(ttl) || ttl <= 0)) {
    throw new RangeError(
      `taskClient.start: ttl must be a positive number of ms, got ${ttl}`,
    );
  }
  // Both shapes take `params.task` (a 2026-07-28 server answers a call
  // naming a task in its own shape); `ttl` in ms, whole.
  const created = await send(
    client,
    "tools/call",
    {
      name,
      arguments: options.arguments ?? {},
      task: ttl === undefined ? {} : { ttl: Math.max(1, Math.round(ttl)) },
    },
    "",
    options,
  );
  const task = created.resultType === "task"
    ? taskOf(created, "2026-07-28")
    : isRecord(created.task)
    ? taskOf(created.task, "2025-11-25")
    : undefined;
  if (task === undefined) {
    throw malformed("", `tools/call of tool ${JSON.stringify(name)}`, created);
  }
  return task;
}

async function get(
  client: Client,
  taskId: string,
  options: TaskRequestOptions = {},
): Promise<RemoteTask> {
  const shape = shapeOf(client);
  const answer = await send(client, "tasks/get", { taskId }, taskId, options);
  return taskOf(answer, shape) ?? fail(malformed(taskId, "tasks/get", answer));
}

async function result(
  client: Client,
  taskId: string,
  options: TaskResultOptions = {},
): Promise<CallToolResult> {
  const shape = shapeOf(client);
  let pollMs = options.pollInterval;
  for (;;) {
    const answer = await send(client, "tasks/get", { taskId }, taskId, options);
    const task = taskOf(answer, shape) ??
      fail(malformed(taskId, "tasks/get", answer));
    if (task.status === "cancelled") throw cancelled(taskId);
    if (shape === "2026-07-28" && isTerminal(task.status)) {
      // The whole task: its result inline, or the error it failed with.
      if (isRecord(answer.result)) return callResultOf(answer.result);
      const error = isRecord(answer.error) ? answer.error : {};
      throw new RemoteTaskError(
        "failed",
        taskId,
        `task ${taskId} failed: ${
          typeof error.message === "string" ? error.message : "no reason given"
        }`,
      );
    }
    if (
      shape === "2025-11-25" &&
      (isTerminal(task.status) || task.status === "input_required")
    ) {
      // The end, or its questions on the way there (`tasks/result` carries
      // them to the client's elicitation handler).
      const end = await send(client, "tasks/result", { taskId }, taskId, {
        ...options,
        timeout: options.timeout ?? MAX_POLL_MS * 10,
      });
      if (end.isError === true) {
        const now = await get(client, taskId, options);
        if (now.status === "cancelled") throw cancelled(taskId);
      }
      return callResultOf(end);
    }
    pollMs = bounded(options.pollInterval ?? task.pollInterval ?? pollMs);
    await sleep(pollMs, options.signal);
  }
}

async function cancel(
  client: Client,
  taskId: string,
  options: TaskRequestOptions = {},
): Promise<RemoteTask> {
  const shape = shapeOf(client);
  const answer = await send(
    client,
    "tasks/cancel",
    { taskId },
    taskId,
    options,
  );
  // 2026-07-28 answers a bare result: the task is read after.
  return taskOf(answer, shape) ?? await get(client, taskId, options);
}

async function list(
  client: Client,
  options: ListTasksOptions = {},
): Promise<{ tasks: RemoteTask[]; nextCursor?: string }> {
  const shape = shapeOf(client);
  const answer = await send(
    client,
    "tasks/list",
    options.cursor === undefined ? {} : { cursor: options.cursor },
    "",
    options,
  );
  if (!Array.isArray(answer.tasks)) throw malformed("", "tasks/list", answer);
  const tasks = answer.tasks.map((entry) =>
    taskOf(entry, shape) ?? fail(malformed("", "tasks/list", answer))
  );
  return typeof answer.nextCursor === "string"
    ? { tasks, nextCursor: answer.nextCursor }
    : { tasks };
}

/** Sends one request; a JSON-RPC error is a `refused` (or `unsupported`) `RemoteTaskError`. */
async function send(
  client: Client,
  method: string,
  params: Record<string, unknown>,
  taskId: string,
  options: TaskRequestOptions,
): Promise<Record<string, unknown>> {
  try {
    return await client.request(
      { method, params },
      ResultSchema,
      {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      },
    ) as Record<string, unknown>;
  } catch (error) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    if (
      !(error instanceof McpError) || error.code === ErrorCode.RequestTimeout ||
      error.code === ErrorCode.ConnectionClosed
    ) throw error;
    const about = taskId === "" ? "" : `task ${taskId}: `;
    const unsupported = error.code === ErrorCode.MethodNotFound;
    throw new RemoteTaskError(
      unsupported ? "unsupported" : "refused",
      taskId,
      `${about}the server ${
        unsupported ? "does not serve" : "refused"
      } ${method} (${error.code}): ${serverWords(error)}`,
      { code: error.code, cause: error },
    );
  }
}

/** The server's own message, without the SDK's `MCP error <code>: ` prefix. */
function serverWords(error: McpError): string {
  return error.message.replace(/^MCP error -?\d+: /, "");
}

/** A task in either shape (`ttl`/`ttlMs`, `pollInterval`/`pollIntervalMs`), or `undefined`. */
function taskOf(value: unknown, shape: Shape): RemoteTask | undefined {
  if (!isRecord(value) || typeof value.taskId !== "string") return undefined;
  const status = value.status;
  if (
    status !== "working" && status !== "input_required" &&
    status !== "completed" && status !== "failed" && status !== "cancelled"
  ) return undefined;
  const ttl = "ttlMs" in value ? value.ttlMs : value.ttl;
  const poll = "pollIntervalMs" in value
    ? value.pollIntervalMs
    : value.pollInterval;
  return {
    taskId: value.taskId,
    status,
    ...(typeof value.statusMessage === "string"
      ? { statusMessage: value.statusMessage }
      : {}),
    createdAt: typeof value.createdAt === "string" ? value.createdAt : "",
    lastUpdatedAt: typeof value.lastUpdatedAt === "string"
      ? value.lastUpdatedAt
      : "",
    ttl: typeof ttl === "number" ? ttl : null,
    ...(typeof poll === "number" ? { pollInterval: poll } : {}),
    shape,
  };
}

/** A tool's result as the caller gets it (the 2026-07-28 `resultType` dropped). */
function callResultOf(value: Record<string, unknown>): CallToolResult {
  const { resultType: _, ...rest } = value;
  if (!Array.isArray(rest.content)) rest.content = [];
  return rest as CallToolResult;
}

function isTerminal(status: RemoteTaskStatus): boolean {
  return status === "completed" || status === "failed" ||
    status === "cancelled";
}

function cancelled(taskId: string): RemoteTaskError {
  return new RemoteTaskError(
    "cancelled",
    taskId,
    `task ${taskId} was cancelled; it has no result`,
  );
}

function malformed(
  taskId: string,
  what: string,
  answer: unknown,
): RemoteTaskError {
  return new RemoteTaskError(
    "malformed",
    taskId,
    `${
      taskId === "" ? "" : `task ${taskId}: `
    }the server's answer to ${what} is not a task in either MCP shape: ${
      JSON.stringify(answer).slice(0, 200)
    }`,
  );
}

function fail(error: Error): never {
  throw error;
}

function bounded(ms: number | undefined): number {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return DEFAULT_POLL_MS;
  return Math.min(Math.max(ms, MIN_POLL_MS), MAX_POLL_MS);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Waits `ms`; rejects with the signal's reason when it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}
