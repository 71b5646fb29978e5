/**
 * Lossless JSON: a reader that keeps integers beyond 2^53 with their digits,
 * a writer that writes `bigint`s as exact digits, and the JSON type names
 * weft's texts use. The scanner that finds where a value ends is in
 * `json_scan.ts`.
 *
 * @module
 */

/** A number kept as its source digits (`JSON.rawJSON`); `JSON.stringify` writes them back. */
export interface RawJson {
  /** The number's source text, e.g. `"12345678901234567890"`. */
  readonly rawJSON: string;
}

/** The JSON type names weft's texts use. */
export type JsonType =
  | "string"
  | "number"
  | "boolean"
  | "array"
  | "object"
  | "null";

interface ReviverContext {
  readonly source?: string;
}

type SourceReviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: ReviverContext,
) => unknown;

// The TypeScript lib in use does not yet declare JSON.rawJSON, JSON.isRawJSON
// or the reviver's third argument; this is the typed view of what the runtime has.
interface JsonWithSource {
  parse(text: string, reviver: SourceReviver): unknown;
  rawJSON?: (text: string) => RawJson;
  isRawJSON?: (value: unknown) => boolean;
}

const json = JSON as unknown as JsonWithSource;

const INTEGER_LITERAL = /^-?(0|[1-9][0-9]*)$/;

function keepDigits(
  _key: string,
  value: unknown,
  context?: ReviverContext,
): unknown {
  if (typeof value !== "number" || json.rawJSON === undefined) return value;
  const source = context?.source;
  if (source === undefined) return value;
  const integer = INTEGER_LITERAL.test(source);
  if ((integer && !Number.isSafeInteger(value)) || !Number.isFinite(value)) {
    return json.rawJSON(source);
  }
  return value;
}

/**
 * Parses JSON text like `JSON.parse`, except that an integer literal beyond
 * the safe-integer range (and a literal too large for a double, like `1e400`)
 * becomes a {@link RawJson} holding its source digits, which `JSON.stringify`
 * writes back verbatim. Throws `SyntaxError` on invalid JSON. On a runtime
 * without the reviver's source access it degrades to `JSON.parse`.
 *
 * @example Using `parseLossless`
 * ```ts
 * import { parseLossless } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const doc = parseLossless('{"id":12345678901234567890}');
 * assert.equal(JSON.stringify(doc), '{"id":12345678901234567890}');
 * ```
 */
export function parseLossless(text: string): unknown {
  // Fast path (mcp-import, for the bridge's listing and call costs): a
  // number needs its digits kept only when it is an integer literal beyond
  // 2^53 (16 digits or more) or overflows a double (an exponent, or 309
  // digits); text with neither parses the same without the reviver.
  if (!MAY_NEED_DIGITS.test(text)) return JSON.parse(text);
  return json.parse(text, keepDigits);
}

// `\d{16}|\d[eE]` with the shared first digit out of the alternation: a scan
// that finds nothing is 3x faster.
const MAY_NEED_DIGITS = /\d(?:\d{15}|[eE])/;

/**
 * Whether a value is a {@link RawJson} (a number kept as its digits).
 *
 * @example Using `isRawJson`
 * ```ts
 * import { isRawJson, parseLossless } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const doc = parseLossless("[9007199254740993, 1]") as unknown[];
 * assert.ok(isRawJson(doc[0]) && !isRawJson(doc[1]));
 * ```
 */
export function isRawJson(value: unknown): value is RawJson {
  return json.isRawJSON !== undefined && json.isRawJSON(value);
}

/**
 * The JSON type name of a value: `string number boolean array object null`.
 * A {@link RawJson} and a `bigint` read as `number`; values JSON cannot hold
 * (`undefined`, functions, symbols) read as `null`, as `JSON.stringify`
 * writes them inside arrays.
 *
 * @example Using `jsonTypeOf`
 * ```ts
 * import { jsonTypeOf } from "./json.ts";
 * import assert from "node:assert/strict";
 * assert.ok(jsonTypeOf([1]) === "array" && jsonTypeOf(null) === "null");
 * ```
 */
