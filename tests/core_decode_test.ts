import assert from "node:assert/strict";
import { z } from "zod";
import { InvalidInputError } from "../src/core/errors.ts";
import { decodeArguments, parseArguments } from "../src/core/_decode.ts";
import { type StandardSchemaWithJSON, tool } from "../src/core/tool.ts";

const Weather = z.object({
  city: z.string(),
  days: z.int(),
  note: z.string().nullable().optional(),
  inner: z.object({ qty: z.number() }).optional(),
  items: z.array(z.object({ qty: z.int() })).optional(),
  labels: z.record(z.string(), z.number()).optional(),
  extras: z.looseObject({ a: z.string().optional() }).optional(),
});

const weather = tool({
  name: "weather",
  description: "Looks up the weather.",
  input: Weather,
  run: (input) => input,
});

async function refusal(
  args: string,
  strictInput = false,
): Promise<InvalidInputError> {
  try {
    await weather.invoke(args, { strictInput });
  } catch (err) {
    assert.ok(
      err instanceof InvalidInputError,
      `not an InvalidInputError: ${err}`,
    );
    assert.equal(err.code, "INVALID_INPUT");
    assert.equal(err.tool, "weather");
    return err;
  }
  throw new Error(`accepted ${args}`);
}

Deno.test("empty, whitespace and null arguments read as {}", async () => {
  const bare = tool({
    name: "bare",
    description: "",
    input: z.object({ q: z.string().optional() }),
    run: (input) => input,
  });
  for (const args of ["", " \n\t ", "null", "  null  "]) {
    assert.equal(await bare.invoke(args), "{}", JSON.stringify(args));
  }
});

Deno.test("a second value is trailing data", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":1} {}')).message,
    'INVALID_INPUT: tool "weather": trailing data after the JSON arguments',
  );
  assert.equal(
    (await refusal("{} x")).reason,
    "trailing data after the JSON arguments",
  );
});

Deno.test("invalid JSON names the byte offset and the reason", async () => {
  assert.equal(
    (await refusal('{"city":}')).message,
    `INVALID_INPUT: tool "weather": invalid JSON at offset 8: invalid character '}' looking for beginning of value`,
  );
  assert.equal(
    (await refusal('{"é":x}')).reason,
    "invalid JSON at offset 6: invalid character 'x' looking for beginning of value",
  );
});

Deno.test("truncated JSON is the end of input", async () => {
  assert.equal(
    (await refusal('{"x":')).message,
    'INVALID_INPUT: tool "weather": invalid JSON: unexpected end of input',
  );
});

Deno.test("a non-object top level names its JSON type", async () => {
  assert.equal(
    (await refusal("[1]")).message,
    'INVALID_INPUT: tool "weather": expected object at the top level, got array',
  );
  assert.equal(
    (await refusal('"x"')).reason,
    "expected object at the top level, got string",
  );
  assert.equal(
    (await refusal("3")).reason,
    "expected object at the top level, got number",
  );
  assert.equal(
    (await refusal("true")).reason,
    "expected object at the top level, got boolean",
  );
});

Deno.test("a wrong type names the path, the schema type and the JSON type", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":"3"}')).message,
    'INVALID_INPUT: tool "weather": field "days": expected integer, got string',
  );
  assert.equal(
    (await refusal('{"city":{},"days":1}')).reason,
    'field "city": expected string, got object',
  );
  assert.equal(
    (await refusal('{"city":"x","days":1.5}')).reason,
    'field "days": expected integer, got number',
  );
});

Deno.test("a wrong nested type uses the dotted path with array indices", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":1,"inner":{"qty":"a"}}')).reason,
    'field "inner.qty": expected number, got string',
  );
  assert.equal(
    (await refusal('{"city":"x","days":1,"items":[{"qty":1},{"qty":null}]}'))
      .reason,
    'field "items.1.qty": expected integer, got null',
  );
  assert.equal(
    (await refusal('{"city":"x","days":1,"items":"many"}')).reason,
    'field "items": expected array, got string',
  );
  assert.equal(
    (await refusal('{"city":"x","days":1,"labels":{"a":1,"b":"2"}}')).reason,
    'field "labels.b": expected number, got string',
  );
});

Deno.test("a wrong type against a type array lists the allowed types", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":1,"note":5}')).reason,
    'field "note": expected string or null, got number',
  );
});

