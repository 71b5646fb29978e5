/**
 * Serving MCP tasks (2025-11-25, `params.task`): a tool call that asks for
 * a task answers a handle at once and runs on, detached from its request;
 * the caller polls `tasks/get`, waits on `tasks/result`, cancels with
 * `tasks/cancel`, lists with `tasks/list`. Task records live in a
 * contract `Store`, so every instance sharing it answers for every task.
 *
 * @module
 */

import type { ToolServer as Server } from "../bridge/peers.ts";
import {
  type CallExtra,
  isModernRequest,
  setTaskRunner,
  TASKS_EXTENSION,
} from "../bridge/task_hook.ts";
import { z } from "zod";
import type { Store } from "../store/contract.ts";
import { memoryStore } from "../store/memory.ts";
import { acceptStore } from "../store/accept.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";
import { type HostSettings, TaskHost } from "./_host.ts";
import { holdAnswer } from "../store/request_hold.ts";
import { isStoreOutage } from "./_outcome.ts";
import { TaskStoreUnavailableError } from "./errors.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * Options of {@link serveTasks}.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Task records in a store shared by every instance
 * ```ts
 * import type { ServeTasksOptions } from "@weft/mcp/tasks";
 * import { memoryStore } from "@weft/mcp/store";
 * const options: ServeTasksOptions = { store: memoryStore(), leaseMs: 5_000 };
 * ```
 */
export interface ServeTasksOptions {
  /**
   * Where task records live: the store every instance of the program
   * shares (pass the one given to `httpHandler`'s `store`). Default: this
   * process's memory (one store for every server of the process that
   * gets no store). A raw `Deno.Kv` is taken as `denoKvStore(kv)` (the same
   * `Deno.Kv` is the same store each time); anything else is a
   * `TypeError` at the call.
   */
  readonly store?: Store | DenoKvLike;
  /** How long a task's record is kept after its last change, when the caller asks no `ttl`, in ms. Default 1 hour. */
  readonly ttlMs?: number;
  /** The longest `ttl` a caller may ask for, in ms (longer is cut to it). Default 24 hours. */
  readonly maxTtlMs?: number;
  /** The `pollInterval` advised to callers, in ms. Default 1,000. */
  readonly pollIntervalMs?: number;
  /**
   * The lease of a running task, in ms: the instance running it renews it
   * every third of that; a task whose lease lapsed (its instance stopped)
   * is taken over by the next instance asked about it. Default 10,000.
   */
  readonly leaseMs?: number;
  /**
   * The most tasks of one caller running on this instance at once; one
   * more is refused (`TaskLimitError`, JSON-RPC -32000) until one ends.
   * A caller is its verified identity, else its session; every caller
   * with neither (stateless and anonymous) counts as one. Default 16.
   */
  readonly maxRunningPerCaller?: number;
  /**
   * The most tasks of one caller kept in the store (running or ended,
   * until their ttl runs out), counted across instances; one more is
   * refused (`TaskLimitError`, -32000). Default 100.
   */
  readonly maxTasksPerCaller?: number;
  /**
   * The most bytes a task's arguments may take as JSON: the record keeps
   * them as long as the task. Larger is refused (`TaskLimitError`,
   * -32602). Default 262,144 (256 KiB). On Deno KV, whose values hold at
   * most 64 KiB, keep it under that.
   */
  readonly maxArgumentBytes?: number;
  /**
   * Stops the tasks running in this process when it aborts — pass the
   * signal that stops your server (`httpHandler`'s `signal`): their tools'
   * signals abort and their leases are let go, so another instance sharing
   * the store takes each over at once (a served agent resumes from its
   * last step; any other tool ends `failed`). Without it, running tasks
   * keep the process alive until they end.
   */
  readonly signal?: AbortSignal;
}

const DEFAULTS: HostSettings = {
  ttlMs: 3_600_000,
  maxTtlMs: 86_400_000,
  pollIntervalMs: 1_000,
  leaseMs: 10_000,
  maxRunningPerCaller: 16,
  maxTasksPerCaller: 100,
  maxArgumentBytes: 262_144,
};

/** `tasks/update` (2026-07-28): answers to a task's questions. */
const UPDATE_REQUEST = z.object({
  method: z.literal("tasks/update"),
  params: z.looseObject({
    taskId: z.string(),
    inputResponses: z.record(z.string(), z.looseObject({})),
  }),
});

interface UpdateParams {
  readonly taskId: string;
  readonly inputResponses: Record<string, unknown>;
}

const hosts = new WeakMap<Store, TaskHost>();
let processStore: Store | undefined;

