import assert from "node:assert/strict";
import {
  isRawJson,
  jsonTypeOf,
  parseLossless,
  stringifyExact,
} from "../src/core/json.ts";
import {
  JsonSyntaxError,
  scanJson,
  utf8Length,
} from "../src/core/_json_scan.ts";

Deno.test("parseLossless keeps integers beyond 2^53 digit for digit", () => {
  const doc = parseLossless('{"id":12345678901234567890}') as Record<
    string,
    unknown
  >;
  assert.equal(JSON.stringify(doc), '{"id":12345678901234567890}');
  assert.ok(isRawJson(doc.id));
});

Deno.test("parseLossless keeps ordinary numbers as numbers", () => {
  const doc = parseLossless(
    "[9007199254740991,-9007199254740991,1.5,0,-0,1e3]",
  ) as unknown[];
  assert.deepEqual(doc, [
    9007199254740991,
    -9007199254740991,
    1.5,
    0,
    -0,
    1000,
  ]);
  assert.ok(doc.every((n) => typeof n === "number"));
});

Deno.test("parseLossless keeps 2^53 + 1 and negative big integers exact", () => {
  const text =
    '{"a":9007199254740993,"b":-98765432109876543210,"c":[18446744073709551616]}';
  assert.equal(JSON.stringify(parseLossless(text)), text);
});

Deno.test("parseLossless keeps literals too large for a double", () => {
  assert.equal(JSON.stringify(parseLossless('{"x":1e400}')), '{"x":1e400}');
});

Deno.test("parseLossless rounds non-integer literals like JSON.parse", () => {
  assert.deepEqual(
    parseLossless('{"x":0.1000000000000000055511151231257827}'),
    { x: 0.1 },
  );
});

Deno.test("parseLossless throws SyntaxError on bad JSON", () => {
  assert.throws(() => parseLossless("{"), SyntaxError);
  assert.throws(() => parseLossless("{} {}"), SyntaxError);
});

Deno.test("stringifyExact writes bigints as digits", () => {
  assert.equal(
    stringifyExact({ n: 12345678901234567890n }),
    '{"n":12345678901234567890}',
  );
  assert.equal(stringifyExact(undefined), undefined);
});

Deno.test("jsonTypeOf names the JSON types", () => {
  assert.equal(jsonTypeOf("s"), "string");
  assert.equal(jsonTypeOf(1.5), "number");
  assert.equal(jsonTypeOf(true), "boolean");
  assert.equal(jsonTypeOf([]), "array");
  assert.equal(jsonTypeOf({}), "object");
  assert.equal(jsonTypeOf(null), "null");
  assert.equal(jsonTypeOf(parseLossless("12345678901234567890")), "number");
  assert.equal(jsonTypeOf(5n), "number");
  assert.equal(jsonTypeOf(undefined), "null");
});

Deno.test("scanJson finds the first value's extent", async (t) => {
  await t.step("a single value", () => {
    assert.deepEqual(scanJson(' {"a":[1,2]} '), {
      start: 1,
      end: 12,
      trailing: -1,
    });
  });
  await t.step("a second value is trailing, not an error", () => {
    assert.deepEqual(scanJson("{} {}"), { start: 0, end: 2, trailing: 3 });
    assert.deepEqual(scanJson("1 2"), { start: 0, end: 1, trailing: 2 });
    assert.deepEqual(scanJson("01"), { start: 0, end: 1, trailing: 1 });
  });
  await t.step("whitespace only is no value", () => {
    assert.equal(scanJson(""), undefined);
    assert.equal(scanJson(" \t\r\n"), undefined);
  });
});

function syntax(text: string): JsonSyntaxError {
  try {
    scanJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error(`no syntax error in ${text}`);
}

Deno.test("scanJson reasons follow Go's wording", () => {
  const cases: [string, string, number][] = [
    ['{"a":}', "invalid character '}' looking for beginning of value", 5],
    ['{"a"}', "invalid character '}' after object key", 4],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair", 7],
    ["[1}", "invalid character '}' after array element", 2],
    [
      "{,}",
      "invalid character ',' looking for beginning of object key string",
      1,
    ],
    [
      '{"a":1,}',
      "invalid character '}' looking for beginning of object key string",
      7,
    ],
    ['"a\nb"', "invalid character '\\n' in string literal", 2],
    ['"\\x"', "invalid character 'x' in string escape code", 2],
    [
      '"\\u12G4"',
      "invalid character 'G' in \\u hexadecimal character escape",
      5,
    ],
    ["-x", "invalid character 'x' in numeric literal", 1],
    ["1.x", "invalid character 'x' after decimal point in numeric literal", 2],
    ["1ex", "invalid character 'x' in exponent of numeric literal", 2],
    ["trUe", "invalid character 'U' in literal true (expecting 'u')", 2],
    ["'a'", "invalid character '\\'' looking for beginning of value", 0],
  ];
  for (const [text, reason, offset] of cases) {
    const err = syntax(text);
    assert.equal(err.message, reason, text);
    assert.equal(err.offset, offset, text);
    assert.equal(err.endOfInput, false, text);
  }
});

Deno.test("scanJson reports the end of input for truncated text", () => {
  for (const text of ['{"x":', "[", '"abc', "-", "1.", "tru", '{"a"', "[1,"]) {
    const err = syntax(text);
    assert.equal(err.message, "unexpected end of input", text);
    assert.ok(err.endOfInput, text);
  }
});

Deno.test("scanJson offsets count UTF-8 bytes", () => {
  const err = syntax('{"é😀":x}');
  assert.equal(err.index, 7);
  assert.equal(err.offset, 10);
  assert.equal(utf8Length("é😀x"), 7);
});

Deno.test("scanJson agrees with JSON.parse on what is one valid value", () => {
  const texts = [
    "{}",
    "[]",
    '{"a":[1,{"b":null}]}',
    '"\\u00e9\\n"',
    "-0",
    "0.0e-0",
    "1E+5",
    "true",
    "false",
    "null",
    " 1 ",
    "[[[[]]]]",
    '"\\ud800"',
    "01",
    "1 2",
    "{}x",
    "-01",
    "\u00a01",
    "[1,]",
    '{"a":1,}',
    "tru",
    "+1",
    ".5",
    "1.e5",
    "NaN",
    '"\t"',
    "[1 2]",
    "{1:2}",
  ];
  for (const text of texts) {
    let parsed = true;
    try {
      JSON.parse(text);
    } catch {
      parsed = false;
    }
    let scanned = true;
    try {
      scanned = scanJson(text)?.trailing === -1;
    } catch {
      scanned = false;
    }
    assert.equal(scanned, parsed, text);
  }
});

Deno.test("scanJson survives deep nesting without recursion", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.deepEqual(scanJson(deep), { start: 0, end: 200_000, trailing: -1 });
});
