/**
 * importTools: the per-entry pipeline and its report (go-mcp §1.3, §1.4;
 * I-9 … I-18, P-1).
 */

import assert from "node:assert/strict";
import {
  DuplicateNameError,
  EmptyNameError,
  NonObjectEntryError,
  type SkippedTool,
} from "../bridge.ts";
import { ImportError, importTools, SchemaError } from "../mod.ts";
import { entry, listedServer } from "./_helpers/mcp_servers.ts";

const typeArrayRoot = { type: ["object", "null"] };
const topLevelEmpty =
  'weft: parseSchema: top-level type must be "object", got ""';

Deno.test("a null entry is skipped as not an object, with no name", async () => {
  await using s = await listedServer({ tools: [entry("a"), null, entry("b")] });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["a", "b"]);
  assert.equal(
    skipped?.message,
    "mcp: 1 tool(s) not imported: entry 1: not an object",
  );
  assert.equal(skipped?.skipped[0].name, "");
  assert.equal(skipped?.skipped[0].index, 1);
  assert.ok(skipped?.skipped[0].error instanceof NonObjectEntryError);
});

Deno.test("any entry that is not an object (number, string, boolean, array) counts as not an object", async () => {
  await using s = await listedServer({
    tools: [5, "search", true, [entry("x")], entry("ok")],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["ok"]);
  assert.equal(
    skipped?.message,
    "mcp: 4 tool(s) not imported: entry 0: not an object; entry 1: not an object; " +
      "entry 2: not an object; entry 3: not an object",
  );
});

Deno.test("an empty name is skipped as empty name, reported by index", async () => {
  await using s = await listedServer({ tools: [entry(""), entry("search")] });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["search"]);
  assert.equal(
    skipped?.message,
    "mcp: 1 tool(s) not imported: entry 0: empty name",
  );
  assert.deepEqual(skipped?.skipped.map((x) => [x.name, x.index]), [["", 0]]);
  assert.ok(skipped?.skipped[0].error instanceof EmptyNameError);
});

Deno.test("the empty-name check reads the server's name, before the prefix", async () => {
  await using s = await listedServer({ tools: [entry(""), entry("search")] });
  const { tools, skipped } = await importTools(s.client, { prefix: "gh_" });
  assert.deepEqual(tools.map((t) => t.name), ["gh_search"]);
  assert.equal(
    skipped?.message,
    "mcp: 1 tool(s) not imported: entry 0: empty name",
  );
});

