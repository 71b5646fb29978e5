/**
 * Schema: the part of a JSON Schema document the core keys on, with the
 * document itself kept whole.
 *
 * CONTRACT FILE: the interface is shared; `parseSchema` is implemented by the
 * core-tools work.
 *
 * @module
 */

import { quote, SchemaError } from "./errors.ts";
import {
  isPlainJson,
  isPlainNumber,
  isRawJson,
  parseLossless,
  stringifyExact,
} from "./json.ts";
import { JsonSyntaxError, scanJson } from "./_json_scan.ts";
import { ADOPTED, COPIED, type RootKind, SchemaNode } from "./_schema_view.ts";

/**
 * A parsed tool schema. The structured view is lenient (a keyword is read
 * only when it has the shape the view can hold); `raw` is the document whole,
 * every keyword, in the given key order, integers beyond 2^53 with their
 * digits. `JSON.stringify(schema)` writes `raw`.
 */
export interface Schema {
  /** The document's `type` when it is a string. */
  readonly type?: string;
  /** `format`, when a string. */
  readonly format?: string;
  /** `description`, when a string. */
  readonly description?: string;
  /** `properties`, each parsed leniently (`true`/`false` become `{}` nodes). */
  readonly properties?: Readonly<Record<string, Schema>>;
  /** `required`, when an array of strings. */
  readonly required?: readonly string[];
  /** `items`, when a single schema object (not a tuple, not a boolean). */
  readonly items?: Schema;
  /** `additionalProperties`, when a schema object (not a boolean). */
  readonly additionalProperties?: Schema;
  /** The document whole. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** Serialises as `raw`. */
  toJSON(): unknown;
}

/**
 * Parses a tool schema document, given as JSON text or as an object (an
 * object is deep-copied through JSON, so later changes to it do not leak in;
 * `bigint` values become exact digits; a `Schema` is accepted and reads as
 * its `raw` document). The result keeps the document whole in `raw` and
 * exposes the structured view the core keys on.
 *
 * It accepts any single JSON object whose top-level `type` is the string
 * `"object"`, whatever else it holds. It throws {@link SchemaError} for what
 * no provider accepts, with these texts after `weft: parseSchema: `:
 * `empty schema` (empty or whitespace text, `undefined`, `null`: an omitted
 * schema, or JSON `null` over the wire),
 * the parser's message for invalid JSON (`unexpected end of input` when
 * truncated), `trailing data after the schema`,
 * `the document is not a JSON object` (arrays, scalars, the text `null`), and
 * `top-level type must be "object", got "<type>"` (`got ""` for a missing or
 * non-string type, which covers `$ref` roots and type arrays).
 *
 * The result and its copy are frozen. The nested views (`properties`,
 * `items`, `additionalProperties`) are getters, built on first read and kept.
 *
 * @example Using `parseSchema`
 * ```ts
 * import { parseSchema } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const schema = parseSchema('{"type":"object","properties":{"id":{"type":"integer","maximum":12345678901234567890}}}');
 * assert.equal(schema.properties?.id.type, "integer");
 * assert.ok(JSON.stringify(schema).includes("12345678901234567890"));
 * ```
 */
export function parseSchema(
  doc: string | Record<string, unknown> | Schema | null | undefined,
): Schema {
  // Already a root this function produced (mcp-import: rawTool re-reads the
  // Schema it is given): it is frozen and immutable, so it is its own copy.
  if (SchemaNode.kindOf(doc) === COPIED) return doc as Schema;
  const value = typeof doc === "string" ? readText(doc) : copyValue(doc);
  return root(deepFreeze(value), COPIED);
}

/**
 * For the bridge (reached through `bridge.ts`, not exported publicly): a
 * schema over a document the caller hands over and never changes — an
 * entry's schema fresh from a transport. A document of plain JSON data
 * (what `JSON.parse` gives) is adopted as is: `raw` is `doc` itself, not
 * copied and not frozen (over the SDK's in-memory transport it is the
 * server's own object, which weft must not freeze). Anything else (a
 * bigint, a `toJSON`, a class instance, a cycle, a `RawJson`, `-0`, an
 * unsafe-integer number, `undefined`) is copied exactly as
 * {@link parseSchema} copies it. A string is a JSON string _value_ (never
 * text to parse). Refusals are `parseSchema`'s, word for word.
 */
