/**
 * `importTools`: a connected MCP session's tools as ordinary weft tools.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
import { SchemaError } from "../core/errors.ts";
import type { Schema } from "../core/schema.ts";
import { adoptSchema, annotationsOf, build } from "../core/bridge.ts";
import type {
  InvokeOptions,
  ToolAnnotations,
  ToolArguments,
  ToolDef,
  ToolOptions,
} from "../core/tool.ts";
import {
  DuplicateNameError,
  EmptyNameError,
  ImportError,
  NonObjectEntryError,
  type SkippedTool,
} from "./import_error.ts";
import { listToolEntries } from "./_list_tools.ts";
import { remoteInvoke, type RemoteOptions } from "./_remote_call.ts";
import { listedTaskSupport } from "./_remote_task.ts";
import type { ResultRendering } from "./render.ts";
import type { InputHandler } from "./input.ts";
import { appToolInfo, tagAppTool, toolUi } from "./app_meta.ts";
import { serverNameOf } from "./_elicit.ts";
import {
  checkPins,
  definitionOf,
  type ListedDefinition,
  PinGuard,
  type PinReport,
  toolDigest,
  type ToolPins,
} from "./pins.ts";
import {
  type InvokeBody,
  READ_RESOURCE,
  readResourceEntry,
} from "./_read_resource.ts";

/**
 * Options for one `importTools` call.
 *
 * @example Prefix the names and gate every call
 * ```ts
 * import {
 *   Client,
 *   exportTools,
 *   importTools,
 *   type ImportOptions,
 *   InMemoryTransport,
 *   rawTool,
 *   Server,
 * } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "remote", version: "1.0.0" });
 * exportTools(server, rawTool({
 *   name: "search",
 *   description: "Searches.",
 *   run: (args) => args,
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * const options: ImportOptions = { prefix: "gh_", policy: { requireApproval: true } };
 * const { tools } = await importTools(client, options);
 * assert.equal(tools[0].name, "gh_search");
 * assert.equal(tools[0].requiresApproval, true);
 * await client.close();
 * ```
 */
export interface ImportOptions {
  /** Prepended to every imported name: `"gh_"` turns `search` into `gh_search`; calls keep `search`. */
  prefix?: string;
  /**
   * Tool options applied to every imported tool after the defaults
   * (`origin: "mcp"`, then `sequential` unless `readOnlyHint` is `true`):
   * `sequential` and `requireApproval` can be added, never removed; a given
   * `origin` replaces `"mcp"`; `timeout`, `maxResultBytes` and `wrap` apply
   * as on any tool; `strictInput` has no effect (the server validates).
   * `requireApproval` may pick tools ({@link ApprovalRule}).
   */
  policy?: ImportPolicy;
  /** The listing's deadline. When it ends, `importTools` rejects with its reason, unchanged. */
  signal?: AbortSignal;
  /**
   * What the model reads of a result that carries `structuredContent`:
   * `"structured"` (the default) its compact JSON; `"text"` the content
   * items (the JSON only when there are none); `"both"` the items, then the
   * JSON unless a text item already holds it. A result without structured
   * content reads as its content items in every mode (see `renderContent`).
   */
  render?: ResultRendering;
  /**
   * Answers at once what a server asks for during a call (a UI, a test):
   * an `input_required` result (2026-07-28; the call is retried with the
   * answers and the server's `requestState`) or an `elicitation/create`
   * (2025; the answer goes back to the server). Without it, such a call
   * parks in the agent loop with the request on `RunResult.pending` (never
   * shown to the model) until `answer` resumes it; outside the loop it
   * rejects with `InputRequiredError`. Accepted form answers get the form's
   * defaults for the fields they leave out. A 2025 server sends its request
   * only to a client that declared `capabilities: { elicitation: {} }`.
   */
  onInput?: InputHandler;
  /**
   * Pin the server's tool definitions in a store and hold back the ones
   * that changed since (see {@link ToolPins}): a changed or new tool keeps
   * its pinned definition before the model and its calls wait for
   * approval, with the reason and a diff on `PendingCall.approval`.
   * `ImportResult.pins` reports how the listing compared.
   */
  pins?: ToolPins;
  /**
   * Offer the server's resources to the model as one more tool,
   * `read_resource` (prefixed like the others): its description lists
   * every resource the server lists now (each page, up to `limit`, default
   * 1000), and a call reads one of those by its URI (`resources/read`);
   * any other URI is refused. It is imported like a listed tool — the
   * approval policy and the pins apply to it (a changed resource list is a
   * changed definition). Off by default. A server that has a tool named
   * `read_resource` itself is refused with a `TypeError`.
   */
  readResource?: boolean | { limit?: number };
  /**
   * MCP Apps (off unless asked): read each tool's view
   * (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`)
   * and visibility (`_meta.ui.visibility`). A tool with a view records it on
   * each successful call (`ToolResult.view`: the run's `app` event and
   * `ToolResultPart.view`, with the call's input and the whole MCP result);
   * a tool whose visibility lacks `"model"` is left out of `tools` (no model
   * ever sees it) and put on `ImportResult.appTools`, for views to call.
   * `server` names the server in the views (default: the name it reports).
   * The client should declare the extension (`withAppsCapability`, or the
   * `apps` option of `connectHttp`/`connectStdio`/`connectServers`).
   */
  apps?: boolean | { readonly server?: string };
}

