/**
 * An imported tool called as a server task (2025-11-25 `params.task`): the
 * call answers a task handle, the task is polled with `tasks/get` at the
 * server's `pollInterval` (its status messages reported as progress), and
 * its end fetched with `tasks/result` — the request that also carries the
 * task's questions, answered or parked like a 2025 call's (the parked
 * state names the task, so a resume in another process polls the same
 * task instead of calling the tool again). A 2026-07-28 server answers
 * `resultType: "task"` instead: the task is polled whole with `tasks/get`
 * and its questions answered with `tasks/update`. Aborting the call cancels
 * the task (`tasks/cancel`). The run's `suspend` signal stops the polling
 * without cancelling the task: the call throws `CallSuspendedError`, its
 * state naming the task, and a call resumed with that state (`resume`, in
 * any process) polls the same task. The model sees one ordinary result.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ProgressFn, TaskSupport } from "../core/tool.ts";
import { McpTransportError } from "./remote_error.ts";
import {
  answerAll,
  type CallState,
  inputRequestsOf,
  type Remote,
  sendCall,
  type TaskRounds,
} from "./_remote_input.ts";
import { InputRequiredError, type InputResponse } from "../core/input.ts";
import { importInput } from "./_elicit.ts";
import { CallSuspendedError } from "../core/suspend.ts";

/** The shapes of task a suspended call can be waiting on. */
type TaskShape = "2025-11-25" | "2026-07-28";

/** The state of a call suspended while its task runs. */
interface SuspendState {
  readonly era: "running";
  readonly task: string;
  readonly shape: TaskShape;
}

/** The extension id of 2026-07-28 tasks. */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Which imported tools are called as tasks. */
export type TaskCalls = "required" | "optional";

/** The poll interval used when the server advises none, ms. */
const DEFAULT_POLL_MS = 1_000;
/** The bounds a server's advised poll interval is held within, ms. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 60_000;

/**
 * Whether a call of a tool the server lists with `taskSupport` goes as a
 * task: the server must declare task-augmented `tools/call`; a `required`
 * tool always does, an `optional` one when `calls` is `"optional"`.
 */
export function callsAsTask(
  client: object,
  taskSupport: TaskSupport | undefined,
  calls: TaskCalls,
): boolean {
  if (taskSupport === undefined) return false;
  const caps = (client as {
    getServerCapabilities?: () =>
      | {
        tasks?: { requests?: { tools?: { call?: unknown } } };
        extensions?: Record<string, unknown>;
      }
      | undefined;
  }).getServerCapabilities?.();
  const call = caps?.tasks?.requests?.tools?.call;
  const modern = caps?.extensions?.[TASKS_EXTENSION];
  const served = (typeof call === "object" && call !== null) ||
    (typeof modern === "object" && modern !== null);
  if (!served) return false;
  return taskSupport === "required" || calls === "optional";
}

/** The tool's `execution.taskSupport` as the server lists it (`forbidden` and unknown values: none). */
export function listedTaskSupport(entry: unknown): TaskSupport | undefined {
  const execution = (entry as { execution?: { taskSupport?: unknown } })
    ?.execution;
  const value = execution?.taskSupport;
  return value === "required" || value === "optional" ? value : undefined;
}

/** The task runner for calls whose progress goes to `progress`. */
export function taskRounds(progress: ProgressFn | undefined): TaskRounds {
  return (remote, params, state) => runTask(remote, params, state, progress);
}

