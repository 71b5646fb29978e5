/**
 * The schema corpus: tool listings in the shapes real servers publish and
 * real clients have choked on (tests/fixtures/schema_corpus/cases.json),
 * plus generated ones (50-level nesting, 1 MB descriptions, 1,000
 * properties). Each case states its outcome; one test checks them all.
 */

import assert from "node:assert/strict";
import { importTools, type ToolDef } from "../mod.ts";
import { parseLossless } from "../src/core/json.ts";
import { assertJsonEqual, keyOrder } from "./_helpers/json_equal.ts";
import { listedServer } from "./_helpers/mcp_servers.ts";

interface Case {
  id: string;
  from: string;
  tool: Record<string, unknown>;
  expect: "imported" | { skipped: string };
  sequential?: boolean;
  outputSchema?: "recorded" | "dropped";
  description?: string;
  bigDigits?: string[];
}

const corpusUrl = new URL(
  "./fixtures/schema_corpus/cases.json",
  import.meta.url,
);

async function storedCases(): Promise<Case[]> {
  const doc = parseLossless(await Deno.readTextFile(corpusUrl)) as {
    cases: Case[];
  };
  return doc.cases;
}

function nested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {
    type: "string",
    description: "the bottom",
  };
  for (let i = 0; i < depth; i++) {
    node = {
      type: "object",
      properties: { [`level${depth - i}`]: node },
      required: [`level${depth - i}`],
    };
  }
  return node;
}

function generatedCases(): Case[] {
  const megabyte = "Ünïcødé and ascii; 🔍 ".repeat(Math.ceil((1 << 20) / 22))
    .slice(0, 1 << 20);
  const manyProperties: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) {
    manyProperties[`p${i}`] = { type: i % 2 ? "string" : "integer" };
  }
  return [
    {
      id: "deep_nesting_50",
      from: "generated: 50 levels of nested objects",
      tool: { name: "deep", inputSchema: nested(50) },
      expect: "imported",
    },
    {
      id: "description_1mb",
      from: "generated: a 1 MB tool description",
      tool: {
        name: "verbose",
        description: megabyte,
        inputSchema: { type: "object" },
      },
      expect: "imported",
    },
    {
      id: "schema_description_1mb",
      from: "generated: a 1 MB description inside the schema",
      tool: {
        name: "verbose_schema",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string", description: megabyte } },
        },
      },
      expect: "imported",
    },
    {
      id: "properties_1000",
      from: "generated: 1,000 properties (an OpenAPI-derived server)",
      tool: {
        name: "wide",
        inputSchema: { type: "object", properties: manyProperties },
      },
      expect: "imported",
    },
    {
      id: "deep_nesting_root_refused",
      from: "generated: 50 levels under a root that is not an object schema",
      tool: { name: "deep_bad", inputSchema: { ...nested(50), type: "array" } },
      expect: {
        skipped:
          'weft: parseSchema: top-level type must be "object", got "array"',
      },
    },
  ];
}

function wireCopy(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function check(
  c: Case,
  tools: Map<string, ToolDef>,
  skipped: Map<string, string>,
  inMemory: boolean,
): void {
  const name = c.tool.name as string;
  const label = `${c.id} (${c.from})`;
  if (c.expect === "imported") {
    const t = tools.get(name);
    assert.ok(t, `${label}: not imported (${skipped.get(name)})`);
    const doc = inMemory ? c.tool.inputSchema : wireCopy(c.tool.inputSchema);
    assertJsonEqual(
      JSON.parse(JSON.stringify(t.inputSchema)),
      wireCopy(doc),
      label,
    );
    if (inMemory) {
      assertJsonEqual(t.inputSchema.raw, doc, label);
      assert.deepEqual(
        keyOrder(t.inputSchema.raw),
        keyOrder(doc),
        `${label}: key order`,
      );
      for (const digits of c.bigDigits ?? []) {
        assert.ok(
          JSON.stringify(t.inputSchema).includes(digits),
          `${label}: ${digits}`,
        );
      }
    }
    const annotations = c.tool.annotations as
      | Record<string, unknown>
      | undefined;
    assert.equal(
      t.sequential,
      c.sequential ?? annotations?.readOnlyHint !== true,
      `${label}: sequential`,
    );
    const description = c.description ??
      (typeof c.tool.description === "string" ? c.tool.description : "");
    assert.ok(t.description === description, `${label}: description`);
    if (c.outputSchema === "recorded") {
      assertJsonEqual(
        JSON.parse(JSON.stringify(t.outputSchema)),
        wireCopy(c.tool.outputSchema),
        `${label}: output`,
      );
    } else {
      assert.equal(t.outputSchema, undefined, `${label}: output schema`);
    }
  } else {
    assert.equal(
      tools.has(name),
      false,
      `${label}: imported, expected skipped`,
    );
    assert.equal(skipped.get(name), c.expect.skipped, label);
  }
}

Deno.test("corpus: every stored and generated listing imports whole or is skipped with its exact cause", async (t) => {
  const stored = await storedCases();
  assert.ok(stored.length >= 30, `only ${stored.length} stored cases`);
  const cases = [...stored, ...generatedCases()];
  const names = cases.map((c) => c.tool.name);
  assert.equal(new Set(names).size, names.length, "case names are unique");
  for (const inMemory of [true, false]) {
    await t.step(
      inMemory ? "over the in-memory transport" : "over the SDK's JSON text",
      async () => {
        await using s = await listedServer({
          tools: cases.map((c) => c.tool),
          pageSize: 7,
          wire: !inMemory,
        });
        const result = await importTools(s.client);
        const tools = new Map(result.tools.map((x) => [x.name, x]));
        const skipped = new Map(
          (result.skipped?.skipped ?? []).map((x) => [x.name, x.error.message]),
        );
        assert.equal(tools.size + skipped.size, cases.length);
        assert.deepEqual(
          result.tools.map((x) => x.name),
          cases.filter((c) => c.expect === "imported").map((c) => c.tool.name),
        );
        for (const c of cases) check(c, tools, skipped, inMemory);
      },
    );
  }
});

Deno.test("corpus: an imported corpus tool stays callable under its server name", async () => {
  const stored = await storedCases();
  const unicode = stored.find((c) => c.id === "emoji_name")!;
  await using s = await listedServer({ tools: [unicode.tool] });
  const { tools } = await importTools(s.client, { prefix: "ü_" });
  assert.equal(tools[0].name, "ü_🔍search");
  assert.equal(await tools[0].invoke('{"q🙂":"x"}'), "called");
  assert.deepEqual(s.calls.map((c) => [c.name, c.arguments]), [["🔍search", {
    "q🙂": "x",
  }]]);
});