/**
 * Serves MCP tasks (the 2025-11-25 revision's `tasks` capability) on
 * `server`, for the tools registered on it with `taskSupport`
 * (`tool({ …, taskSupport: "optional" })`, `serveAgent(server, agent,
 * description, { taskSupport })`). Call it before `connect` (in the server
 * factory): it declares `tasks: { list, cancel, requests: { tools: { call
 * } } }`, lists those tools with `execution.taskSupport`, and answers
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
 *
 * A `tools/call` with `params.task` answers `{ task }` (a `CreateTaskResult`)
 * once the record is in the store; the tool runs on with the task's own
 * `AbortSignal` (aborted by `tasks/cancel` — sticky: a cancelled task never
 * completes), its progress reports as the status message, and its
 * `ctx.ask` moving the task to `input_required` until a `tasks/result`
 * caller answers the `elicitation/create` it is sent. `tasks/result` waits
 * until the task ends and answers the call's result (an `isError` result
 * ends the task `failed`). Records are kept `ttl` ms after their last
 * change (the caller's `params.task.ttl`, else `ttlMs`, at most
 * `maxTtlMs`). A call without `params.task` runs as before; one of a tool
 * whose `taskSupport` is `"required"` is refused (-32601).
 *
 * Tasks made by an authenticated caller are seen only by that principal;
 * others by whoever holds the (random) task id, and listed per session —
 * an anonymous caller without a session (a stateless endpoint) lists only
 * what its own connection made, so never another caller's tasks. Each
 * caller's share is bounded (`maxRunningPerCaller`, `maxTasksPerCaller`,
 * `maxArgumentBytes`; a `TaskLimitError` refuses the call, nothing
 * stored). A task request the store cannot serve is a
 * `TaskStoreUnavailableError` (over `httpHandler`: 503 with
 * `Retry-After`); a task finishing while the store is down writes its
 * outcome again once the store answers.
 * When the instance running a task stops, its lease lapses: the next
 * instance asked about the task takes it over — a served agent resumes
 * from its last saved step, any other tool ends `failed` with a status
 * message saying so.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example Serve a tool as a task
 * ```ts
 * import { exportTools, rawTool, Server } from "@weft/mcp";
 * import { serveTasks } from "@weft/mcp/tasks";
 *
 * const report = rawTool({
 *   name: "report",
 *   description: "Builds the report (takes minutes).",
 *   taskSupport: "optional",
 *   run: () => "done",
 * });
 * const server = new Server({ name: "demo", version: "1" });
 * exportTools(server, report);
 * serveTasks(server);
 * ```
 */
export function serveTasks(server: Server, options?: ServeTasksOptions): void {
  const host = hostOf(options);
  if (server.transport !== undefined) {
    throw new TypeError(
      "serveTasks: the server is already connected; call serveTasks before connect (in the server factory)",
    );
  }
  (server.registerCapabilities as (c: Record<string, unknown>) => void)({
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    extensions: { [TASKS_EXTENSION]: {} },
  });
  const id = (request: unknown): string =>
    (request as { params: { taskId: string } }).params.taskId;
  const modern = (request: unknown): boolean =>
    isModernRequest((request as { params?: unknown }).params);
  setTaskHandler(
    server,
    GetTaskRequestSchema,
    (request, extra) =>
      modern(request)
        ? host.getV2(id(request), extra, server)
        : host.get(id(request), extra, server),
  );
  setTaskHandler(
    server,
    UPDATE_REQUEST,
    async (request, extra) => {
      const params = (request as { params: UpdateParams }).params;
      await host.update(params.taskId, params.inputResponses, extra, server);
      return {};
    },
  );
  setTaskHandler(
    server,
    GetTaskPayloadRequestSchema,
    (request, extra) => host.result(id(request), extra, server, extra.release),
  );
  setTaskHandler(
    server,
    CancelTaskRequestSchema,
    async (request, extra) => {
      const task = await host.cancel(id(request), extra, server);
      // 2026-07-28: a bare complete result.
      return modern(request) ? {} : task;
    },
  );
  setTaskHandler(
    server,
    ListTasksRequestSchema,
    async (_request, extra) => ({ tasks: await host.list(extra, server) }),
  );
  setTaskRunner(server, host);
}

/**
 * The task host of the options' store (one per store: made by the first
 * `serveTasks` on it), stopped when the options' `signal` aborts.
 */
