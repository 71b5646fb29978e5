/**
 * Export: weft tools registered on an MCP server (the SDK's low-level
 * `Server`).
 *
 * @module
 */

import type { ToolServer as Server } from "./peers.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types";
import { quote } from "../core/errors.ts";
import type {
  CallInfo,
  InvokeOptions,
  ProgressFn,
  TaskSupport,
  ToolArguments,
  ToolDef,
  ToolResult,
} from "../core/tool.ts";
import {
  authOf,
  type CallChannels,
  type CallExtra,
  type Exported,
  type SharedEntries,
} from "./_exported.ts";
import { register } from "./_registry.ts";
import {
  type AskFn,
  inputRequiredOf,
  type InputResponse,
} from "../core/input.ts";
import { setStateKey } from "./_ask.ts";
import type { Store } from "../store/contract.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";
import { refuseNonTools } from "./_tool_args.ts";
import {
  appResource,
  appResourceUri,
  appToolMeta,
  exportedServerName,
} from "./_app_export.ts";
import { exportResources } from "./resources.ts";

const DEFAULT_INPUT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
});

/**
 * Registers weft tools on an MCP server. Each tool is listed under its own
 * name, description and input schema document — whole, every keyword, as
 * `JSON.stringify(tool.inputSchema)` writes it; a missing one is
 * `{"type":"object"}` — plus its output schema when it has one, and its
 * `annotations` when it has any (their `title` also as the tool's `title`).
 * A call runs `ToolDef.invoke` on the client's arguments object (missing:
 * `{}`) with the request's `AbortSignal`: a text result is one text content
 * item, a `content(…)` result its items as they are (when `invoke`'s
 * `onResult` reported them for the text it resolved to), and for a tool with
 * an output schema the result must be a JSON object, sent as
 * `structuredContent` too (a typed tool's result is first checked against
 * that schema: `OutputSchemaError`). Every
 * failure — undecodable arguments, a handler error, a thrown value — is an
 * `isError` result carrying the text weft's loop would show its own model; no
 * tool failure is ever a JSON-RPC error, and no tool can take the server
 * down. An unknown tool name is a protocol error (InvalidParams, -32602), as
 * the MCP spec asks. Run policy (timeout, maxResultBytes, middleware) is not
 * applied: the exposition is the tool, not an agent — use `serveAgent` to
 * export an agent's tools under its chain.
 *
 * A tool asks its caller for input with `ctx.ask({ message, schema })`: a
 * 2025 client gets `elicitation/create` in the call's context and `ask`
 * resolves to its answer; a 2026-07-28 client (the request's `_meta` names
 * that version) gets the result `{ resultType: "input_required",
 * inputRequests, requestState }`, the state signed with HMAC-SHA256 (the
 * answers so far, the caller's principal when the request was
 * authenticated, the tool, a digest of its arguments, an id, an hour's
 * expiry; see {@linkcode setRequestStateKey}), and its retry runs the
 * handler again with the answers returned by `ask` in ask order. A retry
 * whose state is altered, expired, issued to another caller or for another
 * call, or already used (each state is accepted once) is refused with a
 * protocol error (InvalidParams, -32602) `invalid requestState: <reason>`.
 * Every answer is checked before the tool sees it, in both eras: an
 * elicitation result (`action` `accept`, `decline` or `cancel`) whose
 * `content` matches the schema asked (the server's JSON Schema validator,
 * as the SDK's `elicitInput`); a 2026-07-28 retry carrying another answer is
 * refused (-32602 `invalid inputResponses "ask_0": <what was wrong>`), a
 * 2025 caller's makes `ask` reject (-32602 `invalid elicitation result: …`).
 * The questions of one call are keyed `ask_0`, `ask_1`, … in ask order. A client
 * that declared no elicitation capability makes `ask` fail with
 * `tool "x" asked for input, but the client declared no elicitation capability`.
 * A tool that rejects with `InputRequiredError` asking elicitations (an
 * imported tool whose server asks) has them asked of the caller the same
 * way and runs again with the answers in `ctx.call.answer`: an imported
 * tool exported again passes its server's questions on.
 *
 * The bridge keeps its own registry per server and installs its own
 * `tools/list` and `tools/call` handlers once; a server without the `tools`
 * capability gets it declared (`{ listChanged: true }`) before connect. A
 * name registered by an earlier call is replaced; registering on a connected
 * server sends `notifications/tools/list_changed`.
 *
 * Throws a `TypeError`, registering nothing, on a missing tool
 * (`exportTools(server, ...tools): a tool is null; …`), anything else that
 * is not a tool, by its position (`exportTools: argument 2 is an array, not
 * a tool; spread it: exportTools(server, ...tools)`), a name repeated within the
 * call, an approval-gated tool (MCP has no approval channel, and running it
 * unapproved would be a silent policy bypass), a connected server without
 * the tools capability, or a server whose tools handlers someone else
 * installed (an `McpServer`'s).
 *
 * @example Using `exportTools`
 * ```ts
 * import { exportTools, rawTool, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const echo = rawTool({
 *   name: "echo",
 *   description: "Echo the arguments.",
 *   inputSchema: { type: "object" },
 *   annotations: { title: "Echo", readOnlyHint: true },
 *   run: (args) => args,
 * });
 * const server = new Server({ name: "demo", version: "0" });
 * exportTools(server, echo);
 * assert.equal(echo.annotations?.readOnlyHint, true);
 * ```
 */
