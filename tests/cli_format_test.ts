// What `weft-mcp inspect` prints and how it waits: the schema walk, the inspection text, the progress lines.

import assert from "node:assert/strict";
import { formatInspection } from "../cli.ts";
import { extraKeywords } from "../src/cli/format.ts";
import { withProgress } from "../src/cli/connect.ts";
import { ImportError, rawTool, SchemaError } from "../mod.ts";
import { NonObjectEntryError } from "../bridge.ts";
import { EmptyNameError } from "../bridge.ts";
import { quietFor } from "./_helpers/wait.ts";

Deno.test("extraKeywords walks every subschema, never data, with JSON Pointers", () => {
  const found = extraKeywords({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      "a/b": { type: "integer", minimum: 1, maximum: 9 },
      state: {
        enum: [{ minimum: "data, not a keyword" }],
        default: { pattern: "data" },
      },
      list: { type: "array", items: { type: "string", pattern: "^x" } },
      tuple: {
        type: "array",
        prefixItems: [{ const: 1 }],
        items: [{ minLength: 2 }],
      },
      ref: { $ref: "#/$defs/Thing" },
    },
    $defs: {
      Thing: {
        oneOf: [{ type: "string", minLength: 1 }, { not: { type: "null" } }],
      },
    },
    additionalProperties: { type: "string", maxLength: 3 },
  });
  assert.deepEqual(found, [
    { keyword: "$schema", at: [""] },
    { keyword: "minimum", at: ["/properties/a~1b"] },
    { keyword: "maximum", at: ["/properties/a~1b"] },
    { keyword: "enum", at: ["/properties/state"] },
    { keyword: "default", at: ["/properties/state"] },
    { keyword: "pattern", at: ["/properties/list/items"] },
    { keyword: "prefixItems", at: ["/properties/tuple"] },
    { keyword: "const", at: ["/properties/tuple/prefixItems/0"] },
    {
      keyword: "minLength",
      at: ["/properties/tuple/items/0", "/$defs/Thing/oneOf/0"],
    },
    { keyword: "$ref", at: ["/properties/ref"] },
    { keyword: "$defs", at: [""] },
    { keyword: "oneOf", at: ["/$defs/Thing"] },
    { keyword: "not", at: ["/$defs/Thing/oneOf/1"] },
    { keyword: "maxLength", at: ["/additionalProperties"] },
  ]);
  assert.deepEqual(
    extraKeywords({
      type: "object",
      properties: { q: { type: "string", description: "d" } },
    }),
    [],
  );
});

Deno.test("formatInspection: every tool's model view, then every skipped tool", () => {
  const search = rawTool({
    name: "gh_search",
    description: "Search issues.\nReturns at most 30.",
    inputSchema: {
      type: "object",
      properties: {
        q: { type: "string" },
        state: { enum: ["open", "closed"] },
      },
      required: ["q"],
    },
    outputSchema: {
      type: "object",
      properties: { total: { type: "integer" } },
    },
    run: () => "",
  });
  const wipe = rawTool({
    name: "wipe",
    description: "",
    inputSchema: { type: "object" },
    sequential: true,
    run: () => "",
  });
  const skipped = new ImportError([
    {
      name: "bad",
      index: 2,
      error: new SchemaError('top-level type must be "object", got "array"'),
    },
    { name: "", index: 3, error: new EmptyNameError() },
    { name: "", index: 4, error: new NonObjectEntryError() },
  ]);
  const text = formatInspection({
    server: { name: "github", version: "1.2.0" },
    tools: [search, wipe],
    skipped,
  });
  assert.equal(
    text,
    `server github 1.2.0: 2 tools imported, 3 skipped

gh_search
  runs: parallel: the server marked it readOnlyHint
  description: Search issues.
               Returns at most 30.
  input schema: {"type":"object","properties":{"q":{"type":"string"},"state":{"enum":["open","closed"]}},"required":["q"]}
  kept beyond the core's view: enum at /properties/state
  output schema: {"type":"object","properties":{"total":{"type":"integer"}}}

wipe
  runs: sequential: the server did not mark it readOnlyHint
  description: (empty)
  input schema: {"type":"object"}
  kept beyond the core's view: none
  output schema: none

skipped 3 tools:
  "bad": weft: parseSchema: top-level type must be "object", got "array"
  entry 3: empty name
  entry 4: not an object
`,
  );
  assert.equal(
    formatInspection({ tools: [] }),
    "server (no serverInfo): 0 tools imported, 0 skipped\n",
  );
});

Deno.test("withProgress writes a line per second while pending, none after", async () => {
  const lines: string[] = [];
  const slow = new Promise<string>((resolve) =>
    setTimeout(() => resolve("up"), 2300)
  );
  assert.equal(
    await withProgress(slow, {
      label: "srv",
      write: (line) => lines.push(line),
    }),
    "up",
  );
  assert.deepEqual(lines, [
    "weft-mcp: connecting to srv (1s)\n",
    "weft-mcp: connecting to srv (2s)\n",
  ]);
  const quick: string[] = [];
  await withProgress(Promise.resolve(1), {
    label: "srv",
    write: (line) => quick.push(line),
  });
  await quietFor(1100, "no progress line once the promise settled (1 s ticks)");
  assert.deepEqual(quick, []);
});
