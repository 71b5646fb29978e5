/**
 * The bridge's tool registry on an SDK server: one registry per `Server`
 * (an object slot), whose own `tools/list` and `tools/call` handlers are
 * installed once, on the first registration (on `@weft/mcp`'s `Server`,
 * queued until its handler maps are first read). `exportTools` and `serveAgent`
 * both register here; the registry maps to and from the SDK's shapes and
 * never lets a tool failure become a protocol error.
 *
 * @module
 */

import type { ToolServer as Server } from "./peers.ts";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol";
// The SDK's `*.js` subpaths carry no types under Deno; `@ts-types` points at
// the extensionless twin, which resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  RequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { notAnObject } from "../core/bridge.ts";
import { isPlainJson, jsonTypeOf, parseLossless } from "../core/json.ts";
import { failureText } from "../core/policy.ts";
import { quote } from "../core/errors.ts";
import type { ProgressFn, TaskSupport, ToolResult } from "../core/tool.ts";
import type { AskFn } from "../core/input.ts";
import { type AuthInfo, setScopeLookup } from "../core/auth.ts";
import { type ServedTools, serveToolsFrom } from "../core/served_tools.ts";
import { objectSlot } from "../core/object_slot.ts";
import { deferredHandlers } from "../core/deferred_handlers.ts";
import { requestHandlers, serverCapabilities } from "../seam/sdk_internals.ts";
import { progressSink } from "./_progress.ts";
import { declareLogging, installSetLevel, logSink } from "./_logging.ts";
import { unavailableSample } from "./_sampling.ts";
import type { LogFn } from "../core/logging.ts";
import type { SampleFn } from "../core/sampling.ts";
import {
  type AskExtra,
  askingFor,
  AskParked,
  type AskServer,
  type CallAsking,
} from "./_ask.ts";

import { tracedServe } from "../trace/mcp.ts";
import {
  setTaskToolLookup,
  taskEraOf,
  taskRunnerOf,
  type TaskRunOptions,
  type TaskTool,
} from "./task_hook.ts";
/** What a `tools/call` handler receives beside the request. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The verified caller the HTTP handler put on the request, as invoke options. */
export function authOf(extra: CallExtra): { auth?: AuthInfo } {
  const auth = extra.authInfo as AuthInfo | undefined;
  return auth === undefined ? {} : { auth };
}

/** A call's channels to the client beside progress and input: `ctx.log`, `ctx.sample`. */
export interface CallChannels {
  /** Sends `notifications/message`; absent when nothing may be sent. */
  readonly log?: LogFn;
  /** Sends `sampling/createMessage` (or parks a modern call on it). */
  readonly sample?: SampleFn;
}

/** One tool as the registry holds it: its listing entry and how to run it. */
export interface Exported {
  /** The name clients call. */
  readonly name: string;
  /** The `tools/list` entry, built once at registration. */
  readonly listing: Tool;
  /** Whether the result text must be JSON and goes out as `structuredContent` too. */
  readonly structured: boolean;
  /** OAuth scopes a call needs over authenticated HTTP. */
  readonly scopes?: readonly string[];
  /** The exported tool definition: its requestStates' default key is its own. */
  readonly owner?: object;
  /** Whether callers may or must run it as a task (on servers that serve tasks). */
  readonly taskSupport?: TaskSupport;
  /** Whether a task of it resumes from a checkpoint after a takeover (`run`'s `task`). */
  readonly resumable?: boolean;
  /**
   * Runs one call on the client's arguments (as the SDK decoded them:
   * missing, or an object); resolves to the whole result. `progress` is
   * there when the client asked for progress.
   */
  run(
    args: unknown,
    extra: CallExtra,
    progress?: ProgressFn,
    ask?: AskFn,
    task?: Pick<TaskRunOptions, "checkpoint" | "saveCheckpoint">,
    channels?: CallChannels,
  ): Promise<ToolResult>;
}

/**
 * Registry entries built once and registered whole on many servers (the
 * frozen tools a server factory exports on a server per request): a
 * server's registry holds this map itself, as it is, until a later
 * registration on that server copies it.
 */