function hostOf(options: ServeTasksOptions | undefined): TaskHost {
  const store = options?.store === undefined
    ? (processStore ??= memoryStore())
    : acceptStore(options.store, "serveTasks: options.store");
  let host = hosts.get(store);
  if (host === undefined) {
    const made = host = new TaskHost(store, settingsOf(options));
    hosts.set(store, made);
  }
  const stopping = options?.signal;
  if (stopping !== undefined && !watching(stopping, host)) {
    const made = host;
    const stop = (): void => {
      // The next serveTasks on this store is a new instance.
      if (hosts.get(store) === made) hosts.delete(store);
      void made.close();
    };
    if (stopping.aborted) stop();
    else stopping.addEventListener("abort", stop, { once: true });
  }
  return host;
}

/** A request schema as `setTaskHandler` checks a request against it. */
interface RequestSchema {
  safeParse(
    value: unknown,
  ): { success: boolean; data?: unknown; error?: unknown };
}

/**
 * Installs `handler` on the schema's method alone; it checks the request
 * itself: wrong-shaped params answer InvalidParams (-32602), not the
 * InternalError (-32603) of the SDK's own parse.
 */
function setTaskHandler(
  server: Server,
  schema: RequestSchema,
  handler: (request: unknown, extra: HeldExtra) => unknown,
): void {
  const method = methodOf(schema);
  (server.setRequestHandler as unknown as (
    schema: unknown,
    handler: (request: unknown, extra: CallExtra) => unknown,
  ) => void).call(
    server,
    z.looseObject({ method: z.literal(method) }),
    async (request, extra) => {
      const checked = schema.safeParse(request);
      if (!checked.success) throw new TaskParamsError(method, checked.error);
      // Held until the store answered: an outage is answered as one
      // (503 over httpHandler), never as a 200 naming the store.
      const hold = holdAnswer(extra.requestInfo);
      try {
        return await handler(checked.data, {
          ...extra,
          release: hold.release,
        });
      } catch (error) {
        if (!isStoreOutage(error)) throw error;
        hold.outage();
        throw new TaskStoreUnavailableError(error);
      } finally {
        hold.release();
      }
    },
  );
}

/** A request's context, with the release of its held answer. */
type HeldExtra = CallExtra & { readonly release: () => void };

/** A `tasks/*` request whose params have the wrong shape: InvalidParams (-32602). */
class TaskParamsError extends Error {
  readonly code: number = -32602;

  constructor(method: string, cause: unknown) {
    super(
      `invalid ${method} params: ${
        cause instanceof Error ? cause.message : String(cause)
      }; send them as the MCP tasks schema gives`,
      { cause },
    );
    this.name = "TaskParamsError";
  }
}

/** The method literal of a request schema (`shape.method.value`). */
function methodOf(schema: unknown): string {
  return (schema as { shape: { method: { value: string } } }).shape.method
    .value;
}

/** The hosts each signal already stops (one listener per signal and host, however many servers). */
const stoppers = new WeakMap<AbortSignal, WeakSet<TaskHost>>();

function watching(signal: AbortSignal, host: TaskHost): boolean {
  let hostsOf = stoppers.get(signal);
  if (hostsOf === undefined) stoppers.set(signal, hostsOf = new WeakSet());
  if (hostsOf.has(host)) return true;
  hostsOf.add(host);
  return false;
}

function settingsOf(options: ServeTasksOptions | undefined): HostSettings {
  const pick = (value: number | undefined, name: string, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(
        `serveTasks: ${name} must be a positive number${
          name.endsWith("Ms") ? " of ms" : ""
        }, got ${value}`,
      );
    }
    return value;
  };
  return {
    ttlMs: pick(options?.ttlMs, "ttlMs", DEFAULTS.ttlMs),
    maxTtlMs: pick(options?.maxTtlMs, "maxTtlMs", DEFAULTS.maxTtlMs),
    pollIntervalMs: pick(
      options?.pollIntervalMs,
      "pollIntervalMs",
      DEFAULTS.pollIntervalMs,
    ),
    leaseMs: pick(options?.leaseMs, "leaseMs", DEFAULTS.leaseMs),
    maxRunningPerCaller: pick(
      options?.maxRunningPerCaller,
      "maxRunningPerCaller",
      DEFAULTS.maxRunningPerCaller,
    ),
    maxTasksPerCaller: pick(
      options?.maxTasksPerCaller,
      "maxTasksPerCaller",
      DEFAULTS.maxTasksPerCaller,
    ),
    maxArgumentBytes: pick(
      options?.maxArgumentBytes,
      "maxArgumentBytes",
      DEFAULTS.maxArgumentBytes,
    ),
  };
}

export {
  TaskAccessError,
  TaskCancelledError,
  type TaskLimit,
  TaskLimitError,
  TaskStoreUnavailableError,
} from "./errors.ts";