export function adoptSchema(doc: unknown): Schema {
  if (doc === undefined || doc === null) throw new SchemaError("empty schema");
  if (!isPlainJson(doc)) return parseSchema(doc as Record<string, unknown>);
  return root(doc, ADOPTED);
}

/**
 * For the core's tool builders and the bridge: `schema` itself when it is a root that
 * {@link parseSchema} or {@link adoptSchema} built, else
 * `parseSchema(schema)`. `rawTool` reads its schemas through this, so an
 * imported tool's adopted schema is not copied again.
 */
export function reuseSchema(
  doc: string | Record<string, unknown> | Schema | null | undefined,
): Schema {
  const kind = SchemaNode.kindOf(doc);
  return kind === COPIED || kind === ADOPTED ? doc as Schema : parseSchema(doc);
}

// The checks every root passes, after reading or copying.
function root(value: unknown, kind: RootKind): Schema {
  if (
    typeof value !== "object" || value === null || Array.isArray(value) ||
    isRawJson(value)
  ) {
    throw new SchemaError("the document is not a JSON object");
  }
  const doc = value as Readonly<Record<string, unknown>>;
  const type = typeof doc.type === "string" ? doc.type : "";
  if (type !== "object") {
    throw new SchemaError(
      `top-level type must be "object", got ${quote(type)}`,
    );
  }
  return new SchemaNode(doc, kind);
}

function readText(text: string): unknown {
  let extent;
  try {
    extent = scanJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw new SchemaError(err.message, { cause: err });
    }
    throw err;
  }
  if (extent === undefined) throw new SchemaError("empty schema");
  if (extent.trailing !== -1) {
    throw new SchemaError("trailing data after the schema");
  }
  return parseLossless(text);
}

function copyValue(doc: unknown): unknown {
  if (doc === undefined || doc === null) throw new SchemaError("empty schema");
  const plain = plainCopy(doc);
  if (plain !== NOT_PLAIN) return plain;
  let text: string | undefined;
  try {
    text = stringifyExact(doc);
  } catch (err) {
    throw new SchemaError(err instanceof Error ? err.message : String(err), {
      cause: err,
    });
  }
  // Only a function, a symbol or a toJSON returning undefined gets here.
  if (text === undefined) {
    throw new SchemaError("the document is not a JSON object");
  }
  return parseLossless(text);
}

const NOT_PLAIN = Symbol("not plain JSON");

// Fast path (mcp-import): a document of plain JSON values (what the SDK hands
// over) copied and frozen in one walk, giving exactly what the JSON round
// trip below gives. Anything the round trip would change or could not write
// (a bigint, a toJSON, undefined, a non-finite or unsafe-integer number, -0,
// a class instance, a "__proto__" key, a cycle) takes the round trip instead.
function plainCopy(doc: unknown): unknown {
  try {
    return copyNode(doc);
  } catch (err) {
    if (err === NOT_PLAIN || err instanceof RangeError) return NOT_PLAIN;
    throw err;
  }
}

function copyNode(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (isPlainNumber(value)) return value;
      throw NOT_PLAIN;
    case "object":
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return null;
  // A RawJson reads back as the round trip reads its digits.
  if (isRawJson(value)) return parseLossless(value.rawJSON);
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) throw NOT_PLAIN;
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyNode(value[i]);
    return Object.freeze(out);
  }
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const node = value as Record<string, unknown>;
  if (typeof node.toJSON === "function") throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  // for-in (own keys in JSON.stringify's order) is cheaper than Object.keys.
  for (const key in node) {
    if (!Object.hasOwn(node, key) || key === "__proto__") throw NOT_PLAIN;
    out[key] = copyNode(node[key]);
  }
  return Object.freeze(out);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
