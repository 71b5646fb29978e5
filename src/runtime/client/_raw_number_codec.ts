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
  /** Whether some text was re-encoded: until then nothing needs restoring. */
  #marked = false;

  /**
   * Re-encodes a JSON text so `JSON.parse` keeps its big numbers (as marker
   * strings). Text that cannot hold one (no run of 16 digits, no exponent)
   * is handed on as it is, without being parsed here: `value` then parses
   * it on first use.
   */
  encode(text: string): Encoded {
    if (!mayHoldBigNumber(text)) return new Plain(text);
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
    if (found) this.#marked = true;
    return { text: found ? marked : text, value };
  }

  /**
   * Turns the marker strings in a parsed value back into `JSON.rawJSON`
   * numbers, in place; a no-op until some text was re-encoded.
   */
  restore<T>(value: T): T {
    return this.#marked ? this.#restore(value) as T : value;
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

// A number needs its digits kept only when it is an integer of 16 digits or
// more, or has an exponent (it may overflow a double): the lossless
// reader's own test (`MAY_NEED_DIGITS` in src/core/json.ts).
const MAY_HOLD_BIG_NUMBER = /\d(?:\d{15}|[eE])/;

/**
 * Whether `text` may hold a number {@link RawNumberCodec.encode} would
 * re-encode (a run of 16 digits, or a digit before an exponent mark). When
 * it does not, the text needs no lossless work at all.
 */
export function mayHoldBigNumber(text: string): boolean {
  return MAY_HOLD_BIG_NUMBER.test(text);
}

/** Text handed on as it is; its value parsed only if asked for. */
class Plain implements Encoded {
  readonly text: string;
  #value?: { parsed: unknown };

  constructor(text: string) {
    this.text = text;
  }

  get value(): unknown {
    if (this.#value === undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(this.text);
      } catch {
        parsed = undefined;
      }
      this.#value = { parsed };
    }
    return this.#value.parsed;
  }
}