Deno.test("a missing required field is refused (TypeScript has no zero values)", async () => {
  assert.equal(
    (await refusal('{"days":1}')).message,
    'INVALID_INPUT: tool "weather": missing required field "city"',
  );
  assert.equal((await refusal("")).reason, 'missing required field "city"');
});

Deno.test("a missing nested required field uses the dotted path", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":1,"inner":{}}')).reason,
    'missing required field "inner.qty"',
  );
  assert.equal(
    (await refusal('{"city":"x","days":1,"items":[{"qty":1},{}]}')).reason,
    'missing required field "items.1.qty"',
  );
});

Deno.test("unknown fields are ignored and dropped when lenient", async () => {
  assert.equal(
    await weather.invoke('{"city":"x","days":1,"zz":1}'),
    '{"city":"x","days":1}',
  );
});

Deno.test("an unknown field is refused under the invoke option", async () => {
  assert.equal(
    (await refusal('{"city":"x","zz":1,"days":1}', true)).message,
    'INVALID_INPUT: tool "weather": unknown field "zz": not in the schema',
  );
});

Deno.test("an unknown field is refused under the tool's own flag", async () => {
  const strict = tool({
    name: "strict",
    description: "",
    input: z.object({ q: z.string() }),
    strictInput: true,
    run: (input) => input.q,
  });
  const err = await strict.invoke('{"q":"a","extra":true}').catch((e) => e);
  assert.equal(
    err.message,
    'INVALID_INPUT: tool "strict": unknown field "extra": not in the schema',
  );
  assert.equal(await strict.invoke('{"q":"a"}', { strictInput: false }), "a");
});

Deno.test("a nested unknown field uses the dotted path", async () => {
  assert.equal(
    (await refusal('{"city":"x","days":1,"inner":{"qty":1,"unit":"kg"}}', true))
      .reason,
    'unknown field "inner.unit": not in the schema',
  );
});

Deno.test("maps and loose objects have no unknown fields", async () => {
  const args = '{"city":"x","days":1,"labels":{"any":1},"extras":{"b":2}}';
  assert.equal(await weather.invoke(args, { strictInput: true }), args);
});

Deno.test("other schema issues read field, path and the issue message", async () => {
  const named = tool({
    name: "named",
    description: "",
    input: z.object({ q: z.string().min(3, "at least 3 characters") }),
    run: (input) => input.q,
  });
  const err = await named.invoke('{"q":"ab"}').catch((e) => e);
  assert.equal(
    err.message,
    'INVALID_INPUT: tool "named": field "q": at least 3 characters',
  );
});

Deno.test("an issue about the whole arguments reads its message alone", async () => {
  const pair = tool({
    name: "pair",
    description: "",
    input: z.object({ a: z.number(), b: z.number() }).refine(
      (v) => v.a < v.b,
      "a must be below b",
    ),
    run: () => "ok",
  });
  const err = await pair.invoke('{"a":2,"b":1}').catch((e) => e);
  assert.equal(err.message, 'INVALID_INPUT: tool "pair": a must be below b');
});

Deno.test("the first issue in document order wins", async (t) => {
  await t.step("two wrong types: the earlier key", async () => {
    assert.equal(
      (await refusal('{"days":"1","city":2}')).reason,
      'field "days": expected integer, got string',
    );
  });
  await t.step(
    "a wrong type before a missing field, which counts at its object's close",
    async () => {
      assert.equal(
        (await refusal('{"days":"1"}')).reason,
        'field "days": expected integer, got string',
      );
    },
  );
  await t.step("a nested missing field before a later wrong type", async () => {
    assert.equal(
      (await refusal('{"inner":{},"city":1,"days":1}')).reason,
      'missing required field "inner.qty"',
    );
  });
  await t.step(
    "under strict input, an unknown field before a later wrong type",
    async () => {
      assert.equal(
        (await refusal('{"zz":0,"city":1,"days":1}', true)).reason,
        'unknown field "zz": not in the schema',
      );
    },
  );
  await t.step(
    "validator issues: the earlier key, not the schema's order",
    async () => {
      const both = tool({
        name: "both",
        description: "",
        input: z.object({
          a: z.string().min(2, "a is short"),
          b: z.string().min(2, "b is short"),
        }),
        run: () => "ok",
      });
      const err = await both.invoke('{"b":"x","a":"y"}').catch((e) => e);
      assert.equal(err.reason, 'field "b": b is short');
    },
  );
});

