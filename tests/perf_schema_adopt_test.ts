/**
 * The import bridge's schema path (ADR 0065): `adoptSchema` keeps a plain
 * JSON document as is (no copy, no freeze) and copies anything else exactly
 * as `parseSchema` does; `reuseSchema` keeps roots either built; the
 * structured view is built on first read. Each is pinned against
 * `parseSchema`, the public path, which still copies and freezes.
 */

import assert from "node:assert/strict";
import { SchemaError } from "../src/core/errors.ts";
import { stringifyExact } from "../src/core/json.ts";
import {
  adoptSchema,
  parseSchema,
  reuseSchema,
  type Schema,
} from "../src/core/schema.ts";
import { keyOrder } from "./_helpers/json_equal.ts";

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown })
  .rawJSON;

/** The structured view, read in full: every keyword the view holds, nested. */
function viewOf(schema: Schema | undefined): unknown {
  if (schema === undefined) return undefined;
  const properties = schema.properties;
  return {
    type: schema.type,
    format: schema.format,
    description: schema.description,
    required: schema.required,
    properties: properties === undefined ? undefined : Object.fromEntries(
      Object.keys(properties).map((k) => [k, viewOf(properties[k])]),
    ),
    propertyOrder: properties === undefined
      ? undefined
      : Object.keys(properties),
    items: viewOf(schema.items),
    additionalProperties: viewOf(schema.additionalProperties),
  };
}

function refusal(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    assert.ok(err instanceof SchemaError, `not a SchemaError: ${err}`);
    return err.message;
  }
  throw new Error("accepted");
}

/** A wire document: what JSON.parse gives, as a byte transport delivers it. */
function wireDoc(): Record<string, unknown> {
  return JSON.parse(
    '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","description":"args","properties":{"q":{"type":"string","format":"uri","description":"the query"},"n":{"type":"integer","minimum":1,"maximum":1.5},"tags":{"type":"array","items":{"type":"string"}},"meta":{"type":"object","additionalProperties":{"type":"number"}},"any":true,"no":false,"junk":5,"__proto__":{"type":"boolean"},"10":{"type":"null"}},"required":["q"],"additionalProperties":false,"x-vendor":[1,"two",null,{"deep":[true]}]}',
  );
}

Deno.test("adoptSchema keeps a plain document itself: not copied, not frozen", () => {
  const doc = wireDoc();
  const adopted = adoptSchema(doc);
  assert.equal(adopted.raw, doc);
  assert.equal(Object.isFrozen(doc), false);
  assert.equal(
    Object.isFrozen((doc.properties as Record<string, unknown>).q),
    false,
  );
  // The view node itself is the bridge's own, and frozen.
  assert.ok(Object.isFrozen(adopted));
});

Deno.test("adoptSchema serialises, keys and views exactly as parseSchema does", () => {
  const copied = parseSchema(wireDoc());
  const adopted = adoptSchema(wireDoc());
  assert.equal(JSON.stringify(adopted), JSON.stringify(copied));
  assert.equal(stringifyExact(adopted), stringifyExact(copied));
  assert.deepEqual(keyOrder(adopted.raw), keyOrder(copied.raw));
  assert.deepEqual(viewOf(adopted), viewOf(copied));
  assert.ok(Object.hasOwn(adopted.properties!, "__proto__"));
  assert.deepEqual(Object.keys(adopted.properties!), [
    "10",
    "q",
    "n",
    "tags",
    "meta",
    "any",
    "no",
    "__proto__",
  ]);
});

Deno.test("adoptSchema refuses what parseSchema refuses, word for word", async (t) => {
  const docs: [string, unknown][] = [
    ["undefined", undefined],
    ["null", null],
    ["an array", ["object"]],
    ["a number", 7],
    ["a boolean", true],
    ["no type", { properties: {} }],
    ["a string type", { type: "string" }],
    ["a type array", { type: ["object", "null"] }],
    ["a $ref root", { $ref: "#/$defs/a", $defs: { a: { type: "object" } } }],
    ["a quoted type", { type: 'ob"ject' }],
  ];
  for (const [label, doc] of docs) {
    await t.step(label, () => {
      assert.equal(
        refusal(() => adoptSchema(doc)),
        refusal(() => parseSchema(doc as Record<string, unknown>)),
      );
    });
  }
});

Deno.test("adoptSchema reads a string as a JSON string value, never as text to parse", () => {
  assert.equal(
    refusal(() => adoptSchema('{"type":"object"}')),
    "weft: parseSchema: the document is not a JSON object",
  );
});

