/**
 * Schema: the part of a JSON Schema document the core keys on, with the
 * document itself kept whole.
 *
 * CONTRACT FILE: the interface is shared; `parseSchema` is implemented by the
 * core-tools work.
 *
 * @module
 */

import { SchemaError } from "./errors.ts";
import { isRawJson, parseLossless, stringifyExact } from "./json.ts";
import { JsonSyntaxError, scanJson } from "./json_scan.ts";

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
 * no provider accepts, with these texts after `weft: ParseSchema: `:
 * `empty schema` (empty or whitespace text, `undefined`, `null`: an omitted
 * schema, or JSON `null` over the wire),
 * the parser's message for invalid JSON (`unexpected end of input` when
 * truncated), `trailing data after the schema`,
 * `the document is not a JSON object` (arrays, scalars, the text `null`), and
 * `top-level type must be "object", got "<type>"` (`got ""` for a missing or
 * non-string type, which covers `$ref` roots and type arrays).
 *
 * @example
 * ```ts
 * import { parseSchema } from "./schema.ts";
 * const schema = parseSchema('{"type":"object","properties":{"id":{"type":"integer","maximum":12345678901234567890}}}');
 * console.assert(schema.properties?.id.type === "integer");
 * console.assert(JSON.stringify(schema).includes("12345678901234567890"));
 * ```
 */
export function parseSchema(
  doc: string | Record<string, unknown> | Schema | null | undefined,
): Schema {
  // Already a parsed root (mcp-import: rawTool re-reads the Schema the
  // bridge parsed): it is frozen and immutable, so it is its own copy.
  if (typeof doc === "object" && doc !== null && parsedRoots.has(doc)) {
    return doc as Schema;
  }
  const value = typeof doc === "string" ? readText(doc) : copyValue(doc);
  if (
    typeof value !== "object" || value === null || Array.isArray(value) ||
    isRawJson(value)
  ) {
    throw new SchemaError("the document is not a JSON object");
  }
  const root = deepFreeze(value as Record<string, unknown>);
  const type = typeof root.type === "string" ? root.type : "";
  if (type !== "object") {
    throw new SchemaError(
      `top-level type must be "object", got ${JSON.stringify(type)}`,
    );
  }
  const schema = view(root);
  parsedRoots.add(schema);
  return schema;
}

const parsedRoots = new WeakSet<object>();

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
      if (
        Number.isFinite(value) && !Object.is(value, -0) &&
        (!Number.isInteger(value) || Number.isSafeInteger(value))
      ) return value;
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

function isNode(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !isRawJson(value);
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

function writeRaw(this: Schema): unknown {
  return this.raw;
}

// The lenient structured view of one node: each keyword only when it has a
// shape the view holds; absent keys stay absent (not `undefined`).
// `toJSON` lives on a shared prototype (not enumerable: the view lists
// keywords; serialising still writes `raw`). A per-node defineProperty cost
// the bridge's listing several µs per tool (mcp-import, ADR 0024).
const VIEW_PROTO: Pick<Schema, "toJSON"> = Object.freeze({ toJSON: writeRaw });

function view(raw: Readonly<Record<string, unknown>>): Schema {
  const node = Object.create(VIEW_PROTO) as {
    -readonly [K in keyof Schema]: Schema[K];
  };
  node.raw = raw;
  if (typeof raw.type === "string") node.type = raw.type;
  if (typeof raw.format === "string") node.format = raw.format;
  if (typeof raw.description === "string") node.description = raw.description;
  if (isNode(raw.properties)) {
    const properties: Record<string, Schema> = {};
    for (const key of Object.keys(raw.properties)) {
      const child = raw.properties[key];
      const parsed = isNode(child)
        ? view(child)
        : typeof child === "boolean"
        ? view(EMPTY)
        : undefined;
      if (parsed === undefined) continue;
      // defineProperty, not assignment: a property named "__proto__" stays a property.
      if (key === "__proto__") {
        Object.defineProperty(properties, key, {
          value: parsed,
          enumerable: true,
        });
      } else properties[key] = parsed;
    }
    node.properties = Object.freeze(properties);
  }
  if (
    Array.isArray(raw.required) &&
    raw.required.every((r) => typeof r === "string")
  ) {
    node.required = raw.required as readonly string[];
  }
  if (isNode(raw.items)) node.items = view(raw.items);
  if (isNode(raw.additionalProperties)) {
    node.additionalProperties = view(raw.additionalProperties);
  }
  return Object.freeze(node);
}
