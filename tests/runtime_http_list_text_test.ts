/**
 * The kept texts of tool documents in a `tools/list` answer: the answer
 * is byte for byte `JSON.stringify`'s, the first time and every time
 * after, and a document changed after its text was kept (a key added,
 * removed or replaced) is written anew; documents whose text could change
 * without that (a getter, `toJSON`, a nested object not frozen) are never
 * kept.
 */

import assert from "node:assert/strict";
import { listAnswerText } from "../src/runtime/http/_list_text.ts";

const schema = Object.freeze({
  type: "object",
  properties: Object.freeze({
    text: Object.freeze({ type: "string", description: 'say "hi" \u2028' }),
    n: Object.freeze({ type: "integer", maximum: 1e21, minimum: -0 }),
  }),
  required: Object.freeze(["text"]),
});

function answer(tools: unknown[], id: unknown = 7): Record<string, unknown> {
  return {
    result: {
      tools,
      resultType: "complete",
      _meta: {
        "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" },
      },
      ttlMs: 0,
      cacheScope: "private",
    },
    jsonrpc: "2.0",
    id,
  };
}

/** The text, asked three times (first sight, kept, used): all the same as JSON.stringify. */
function same(message: Record<string, unknown>): string | undefined {
  const expected = JSON.stringify(message);
  let got: string | undefined;
  for (let i = 0; i < 3; i++) {
    got = listAnswerText(message);
    if (got !== undefined) assert.equal(got, expected);
  }
  return got;
}

Deno.test("list text: the answer is JSON.stringify's, first and kept", () => {
  const docs = [
    { name: "echo", description: "Echo.", inputSchema: schema },
    { name: "t\u0000x", title: "T", inputSchema: schema, annotations: null },
  ];
  assert.notEqual(same(answer(docs)), undefined);
  assert.notEqual(same(answer(docs, 'a"b')), undefined);
  assert.notEqual(same(answer([])), undefined);
  assert.notEqual(
    same({ result: { tools: docs }, jsonrpc: "2.0", id: 1 }),
    undefined,
  );
});

Deno.test("list text: a document changed after its text was kept is written anew", () => {
  const doc: Record<string, unknown> = {
    name: "echo",
    description: "Echo.",
    inputSchema: schema,
  };
  same(answer([doc]));
  doc.description = "Changed.";
  assert.ok(same(answer([doc]))?.includes("Changed."));
  doc.title = "Added";
  assert.ok(same(answer([doc]))?.includes('"title":"Added"'));
  delete doc.title;
  assert.ok(!same(answer([doc]))?.includes("Added"));
  doc.inputSchema = Object.freeze({ type: "object" });
  assert.ok(same(answer([doc]))?.includes('"inputSchema":{"type":"object"}'));
  // Same keys, another order: JSON.stringify's order.
  const reordered: Record<string, unknown> = {
    description: "Changed.",
    name: "echo",
    inputSchema: schema,
  };
  same(answer([reordered]));
  same(answer([reordered]));
});

Deno.test("list text: a document whose text could change unseen is never kept, its answer still right", () => {
  let calls = 0;
  const mutable = { type: "object", properties: {} as Record<string, unknown> };
  const getter = {
    name: "g",
    get description() {
      return `call ${++calls}`;
    },
  };
  const withToJson = { name: "j", toJSON: () => ({ name: "other" }) };
  const nestedMutable = { name: "m", inputSchema: mutable };
  const nestedToJson = {
    name: "n",
    inputSchema: Object.freeze({ toJSON: () => "x" }),
  };
  class Doc {
    name = "c";
  }
  // A getter runs once an answer, as JSON.stringify runs it: never kept.
  const texts = [1, 2, 3].map(() =>
    listAnswerText(answer([getter])) ?? JSON.stringify(answer([getter]))
  );
  assert.deepEqual(
    texts.map((t) => JSON.parse(t).result.tools[0].description),
    ["call 1", "call 2", "call 3"],
  );
  for (const doc of [withToJson, nestedMutable, nestedToJson, new Doc()]) {
    for (let i = 0; i < 3; i++) {
      const message = answer([doc]);
      const got = listAnswerText(message);
      if (got !== undefined) assert.equal(got, JSON.stringify(answer([doc])));
    }
  }
  // A nested object changed after the first answers: the text follows it.
  nestedMutable.inputSchema.properties.x = { type: "string" };
  assert.equal(
    listAnswerText(answer([nestedMutable])) ??
      JSON.stringify(answer([nestedMutable])),
    JSON.stringify(answer([nestedMutable])),
  );
  assert.ok(
    JSON.stringify(answer([nestedMutable])).includes('"x":{"type":"string"}'),
  );
});

Deno.test("list text: not a listing, or odd shapes: left to the caller", () => {
  assert.equal(listAnswerText({ result: { content: [] }, id: 1 }), undefined);
  assert.equal(listAnswerText({ error: { code: 1 }, id: 1 }), undefined);
  assert.equal(listAnswerText({ result: { tools: "x" }, id: 1 }), undefined);
  assert.equal(listAnswerText({ result: { tools: [1] }, id: 1 }), undefined);
  // A hole in the array: JSON.stringify writes null.
  // deno-lint-ignore no-sparse-arrays
  const holey = [, { name: "a" }];
  const got = listAnswerText({ result: { tools: holey }, id: 1 });
  assert.equal(got, undefined);
});