Deno.test("adoptSchema copies, as parseSchema does, anything that is not plain JSON data", async (t) => {
  class Box {
    type = "object";
  }
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.self = cyclic;
  const docs: [string, Record<string, unknown>][] = [
    ["a bigint", { type: "object", maximum: 2n ** 64n }],
    ["a RawJson", { type: "object", big: rawJSON("9007199254740993") }],
    ["a small RawJson", { type: "object", n: rawJSON("5") }],
    ["-0", { type: "object", minimum: -0 }],
    ["an unsafe integer", { type: "object", maximum: 2 ** 60 }],
    ["NaN", { type: "object", maximum: NaN }],
    ["undefined", { type: "object", skip: undefined }],
    ["a sparse array", { type: "object", enum: [1, , 3] }],
    ["a Date", { type: "object", when: new Date(0) }],
    ["a toJSON", { type: "object", own: { toJSON: () => "tj" } }],
    ["a class instance", { type: "object", box: new Box() }],
    ["a function", { type: "object", fn: () => 1 }],
  ];
  for (const [label, doc] of docs) {
    await t.step(label, () => {
      const adopted = adoptSchema(doc);
      const copied = parseSchema(doc);
      assert.notEqual(adopted.raw, doc);
      assert.ok(Object.isFrozen(adopted.raw));
      assert.equal(JSON.stringify(adopted), JSON.stringify(copied));
      assert.deepEqual(viewOf(adopted), viewOf(copied));
    });
  }
  await t.step("a cycle: the copy's error", () => {
    assert.equal(
      refusal(() => adoptSchema(cyclic)),
      refusal(() => parseSchema(cyclic)),
    );
  });
});

Deno.test("an adopted document is shared: a later change shows in raw; each nested view is built once, on first read", () => {
  const doc = wireDoc();
  const adopted = adoptSchema(doc);
  const props = doc.properties as Record<string, Record<string, unknown>>;
  // Not read yet: the view is built from the document as it is then.
  props.q.type = "number";
  assert.equal(adopted.properties?.q.type, "number");
  // Read once: the view is kept, and a later change shows in raw only.
  props.q.type = "boolean";
  assert.equal(adopted.properties?.q.type, "number");
  assert.equal(adopted.properties, adopted.properties);
  assert.equal((adopted.raw.properties as typeof props).q.type, "boolean");
  assert.ok(JSON.stringify(adopted).includes('"q":{"type":"boolean"'));
});

Deno.test("parseSchema still copies and freezes; its nested views are frozen and built once", () => {
  const doc = wireDoc();
  const schema = parseSchema(doc);
  assert.notEqual(schema.raw, doc);
  (doc.properties as Record<string, Record<string, unknown>>).q.type = "x";
  assert.equal(schema.properties?.q.type, "string");
  assert.ok(Object.isFrozen(schema.properties));
  assert.ok(Object.isFrozen(schema.properties?.q));
  assert.equal(schema.properties, schema.properties);
  assert.equal(schema.properties?.tags.items, schema.properties?.tags.items);
  assert.equal(
    schema.properties?.meta.additionalProperties,
    schema.properties?.meta.additionalProperties,
  );
  // Absent scalar keywords stay absent; toJSON is not an own key.
  assert.equal("format" in schema, false);
  assert.equal(Object.keys(schema).includes("toJSON"), false);
});

Deno.test("reuseSchema keeps a root either path built; parseSchema copies an adopted root", () => {
  const copied = parseSchema(wireDoc());
  const adopted = adoptSchema(wireDoc());
  assert.equal(reuseSchema(copied), copied);
  assert.equal(reuseSchema(adopted), adopted);
  assert.equal(parseSchema(copied), copied);
  const again = parseSchema(adopted);
  assert.notEqual(again, adopted);
  assert.notEqual(again.raw, adopted.raw);
  assert.ok(Object.isFrozen(again.raw));
  assert.equal(JSON.stringify(again), JSON.stringify(adopted));
  // A nested view is not a root: it is copied and checked like any object.
  const nested = adopted.properties!.meta;
  assert.notEqual(reuseSchema(nested), nested);
  assert.throws(
    () => reuseSchema(adopted.properties!.q),
    /top-level type must be "object", got "string"/,
  );
  // Anything else goes through parseSchema.
  assert.equal(
    JSON.stringify(reuseSchema('{"type":"object","n":12345678901234567890}')),
    '{"type":"object","n":12345678901234567890}',
  );
});
