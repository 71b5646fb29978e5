/**
 * The per-call fast paths of ADR 0065, each pinned against the path it
 * shortcuts: `stringifyExact` tries plain `JSON.stringify` first; typed and
 * raw `invoke` skip promise hops but still always reject, never throw; the
 * export bridge hands a typed tool plain arguments as an object (and sends
 * its plain result object as `structuredContent`) and takes the text path
 * for anything else; an imported tool's call carries no signal when
 * `invoke` was given none.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { isPlainJson, stringifyExact } from "../src/core/json.ts";
import { rawTool, tool, type ToolDef } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { importTools } from "../src/bridge/import.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";
import { listedServer } from "./_helpers/mcp_servers.ts";

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown })
  .rawJSON;

/** The slow path stringifyExact had: the bigint replacer on every value. */
function withReplacer(value: unknown): string | undefined {
  return JSON.stringify(
    value,
    (_k, v) => typeof v === "bigint" ? rawJSON(v.toString()) : v,
  );
}

Deno.test("stringifyExact writes what the replacer path writes", () => {
  const values: unknown[] = [
    { a: 1, b: [true, null, "x"], c: { d: 1.5 } },
    { n: 2n ** 64n, inner: [1n, { m: -3n }] },
    { when: new Date(0), skip: undefined, f: () => 1 },
    [undefined, () => 1, Symbol("s")],
    "text",
    undefined,
    { r: rawJSON("12345678901234567890") },
  ];
  for (const value of values) {
    assert.equal(stringifyExact(value), withReplacer(value));
  }
});

Deno.test("stringifyExact runs toJSON once, and twice only when a bigint forces the second pass", () => {
  let calls = 0;
  const counted = { toJSON: () => (calls++, "t") };
  assert.equal(stringifyExact({ counted }), '{"counted":"t"}');
  assert.equal(calls, 1);
  calls = 0;
  assert.equal(
    stringifyExact({ counted, big: 5n }),
    '{"counted":"t","big":5}',
  );
  assert.equal(calls, 2);
});

Deno.test("stringifyExact rethrows a toJSON failure that is not a TypeError after one call; a cycle is still a TypeError", () => {
  let calls = 0;
  class Boom extends Error {}
  const failing = {
    toJSON: () => {
      calls++;
      throw new Boom("no");
    },
  };
  assert.throws(() => stringifyExact({ failing }), Boom);
  assert.equal(calls, 1);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => stringifyExact(cyclic), TypeError);
});

Deno.test("isPlainJson: what JSON.parse gives, and nothing a JSON round trip would change", () => {
  assert.ok(isPlainJson(JSON.parse('{"a":[1,"x",null,{"__proto__":2}]}')));
  assert.ok(isPlainJson(Object.assign(Object.create(null), { a: 1 })));
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (
    const value of [
      { d: new Date(0) },
      { n: 1n },
      { u: undefined },
      [1, , 3],
      { z: -0 },
      { big: 2 ** 60 },
      { nan: NaN },
      { r: rawJSON("1") },
      { t: { toJSON: () => 1 } },
      cyclic,
    ]
  ) assert.equal(isPlainJson(value), false, String(Object.keys(value)));
});

Deno.test("a typed invoke always rejects, never throws: bad JSON, a throwing handler, an async validator", async () => {
  const sync = tool({
    name: "sync",
    description: "",
    input: z.object({ n: z.number() }),
    run: () => {
      throw new RangeError("handler");
    },
  });
  const bad = sync.invoke("{");
  assert.ok(bad instanceof Promise);
  await assert.rejects(bad, /INVALID_INPUT: tool "sync": invalid JSON/);
  await assert.rejects(sync.invoke('{"n":1}'), RangeError);
  const later = tool({
    name: "later",
    description: "",
    input: z.object({ n: z.number() }).refine(async () => {
      await Promise.resolve();
      return true;
    }),
    run: ({ n }) => ({ then: (done: (v: unknown) => void) => done({ n }) }),
  });
  assert.equal(await later.invoke('{"n":2}'), '{"n":2}');
  await assert.rejects(
    later.invoke('{"n":"x"}'),
    /INVALID_INPUT: tool "later": field "n": expected number, got string/,
  );
});

Deno.test("a raw invoke always rejects, never throws, and still checks for a string", async () => {
  const raw = rawTool({
    name: "raw",
    description: "",
    run: (args) => {
      if (args === "throw") throw new RangeError("sync");
      return args === "num" ? 5 as unknown as string : args;
    },
  });
  const thrown = raw.invoke("throw");
  assert.ok(thrown instanceof Promise);
  await assert.rejects(thrown, RangeError);
  await assert.rejects(
    raw.invoke("num"),
    (err) =>
      err instanceof TypeError &&
      err.message ===
        'weft: rawTool "raw" handler returned number, not a string',
  );
  assert.equal(await raw.invoke(" {} "), " {} ");
});

const strictInput = z.object({ q: z.string(), n: z.number().optional() });

function strictTool(): ToolDef {
  return tool({
    name: "s",
    description: "",
    input: strictInput,
    strictInput: true,
    run: (input) => ({ echo: input }),
  });
}