/**
 * Which imported tools wait for approval:
 *
 * - `true`: every tool; `false` (or absent): none.
 * - A list of names: the tools it names — by the server's name (`"create_issue"`)
 *   or the prefixed one (`"gh_create_issue"`); either matches, exactly.
 * - A function: called once per tool at import with the server's name (before
 *   the prefix) and the tool as the server lists it — its `name`,
 *   `description`, `title` when given, and `annotations` (`{}` when none):
 *   `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, as
 *   the server sent them. `true` gates the tool. What it throws rejects the
 *   import. The hints are the server's own claims, and an absent one means
 *   MCP's default: a tool is not read-only and may destroy unless it says
 *   otherwise (`readOnlyHint: true`, or `destructiveHint: false`).
 *
 * @example Gate one tool of a server
 * ```ts
 * import type { ApprovalRule } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const writes: ApprovalRule = (name) => /^(create|delete|update)_/.test(name);
 * const one: ApprovalRule = ["delete_file"];
 * assert.equal(typeof writes === "function" && writes("delete_repo", {
 *   name: "delete_repo",
 *   description: "",
 *   annotations: {},
 * }), true);
 * assert.deepEqual(one, ["delete_file"]);
 * ```
 *
 * @example Gate the tools that may destroy, by their annotations
 * ```ts
 * import type { ApprovalRule } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * // Absent hints count as MCP's defaults: not read-only, destructive.
 * const destructive: ApprovalRule = (_name, { annotations }) =>
 *   annotations.readOnlyHint !== true && annotations.destructiveHint !== false;
 * const ask = destructive as Exclude<ApprovalRule, boolean | readonly string[]>;
 * const tool = (annotations: object) => ({ name: "t", description: "", annotations });
 * assert.equal(ask("delete_file", tool({ destructiveHint: true })), true);
 * assert.equal(ask("read_file", tool({ readOnlyHint: true })), false);
 * assert.equal(ask("append_log", tool({ destructiveHint: false })), false);
 * assert.equal(ask("unknown", tool({})), true);
 * ```
 */
export type ApprovalRule =
  | boolean
  | readonly string[]
  | ((
    name: string,
    tool: {
      /** The server's name for the tool (before the prefix). */
      readonly name: string;
      /** The server's display name (its `title`, else `annotations.title`); absent when none. */
      readonly title?: string;
      /** The server's description, `""` when none. */
      readonly description: string;
      /** The server's annotations as it sent them (well-typed hints only); `{}` when none. */
      readonly annotations: ToolAnnotations;
    },
  ) => boolean);

/** A tool as a server lists it, as an {@link ApprovalRule} function sees it. */
type ListedTool = Parameters<
  Extract<ApprovalRule, (...args: never[]) => unknown>
>[1];

