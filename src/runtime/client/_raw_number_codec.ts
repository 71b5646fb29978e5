/**
 * Carrying big integers through a parser that rounds them: the SDK's HTTP
 * client transport parses with `JSON.parse`. Before it does, each number
 * the lossless reader keeps as digits is rewritten as a string holding a
 * private marker and the digits; after, the marker strings become
 * `JSON.rawJSON` values again.
 *
 * @module
 */

import { isRawJson, parseLossless } from "../../core/json.ts";

interface RawJsonApi {
  rawJSON(text: string): unknown;
}

/** A JSON text re-encoded for a rounding parser, with the value it holds. */
export interface Encoded {
  /** The text to hand on: the input itself when it holds no big numbers. */
  readonly text: string;
  /** The lossless parse of the input; `undefined` when it is not JSON. */
  readonly value: unknown;
}

/**
 * One codec per connection. Its marker is a NUL character, a fixed tag and
 * a random UUID, so no string a server sends can be mistaken for one.
 *
 * @example Using `RawNumberCodec`
 * ```ts
 * import { RawNumberCodec } from "./_raw_number_codec.ts";
 * import assert from "node:assert/strict";
 * const codec = new RawNumberCodec();
 * const wire = codec.encode('{"n":12345678901234567890}').text;
 * const back = codec.restore(JSON.parse(wire));
 * assert.equal(JSON.stringify(back), '{"n":12345678901234567890}');
 * ```
 */
export class RawNumberCodec {
  readonly #marker = `\u0000weft-raw-number:${crypto.randomUUID()}:`;

  /** Re-encodes a JSON text so `JSON.parse` keeps its big numbers (as marker strings). */
  encode(text: string): Encoded {
    let value: unknown;
    try {
      value = parseLossless(text);
    } catch {
      return { text, value: undefined };
    }
    let found = false;
    const marked = JSON.stringify(value, (_key, v: unknown) => {
      if (!isRawJson(v)) return v;
      found = true;
      return this.#marker + v.rawJSON;
    });
    return { text: found ? marked : text, value };
  }

  /** Turns the marker strings in a parsed value back into `JSON.rawJSON` numbers, in place. */
  restore<T>(value: T): T {
    return this.#restore(value) as T;
  }

  #restore(value: unknown): unknown {
    if (typeof value === "string") {
      return value.startsWith(this.#marker)
        ? (JSON as unknown as RawJsonApi).rawJSON(
          value.slice(this.#marker.length),
        )
        : value;
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.#restore(value[i]);
      return value;
    }
    if (typeof value === "object" && value !== null && !isRawJson(value)) {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        record[key] = this.#restore(record[key]);
      }
    }
    return value;
  }
}