export interface SharedEntries {
  /** The entries by name, in registration order; never changed. */
  readonly tools: ReadonlyMap<string, Exported>;
  /** Their `tools/list` entries (frozen), made on first listing. */
  listing?: readonly Tool[];
}

/**
 * One server's registry. A class, not an object literal: a literal's
 * allocation site can be pretenured, and an old-space registry pointing at
 * its young server's objects (its fast view) keeps servers made per
 * request alive until a full collection.
 */
class Registry {
  /** The entries by name: `shared.tools` itself while `shared` is set. */
  tools: Map<string, Exported>;
  /** The shared entries `tools` still is, not yet copied. */
  shared?: SharedEntries;
  listing?: readonly Tool[];
  /** What the server's handler map held for each method once ours were set. */
  installed?: { readonly list: unknown; readonly call: unknown };
  /**
   * Whether our handlers wait in the server's queue (`deferredHandlers`):
   * nothing has read its handler maps since, so nothing replaced them.
   */
  deferred?: boolean;
  /** The fast path's view, made on first use. */
  fast?: RegistryTools;

  constructor(shared: SharedEntries) {
    this.tools = shared.tools as Map<string, Exported>;
    this.shared = shared;
    this.listing = undefined;
    this.installed = undefined;
    this.deferred = undefined;
    this.fast = undefined;
  }
}

/** The registry's first entries: none, shared (copied on first use). */
const NO_ENTRIES: SharedEntries = { tools: new Map() };

/**
 * The bridge's own `tools/list` and `tools/call` of one server, callable
 * without the SDK's `Protocol` in between: what the HTTP handler's
 * stateless fast path answers from. `call` takes the request's `params`
 * and resolves to the result the handler returns (not yet checked as a
 * `CallToolResult`: the SDK's `Server` does that after).
 */
interface RegistryTools extends ServedTools {
  list(): ListToolsResult;
  call(
    params: Record<string, unknown>,
    extra: unknown,
  ): Promise<CallToolResult>;
}

/**
 * The bridge's tools of `server` when its `tools/list` and `tools/call`
 * are still the bridge's own (nobody replaced them after `exportTools`),
 * else `undefined`.
 */
function registryToolsOf(
  server: object,
  registry: Registry,
): RegistryTools | undefined {
  if (registry.deferred === true) {
    return registry.fast ??= new FastTools(registry, server);
  }
  const installed = registry.installed;
  if (installed === undefined) return undefined;
  const handlers = requestHandlers(server);
  if (
    handlers === undefined ||
    handlers.get("tools/call") !== installed.call ||
    handlers.get("tools/list") !== installed.list
  ) return undefined;
  return registry.fast ??= new FastTools(registry, server);
}

/** `RegistryTools` of one server's registry (methods, not closures). */
class FastTools implements RegistryTools {
  readonly #registry: Registry;
  readonly #server: object;

  constructor(registry: Registry, server: object) {
    this.#registry = registry;
    this.#server = server;
  }