/**
 * The tool options `importTools` applies to each imported tool: a tool's
 * `ToolOptions`, with a `requireApproval` that can pick tools.
 *
 * @example Ask before deleting, and nothing else
 * ```ts
 * import {
 *   Client,
 *   exportTools,
 *   importTools,
 *   type ImportPolicy,
 *   InMemoryTransport,
 *   rawTool,
 *   Server,
 * } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "files", version: "1.0.0" });
 * exportTools(
 *   server,
 *   rawTool({ name: "read_file", description: "Reads.", run: () => "text" }),
 *   rawTool({ name: "delete_file", description: "Deletes.", run: () => "gone" }),
 * );
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * const policy: ImportPolicy = { requireApproval: ["delete_file"], timeout: 10_000 };
 * const { tools } = await importTools(client, { prefix: "fs_", policy });
 * assert.deepEqual(
 *   tools.map((t) => [t.name, t.requiresApproval]),
 *   [["fs_read_file", false], ["fs_delete_file", true]],
 * );
 * await client.close();
 * ```
 */
export interface ImportPolicy
  extends Omit<ToolOptions, "requireApproval" | "taskSupport"> {
  /** Which tools wait for approval (see {@link ApprovalRule}). Default none. */
  requireApproval?: ApprovalRule;
  /**
   * Which tools are called as MCP tasks, on a server that declares
   * task-augmented tool calls: `"required"` (default) — the tools it lists
   * with `execution.taskSupport: "required"`, which accept nothing else;
   * `"optional"` — those listed `"optional"` too. A task call is polled
   * at the server's `pollInterval` (its status messages arrive as
   * progress), its questions park the run like any other input request
   * (the parked state names the task: a run resumed in another process
   * polls the same task instead of calling the tool again), cancelling
   * the call cancels the task, and the model sees one ordinary result.
   */
  taskCalls?: "required" | "optional";
}

/**
 * What `importTools` resolves to.
 *
 * @example Every tool imported, nothing skipped
 * ```ts
 * import {
 *   Client,
 *   exportTools,
 *   importTools,
 *   type ImportResult,
 *   InMemoryTransport,
 *   rawTool,
 *   Server,
 * } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "remote", version: "1.0.0" });
 * exportTools(server, rawTool({
 *   name: "search",
 *   description: "Searches.",
 *   run: (args) => args,
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * const result: ImportResult = await importTools(client);
 * assert.deepEqual(result.tools.map((t) => t.name), ["search"]);
 * assert.equal(result.skipped, undefined);
 * await client.close();
 * ```
 */
export interface ImportResult {
  /** The imported tools, in listing order; empty, never absent, for a server with none. */
  tools: ToolDef[];
  /** The tools that could not be imported; absent when every entry imported. */
  skipped?: ImportError;
  /** How the listing compared with the pins; present only with the `pins` option. */
  pins?: PinReport;
  /**
   * With `apps`: the tools only views may call (visibility without
   * `"model"`), never in `tools`; absent otherwise or when none.
   */
  appTools?: ToolDef[];
}

