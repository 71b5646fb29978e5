import assert from "node:assert/strict";
import { SchemaError } from "../src/core/errors.ts";
import { parseSchema } from "../src/core/schema.ts";

function rejection(doc: unknown): SchemaError {
  try {
    parseSchema(doc as string);
  } catch (err) {
    assert.ok(err instanceof SchemaError, `not a SchemaError: ${err}`);
    return err;
  }
  throw new Error(`parseSchema accepted ${JSON.stringify(doc)}`);
}

Deno.test("parseSchema rejects an empty document", async (t) => {
  for (const doc of ["", "   \n\t", undefined, null]) {
    await t.step(JSON.stringify(doc) ?? "undefined", () => {
      assert.equal(rejection(doc).message, "weft: parseSchema: empty schema");
    });
  }
});

Deno.test("parseSchema rejects invalid JSON with the parser's reason", () => {
  assert.equal(
    rejection('{"type":}').message,
    "weft: parseSchema: invalid character '}' looking for beginning of value",
  );
});

Deno.test("parseSchema rejects truncated JSON as the end of input", () => {
  assert.equal(
    rejection("{").message,
    "weft: parseSchema: unexpected end of input",
  );
});

Deno.test("parseSchema rejects trailing data", () => {
  assert.equal(
    rejection("{} {}").message,
    "weft: parseSchema: trailing data after the schema",
  );
  assert.equal(
    rejection('{"type":"object"}x').message,
    "weft: parseSchema: trailing data after the schema",
  );
});

Deno.test("parseSchema rejects documents that are not objects", async (t) => {
  const docs: unknown[] = ['["object"]', "true", "42", '"object"', "null", [
    "object",
  ], 7];
  for (const doc of docs) {
    await t.step(JSON.stringify(doc), () => {
      assert.equal(
        rejection(doc).message,
        "weft: parseSchema: the document is not a JSON object",
      );
    });
  }
});

Deno.test("parseSchema rejects a missing top-level type", () => {
  assert.equal(
    rejection('{"properties":{}}').message,
    'weft: parseSchema: top-level type must be "object", got ""',
  );
});

Deno.test("parseSchema rejects a non-object top-level type", () => {
  assert.equal(
    rejection('{"type":"string"}').message,
    'weft: parseSchema: top-level type must be "object", got "string"',
  );
});

Deno.test("parseSchema rejects a type-array root", () => {
  assert.equal(
    rejection('{"type":["object","null"]}').message,
    'weft: parseSchema: top-level type must be "object", got ""',
  );
});

Deno.test("parseSchema rejects a $ref root", () => {
  assert.equal(
    rejection({ $ref: "#/$defs/args", $defs: { args: { type: "object" } } })
      .message,
    'weft: parseSchema: top-level type must be "object", got ""',
  );
});

Deno.test("parseSchema quotes the offending type Go-style", () => {
  assert.equal(
    rejection({ type: 'ob"ject' }).message,
    'weft: parseSchema: top-level type must be "object", got "ob\\"ject"',
  );
});

Deno.test("parseSchema rejects an object that JSON cannot hold", () => {
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.self = cyclic;
  const err = rejection(cyclic);
  assert.ok(err.message.startsWith("weft: parseSchema: "));
  assert.ok(err.cause instanceof TypeError);
});

Deno.test("SchemaError carries the detail without the prefix", () => {
  assert.equal(rejection("").detail, "empty schema");
});

Deno.test("parseSchema keeps the document whole", () => {
  const text =
    '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890,"enum":[1,2]}},"oneOf":[{"required":["n"]}],"additionalProperties":false}';
  const schema = parseSchema(text);
  assert.equal(JSON.stringify(schema), text);
  assert.equal(JSON.stringify(schema.raw), text);
});

Deno.test("parseSchema keeps the given key order", () => {
  const schema = parseSchema(
    '{"required":["b"],"type":"object","properties":{"b":{},"a":{}}}',
  );
  assert.deepEqual(Object.keys(schema.raw), ["required", "type", "properties"]);
  assert.deepEqual(Object.keys(schema.properties ?? {}), ["b", "a"]);
});

Deno.test("parseSchema copies an object document and freezes the copy", () => {
  const doc = { type: "object", properties: { q: { type: "string" } } };
  const schema = parseSchema(doc);
  doc.properties.q.type = "number";
  assert.equal(schema.properties?.q.type, "string");
  assert.ok(Object.isFrozen(schema.raw));
  assert.ok(Object.isFrozen(schema.raw.properties));
  assert.ok(Object.isFrozen(schema));
});

Deno.test("parseSchema writes bigint values of an object document exactly", () => {
  const schema = parseSchema({
    type: "object",
    maximum: 12345678901234567890n,
  });
  assert.equal(
    JSON.stringify(schema),
    '{"type":"object","maximum":12345678901234567890}',
  );
});

Deno.test("parseSchema accepts a parsed Schema and reads its raw document", () => {
  const first = parseSchema('{"type":"object","x-big":12345678901234567890}');
  const second = parseSchema(first);
  assert.equal(
    JSON.stringify(second),
    '{"type":"object","x-big":12345678901234567890}',
  );
});

Deno.test("parseSchema fills the structured view", () => {
  const schema = parseSchema({
    type: "object",
    description: "args",
    properties: {
      city: { type: "string", description: "the city", format: "hostname" },
      tags: { type: "array", items: { type: "string" } },
      labels: { type: "object", additionalProperties: { type: "integer" } },
    },
    required: ["city"],
  });
  assert.equal(schema.type, "object");
  assert.equal(schema.description, "args");
  assert.deepEqual(schema.required, ["city"]);
  assert.equal(schema.properties?.city.type, "string");
  assert.equal(schema.properties?.city.description, "the city");
  assert.equal(schema.properties?.city.format, "hostname");
  assert.equal(schema.properties?.tags.items?.type, "string");
  assert.equal(schema.properties?.labels.additionalProperties?.type, "integer");
  assert.deepEqual(schema.properties?.tags.raw, {
    type: "array",
    items: { type: "string" },
  });
});

Deno.test("parseSchema reads the view leniently", () => {
  const schema = parseSchema({
    type: "object",
    description: 42,
    properties: {
      either: { type: ["string", "null"] },
      yes: true,
      no: false,
      tuple: { type: "array", items: [{ type: "string" }] },
      flag: { type: "array", items: true },
      junk: 5,
    },
    required: ["either", 3],
    additionalProperties: false,
  });
  assert.equal(schema.description, undefined);
  assert.equal(schema.additionalProperties, undefined);
  assert.equal(schema.required, undefined);
  const props = schema.properties ?? {};
  assert.deepEqual(Object.keys(props), [
    "either",
    "yes",
    "no",
    "tuple",
    "flag",
  ]);
  assert.equal(props.either.type, undefined);
  assert.deepEqual(props.yes.raw, {});
  assert.deepEqual(props.no.raw, {});
  assert.equal(JSON.stringify(props.yes), "{}");
  assert.equal(props.tuple.items, undefined);
  assert.equal(props.flag.items, undefined);
  assert.equal("description" in schema, false);
});

Deno.test("parseSchema keeps a property named __proto__ as a property", () => {
  const schema = parseSchema(
    '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
  );
  assert.ok(Object.hasOwn(schema.properties ?? {}, "__proto__"));
  assert.equal(schema.properties?.["__proto__"].type, "string");
});
