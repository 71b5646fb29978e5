/**
 * The structured view of a parsed schema (internal to the core; the
 * `Schema` interface is in `schema.ts`): one frozen node per schema object,
 * its nested views built on first read.
 *
 * @module
 */

import { isRawJson } from "./json.ts";
import type { Schema } from "./schema.ts";

/** A schema node: a non-null, non-array object that is not a `RawJson`. */
export function isNode(
  value: unknown,
): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !isRawJson(value);
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** Not a view (`kindOf` of anything `SchemaNode` did not build). */
export const NOT_A_VIEW = 0;
/** A nested view (a property, `items`, `additionalProperties`). */
export const NESTED = 1;
/** A root `parseSchema` built over its own deep-frozen copy. */
export const COPIED = 2;
/** A root `adoptSchema` built over the caller's document. */
export const ADOPTED = 3;
/** The kinds of root. */
export type RootKind = typeof COPIED | typeof ADOPTED;

/**
 * The lenient structured view of one node: each keyword only when it has a
 * shape the view holds. The scalar keywords and `required` are own
 * properties, set only when present; `properties`, `items` and
 * `additionalProperties` are getters, built on first read and kept (most consumers only serialise `raw`, and building every nested
 * view up front cost the bridge's listing about a µs per tool). The node
 * is frozen; the cache lives in private fields, which freezing leaves
 * writable. `toJSON` (on the prototype, not enumerable) writes `raw`.
 */
export class SchemaNode implements Schema {
  /** `type`, when a string. */
  declare readonly type?: string;
  /** `format`, when a string. */
  declare readonly format?: string;
  /** `description`, when a string. */
  declare readonly description?: string;
  /** `required`, when an array of strings. */
  declare readonly required?: readonly string[];
  /** The document whole. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly #kind: number;
  #built = 0;
  #properties: Readonly<Record<string, Schema>> | undefined;
  #items: Schema | undefined;
  #additional: Schema | undefined;

  /** A view of `raw`; `kind` says who built it (see {@link SchemaNode.kindOf}). */
  constructor(raw: Readonly<Record<string, unknown>>, kind: number) {
    const node = this as { -readonly [K in keyof Schema]: Schema[K] };
    this.raw = raw;
    this.#kind = kind;
    if (typeof raw.type === "string") node.type = raw.type;
    if (typeof raw.format === "string") node.format = raw.format;
    if (typeof raw.description === "string") node.description = raw.description;
    const required = raw.required;
    if (Array.isArray(required) && required.every(isString)) {
      node.required = required as readonly string[];
    }
    Object.freeze(this);
  }

  /** What built `value`: not a view, a nested view, or a root (copied or adopted). */
  static kindOf(value: unknown): number {
    return typeof value === "object" && value !== null && #kind in value
      ? value.#kind
      : NOT_A_VIEW;
  }

  /** `properties`, each a view (`true`/`false` become `{}` nodes); built on first read. */
  get properties(): Readonly<Record<string, Schema>> | undefined {
    if ((this.#built & 1) === 0) {
      this.#built |= 1;
      this.#properties = propertiesView(this.raw.properties);
    }
    return this.#properties;
  }

  /** `items`, when a single schema object; built on first read. */
  get items(): Schema | undefined {
    if ((this.#built & 2) === 0) {
      this.#built |= 2;
      this.#items = nested(this.raw.items);
    }
    return this.#items;
  }

  /** `additionalProperties`, when a schema object; built on first read. */
  get additionalProperties(): Schema | undefined {
    if ((this.#built & 4) === 0) {
      this.#built |= 4;
      this.#additional = nested(this.raw.additionalProperties);
    }
    return this.#additional;
  }

  /** Serialises as `raw`. */
  toJSON(): unknown {
    return this.raw;
  }
}

function isString(value: unknown): boolean {
  return typeof value === "string";
}

function nested(value: unknown): Schema | undefined {
  return isNode(value) ? new SchemaNode(value, NESTED) : undefined;
}

// `true`/`false` property schemas become `{}` nodes; other non-objects are
// left out.
function propertiesView(
  value: unknown,
): Readonly<Record<string, Schema>> | undefined {
  if (!isNode(value)) return undefined;
  const properties: Record<string, Schema> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    const parsed = isNode(child)
      ? new SchemaNode(child, NESTED)
      : typeof child === "boolean"
      ? new SchemaNode(EMPTY, NESTED)
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
  return Object.freeze(properties);
}