/**
 * Lists the tools of a connected MCP session (every page) and returns each
 * as a weft tool.
 *
 * Each imported tool is a `rawTool`: named prefix + the server's name, with
 * the server's description verbatim (`""` when missing or not a string) and
 * the server's input schema document whole — every keyword, in the
 * server's key order. An object output schema is recorded; any other output
 * schema is dropped silently (the result text is the output either way).
 * A schema of plain JSON data (all a byte transport delivers) is the
 * object the SDK handed over, kept as is — not copied, not frozen — so
 * treat `inputSchema.raw` as read-only; over the in-memory transport it is
 * the server's own object (`parseSchema(tool.inputSchema)` gives a frozen
 * copy). **Descriptions and schemas are untrusted content**: they reach the
 * model as the server wrote them, a prompt-injection surface; vet the
 * servers you import from.
 *
 * A call sends `tools/call` under the server's name with the model's
 * argument text parsed losslessly (key order and every digit kept; empty or
 * `null` means `{}`; a non-object is sent as is and the server decides),
 * under the call's signal, so aborting sends `notifications/cancelled`. The
 * result is rendered to text (see `renderContent`, and the `render`
 * option); `invoke`'s `onResult` also gets the remote content items and
 * structured content as sent, so exporting the tool again passes an image
 * on whole. A remote `isError`
 * result is a `RemoteToolError` carrying the rendering verbatim; a failed
 * request is an `McpTransportError` reading `mcp: <error>`. Both are tool
 * errors — data the model sees, never run errors.
 *
 * A tool the server does not mark `readOnlyHint: true` (exactly the boolean)
 * is `sequential`: annotations are untrusted hints, and the conservative
 * reading is the safe one. The annotations (the five MCP fields, each only
 * with its type; the title is the top-level `title` when there is one,
 * MCP's display name) are kept on
 * `ToolDef.annotations`, so exporting the tool again sends them on;
 * `icons` and `_meta` are ignored.
 *
 * An entry that cannot be imported — not an object, an empty or non-string
 * name (checked before the prefix), a composed name an earlier entry of this
 * listing already imported (an entry that was itself skipped claims
 * nothing), an input schema `parseSchema` refuses (omitted, not an object, a
 * `$ref` root, a type array, a type other than `"object"`) — fails that
 * entry, never the listing: it is named in `skipped`. A listing failure
 * (transport, protocol error, a page without a `tools` array, a cursor that
 * repeats, the signal ending) rejects and imports nothing.
 *
 * `importTools` never owns or closes the session; call it as often as you
 * like — each call builds fresh tools. The SDK's own transports parse JSON
 * with `JSON.parse`, so an integer beyond 2^53 in a schema arrives rounded
 * through float64 over them. The SDK's 60 s request timeout applies to each
 * listing page; it is lifted for calls, which the tool's `timeout` policy
 * and the run's signal bound instead.
 *
 * @example Using `importTools`
 * ```ts
 * import { Client, importTools, InMemoryTransport, Server } from "@weft/mcp";
 * import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "remote", version: "0" }, { capabilities: { tools: {} } });
 * server.setRequestHandler(ListToolsRequestSchema, () => ({
 *   tools: [{
 *     name: "search",
 *     description: "Search the archive.",
 *     inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
 *     annotations: { readOnlyHint: true },
 *   }],
 * }));
 * server.setRequestHandler(CallToolRequestSchema, () => ({
 *   content: [{ type: "text", text: "3 hits" }],
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "0" });
 * await client.connect(clientSide);
 *
 * const { tools, skipped } = await importTools(client, { prefix: "arch_" });
 * if (skipped) console.warn(skipped.message); // the good tools imported; these did not
 * const out = await tools[0].invoke('{"q":"denim"}');
 * assert.equal(`${tools[0].name} -> ${out}`, "arch_search -> 3 hits");
 * await client.close();
 * ```
 */
export async function importTools(
  client: Client,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const prefix = typeof options.prefix === "string" ? options.prefix : "";
  const policy = options.policy ?? {};
  const gated = approvalTest(policy.requireApproval, prefix);
  // A wrong pin store fails here, before the server is listed.
  if (options.pins !== undefined) checkPins(options.pins);
  const entries = await listToolEntries(client, options.signal);
  const render: RemoteOptions = {
    render: options.render,
    onInput: options.onInput,
    taskCalls: policy.taskCalls,
  };
  let local: ReadonlyMap<string, InvokeBody> | undefined;
  if (options.readResource !== undefined && options.readResource !== false) {
    if (entries.some((e) => isRecord(e) && e.name === READ_RESOURCE)) {
      throw new TypeError(
        `importTools: readResource: the server has a tool named "${READ_RESOURCE}" itself; import without readResource, or read its resources with readResource() from @weft/mcp/bridge`,
      );
    }
    const made = await readResourceEntry(client, {
      limit: options.readResource === true
        ? undefined
        : options.readResource.limit,
      signal: options.signal,
    });
    entries.push(made.entry);
    local = new Map([[READ_RESOURCE, made.invoke]]);
  }
  const apps = appsServer(client, options.apps);
  const tools: ToolDef[] = [];
  const skipped: SkippedTool[] = [];
  const imported = new Set<string>();
  for (let index = 0; index < entries.length; index++) {
    const outcome = importEntry(
      client,
      entries[index],
      { prefix, policy, gated, render, local, apps },
      imported,
    );
    if (outcome instanceof Error) {
      skipped.push({
        name: skippedName(entries[index]),
        index,
        error: outcome,
      });
    } else {
      imported.add(outcome.name);
      tools.push(outcome);
    }
  }
  const result: ImportResult = skipped.length === 0
    ? { tools }
    : { tools, skipped: new ImportError(skipped) };
  if (options.pins === undefined) return splitAppTools(result, apps);
  return splitAppTools(
    await pinned(client, entries, result, options.pins, {
      prefix,
      policy,
      gated,
      render,
      local,
      apps,
    }),
    apps,
  );
}

