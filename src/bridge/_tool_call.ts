/**
 * One `tools/call` on the bridge's tool registry: the request as the
 * bridge reads it (non-object `arguments` set aside), the tool found by
 * name, run as a task when the call asked for one and the server serves
 * tasks, else run with its progress, log and input channels, and its
 * outcome mapped to a `CallToolResult` — a tool failure is never a
 * protocol error. The registry (`_registry.ts`) holds the tools; this
 * file runs one call of them.
 *
 * @module
 */

// The SDK's `*.js` subpaths carry no types under Deno; `@ts-types` points at
// the extensionless twin, which resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  RequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { notAnObject } from "../core/bridge.ts";
import { isPlainJson, jsonTypeOf } from "../core/json.ts";
import { failureText } from "../core/policy.ts";
import { quote } from "../core/errors.ts";
import type { ProgressFn, ToolResult } from "../core/tool.ts";
import type { LogFn } from "../core/logging.ts";
import { progressSink } from "./_progress.ts";
import { logSink } from "./_logging.ts";
import { unavailableSample } from "./_sampling.ts";
import {
  type AskExtra,
  askingFor,
  AskParked,
  type AskServer,
  type CallAsking,
} from "./_ask.ts";
import { tracedServe } from "../trace/mcp.ts";
import { taskEraOf, type TaskRunOptions } from "./task_hook.ts";
import type { CallExtra, Exported } from "./_exported.ts";
import {
  argumentText,
  contentOf,
  errorResult,
  structuredResult,
} from "./_tool_result.ts";
import type { Registry } from "./_registry.ts";

/**
 * The request as `CALL_REQUEST` reads `params` (an object): non-object
 * `arguments` set aside, `null` ones dropped.
 */
export function calledWith(params: Record<string, unknown>): CallToolRequest {
  const given = params.arguments;
  if (given !== undefined && jsonTypeOf(given) !== "object") {
    const { arguments: _, ...rest } = params;
    if (given !== null) setAside.set(rest, given);
    params = rest;
  }
  return { method: "tools/call", params } as CallToolRequest;
}

/**
 * The `arguments` values set aside, by the params object that no longer
 * holds them: `arguments` that are neither an object nor `null` (`[1]`,
 * `"x"`, `5`). Any other tools/call carries none.
 */
const setAside = new WeakMap<object, unknown>();

/**
 * The tools/call request as the bridge reads it. The SDK's
 * `CallToolRequestSchema` refuses `arguments` that are not an object before
 * any handler runs, answering an internal error (-32603) with its
 * validation dump. This schema reads the same request with any params
 * (the SDK still checks the rest: a missing name is its InvalidParams) and
 * moves a non-object `arguments` aside, so such a call is answered like
 * every other undecodable argument: an `isError` result with the core's
 * `INVALID_INPUT` text. `null` arguments read as missing (`{}`).
 */
export const CALL_REQUEST = RequestSchema.extend({
  method: CallToolRequestSchema.shape.method,
  params: RequestSchema.shape.params.transform((params) => {
    if (params === undefined) return params;
    const given = params.arguments;
    if (given === undefined || jsonTypeOf(given) === "object") return params;
    const { arguments: _, ...rest } = params;
    if (given !== null) setAside.set(rest, given);
    return rest;
  }),
});

/**
 * Answers one `tools/call` `request` (as `CALL_REQUEST` read it) on
 * `registry`'s server: the SDK's handler and the fast path's `call` both.
 */
export function callTool(
  registry: Registry,
  request: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  // Tracing: the SERVER span `tools/call {tool}` around the call.
  return tracedServe(
    request.params as Record<string, unknown>,
    extra,
    () => call(registry, request, extra),
    (result) => result.isError === true,
  );
}

/** Runs `entry` for a task: the task's signal, progress and ask, not the request's. */
export function runDetached(
  entry: Exported,
  args: unknown,
  extra: CallExtra,
  options: TaskRunOptions,
): Promise<CallToolResult> {
  return answerWith(
    entry,
    args,
    { ...extra, signal: options.signal },
    options.progress,
    {
      ask: options.ask,
      // A task's result is fetched later: no request to the client rides on it.
      sample: unavailableSample(
        entry.name,
        "a call running as a task cannot send requests to the client; call the tool without a task to sample",
      ),
    },
    options,
  );
}

/**
 * A tool of `taskSupport: "required"` called without `params.task`: the
 * spec's answer is a protocol error, Method not found (-32601).
 */
class TaskRequiredError extends Error {
  readonly code: number = ErrorCode.MethodNotFound;

  constructor(name: string) {
    super(
      `tool ${
        quote(name)
      } must be called as a task (its taskSupport is "required"); send params.task`,
    );
    this.name = "TaskRequiredError";
  }
}

