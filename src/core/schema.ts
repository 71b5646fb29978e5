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
  return view(root);
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
function view(raw: Readonly<Record<string, unknown>>): Schema {
  const node: { -readonly [K in keyof Schema]: Schema[K] } = { raw } as Schema;
  // Not enumerable: the view lists keywords; serialising still writes `raw`.
  Object.defineProperty(node, "toJSON", { value: writeRaw });
  if (typeof raw.type === "string") node.type = raw.type;
  if (typeof raw.format === "string") node.format = raw.format;
  if (typeof raw.description === "string") node.description = raw.description;
  if (isNode(raw.properties)) {
    const properties: Record<string, Schema> = {};
    for (const [key, child] of Object.entries(raw.properties)) {
      const parsed = isNode(child)
        ? view(child)
        : typeof child === "boolean"
        ? view(EMPTY)
        : undefined;
      // defineProperty, not assignment: a property named "__proto__" stays a property.
      if (parsed !== undefined) {
        Object.defineProperty(properties, key, {
          value: parsed,
          enumerable: true,
        });
      }
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