Deno.test("invoke on an object equals invoke on its JSON text, failures included, and a spread copy agrees", async () => {
  const def = strictTool();
  const copy: ToolDef = { ...def };
  const cases: Record<string, unknown>[] = [
    { q: "a", n: 1 },
    { n: 1, q: "b" },
    {},
    { q: 1 },
    { q: "a", extra: true },
  ];
  const settle = (p: Promise<string>): Promise<string> =>
    p.then((text) => text, (err: Error) => `rejected: ${err.message}`);
  for (const args of cases) {
    const viaText = await settle(def.invoke(JSON.stringify(args)));
    assert.equal(await settle(def.invoke(args)), viaText, JSON.stringify(args));
    assert.equal(await settle(copy.invoke(args)), viaText);
    let reported: string | undefined;
    const told = await settle(
      def.invoke(args, { onResult: (whole) => reported = whole.text }),
    );
    assert.equal(told, viaText);
    if (!told.startsWith("rejected: ")) assert.equal(reported, told);
  }
});

const when = z.object({ when: z.string(), n: z.number() });

Deno.test("export: arguments that are not plain JSON data take the text path, as before", async () => {
  const seen: unknown[] = [];
  await using pair = await connected((server) =>
    exportTools(
      server,
      tool({
        name: "at",
        description: "",
        input: when,
        run: (input) => (seen.push(input), "ok"),
      }),
    )
  );
  // The in-memory transport hands the server the client's own objects: a
  // Date reaches the handler as its JSON text (a string), a RawJson as the
  // number its digits read as.
  const result = await callRaw(pair.client, "at", {
    when: new Date(0),
    n: rawJSON("7"),
  });
  assert.equal(onlyText(result), "ok");
  assert.deepEqual(seen, [{ when: "1970-01-01T00:00:00.000Z", n: 7 }]);
});

Deno.test("export: strict-input refusals read the same on the object path", async () => {
  await using pair = await connected((server) =>
    exportTools(server, strictTool())
  );
  const result = await callRaw(pair.client, "s", { q: "a", extra: 1 });
  assert.equal(result.isError, true);
  assert.equal(
    onlyText(result),
    'INVALID_INPUT: tool "s": unknown field "extra": not in the schema',
  );
});

Deno.test("export: a plain result object is structuredContent as is; anything else is read back from the text", async () => {
  const out = z.object({ at: z.string(), n: z.number() });
  const plain = { at: "x", n: 1 };
  await using pair = await connected((server) =>
    exportTools(
      server,
      tool({
        name: "plain",
        description: "",
        input: z.object({}),
        output: out,
        run: () => plain,
      }),
      tool({
        name: "dated",
        description: "",
        input: z.object({}),
        output: out,
        // Off the output type on purpose: what a JavaScript handler can return.
        run: () =>
          ({ at: new Date(0), n: 2n }) as unknown as z.infer<typeof out>,
      }),
    )
  );
  const first = await callRaw(pair.client, "plain", {});
  assert.equal(onlyText(first), '{"at":"x","n":1}');
  assert.deepEqual(first.structuredContent, plain);
  const second = await callRaw(pair.client, "dated", {});
  assert.equal(onlyText(second), '{"at":"1970-01-01T00:00:00.000Z","n":2}');
  assert.deepEqual(second.structuredContent, {
    at: "1970-01-01T00:00:00.000Z",
    n: 2,
  });
});

/** Records the options of every `tools/call` the client sends. */
function spyCalls(client: Client): { signal?: AbortSignal }[] {
  const seen: { signal?: AbortSignal }[] = [];
  const request = client.request.bind(client);
  client.request = ((req: { method: string }, schema: never, options) => {
    if (req.method === "tools/call") seen.push({ ...options });
    return request(req as never, schema, options);
  }) as typeof client.request;
  return seen;
}

Deno.test("import: a call invoked without a signal carries none; one given a signal runs under a child of it", async () => {
  await using s = await listedServer({
    tools: [{ name: "t", inputSchema: { type: "object" } }],
  });
  const { tools } = await importTools(s.client);
  const seen = spyCalls(s.client);
  assert.equal(await tools[0].invoke("{}"), "called");
  const run = new AbortController();
  assert.equal(await tools[0].invoke("{}", { signal: run.signal }), "called");
  assert.equal(seen.length, 2);
  assert.equal(seen[0].signal, undefined);
  assert.ok(seen[1].signal instanceof AbortSignal);
  assert.notEqual(seen[1].signal, run.signal);
  // Unlinked once the call settled: a later abort of the run reaches nothing.
  run.abort(new Error("late"));
  assert.equal(seen[1].signal!.aborted, false);
});

Deno.test("import over a byte transport adopts the wire's schema object; over the in-memory one the server's objects are never frozen", async () => {
  const inputSchema = {
    type: "object",
    properties: { q: { type: "string" } },
  };
  await using s = await listedServer({ tools: [{ name: "t", inputSchema }] });
  const { tools } = await importTools(s.client);
  // Documented (ADR 0065): over the in-memory transport the imported
  // schema is the server's own object, adopted, and left unfrozen.
  assert.equal(tools[0].inputSchema.raw, inputSchema);
  assert.equal(Object.isFrozen(inputSchema), false);
  assert.equal(Object.isFrozen(inputSchema.properties.q), false);
  assert.equal(
    JSON.stringify(tools[0].inputSchema),
    JSON.stringify(inputSchema),
  );
  await using w = await listedServer({
    tools: [{ name: "t", inputSchema }],
    wire: true,
  });
  const overWire = (await importTools(w.client)).tools[0].inputSchema;
  assert.notEqual(overWire.raw, inputSchema);
  assert.equal(JSON.stringify(overWire), JSON.stringify(inputSchema));
  assert.equal(overWire.properties?.q.type, "string");
});