  list(): ListToolsResult {
    return { tools: listing(this.#registry, this.#server) as Tool[] };
  }

  call(
    params: Record<string, unknown>,
    extra: unknown,
  ): Promise<CallToolResult> {
    return callHandler(
      this.#registry,
      this.#server as AskServer & object,
      calledWith(params),
      extra as CallExtra,
    );
  }
}

// Kept on the server itself: servers are often made per request.
const registries = objectSlot<Registry>("weft.toolRegistry");

// The HTTP handler's stateless fast path answers from here.
serveToolsFrom((server) => {
  const registry = registries.get(server);
  return registry === undefined ? undefined : registryToolsOf(server, registry);
});

/**
 * Registers `entries` on `server`, replacing same-named tools from earlier
 * calls. Installs the bridge's handlers on first use (see `ensureRegistry`).
 * All checks happen before any state changes: it registers all or nothing.
 * Shared entries registered on a server with no tools yet are held as they
 * are; any other registration copies them first.
 */
export function register(
  server: Server,
  entries: readonly Exported[] | SharedEntries,
  caller: string,
): void {
  const registry = ensureRegistry(server, caller);
  if (registry.tools.size === 0 && !Array.isArray(entries)) {
    const shared = entries as SharedEntries;
    registry.tools = shared.tools as Map<string, Exported>;
    registry.shared = shared;
  } else {
    if (registry.shared !== undefined) {
      registry.tools = new Map(registry.tools);
      registry.shared = undefined;
    }
    const added = Array.isArray(entries)
      ? entries as readonly Exported[]
      : (entries as SharedEntries).tools.values();
    for (const entry of added) registry.tools.set(entry.name, entry);
  }
  registry.listing = undefined;
  if (server.transport !== undefined) {
    // A client that listed before this call is told to list again; the
    // notification is best effort (a closing transport is not our failure).
    server.sendToolListChanged().catch(() => {
      // Nothing lost: a closing transport; the next listing reads the new tools.
    });
  }
}

function ensureRegistry(server: Server, caller: string): Registry {
  const known = registries.get(server);
  if (known) return known;
  // A server whose handler maps are not made yet has no tools handlers.
  const deferring = deferredHandlers(server);
  for (const method of deferring ? [] : ["tools/list", "tools/call"]) {
    try {
      server.assertCanSetRequestHandler(method);
    } catch (cause) {
      throw new TypeError(
        `${caller}: the server already has a ${method} handler the bridge did not install (an McpServer's, or your own); the bridge keeps one tool registry per server`,
        { cause },
      );
    }
  }
  const registry = new Registry(NO_ENTRIES);
  installHandlers(server, registry, caller, deferring);
  setTaskToolLookup(server, (name) => taskToolOf(registry, name));
  // The HTTP handler asks before a call starts (403 step-up).
  setScopeLookup(
    server,
    (name) => registry.tools.get(name)?.scopes,
    () => [...registry.tools.values()].flatMap((e) => e.scopes ?? []),
  );
  registries.set(server, registry);
  return registry;
}

function installHandlers(
  server: Server,
  registry: Registry,
  caller: string,
  deferring: boolean,
): void {
  // A fresh server without the tools capability (the common case, a server
  // made per request): declared first, with no refusal thrown and caught.
  const declared = serverCapabilities(server);
  const fresh = declared !== undefined && declared.tools === undefined &&
    server.transport === undefined;
  if (fresh) server.registerCapabilities({ tools: { listChanged: true } });
  // ctx.log needs the logging capability: declared while it still can be.
  declareLogging(server);
  if (deferring && (fresh || declared?.tools !== undefined)) {
    // The tools capability is declared, and capabilities only grow: the
    // SDK's check when the handlers are set passes then as it would now.
    registry.deferred = true;
    deferredHandlers(server, () => {
      registry.deferred = false;
      setHandlers(server, registry);
    });
    return;
  }
  if (fresh) {
    setHandlers(server, registry);
    return;
  }
  try {
    setHandlers(server, registry);
    return;
  } catch (cause) {
    // The SDK refuses tools handlers on a server without the tools
    // capability. Before connect we declare it, as McpServer does; after
    // connect the capability can no longer change, and the caller must.
    if (server.transport !== undefined) {
      throw new TypeError(
        `${caller}: the server is already connected and does not declare the tools capability; pass capabilities: { tools: {} } to the Server, or register tools before connect`,
        { cause },
      );
    }
  }
  server.registerCapabilities({ tools: { listChanged: true } });
  setHandlers(server, registry);
}

function setHandlers(server: Server, registry: Registry): void {
  server.setRequestHandler(
    ListToolsRequestSchema,
    (): ListToolsResult => ({ tools: listing(registry, server) as Tool[] }),
  );
  // The SDK checked the request against CallToolRequestSchema before calling
  // the handler (after CALL_REQUEST set non-object arguments aside), and its
  // context is the SDK's own (see ToolServer).
  server.setRequestHandler(
    CALL_REQUEST,
    (request, extra): Promise<CallToolResult> =>
      callHandler(
        registry,
        server as unknown as AskServer & object,
        request as CallToolRequest,
        extra as CallExtra,
      ),
  );
  installSetLevel(server);
  const handlers = requestHandlers(server);
  registry.installed = {
    list: handlers?.get("tools/list"),
    call: handlers?.get("tools/call"),
  };
}

function callHandler(
  registry: Registry,
  server: AskServer & object,
  request: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  // Tracing: the SERVER span `tools/call {tool}` around the call.
  return tracedServe(
    request.params as Record<string, unknown>,
    extra,
    () => call(registry, request, extra, server),
    (result) => result.isError === true,
  );
}

/**
 * The request as `CALL_REQUEST` reads `params` (an object): non-object
 * `arguments` set aside, `null` ones dropped.
 */
function calledWith(params: Record<string, unknown>): CallToolRequest {
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
const CALL_REQUEST = RequestSchema.extend({
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

function listing(registry: Registry, server: object): readonly Tool[] {
  // `execution.taskSupport` is listed only where tasks are served.
  if (taskRunnerOf(server) !== undefined) {
    return Array.from(
      registry.tools.values(),
      (e) =>
        e.taskSupport === undefined
          ? e.listing
          : { ...e.listing, execution: { taskSupport: e.taskSupport } },
    );
  }
  if (registry.listing !== undefined) return registry.listing;
  const shared = registry.shared;
  return registry.listing = shared === undefined
    ? Array.from(registry.tools.values(), (e) => e.listing)
    : shared.listing ??= Object.freeze(
      Array.from(shared.tools.values(), (e) => e.listing),
    );
}

/** `name` as a task tool (for a takeover), when it is one. */
function taskToolOf(registry: Registry, name: string): TaskTool | undefined {
  const entry = registry.tools.get(name);
  if (entry?.taskSupport === undefined) return undefined;
  return {
    taskSupport: entry.taskSupport,
    resumable: entry.resumable === true,
    run: (args, extra, options) => runDetached(entry, args, extra, options),
  };
}

/** Runs `entry` for a task: the task's signal, progress and ask, not the request's. */
function runDetached(
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
  server: AskServer & object,
): Promise<CallToolResult> {
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
    : taskRunnerOf(server);
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

// The content items to send: a content result's items as they are, else
// the text as one text item.
function contentOf(result: ToolResult): CallToolResult["content"] {
  if (result.content !== undefined) {
    return result.content.slice() as CallToolResult["content"];
  }
  return [{ type: "text", text: result.text }];
}

/**
 * The argument JSON text of a call: missing, `null` or empty arguments are
 * `{}`; otherwise `JSON.stringify` of the decoded object (which writes
 * `JSON.rawJSON` values from a lossless transport with every digit and does
 * not escape `<`, `>` or `&`).
 */
export function argumentText(args: unknown): string {
  if (args === undefined || args === null) return "{}";
  return JSON.stringify(args);
}

function structuredResult(
  name: string,
  text: string,
  content: CallToolResult["content"],
): CallToolResult {
  let value: unknown;
  try {
    value = parseResult(text);
  } catch {
    return errorResult(
      `tool ${
        quote(name)
      } advertised an output schema, so its result must be JSON; got non-JSON text`,
    );
  }
  const kind = jsonTypeOf(value);
  if (kind !== "object") {
    // The SDK (and the spec) carry structuredContent as an object; a scalar
    // or an array would be refused as an invalid result, a protocol error.
    return errorResult(
      `tool ${
        quote(name)
      } advertised an output schema, so its result must be a JSON object; got ${kind}`,
    );
  }
  return { content, structuredContent: value as Record<string, unknown> };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

// A number JSON.parse would change has at least 16 digits in a row (an
// integer beyond 2^53) or a three-digit exponent (beyond a double's range).
const MAY_LOSE_DIGITS = /[0-9]{16}|[eE][+-]?[0-9]{3}/;

/**
 * `parseLossless`, with `JSON.parse` for text that holds no number it could
 * change: the lossless reviver costs several times `JSON.parse` on every
 * result of a tool with an output schema (bench/export_bench.ts).
 */
function parseResult(text: string): unknown {
  return MAY_LOSE_DIGITS.test(text) ? parseLossless(text) : JSON.parse(text);
}