/**
 * An unknown tool name is a protocol error, as the MCP spec asks
 * (InvalidParams, -32602). Thrown into the SDK, which answers the request
 * with `{code, message}`; never shown to a user as an exception.
 */
class UnknownToolError extends Error {
  readonly code: number = ErrorCode.InvalidParams;

  constructor(name: string) {
    super(`unknown tool ${quote(name)}`);
    this.name = "UnknownToolError";
  }
}

function call(
  registry: Registry,
  request: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  const server = registry.server as unknown as AskServer & object;
  const name = request.params.name;
  const entry = registry.tools.get(name);
  if (entry === undefined) {
    return Promise.reject(new UnknownToolError(name));
  }
  if (setAside.has(request.params)) {
    return Promise.resolve(refused(name, setAside.get(request.params)));
  }
  const args = request.params.arguments;
  const runner = entry.taskSupport === undefined
    ? undefined
    : registry.state.taskRunner;
  if (runner !== undefined) {
    const era = taskEraOf(request.params);
    if (era !== undefined) {
      const task = (request.params as { task?: { ttl?: number } }).task;
      return runner.start({
        era,
        tool: name,
        args,
        // The `ttl` asked counts in both shapes (a 2026-07-28 caller
        // names it in `params.task` too).
        task: typeof task === "object" && task !== null ? task : {},
        extra,
        server,
        run: (options) => runDetached(entry, args, extra, options),
      }) as Promise<CallToolResult>;
    }
    if (entry.taskSupport === "required") {
      return Promise.reject(new TaskRequiredError(name));
    }
  }
  const asking = askingFor(
    { server, owner: entry.owner ?? entry, tool: name },
    () => argumentText(args),
    request.params as Record<string, unknown>,
    extra as unknown as AskExtra,
  );
  // A modern retry's requestState is verified before the tool runs; a bad
  // one rejects (a protocol error, InvalidParams).
  const params = request.params as Record<string, unknown>;
  if (asking instanceof Promise) {
    return asking.then((a) => answer(entry, args, extra, a, server, params));
  }
  return answer(entry, args, extra, asking, server, params);
}

/**
 * The answer to `arguments` that are not an object: the text a typed tool
 * gives such argument text in weft's own loop,
 * `INVALID_INPUT: tool "<name>": expected object at the top level, got <JSON type>`.
 */
function refused(name: string, given: unknown): CallToolResult {
  return errorResult(failureText(name, notAnObject(given, name)));
}

/**
 * Runs one call and maps its outcome to a `CallToolResult`; never rejects.
 * A call with a progress token runs with a progress sink, closed and
 * drained before the result is answered: no notification follows it.
 */
function answer(
  entry: Exported,
  args: unknown,
  extra: CallExtra,
  asking: CallAsking,
  server: object,
  params: Record<string, unknown>,
): Promise<CallToolResult> {
  const sink = progressSink(extra);
  const log = logSink(server, params, extra);
  if (sink === undefined && log === undefined) {
    return answerWith(entry, args, extra, undefined, asking);
  }
  return answerWith(
    entry,
    args,
    extra,
    sink?.send,
    asking,
    undefined,
    log?.send,
  ).then((result) => {
    // A call that logged nothing (the common case) waits for nothing more.
    const progressDone = sink?.close();
    const logDone = log?.close();
    if (progressDone === undefined && logDone === undefined) return result;
    return Promise.all([progressDone, logDone]).then(() => result);
  });
}

async function answerWith(
  entry: Exported,
  args: unknown,
  extra: CallExtra,
  progress: ProgressFn | undefined,
  asking: CallAsking,
  task?: Pick<TaskRunOptions, "checkpoint" | "saveCheckpoint">,
  log?: LogFn,
): Promise<CallToolResult> {
  let result: ToolResult;
  try {
    result = await entry.run(args, extra, progress, asking.ask, task, {
      log,
      sample: asking.sample,
    });
  } catch (thrown) {
    if (thrown instanceof AskParked && asking.inputRequired !== undefined) {
      // The SDK checks the result as a CallToolResult, which adds `content: []`.
      return await asking.inputRequired(thrown) as CallToolResult;
    }
    return errorResult(failureText(entry.name, thrown));
  }
  const content = contentOf(result);
  if (!entry.structured) return { content };
  // A structured value that is plain JSON data is what the text reads back
  // as: it goes out as structuredContent without that second read.
  const value = result.structured;
  if (jsonTypeOf(value) === "object" && isPlainJson(value)) {
    return {
      content,
      structuredContent: value as Record<string, unknown>,
    };
  }
  return structuredResult(entry.name, result.text, content);
}
