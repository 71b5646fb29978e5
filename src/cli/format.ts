/**
 * What `weft-mcp inspect` prints: pure functions from imported tools to text.
 *
 * @module
 */

import type { ToolDef } from "../core/tool.ts";
import type { ImportError } from "../bridge/import_error.ts";

/** What one `inspect` found: the server's identity and `importTools`' result. */
export interface Inspection {
  /** The server's `serverInfo` from the handshake, when it sent one. */
  readonly server?: { readonly name: string; readonly version: string };
  /** The protocol the connection speaks: its era and revision, when known. */
  readonly protocol?: {
    readonly era: "modern" | "legacy";
    readonly version: string;
  };
  /** The imported tools, in listing order, imported without a prefix or policy. */
  readonly tools: readonly ToolDef[];
  /** The tools that could not be imported. */
  readonly skipped?: ImportError;
}

/** One keyword the core does not interpret, and where it occurs (JSON Pointers). */
export interface ExtraKeyword {
  /** The keyword, e.g. `enum`, `$ref`, `minimum`. */
  readonly keyword: string;
  /** Each schema node that holds it, as a JSON Pointer (`""` is the root), in document order. */
  readonly at: readonly string[];
}

/** The keywords the core's schema view reads; every other one reaches the model unread. */
export const CORE_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "format",
  "description",
]);

// Keywords whose value is one subschema, a map of subschemas, or a list of them.
const ONE_SCHEMA = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
  "contentSchema",
]);
const SCHEMA_MAP = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
const SCHEMA_LIST = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
  "items",
]);

/**
 * Every keyword of a schema document outside {@link CORE_KEYWORDS}, at any
 * depth: the walk follows the subschema keywords of JSON Schema (properties,
 * items, `$defs`, `oneOf`, `not`, …) and never looks inside values that are
 * data (`enum`, `const`, `default`, `examples`). Keywords come in first-seen
 * order, each with the nodes that hold it.
 *
 * @example Using `extraKeywords`
 * ```ts
 * import { extraKeywords } from "./format.ts";
 * import assert from "node:assert/strict";
 * const found = extraKeywords({ type: "object", properties: { n: { type: "integer", minimum: 1 } } });
 * assert.ok(found[0].keyword === "minimum" && found[0].at[0] === "/properties/n");
 * ```
 */
export function extraKeywords(
  doc: Readonly<Record<string, unknown>>,
): ExtraKeyword[] {
  const found = new Map<string, string[]>();
  walk(doc, "", found);
  return [...found].map(([keyword, at]) => ({ keyword, at }));
}

function walk(
  node: Readonly<Record<string, unknown>>,
  path: string,
  found: Map<string, string[]>,
): void {
  for (const [key, value] of Object.entries(node)) {
    if (!CORE_KEYWORDS.has(key)) {
      const at = found.get(key);
      if (at === undefined) found.set(key, [path]);
      else at.push(path);
    }
    const here = `${path}/${pointerToken(key)}`;
    if (ONE_SCHEMA.has(key) && isRecord(value)) walk(value, here, found);
    if (SCHEMA_LIST.has(key) && Array.isArray(value)) {
      value.forEach((item, i) => {
        if (isRecord(item)) walk(item, `${here}/${i}`, found);
      });
    }
    if (SCHEMA_MAP.has(key) && isRecord(value)) {
      for (const [name, item] of Object.entries(value)) {
        if (isRecord(item)) walk(item, `${here}/${pointerToken(name)}`, found);
      }
    }
  }
}

/**
 * The text `weft-mcp inspect` prints: a header line, then per tool its name,
 * how the loop runs it (`parallel` for a tool the server marked
 * `readOnlyHint: true`, else `sequential`, with the reason), its
 * description, its input schema as the model receives it, the keywords the
 * core does not interpret (see {@link extraKeywords}) and its output schema;
 * then each skipped tool with the reason. Ends with a newline.
 *
 * @example Using `formatInspection`
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import { formatInspection } from "@weft/mcp/cli";
 * import assert from "node:assert/strict";
 * const search = rawTool({
 *   name: "search",
 *   description: "Search.",
 *   inputSchema: { type: "object" },
 *   run: () => "",
 * });
 * const text = formatInspection({ server: { name: "s", version: "1" }, tools: [search] });
 * assert.ok(text.startsWith("server s 1: 1 tool imported, 0 skipped\n"));
 * ```
 */
export function formatInspection(inspection: Inspection): string {
  const { server, tools, skipped, protocol } = inspection;
  const entries = skipped?.skipped ?? [];
  const named = server === undefined
    ? "server (no serverInfo)"
    : `server ${server.name} ${server.version}`;
  // The era, so a reader knows which handshake the server answered.
  const who = protocol === undefined
    ? named
    : `${named}, protocol ${protocol.version} (${protocol.era})`;
  const lines = [
    `${who}: ${
      count(tools.length, "tool")
    } imported, ${entries.length} skipped`,
  ];
  for (const tool of tools) lines.push("", ...formatTool(tool));
  if (entries.length > 0) {
    lines.push("", `skipped ${count(entries.length, "tool")}:`);
    for (const entry of entries) {
      const label = entry.name !== ""
        ? JSON.stringify(entry.name)
        : `entry ${entry.index}`;
      lines.push(`  ${label}: ${entry.error.message}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** The lines of one tool in {@link formatInspection}. */
export function formatTool(tool: ToolDef): string[] {
  const extras = extraKeywords(tool.inputSchema.raw);
  return [
    tool.name,
    `  runs: ${
      tool.sequential
        ? "sequential: the server did not mark it readOnlyHint"
        : "parallel: the server marked it readOnlyHint"
    }`,
    `  description: ${
      tool.description === "" ? "(empty)" : indented(tool.description)
    }`,
    `  input schema: ${JSON.stringify(tool.inputSchema)}`,
    `  kept beyond the core's view: ${
      extras.length === 0
        ? "none"
        : extras.map((e) =>
          `${e.keyword} at ${e.at.map(shownPointer).join(", ")}`
        ).join("; ")
    }`,
    `  output schema: ${
      tool.outputSchema === undefined
        ? "none"
        : JSON.stringify(tool.outputSchema)
    }`,
  ];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// Continuation lines of a multi-line description line up under its first.
function indented(text: string): string {
  return text.replace(/\r?\n/g, "\n               ");
}

function shownPointer(pointer: string): string {
  return pointer === "" ? "/" : pointer;
}

function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