// The server name views are labelled with, when apps are on.
function appsServer(
  client: Client,
  apps: ImportOptions["apps"],
): string | undefined {
  if (apps === undefined || apps === false) return undefined;
  const named = typeof apps === "object" ? apps.server : undefined;
  return named ?? serverNameOf(client);
}

// The app-only tools moved from `tools` to `appTools`.
function splitAppTools(
  result: ImportResult,
  apps: string | undefined,
): ImportResult {
  if (apps === undefined) return result;
  const tools: ToolDef[] = [];
  const appTools: ToolDef[] = [];
  for (const tool of result.tools) {
    const info = appToolInfo(tool);
    if (info !== undefined && !info.visibility.includes("model")) {
      appTools.push(tool);
    } else tools.push(tool);
  }
  return appTools.length === 0
    ? { ...result, tools }
    : { ...result, tools, appTools };
}

// The imported tools again, each under its pin: a tool pinned as listed
// as it is; a changed one with its pinned definition; every one's calls
// through the guard.
async function pinned(
  client: Client,
  entries: readonly unknown[],
  result: ImportResult,
  pins: ToolPins,
  rules: EntryRules,
): Promise<ImportResult> {
  const names = new Set(result.tools.map((t) => t.name));
  const kept: Record<string, unknown>[] = [];
  for (const entry of entries) {
    if (
      isRecord(entry) && typeof entry.name === "string" &&
      names.delete(rules.prefix + entry.name)
    ) kept.push(entry);
  }
  const listed: ListedDefinition[] = await Promise.all(
    kept.map(async (entry) => ({
      name: entry.name as string,
      definition: definitionOf(entry),
      digest: await toolDigest(entry),
    })),
  );
  const { guard, report } = await PinGuard.open(pins, listed);
  const tools: ToolDef[] = [];
  for (let i = 0; i < kept.length; i++) {
    const verdict = guard.verdict(listed[i]);
    const shown = verdict.kind === "changed"
      ? { ...verdict.pinned, name: listed[i].name }
      : kept[i];
    const wrap = (
      invoke: (args: ToolArguments, options: InvokeOptions) => Promise<string>,
    ) => guard.gate(listed[i], rules.prefix + listed[i].name, invoke);
    let tool = importEntry(client, shown, { ...rules, wrap }, new Set());
    if (tool instanceof Error) {
      tool = importEntry(client, kept[i], { ...rules, wrap }, new Set());
    }
    if (!(tool instanceof Error)) tools.push(tool);
  }
  return { ...result, tools, pins: report };
}

/** What every entry of one listing is imported with. */
interface EntryRules {
  readonly prefix: string;
  readonly policy: ImportPolicy;
  /** Whether the tool the server lists so waits for approval. */
  readonly gated: (serverName: string, tool: ListedTool) => boolean;
  readonly render: RemoteOptions;
  /** Invoke bodies of tools the import made itself (`read_resource`), by server-side name. */
  readonly local?: ReadonlyMap<string, InvokeBody>;
  /** With `apps`: the server name views are labelled with. */
  readonly apps?: string;
  /** Wraps each tool's invoke body (the pin guard). */
  readonly wrap?: (
    invoke: (args: ToolArguments, options: InvokeOptions) => Promise<string>,
  ) => (args: ToolArguments, options: InvokeOptions) => Promise<string>;
}