Deno.test("the handler receives the validator's value", async () => {
  const defaults = tool({
    name: "defaults",
    description: "",
    input: z.object({
      n: z.number().default(7),
      s: z.string().transform((v) => v.toUpperCase()),
    }),
    run: (input) => input,
  });
  assert.equal(await defaults.invoke('{"s":"ab"}'), '{"n":7,"s":"AB"}');
});

// A Standard Schema written by hand: decoding does not depend on zod.
function handMade(): StandardSchemaWithJSON<{ id: number }> {
  return {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: (value) =>
        Promise.resolve(
          typeof (value as { id?: unknown }).id === "number" &&
            (value as { id: number }).id > 0
            ? { value: value as { id: number } }
            : {
              issues: [{ message: "must be positive", path: [{ key: "id" }] }],
            },
        ),
      jsonSchema: {
        input: () => ({
          type: "object",
          properties: { id: { type: "number" } },
          required: ["id"],
        }),
        output: () => ({ type: "object" }),
      },
    },
  };
}

Deno.test("any Standard Schema decodes, async validators included", async () => {
  const schema = handMade();
  const jsonSchema = schema["~standard"].jsonSchema.input({
    target: "draft-2020-12",
  });
  const options = { tool: "hand", jsonSchema };
  assert.deepEqual(await decodeArguments('{"id":3}', schema, options), {
    id: 3,
  });
  const err = await decodeArguments('{"id":-1}', schema, options).catch((e) =>
    e
  );
  assert.equal(
    err.message,
    'INVALID_INPUT: tool "hand": field "id": must be positive',
  );
  const missing = await decodeArguments("{}", schema, options).catch((e) => e);
  assert.equal(
    missing.message,
    'INVALID_INPUT: tool "hand": missing required field "id"',
  );
});

Deno.test("parseArguments returns the object for valid text", () => {
  assert.deepEqual(parseArguments('{"a":[1,{"b":null}]}', "t"), {
    a: [1, { b: null }],
  });
  assert.throws(() => parseArguments("[", "t"), InvalidInputError);
});

// A validator that refuses with `issues` (and never accepts), over a schema
// the structural walk finds nothing wrong with: `{ n?: number }`.
function refusing(
  issues: readonly { message: string; path?: readonly PropertyKey[] }[],
  async = false,
): StandardSchemaWithJSON<{ n?: number }> {
  return {
    "~standard": {
      version: 1,
      vendor: "refusing",
      validate: () => async ? Promise.resolve({ issues }) : { issues },
      jsonSchema: {
        input: () => ({
          type: "object",
          properties: { n: { type: "number" } },
        }),
        output: () => ({ type: "object" }),
      },
    },
  };
}

Deno.test("a validator issue the JSON Schema cannot explain", async (t) => {
  const jsonSchema = {
    type: "object",
    properties: { n: { type: "number" } },
  };
  await t.step("an empty issue list reads the generic reason", async () => {
    for (const async of [false, true]) {
      const schema = refusing([], async);
      const viaDecode = await decodeArguments('{"n":1}', schema, {
        tool: "picky",
        jsonSchema,
      }).catch((e) => e);
      const picky = tool({
        name: "picky",
        description: "",
        input: schema,
        run: () => "ran",
      });
      const viaTool = await picky.invoke('{"n":1}').catch((e) => e);
      for (const err of [viaDecode, viaTool]) {
        assert.ok(err instanceof InvalidInputError, `async ${async}: ${err}`);
        assert.equal(err.reason, "the arguments do not satisfy the schema");
        assert.equal(
          err.message,
          'INVALID_INPUT: tool "picky": the arguments do not satisfy the schema',
        );
      }
    }
  });
  await t.step("an issue without a path reads its message alone", async () => {
    const picky = tool({
      name: "picky",
      description: "",
      input: refusing([{ message: "not today" }]),
      run: () => "ran",
    });
    const err = await picky.invoke('{"n":1}').catch((e) => e);
    assert.equal(err.message, 'INVALID_INPUT: tool "picky": not today');
  });
});