async function runTask(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
  progress: ProgressFn | undefined,
): Promise<Record<string, unknown>> {
  const signal = state.signal;
  let taskId = state.task;
  let pollMs = DEFAULT_POLL_MS;
  if (
    taskId !== undefined &&
    (state.taskResponses !== undefined || state.modern === true)
  ) {
    return await runModern(remote, taskId, pollMs, state, progress);
  }
  if (taskId === undefined) {
    const created = await request(remote, "tools/call", {
      ...params,
      task: {},
    }, signal);
    if (created.resultType === "task" && typeof created.taskId === "string") {
      // A 2026-07-28 server: the task itself, detailed on each poll.
      return await runModern(
        remote,
        created.taskId,
        pollOf(created.pollIntervalMs),
        state,
        progress,
      );
    }
    const task = created.task as
      | { taskId?: unknown; pollInterval?: unknown }
      | undefined;
    if (typeof task?.taskId !== "string") {
      // A server that ran the call at once answers its result.
      if (Array.isArray(created.content)) return created;
      throw new McpTransportError(
        new Error(
          `server answered a task call of tool ${
            JSON.stringify(remote.serverName)
          } without a task; it declares task support it does not give`,
        ),
      );
    }
    taskId = task.taskId;
    pollMs = pollOf(task.pollInterval);
  }
  const id = taskId;
  const unhook = cancelOnAbort(remote, id, signal);
  try {
    const poll = poller(remote, id, "2025-11-25", state, progress);
    for (;;) {
      const task = await poll();
      const status = task.status;
      if (status === "cancelled") throw cancelledBy(id);
      if (
        status === "completed" || status === "failed" ||
        status === "input_required"
      ) {
        // The end, or the task's questions on the way to it.
        const result = await sendCall(remote, { taskId: id }, {
          ...state,
          method: "tasks/result",
          task: id,
          onprogress: undefined,
        });
        // A task cancelled while its result was awaited reads as such,
        // whichever request saw it first.
        if (
          result.isError === true &&
          (await request(remote, "tasks/get", { taskId: id }, signal))
              .status === "cancelled"
        ) throw cancelledBy(id);
        return result;
      }
      pollMs = pollOf(task.pollInterval, pollMs);
      await sleep(pollMs, signal, state.suspend);
    }
  } finally {
    unhook();
  }
}

/**
 * A 2026-07-28 task: `tasks/get` answers it whole — its questions while
 * `input_required` (answered by `onInput` and sent with `tasks/update`, or
 * parking the run with the task's id in its state), its result once
 * `completed`, its error once `failed`.
 */
async function runModern(
  remote: Remote,
  id: string,
  firstPollMs: number,
  state: CallState,
  progress: ProgressFn | undefined,
): Promise<Record<string, unknown>> {
  const signal = state.signal;
  const unhook = cancelOnAbort(remote, id, signal);
  const answered = new Set<string>();
  const update = async (
    responses: Readonly<Record<string, InputResponse>>,
  ): Promise<void> => {
    for (const key of Object.keys(responses)) answered.add(key);
    await request(remote, "tasks/update", {
      taskId: id,
      inputResponses: responses,
    }, signal);
  };
  try {
    if (state.taskResponses !== undefined) await update(state.taskResponses);
    let pollMs = firstPollMs;
    const poll = poller(remote, id, "2026-07-28", state, progress);
    for (;;) {
      const task = await poll();
      switch (task.status) {
        case "completed":
          return isRecord(task.result) ? task.result : { content: [] };
        case "failed": {
          const error = isRecord(task.error) ? task.error : {};
          throw new McpTransportError(
            new Error(
              `task ${id} failed: ${
                typeof error.message === "string" ? error.message : "no reason"
              }`,
            ),
          );
        }
        case "cancelled":
          throw cancelledBy(id);
        case "input_required": {
          const asked = inputRequestsOf({ inputRequests: task.inputRequests });
          const fresh = Object.fromEntries(
            Object.entries(asked).filter(([key]) => !answered.has(key)),
          );
          if (Object.keys(fresh).length === 0) break;
          if (remote.onInput === undefined) {
            throw new InputRequiredError(
              remote.toolName,
              importInput(remote.server, remote.serverName, fresh, {
                era: "task",
                task: id,
              }),
            );
          }
          await update(await answerAll(remote, fresh, signal));
          continue;
        }
      }
      pollMs = pollOf(task.pollIntervalMs, pollMs);
      await sleep(pollMs, signal, state.suspend);
    }
  } finally {
    unhook();
  }
}

