/**
 * Where the bridge's tool registry meets a task runner (`serveTasks`,
 * `src/tasks`): the registry hands a tool call that asked for a task
 * (`params.task`) to the runner installed on its server, with a closure
 * that runs the call detached from its request; the runner answers the
 * `CreateTaskResult` and keeps the record. The bridge knows no store.
 *
 * @module
 */

import type { ToolServer as Server } from "./peers.ts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types";
import type { ProgressFn, TaskSupport } from "../core/tool.ts";
import type { AskFn } from "../core/input.ts";
import type { CallExtra } from "./_exported.ts";
import { bridgeState, bridgeStateOf } from "./_state.ts";

export type { CallExtra };
/** A task's answers are checked as a direct call's are. */
export { checkAnswer, InvalidAnswerError } from "./_answer.ts";

/** What a task's run is given in place of its request's signal, progress and ask. */
export interface TaskRunOptions {
  /** Aborts when the task is cancelled (or its host closes). */
  readonly signal: AbortSignal;
  /** Progress reports: they update the task's status message. */
  readonly progress: ProgressFn;
  /** The task's `ctx.ask`: the task goes `input_required` until answered. */
  readonly ask: AskFn;
  /** A resumable tool's saved checkpoint (after a takeover), else absent. */
  readonly checkpoint?: unknown;
  /** Saves a resumable tool's checkpoint in the task record. */
  readonly saveCheckpoint?: (checkpoint: unknown) => Promise<void>;
}

/** The two shapes of tasks: 2025-11-25 (`params.task`) and the 2026-07-28 extension. */
export type TaskEra = "v1" | "v2";

/** The extension id of 2026-07-28 tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const FIRST_MODERN = "2026-07-28";

/** Whether request `params` come from a 2026-07-28 (modern) client. */
export function isModernRequest(params: unknown): boolean {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)
    ?._meta;
  const version = meta?.[PROTOCOL_VERSION];
  return typeof version === "string" && version >= FIRST_MODERN;
}

/**
 * The shape of task a `tools/call`'s `params` ask for: `"v1"` with
 * `params.task` (an object), `"v2"` from a modern client declaring the
 * tasks extension (or sending `params.task`), else `undefined`.
 */
export function taskEraOf(params: unknown): TaskEra | undefined {
  const given = params as
    | { task?: unknown; _meta?: Record<string, unknown> }
    | undefined;
  if (isModernRequest(params)) {
    const caps = given?._meta?.[CLIENT_CAPABILITIES] as
      | { extensions?: Record<string, unknown> }
      | undefined;
    const ext = caps?.extensions?.[TASKS_EXTENSION];
    if (typeof ext === "object" && ext !== null) return "v2";
    // A modern request naming a task the 2025 way gets the modern shape.
    return typeof given?.task === "object" && given.task !== null
      ? "v2"
      : undefined;
  }
  return typeof given?.task === "object" && given.task !== null
    ? "v1"
    : undefined;
}

/** One tool call that asked to be a task. */
export interface TaskCall {
  /** The shape the caller speaks. */
  readonly era: TaskEra;
  /** The tool's name. */
  readonly tool: string;
  /** The tool's arguments as the client sent them. */
  readonly args: unknown;
  /** The `params.task` of the request (`ttl` in ms, when given). */
  readonly task: { readonly ttl?: number };
  /** The request's context (session id, verified caller). */
  readonly extra: CallExtra;
  /** The server the call came in on (its connection may carry the task's questions). */
  readonly server: object;
  /** Runs the call detached from its request; never rejects (failures are `isError` results). */
  run(options: TaskRunOptions): Promise<CallToolResult>;
}

/** A tool the runner can run again from its record after a takeover. */
export interface TaskTool {
  /** The tool's task support. */
  readonly taskSupport: TaskSupport;
  /** Whether it resumes from a checkpoint (else a takeover fails the task). */
  readonly resumable: boolean;
  /** Runs it on `args`, as `TaskCall.run` does. */
  run(
    args: unknown,
    extra: CallExtra,
    options: TaskRunOptions,
  ): Promise<CallToolResult>;
}

/** What `serveTasks` installs on a server. */
export interface TaskRunner {
  /** Starts `call` as a task: resolves to the `CreateTaskResult` once its record is stored. */
  start(call: TaskCall): Promise<Record<string, unknown>>;
}

/**
 * Installs `runner` on `server` (its record's `taskRunner`): task calls of
 * its tools go to it.
 */
export function setTaskRunner(server: Server, runner: TaskRunner): void {
  bridgeState(server).taskRunner = runner;
}

/** The task tool `name` registered on `server` (its tool registry's), if any. */
export function taskToolOf(
  server: object,
  name: string,
): TaskTool | undefined {
  return bridgeStateOf(server)?.tools?.taskTool(name);
}
