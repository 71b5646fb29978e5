/**
 * `importTools`: a connected MCP session's tools as ordinary weft tools.
 * Its options and result are in `import_options.ts`, the import of one
 * listed entry in `_import_entry.ts`.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
import type { InvokeOptions, ToolArguments, ToolDef } from "../core/tool.ts";
import { ImportError, type SkippedTool } from "./import_error.ts";
import { listToolEntries } from "./_list_tools.ts";
import type { RemoteOptions } from "./_remote_call.ts";
import { appToolInfo } from "./app_meta.ts";
import { serverNameOf } from "./_elicit.ts";
import {
  checkPins,
  definitionOf,
  type ListedDefinition,
  PinGuard,
  toolDigest,
  type ToolPins,
} from "./pins.ts";
import {
  type InvokeBody,
  READ_RESOURCE,
  readResourceEntry,
} from "./_read_resource.ts";
import type { ImportOptions, ImportResult } from "./import_options.ts";
import {
  approvalTest,
  type EntryRules,
  importEntry,
  isRecord,
  skippedName,
} from "./_import_entry.ts";

export type {
  ApprovalRule,
  ImportOptions,
  ImportPolicy,
  ImportResult,
} from "./import_options.ts";

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
