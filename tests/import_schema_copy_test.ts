/**
 * The fast paths the import bridge added to the core for its listing cost
 * (ADR 0024): `parseSchema` copies plain JSON in one walk and returns an
 * already-parsed root as is; `parseLossless` skips the reviver when no
 * number can need its digits. Each must give exactly what the slow path
 * gives.
 */

import assert from "node:assert/strict";
import { isRawJson, parseLossless, stringifyExact } from "../src/core/json.ts";
import { parseSchema } from "../src/core/schema.ts";
import { keyOrder } from "./_helpers/json_equal.ts";

type RawApi = {
  rawJSON(text: string): unknown;
  parse(text: string, reviver: (k: string, v: unknown) => unknown): unknown;
};
const raw = JSON as unknown as RawApi;

/** The slow path's copy: through JSON text and the lossless reader (with its reviver). */
function roundTrip(doc: unknown): unknown {
  return parseLossless(stringifyExact(doc) as string);
}

/** Same value, same types (a RawJson only where the other has one), same key order. */
function assertSame(actual: unknown, expected: unknown, path = "$"): void {
  if (isRawJson(actual) || isRawJson(expected)) {
    assert.ok(
      isRawJson(actual) && isRawJson(expected),
      `${path}: raw vs plain`,
    );
    assert.equal(actual.rawJSON, expected.rawJSON, path);
    return;
  }
  if (typeof expected !== "object" || expected === null) {
    assert.ok(
      Object.is(actual, expected),
      `${path}: ${String(actual)} vs ${String(expected)}`,
    );
    return;
  }
  assert.equal(Array.isArray(actual), Array.isArray(expected), path);
  assert.deepEqual(keyOrder(actual), keyOrder(expected), `${path}: keys`);
  for (const key of Object.keys(expected)) {
    assertSame(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
  }
}

function assertFrozenDeep(value: unknown, path = "$"): void {
  if (typeof value !== "object" || value === null) return;
  assert.ok(Object.isFrozen(value), `${path} frozen`);
  for (const [key, child] of Object.entries(value)) {
    assertFrozenDeep(child, `${path}.${key}`);
  }
}

Deno.test("schema copy fast path: plain and odd documents copy exactly as the JSON round trip does", () => {
  const documents: Record<string, unknown>[] = [
    {
      type: "object",
      properties: {
        q: { type: "string" },
        n: { type: "integer", minimum: 0, maximum: 1.5 },
      },
    },
    {
      type: "object",
      "10": 1,
      "2": { a: [1, "x", null, true, { b: [] }] },
      z: "é🙂\ud800",
    },
    {
      type: "object",
      big: raw.rawJSON("9007199254740993"),
      small: raw.rawJSON("5"),
      huge: raw.rawJSON("1e400"),
    },
    {
      type: "object",
      unsafe: 2 ** 60,
      neg0: -0,
      nan: NaN,
      inf: Infinity,
      exp: 1e21,
    },
    { type: "object", skip: undefined, fn: () => 1, arr: [undefined, () => 1] },
    {
      type: "object",
      when: new Date(0),
      big: 2n ** 64n,
      own: { toJSON: () => "tj" },
    },
    Object.assign(Object.create(null), { type: "object", nullProto: true }),
    JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
    ),
    { type: "object", sparse: [1, , 3] },
  ];
  for (const doc of documents) {
    const parsed = parseSchema(doc);
    assertSame(parsed.raw, roundTrip(doc));
    assertFrozenDeep(parsed.raw);
    assert.equal(JSON.stringify(parsed), stringifyExact(roundTrip(doc)));
  }
});

Deno.test("schema copy fast path: later changes to the caller's object do not leak in", () => {
  const doc = {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
  };
  const parsed = parseSchema(doc);
  doc.properties.q.type = "number";
  doc.required.push("x");
  assert.equal(
    JSON.stringify(parsed),
    '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}',
  );
});

Deno.test("schema copy fast path: a cycle is still refused with the round trip's error", () => {
  const doc: Record<string, unknown> = { type: "object" };
  doc.self = doc;
  assert.throws(
    () => parseSchema(doc),
    (err) =>
      err instanceof Error && err.message.startsWith("weft: parseSchema: "),
  );
});

Deno.test("schema identity: a parsed root passes through parseSchema as itself; a nested view does not", () => {
  const root = parseSchema({
    type: "object",
    properties: { inner: { type: "object" }, s: { type: "string" } },
  });
  assert.equal(parseSchema(root), root);
  const inner = root.properties!.inner;
  const again = parseSchema(inner);
  assert.notEqual(again, inner);
  assert.equal(JSON.stringify(again), '{"type":"object"}');
  assert.throws(
    () => parseSchema(root.properties!.s),
    /top-level type must be "object", got "string"/,
  );
});

/** The lossless rule, read straight off the reviver's source text: the oracle. */
function oracle(text: string): unknown {
  const parse = JSON.parse as unknown as (
    text: string,
    reviver: (
      key: string,
      value: unknown,
      context: { source?: string },
    ) => unknown,
  ) => unknown;
  return parse(text, (_key, value, context) => {
    if (typeof value !== "number" || context?.source === undefined) {
      return value;
    }
    const integer = /^-?(0|[1-9][0-9]*)$/.test(context.source);
    return (integer && !Number.isSafeInteger(value)) || !Number.isFinite(value)
      ? raw.rawJSON(context.source)
      : value;
  });
}

Deno.test("parseLossless fast path: the same values as the reviver would give, on either side of the check", () => {
  const texts = [
    '{"a":1,"b":[2.5,-3,"x"],"c":{"d":null,"e":true},"f":-0}',
    '{"id":9007199254740991,"next":9007199254740993,"neg":-9007199254740993}',
    '{"e":1e400,"f":1E2,"g":"1e5 in a string","h":-0.000001,"i":-1e-400}',
    '{"digits":"1234567890123456","n":123456789012345678901234567890}',
    '{"float":1234567890.1234567,"small":0.1}',
    "[1,2,3]",
    '"plain"',
    "12345678901234567",
    "900719925474099",
  ];
  for (const text of texts) assertSame(parseLossless(text), oracle(text));
  assert.ok(
    isRawJson((parseLossless('{"n":9007199254740993}') as { n: unknown }).n),
  );
  assert.equal(
    typeof (parseLossless('{"n":900719925474099}') as { n: unknown }).n,
    "number",
  );
});