export function exportTools(server: Server, ...tools: ToolDef[]): void {
  const known = knownSet(tools);
  if (known !== undefined) return register(server, known, "exportTools");
  // The server is argument 1: the first tool is argument 2.
  refuseNonTools("exportTools", tools, 2);
  const seen = new Set<string>();
  for (const tool of tools) {
    checkExportable(tool, seen);
  }
  const views = tools.filter((t) => t.app !== undefined);
  if (views.length > 0) return exportViews(server, tools, views);
  const built = tools.map(entryOf);
  if (tools.length === 0 || !tools.every(Object.isFrozen)) {
    return register(server, built, "exportTools");
  }
  const set: ToolSet = {
    tools: tools.slice(),
    shared: { tools: new Map(built.map((e) => [e.name, e])) },
  };
  sets.set(tools[0], set);
  register(server, set.shared, "exportTools");
}

// Tools some of which ship a view: each view's `ui://<server>/<tool>` on
// its tool's listing, the views served through the resources registry.
// Their listings name the server, so they are built per server.
function exportViews(
  server: Server,
  tools: readonly ToolDef[],
  views: readonly ToolDef[],
): void {
  const name = exportedServerName(server);
  const built = tools.map((tool) => {
    const entry = entryOf(tool);
    if (tool.app === undefined) return entry;
    const uri = appResourceUri(name, tool.name);
    return {
      ...entry,
      listing: {
        ...entry.listing,
        _meta: { ...entry.listing._meta, ...appToolMeta(uri, tool.app) },
      },
    };
  });
  register(server, built, "exportTools");
  exportResources(
    server,
    views.map((tool) => appResource(appResourceUri(name, tool.name), tool)),
  );
}

/**
 * Registry entries of frozen tool definitions (every `tool()` and
 * `rawTool()` makes one), built once: a factory exporting the same tools
 * on a server per request does not rebuild their listings.
 */
const entries = new WeakMap<ToolDef, Exported>();

/** Frozen tools exported together, checked once, and their shared entries. */
interface ToolSet {
  readonly tools: readonly ToolDef[];
  readonly shared: SharedEntries;
}

/**
 * The last set of frozen tools exported in one call, by its first tool: a
 * factory exporting the same tools on a server per request checks them
 * once and has every server hold one map of their entries. A frozen tool
 * cannot change, so the checks it passed once it passes again.
 */
const sets = new WeakMap<ToolDef, ToolSet>();

