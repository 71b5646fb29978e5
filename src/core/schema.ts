/**
 * Schema: the part of a JSON Schema document the core keys on, with the
 * document itself kept whole.
 *
 * CONTRACT FILE: the interface is shared; `parseSchema` is implemented by the
 * core-tools work.
 *
 * @module
 */

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