Deno.test("a non-string or missing name counts as empty; a whitespace name is imported", async () => {
  await using s = await listedServer({
    tools: [
      { inputSchema: { type: "object" } },
      entry(42),
      entry(null),
      entry({ n: "x" }),
      entry(" "),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), [" "]);
  assert.equal(
    skipped?.message,
    "mcp: 4 tool(s) not imported: entry 0: empty name; entry 1: empty name; entry 2: empty name; entry 3: empty name",
  );
});

Deno.test("a repeated name is skipped as a duplicate; the first occurrence stands", async () => {
  await using s = await listedServer({
    tools: [
      entry("search", { description: "first" }),
      entry("search", { description: "second" }),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => [t.name, t.description]), [[
    "search",
    "first",
  ]]);
  assert.equal(
    skipped?.message,
    'mcp: 1 tool(s) not imported: "search": duplicate name "search" in the listing',
  );
  const cause = skipped?.skipped[0].error;
  assert.ok(cause instanceof DuplicateNameError);
  assert.equal(cause.tool, "search");
  assert.deepEqual([skipped?.skipped[0].name, skipped?.skipped[0].index], [
    "search",
    1,
  ]);
});

Deno.test("the duplicate check uses the composed name and reports the server's name", async () => {
  await using s = await listedServer({
    tools: [entry("search"), entry("search")],
  });
  const { tools, skipped } = await importTools(s.client, { prefix: "gh_" });
  assert.deepEqual(tools.map((t) => t.name), ["gh_search"]);
  assert.equal(
    skipped?.message,
    'mcp: 1 tool(s) not imported: "search": duplicate name "search" in the listing',
  );
});

Deno.test("a skipped first entry claims nothing: a later valid entry with that name imports", async () => {
  await using s = await listedServer({
    tools: [
      entry("search", { inputSchema: typeArrayRoot }),
      entry("search", { description: "good" }),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => [t.name, t.description]), [[
    "search",
    "good",
  ]]);
  assert.equal(
    skipped?.message,
    `mcp: 1 tool(s) not imported: "search": ${topLevelEmpty}`,
  );
  assert.ok(skipped?.skipped[0].error instanceof SchemaError);
  assert.equal(skipped?.skipped[0].index, 0);
});

Deno.test("an input schema parseSchema refuses skips the tool with the parseSchema error", async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["nullable_root", { inputSchema: typeArrayRoot }, topLevelEmpty],
    ["omitted", { inputSchema: undefined }, "weft: parseSchema: empty schema"],
    ["null", { inputSchema: null }, "weft: parseSchema: empty schema"],
    [
      "array",
      { inputSchema: ["object"] },
      "weft: parseSchema: the document is not a JSON object",
    ],
    [
      "string",
      { inputSchema: '{"type":"object"}' },
      "weft: parseSchema: the document is not a JSON object",
    ],
    [
      "number",
      { inputSchema: 7 },
      "weft: parseSchema: the document is not a JSON object",
    ],
    ["ref_root", {
      inputSchema: { $ref: "#/$defs/a", $defs: { a: { type: "object" } } },
    }, topLevelEmpty],
    [
      "string_root",
      { inputSchema: { type: "string" } },
      'weft: parseSchema: top-level type must be "object", got "string"',
    ],
    ["no_type", { inputSchema: { properties: {} } }, topLevelEmpty],
  ];
  await using s = await listedServer({
    tools: cases.map(([name, extra]) => entry(name, extra)),
  });
  const { tools, skipped } = await importTools(s.client);
  assert.equal(tools.length, 0);
  assert.deepEqual(
    skipped?.skipped.map((x) => [x.name, x.error.message]),
    cases.map(([name, , text]) => [name, text]),
  );
  for (const x of skipped?.skipped ?? []) {
    assert.ok(x.error instanceof SchemaError);
  }
  assert.equal(
    skipped?.message.split("; ")[0],
    `mcp: ${cases.length} tool(s) not imported: "nullable_root": ${topLevelEmpty}`,
  );
});

Deno.test("every other entry is imported", async () => {
  await using s = await listedServer({
    tools: [
      entry("plain"),
      entry("typed", {
        inputSchema: { type: "object", properties: { q: { type: "string" } } },
      }),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["plain", "typed"]);
  assert.equal(skipped, undefined);
});

Deno.test("a skipped tool between two good ones: both import, in order, and stay callable", async () => {
  await using s = await listedServer({
    tools: [
      entry("first"),
      entry("nullable_root", { inputSchema: typeArrayRoot }),
      entry("last"),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["first", "last"]);
  assert.ok(skipped instanceof ImportError);
  assert.equal(
    skipped.message,
    `mcp: 1 tool(s) not imported: "nullable_root": ${topLevelEmpty}`,
  );
  assert.equal(await tools[1].invoke("{}"), "called");
  assert.equal(s.calls[0].name, "last");
});

Deno.test("everything skipped gives an empty list beside the report; a clean server gives no report", async () => {
  {
    await using s = await listedServer({ tools: [null, entry("")] });
    const { tools, skipped } = await importTools(s.client);
    assert.deepEqual(tools, []);
    assert.equal(skipped?.skipped.length, 2);
  }
  {
    await using s = await listedServer({ tools: [entry("a")] });
    const result = await importTools(s.client);
    assert.equal("skipped" in result, false);
  }
});

Deno.test("SkippedTool carries the server-side name, the listing index and the cause", async () => {
  await using s = await listedServer({
    tools: [entry("ok"), entry("bad", { inputSchema: { type: "string" } })],
  });
  const { skipped } = await importTools(s.client, { prefix: "p_" });
  const only: SkippedTool | undefined = skipped?.skipped[0];
  assert.equal(only?.name, "bad");
  assert.equal(only?.index, 1);
  assert.ok(only?.error instanceof SchemaError);
  assert.deepEqual(Object.keys(only ?? {}).sort(), ["error", "index", "name"]);
});

Deno.test("the report's text, byte for byte, with no trailing semicolon", async () => {
  {
    await using s = await listedServer({
      tools: [entry("nullable_root", { inputSchema: typeArrayRoot })],
    });
    const { skipped } = await importTools(s.client);
    assert.equal(
      skipped?.message,
      'mcp: 1 tool(s) not imported: "nullable_root": weft: parseSchema: top-level type must be "object", got ""',
    );
  }
  {
    await using s = await listedServer({
      tools: [entry(""), entry("search"), entry("search")],
    });
    const { skipped } = await importTools(s.client);
    assert.equal(
      skipped?.message,
      'mcp: 2 tool(s) not imported: entry 0: empty name; "search": duplicate name "search" in the listing',
    );
    assert.ok(!skipped?.message.endsWith(";"));
  }
  {
    await using s = await listedServer({
      tools: [entry('say "hi"\n'), entry('say "hi"\n')],
    });
    const { skipped } = await importTools(s.client);
    assert.equal(
      skipped?.message,
      'mcp: 1 tool(s) not imported: "say \\"hi\\"\\n": duplicate name "say \\"hi\\"\\n" in the listing',
    );
  }
});

Deno.test("ImportError is an AggregateError whose errors are the causes, reachable by instanceof", async () => {
  await using s = await listedServer({
    tools: [
      null,
      entry(""),
      entry("a"),
      entry("a"),
      entry("b", { inputSchema: 1 }),
    ],
  });
  const { skipped } = await importTools(s.client);
  assert.ok(skipped instanceof AggregateError);
  assert.ok(skipped instanceof ImportError);
  assert.equal(skipped.name, "ImportError");
  assert.deepEqual(skipped.errors, skipped.skipped.map((x) => x.error));
  assert.ok(skipped.errors.every((e, i) => e === skipped.skipped[i].error));
  const kinds = [
    NonObjectEntryError,
    EmptyNameError,
    DuplicateNameError,
    SchemaError,
  ];
  kinds.forEach((kind, i) => assert.ok(skipped.errors[i] instanceof kind));
  assert.equal(skipped.errors.some((e) => e instanceof SchemaError), true);
});

Deno.test("the caller idiom: log the report and go on; a listing failure is the rejection", async () => {
  const logged: string[] = [];
  async function load(client: Parameters<typeof importTools>[0]) {
    try {
      const { tools, skipped } = await importTools(client);
      if (skipped) logged.push(skipped.message);
      return tools;
    } catch (err) {
      logged.push(`listing failed: ${(err as Error).message}`);
      return undefined;
    }
  }
  {
    await using s = await listedServer({ tools: [entry("good"), entry("")] });
    const tools = await load(s.client);
    assert.deepEqual(tools?.map((t) => t.name), ["good"]);
  }
  {
    await using s = await listedServer({
      tools: [],
      list: () => ({ tools: "nope" }),
    });
    assert.equal(await load(s.client), undefined);
  }
  assert.deepEqual(logged, [
    "mcp: 1 tool(s) not imported: entry 1: empty name",
    'listing failed: mcp: tools/list page 0: the result has no "tools" array',
  ]);
});

Deno.test("a non-boolean readOnlyHint imports the tool, sequential (Go fails the whole listing)", async () => {
  const hints = ["true", 1, {}, null, [true]];
  await using s = await listedServer({
    tools: [
      ...hints.map((h, i) =>
        entry(`t${i}`, { annotations: { readOnlyHint: h } })
      ),
      entry("ro", {
        annotations: { readOnlyHint: true },
      }),
      entry("odd", { annotations: "readOnly" }),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.equal(skipped, undefined);
  assert.deepEqual(tools.map((t) => [t.name, t.sequential]), [
    ["t0", true],
    ["t1", true],
    ["t2", true],
    ["t3", true],
    ["t4", true],
    ["ro", false],
    ["odd", true],
  ]);
});