function knownSet(tools: readonly ToolDef[]): SharedEntries | undefined {
  const first = tools[0];
  if (typeof first !== "object" || first === null) return undefined;
  const set = sets.get(first);
  if (set === undefined || set.tools.length !== tools.length) return undefined;
  for (let i = 1; i < tools.length; i++) {
    if (set.tools[i] !== tools[i]) return undefined;
  }
  return set.shared;
}

function entryOf(tool: ToolDef): Exported {
  if (!Object.isFrozen(tool)) return invoking(tool);
  let entry = entries.get(tool);
  if (entry === undefined) entries.set(tool, entry = invoking(tool));
  return entry;
}

/**
 * Signs the `requestState` of `server`'s `input_required` results with
 * `secret` (HMAC-SHA256; at least 32 bytes of text or bytes, else a
 * `TypeError` at once), so a retry that reaches another instance of the
 * server — behind a load balancer, on Deno Deploy — verifies there too.
 * Call it in the server factory, beside `exportTools`.
 *
 * Without it, each `httpHandler` signs with a random key of its own, made
 * when a tool first asks: its states verify on every server its factory
 * makes (tools built inside the factory or outside it) and nowhere else —
 * not in another handler of the process, not after a restart. A server
 * made outside a handler (stdio, an in-memory pair) signs with a random key
 * of each exported tool definition.
 *
 * Each state is accepted once: its id is claimed in `options.store`
 * (`claimOnce(key, ttlMs)`, true the first time a key is claimed within
 * `ttlMs`), kept until the state expires; a second retry with the same
 * state is refused (`-32602 invalid requestState: already used …`). The
 * default store is this process's memory (bounded; full, it refuses rather
 * than forget); instances sharing a key should share a store too (Deno KV,
 * Redis…), or a retry refused in one could be replayed in another.
 *
 * @example Share one key across instances
 * ```ts
 * import { exportTools, rawTool, Server, setRequestStateKey } from "@weft/mcp";
 *
 * const server = new Server({ name: "demo", version: "0" });
 * exportTools(server, rawTool({ name: "t", description: "T.", run: () => "ok" }));
 * setRequestStateKey(server, "a shared secret of at least 32 bytes!");
 * ```
 *
 * @example A shared single-use store (Deno KV, run with `--unstable-kv`)
 * ```ts ignore
 * import { Server, setRequestStateKey } from "@weft/mcp";
 * import { denoKvStore } from "@weft/mcp/store";
 *
 * const server = new Server({ name: "demo", version: "0" });
 * const store = denoKvStore(await Deno.openKv()); // a raw Deno.Kv is taken the same
 * setRequestStateKey(server, Deno.env.get("STATE_SECRET")!, { store });
 * ```
 */
export function setRequestStateKey(
  server: Server,
  secret: string | Uint8Array,
  options?: {
    /**
     * Where each accepted state's id is claimed (default: this process's
     * memory): a store of `@weft/mcp/store`, or a `Deno.Kv` (taken as
     * `denoKvStore(kv)`); anything else is a `TypeError` at the call.
     * A bare `{ claimOnce }` object still works but is deprecated: pass a
     * contract store.
     */
    readonly store?: Store | DenoKvLike | {
      claimOnce(key: string, ttlMs: number): Promise<boolean>;
    };
  },
): void {
  setStateKey(server, secret, options?.store);
}

function checkExportable(
  tool: ToolDef | null | undefined,
  seen: Set<string>,
): asserts tool is ToolDef {
  if (tool === null || tool === undefined) {
    throw new TypeError(
      `exportTools(server, ...tools): a tool is ${tool}; pass tools built with tool() or rawTool()`,
    );
  }
  if (seen.has(tool.name)) {
    throw new TypeError(
      `exportTools: duplicate tool name ${quote(tool.name)}`,
    );
  }
  seen.add(tool.name);
  if (tool.requiresApproval) {
    throw new TypeError(
      `exportTools: tool ${
        quote(tool.name)
      } requires approval and MCP has no approval channel; expose it through serveAgent, whose dispatch answers gated calls with the approval error`,
    );
  }
}