/** Cancels task `id` on its server when `signal` aborts; answers the unhooking. */
function cancelOnAbort(
  remote: Remote,
  id: string,
  signal: AbortSignal | undefined,
): () => void {
  const cancel = (): void => {
    remote.client.request(
      { method: "tasks/cancel", params: { taskId: id } },
      ResultSchema,
    ).catch(() => {
      // Nothing lost: the caller has aborted; the remote task lapses by its own TTL if the cancel fails.
    });
  };
  signal?.addEventListener("abort", cancel, { once: true });
  return () => signal?.removeEventListener("abort", cancel);
}

/**
 * One poll of task `id` at a time: stops on abort, suspends when the run
 * suspends, reads `tasks/get` and reports a new status message as progress.
 */
function poller(
  remote: Remote,
  id: string,
  shape: TaskShape,
  state: CallState,
  progress: ProgressFn | undefined,
): () => Promise<Record<string, unknown>> {
  let said: string | undefined;
  return async () => {
    state.signal?.throwIfAborted();
    if (state.suspend?.aborted === true) throw suspension(remote, id, shape);
    const task = await request(
      remote,
      "tasks/get",
      { taskId: id },
      state.signal,
    );
    const message = typeof task.statusMessage === "string"
      ? task.statusMessage
      : undefined;
    if (message !== undefined && message !== said) {
      said = message;
      progress?.({ message });
    }
    return task;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The failure of a call whose task the server (or another caller) cancelled. */
function cancelledBy(id: string): McpTransportError {
  return new McpTransportError(new Error(`the server cancelled task ${id}`));
}

function pollOf(value: unknown, fallback = DEFAULT_POLL_MS): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(value, MIN_POLL_MS), MAX_POLL_MS);
}

async function request(
  remote: Remote,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  try {
    return await remote.client.request(
      { method, params },
      ResultSchema,
      signal === undefined ? {} : { signal },
    ) as Record<string, unknown>;
  } catch (err) {
    throw new McpTransportError(err);
  }
}

/**
 * Waits `ms`; rejects with the signal's reason when it aborts, and resolves
 * early when `suspend` fires (the poll loop then suspends the call).
 */
function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  suspend?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      suspend?.removeEventListener("abort", done);
    };
    const done = (): void => {
      settle();
      resolve();
    };
    const stop = (): void => {
      settle();
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted === true) return stop();
    if (suspend?.aborted === true) return done();
    signal?.addEventListener("abort", stop, { once: true });
    suspend?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The call of task `id` suspended with its run: its state names the task
 * and its shape, so a resume (in any process) polls the same task.
 */
function suspension(
  remote: Remote,
  id: string,
  shape: TaskShape,
): CallSuspendedError {
  const state: SuspendState = { era: "running", task: id, shape };
  return new CallSuspendedError(remote.toolName, {
    server: remote.server,
    tool: remote.serverName,
    message: `task ${id} of tool ${JSON.stringify(remote.serverName)} ` +
      `is still running on server ${JSON.stringify(remote.server)}`,
    state: JSON.stringify(state),
  });
}

/** The suspend state in `state`; undefined when it is not one. */
function readSuspendState(state: string): SuspendState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(state);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  if (value.era !== "running" || typeof value.task !== "string") {
    return undefined;
  }
  if (value.shape !== "2025-11-25" && value.shape !== "2026-07-28") {
    return undefined;
  }
  return { era: "running", task: value.task, shape: value.shape };
}

/**
 * A call suspended with its run, continued (`CallInfo.suspended`): the task
 * its state names is polled again, never the tool called again. A state
 * this bridge did not write fails the call, since calling the tool again
 * might do its work twice.
 */
export async function resumeTask(
  remote: Remote,
  params: Record<string, unknown>,
  state: CallState,
  suspended: string,
  progress: ProgressFn | undefined,
): Promise<Record<string, unknown>> {
  const parsed = readSuspendState(suspended);
  if (parsed === undefined) {
    throw new McpTransportError(
      new Error(
        `cannot continue the suspended call of tool ${
          JSON.stringify(remote.serverName)
        }: its state names no task; call the tool again only if running it twice is safe`,
      ),
    );
  }
  return await runTask(remote, params, {
    ...state,
    task: parsed.task,
    modern: parsed.shape === "2026-07-28",
  }, progress);
}
