/**
 * The options and result of `importTools`: what an import takes (a
 * prefix, a policy, an approval rule, pins, apps) and what it gives back.
 *
 * @module
 */

import type { ToolAnnotations, ToolDef, ToolOptions } from "../core/tool.ts";
import type { ImportError } from "./import_error.ts";
import type { ResultRendering } from "./render.ts";
import type { InputHandler } from "./input.ts";
import type { PinReport, ToolPins } from "./pins.ts";

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