function invoking(tool: ToolDef): Exported {
  return exported(
    tool,
    (
      args: unknown,
      extra: CallExtra,
      progress?: ProgressFn,
      ask?: AskFn,
      _task?: unknown,
      channels?: CallChannels,
    ) =>
      ask === undefined
        ? resultOf(tool, args, {
          signal: extra.signal,
          progress,
          log: channels?.log,
          sample: channels?.sample,
          ...authOf(extra),
        })
        : passingInput(tool, args, {
          signal: extra.signal,
          progress,
          ask,
          log: channels?.log,
          sample: channels?.sample,
          ...authOf(extra),
        }),
  );
}

/**
 * The whole result of one call of `tool` on the client's arguments object
 * (missing: `{}`): the text `invoke` resolves to, with the content items or
 * structured value `onResult` reported for that same text. A wrapper that
 * rewrote the text (or a hand-written `ToolDef` that reports nothing)
 * leaves the text alone.
 */
async function resultOf(
  tool: ToolDef,
  args: unknown,
  options: InvokeOptions,
): Promise<ToolResult> {
  let whole: ToolResult | undefined;
  const text = await tool.invoke((args ?? {}) as ToolArguments, {
    ...options,
    onResult: (result) => {
      whole = result;
    },
  });
  return whole !== undefined && whole.text === text ? whole : { text };
}

/** The most rounds of input one exported call passes on from the tool to its caller. */
const MAX_PASSED_ROUNDS = 10;

/**
 * `resultOf`, passing on to the caller what the tool's own server asks (an
 * imported tool re-exported: weft as a proxy). A call that rejects with
 * `InputRequiredError` asking elicitations has them asked of the caller
 * through `ask`, then runs again with the answers (`ctx.call.answer`, as
 * `answer` resumes a parked call). Anything else it asks for (sampling, the
 * roots) is not passed on: the error stands.
 */
async function passingInput(
  tool: ToolDef,
  args: unknown,
  options: InvokeOptions & { ask: AskFn },
): Promise<ToolResult> {
  let call: CallInfo | undefined;
  for (let round = 0;; round++) {
    try {
      return await resultOf(tool, args, { ...options, call });
    } catch (err) {
      const input = inputRequiredOf(err);
      if (input === undefined || round >= MAX_PASSED_ROUNDS) throw err;
      const responses: Record<string, InputResponse> = {};
      for (const [key, request] of Object.entries(input.requests)) {
        if (request.method !== "elicitation/create") throw err;
        responses[key] = await options.ask({
          message: request.params.message,
          schema: request.params.requestedSchema,
        });
      }
      call = {
        runId: "",
        step: 0,
        callId: "",
        name: tool.name,
        approved: true,
        answer: { responses, state: input.state },
      };
    }
  }
}

/** The registry entry of `tool`, run by `run`. Shared with `serveAgent`. */
export function exported(
  tool: ToolDef,
  run: Exported["run"],
  options?: { taskSupport?: TaskSupport; resumable?: boolean },
): Exported {
  return {
    name: tool.name,
    listing: listingOf(tool),
    structured: tool.outputSchema !== undefined,
    scopes: tool.scopes,
    owner: tool,
    taskSupport: options?.taskSupport ?? tool.taskSupport,
    resumable: options?.resumable,
    run,
  };
}

function listingOf(tool: ToolDef): Tool {
  const input = tool.inputSchema?.raw ?? DEFAULT_INPUT_SCHEMA;
  const entry: Tool = {
    name: tool.name,
    description: tool.description,
    inputSchema: input as Tool["inputSchema"],
  };
  if (tool.outputSchema !== undefined) {
    entry.outputSchema = tool.outputSchema.raw as Tool["outputSchema"];
  }
  const annotations = tool.annotations;
  if (annotations !== undefined && annotations !== null) {
    entry.annotations = { ...annotations };
    if (typeof annotations.title === "string") entry.title = annotations.title;
  }
  return entry;
}