// The per-entry pipeline: the first failing check decides the cause.
function importEntry(
  client: Client,
  entry: unknown,
  { prefix, policy, gated, render, wrap, local, apps }: EntryRules,
  imported: ReadonlySet<string>,
): ToolDef | Error {
  if (!isRecord(entry)) return new NonObjectEntryError();
  const serverName = entry.name;
  if (typeof serverName !== "string" || serverName === "") {
    return new EmptyNameError();
  }
  const name = prefix + serverName;
  if (imported.has(name)) return new DuplicateNameError(serverName);
  // The schema as it came off the wire, adopted rather than copied:
  // the entry is the transport's, fresh from its JSON reader (over
  // the in-memory transport, the server's own object, never frozen or
  // written). A string is a JSON string value (a double-encoded schema), not
  // a document to parse: it is refused as "not a JSON object", like every
  // other non-object.
  let inputSchema: Schema;
  try {
    inputSchema = adoptSchema(entry.inputSchema);
  } catch (err) {
    if (err instanceof SchemaError) return err;
    throw err;
  }
  const annotations = withTitle(
    annotationsOf(entry.annotations),
    entry.title,
  );
  const readOnly = annotations?.readOnlyHint === true;
  const description = typeof entry.description === "string"
    ? entry.description
    : "";
  const ui = apps === undefined ? undefined : toolUi(entry);
  const invoke = local?.get(serverName) ??
    remoteInvoke(client, serverName, name, {
      ...render,
      taskSupport: listedTaskSupport(entry),
      ...(ui?.resourceUri === undefined
        ? {}
        : { view: { server: apps!, resourceUri: ui.resourceUri } }),
    });
  // What rawTool builds, minus what a remote call does not use: the
  // handler's context (only the signal and progress matter, and only when
  // given) and the check that the handler resolved a string (renderContent
  // always does), with the promise hop it costs every call.
  const tool = build(
    {
      description,
      origin: policy.origin !== undefined ? policy.origin : "mcp",
      sequential: !readOnly || policy.sequential === true,
      requireApproval: gated(serverName, {
        name: serverName,
        ...(annotations?.title !== undefined
          ? { title: annotations.title }
          : {}),
        description,
        annotations: annotations ?? EMPTY_ANNOTATIONS,
      }),
      strictInput: policy.strictInput,
      timeout: policy.timeout,
      maxResultBytes: policy.maxResultBytes,
      wrap: policy.wrap,
      annotations,
    },
    {
      name,
      inputSchema,
      outputSchema: objectOutputSchema(entry.outputSchema),
    },
    wrap === undefined ? invoke : wrap(invoke),
  );
  if (ui !== undefined) {
    tagAppTool(tool, { server: apps!, tool: serverName, ...ui });
  }
  return tool;
}

// The approval rule as one test of the server's name, checked before any
// listing: a value of another type would otherwise gate nothing, silently.
function approvalTest(
  rule: unknown,
  prefix: string,
): (serverName: string, tool: ListedTool) => boolean {
  if (rule === undefined || rule === false) return () => false;
  if (rule === true) return () => true;
  if (typeof rule === "function") {
    // Always both arguments: what a rule reads is its own choice, never
    // guessed from how many parameters it declares.
    return (name, tool) =>
      (rule as (name: string, tool: ListedTool) => unknown)(name, tool) ===
        true;
  }
  if (Array.isArray(rule) && rule.every((n) => typeof n === "string")) {
    const names = new Set<string>(rule);
    return (name) => names.has(name) || names.has(prefix + name);
  }
  throw new TypeError(
    `importTools: policy.requireApproval must be true, false, an array of tool names or a function, got ${
      Array.isArray(rule) ? "an array with a non-string" : typeof rule
    }`,
  );
}

/** The annotations a rule sees for a tool the server sent none for. */
const EMPTY_ANNOTATIONS: ToolAnnotations = Object.freeze({});

// The server's annotations, with the tool's top-level `title` as the title:
// MCP's display name, which takes precedence over `annotations.title`.
function withTitle(
  annotations: ToolAnnotations | undefined,
  title: unknown,
): ToolAnnotations | undefined {
  if (typeof title !== "string" || annotations?.title === title) {
    return annotations;
  }
  return Object.freeze({ ...annotations, title });
}

function objectOutputSchema(value: unknown): Schema | undefined {
  if (!isRecord(value)) return undefined;
  try {
    return adoptSchema(value);
  } catch (err) {
    if (err instanceof SchemaError) return undefined;
    throw err;
  }
}

// SkippedTool.name: the server-side name, "" when there is none to give.
function skippedName(entry: unknown): string {
  return isRecord(entry) && typeof entry.name === "string" ? entry.name : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
