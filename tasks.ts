/**
 * MCP tasks, served: a tool (or a served agent) marked with `taskSupport`
 * answers a caller that asks for a task with a handle at once and runs on,
 * detached from the request; the caller polls, waits for the result,
 * answers questions and cancels. {@link serveTasks} turns it on for a
 * server; task records live in a store from `@weft/mcp/store`, so every
 * instance sharing it answers for every task, and a task whose instance
 * died is taken over. Calling a remote server's task tools needs nothing
 * from here: `importTools` does it when the server lists them; a client
 * holding only a task id (a restarted caller, another process) gets its
 * status and result, cancels it and lists its tasks with
 * {@link taskClient}, in both task shapes.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example A tool that runs as a task when asked
 * ```ts
 * import { exportTools, Server, tool } from "@weft/mcp";
 * import { serveTasks } from "@weft/mcp/tasks";
 * import { memoryStore } from "@weft/mcp/store";
 * import { z } from "zod";
 *
 * const server = new Server({ name: "reports", version: "1.0.0" });
 * serveTasks(server, { store: memoryStore() });
 * exportTools(
 *   server,
 *   tool({
 *     name: "build_report",
 *     description: "Builds the monthly report (minutes).",
 *     input: z.object({ month: z.string() }),
 *     taskSupport: "optional",
 *     run: ({ month }) => `report for ${month}`,
 *   }),
 * );
 * ```
 *
 * @module
 */

export {
  serveTasks,
  TaskAccessError,
  TaskCancelledError,
  TaskLimitError,
  TaskStoreUnavailableError,
} from "./src/tasks/tasks.ts";
export type { ServeTasksOptions, TaskLimit } from "./src/tasks/tasks.ts";
export type { TaskSupport } from "./src/core/tool.ts";
export { RemoteTaskError, taskClient } from "./src/bridge/remote_tasks.ts";
export type {
  ListTasksOptions,
  RemoteTask,
  RemoteTaskErrorReason,
  RemoteTaskResult,
  RemoteTaskStatus,
  StartTaskOptions,
  TaskClient,
  TaskRequestOptions,
  TaskResultOptions,
} from "./src/bridge/remote_tasks.ts";