export function jsonTypeOf(value: unknown): JsonType {
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) return "array";
      if (isRawJson(value)) return "number";
      return "object";
    default:
      return "null";
  }
}

/**
 * `JSON.stringify` that writes a `bigint` as its exact digits (where plain
 * `JSON.stringify` throws). Returns `undefined` for what JSON cannot hold at
 * the top level (`undefined`, functions, symbols); throws what
 * `JSON.stringify` throws (a cycle, a throwing `toJSON`).
 *
 * Plain `JSON.stringify` is tried first (a replacer function costs every
 * value a call); only when it throws a `TypeError` — a bigint, a cycle, or a
 * `toJSON` or getter that throws one — is the value written again with the
 * bigint replacer. So in that case, and only then, each `toJSON` method and
 * getter reached before the failure runs twice; one that throws anything
 * other than a `TypeError` runs once.
 *
 * @example Using `stringifyExact`
 * ```ts
 * import { stringifyExact } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * assert.equal(stringifyExact({ n: 2n ** 64n }), '{"n":18446744073709551616}');
 * ```
 */
export function stringifyExact(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    // JSON.stringify throws a TypeError on a bigint; a value it refuses for
    // any other reason is refused again, with the same error, below.
    if (!(err instanceof TypeError)) throw err;
  }
  return JSON.stringify(value, exactBigInt);
}

function exactBigInt(_key: string, value: unknown): unknown {
  if (typeof value === "bigint" && json.rawJSON !== undefined) {
    return json.rawJSON(value.toString());
  }
  return value;
}

/**
 * Whether `value` is plain JSON data: what `JSON.parse` gives, so that
 * writing it as JSON and reading it back with {@link parseLossless} gives an
 * equal value (the same keys in the same order, the same values). Strings,
 * booleans, `null`, finite numbers other than `-0` that are not integers
 * beyond 2^53, and arrays and objects of them (plain or null prototype, own
 * enumerable keys, no `toJSON`); not a `RawJson`, a `bigint`, `undefined`,
 * a hole in an array, a class instance or a cycle. Internal to weft (not
 * exported from `mod.ts`): the import bridge adopts such a schema instead of
 * copying it, and the export bridge hands such arguments to a typed tool
 * without writing them as text first.
 *
 * @example Using `isPlainJson`
 * ```ts
 * import { isPlainJson } from "./json.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isPlainJson(JSON.parse('{"a":[1,"x",null]}')));
 * assert.ok(!isPlainJson({ when: new Date(0) }));
 * ```
 */
export function isPlainJson(value: unknown): boolean {
  try {
    return plainNode(value);
  } catch (err) {
    // A cycle overflows the stack: not plain (JSON cannot hold it either).
    if (err instanceof RangeError) return false;
    throw err;
  }
}

/**
 * Whether a number reads back unchanged through a JSON round trip: finite,
 * not `-0`, and an integer only when it is a safe one. Internal to weft
 * (the plain-JSON checks of `isPlainJson` and the schema copy).
 */
export function isPlainNumber(value: number): boolean {
  return Number.isFinite(value) && !Object.is(value, -0) &&
    (!Number.isInteger(value) || Number.isSafeInteger(value));
}

function plainNode(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return isPlainNumber(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (isRawJson(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      if (!plainNode(value[i])) return false;
    }
    return true;
  }
  if (proto !== Object.prototype && proto !== null) return false;
  const node = value as Record<string, unknown>;
  if (typeof node.toJSON === "function") return false;
  // An own "__proto__" key is plain: JSON.parse makes it an own key too.
  for (const key in node) {
    if (!Object.hasOwn(node, key) || !plainNode(node[key])) return false;
  }
  return true;
}
