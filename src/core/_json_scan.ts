/**
 * A scanner for JSON text that finds where the first value ends without
 * building it, so "a second value" (trailing data) and "invalid JSON at
 * offset N" can be told apart, which `JSON.parse` alone cannot do. Its
 * reasons keep the wording weft's models have always seen.
 *
 * @module
 */

/**
 * A syntax error found by {@link scanJson}. `message` is the reason alone
 * (e.g. `invalid character '}' looking for beginning of value`, or
 * `unexpected end of input`); the callers add their own prefix.
 */
export class JsonSyntaxError extends SyntaxError {
  /** The UTF-8 byte offset of the offending character (the text's length at the end of input). */
  readonly offset: number;
  /** The same position as a UTF-16 index into the text. */
  readonly index: number;
  /** True when the text ended inside a value. */
  readonly endOfInput: boolean;

  /** Builds the error for the text, the index of the offending character and the reason. */
  constructor(text: string, index: number, reason: string) {
    super(reason);
    this.name = "JsonSyntaxError";
    this.index = index;
    this.offset = utf8Length(text, index);
    this.endOfInput = index >= text.length;
  }
}

/** Where the first JSON value of a text lies, as UTF-16 indices. */
export interface JsonExtent {
  /** The index of the value's first character. */
  readonly start: number;
  /** The index just past the value. */
  readonly end: number;
  /** The index of the first non-whitespace character after the value; -1 when there is none. */
  readonly trailing: number;
}

/**
 * Scans the first JSON value of a text without building it. Resolves to its
 * extent, or `undefined` when the text is empty or JSON whitespace only.
 * Throws {@link JsonSyntaxError} at the first character that breaks the
 * grammar (RFC 8259); bytes after a complete value are reported through
 * `trailing`, not thrown, so "a second value" and "invalid JSON" differ.
 *
 * @example Using `scanJson`
 * ```ts
 * import { scanJson } from "./_json_scan.ts";
 * import assert from "node:assert/strict";
 * assert.equal(scanJson("{} {}")?.trailing, 3);
 * assert.equal(scanJson("  "), undefined);
 * ```
 */
export function scanJson(text: string): JsonExtent | undefined {
  const start = skipSpace(text, 0);
  if (start >= text.length) return undefined;
  const end = new Scanner(text).scan(start);
  const after = skipSpace(text, end);
  return { start, end, trailing: after < text.length ? after : -1 };
}

/** The UTF-8 length of `text` up to `end` (lone surrogates count 3, as TextEncoder writes U+FFFD). */
export function utf8Length(text: string, end: number = text.length): number {
  let bytes = 0;
  for (let i = 0; i < end && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (
      unit >= 0xd800 && unit <= 0xdbff && isLow(text.charCodeAt(i + 1))
    ) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length && isSpace(text[pos])) pos++;
  return pos;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function quoteChar(text: string, index: number): string {
  const ch = String.fromCodePoint(text.codePointAt(index) ?? 0);
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  return `'${JSON.stringify(ch).slice(1, -1)}'`;
}

const LITERALS: Readonly<Record<string, string>> = {
  t: "true",
  f: "false",
  n: "null",
};
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

// An iterative scanner: containers live on an explicit stack, so deeply
// nested input cannot overflow the call stack.
class Scanner {
  readonly #text: string;
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
  }

  scan(start: number): number {
    this.#pos = start;
    const stack: string[] = [];
    for (;;) {
      const opened = this.#value();
      if (opened === "[") {
        this.#pos = skipSpace(this.#text, this.#pos);
        if (this.#text[this.#pos] !== "]") {
          stack.push("]");
          continue;
        }
        this.#pos++;
      } else if (opened === "{") {
        this.#pos = skipSpace(this.#text, this.#pos);
        if (this.#text[this.#pos] !== "}") {
          this.#key();
          stack.push("}");
          continue;
        }
        this.#pos++;
      }
      if (!this.#next(stack)) return this.#pos;
    }
  }

  // After a complete value: consume separators and closers until another
  // value is due (true) or the outermost value is complete (false).
  #next(stack: string[]): boolean {
    while (stack.length > 0) {
      this.#pos = skipSpace(this.#text, this.#pos);
      const closer = stack[stack.length - 1];
      const c = this.#text[this.#pos];
      if (c === ",") {
        this.#pos = skipSpace(this.#text, this.#pos + 1);
        if (closer === "}") this.#key();
        return true;
      }
      if (c === closer) {
        stack.pop();
        this.#pos++;
        continue;
      }
      this.#fail(
        closer === "}" ? "after object key:value pair" : "after array element",
      );
    }
    return false;
  }

  // An object key, its colon, and the whitespace before the value.
  #key(): void {
    if (this.#text[this.#pos] !== '"') {
      this.#fail("looking for beginning of object key string");
    }
    this.#string();
    this.#pos = skipSpace(this.#text, this.#pos);
    if (this.#text[this.#pos] !== ":") this.#fail("after object key");
    this.#pos = skipSpace(this.#text, this.#pos + 1);
  }

  // Scans one scalar, or the opening bracket of a container (returned).
  #value(): string | undefined {
    this.#pos = skipSpace(this.#text, this.#pos);
    const c = this.#text[this.#pos];
    if (c === "{" || c === "[") {
      this.#pos++;
      return c;
    }
    if (c === '"') this.#string();
    else if (c === "-" || isDigit(c)) this.#number();
    else if (c !== undefined && c in LITERALS) this.#literal(LITERALS[c]);
    else this.#fail("looking for beginning of value");
    return undefined;
  }

  #string(): void {
    const text = this.#text;
    this.#pos++;
    for (;;) {
      const c = text[this.#pos];
      if (c === undefined) this.#fail("");
      if (c === '"') {
        this.#pos++;
        return;
      }
      if (c < " ") this.#fail("in string literal");
      if (c === "\\") {
        this.#pos++;
        const e = text[this.#pos];
        if (e === "u") {
          for (let i = 1; i <= 4; i++) {
            this.#pos++;
            if (!/^[0-9a-fA-F]$/.test(text[this.#pos] ?? "")) {
              this.#fail("in \\u hexadecimal character escape");
            }
          }
        } else if (e === undefined || !ESCAPES.has(e)) {
          this.#fail("in string escape code");
        }
      }
      this.#pos++;
    }
  }

  #number(): void {
    const text = this.#text;
    if (text[this.#pos] === "-") this.#pos++;
    if (text[this.#pos] === "0") this.#pos++;
    else this.#digits("in numeric literal");
    if (text[this.#pos] === ".") {
      this.#pos++;
      this.#digits("after decimal point in numeric literal");
    }
    if (text[this.#pos] === "e" || text[this.#pos] === "E") {
      this.#pos++;
      if (text[this.#pos] === "+" || text[this.#pos] === "-") this.#pos++;
      this.#digits("in exponent of numeric literal");
    }
  }

  #digits(where: string): void {
    if (!isDigit(this.#text[this.#pos])) this.#fail(where);
    while (isDigit(this.#text[this.#pos])) this.#pos++;
  }

  #literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      const c = this.#text[this.#pos];
      if (c !== word[i]) {
        this.#fail(`in literal ${word} (expecting '${word[i]}')`);
      }
      this.#pos++;
    }
  }

  #fail(where: string): never {
    const text = this.#text;
    if (this.#pos >= text.length) {
      throw new JsonSyntaxError(text, text.length, "unexpected end of input");
    }
    throw new JsonSyntaxError(
      text,
      this.#pos,
      `invalid character ${quoteChar(text, this.#pos)} ${where}`,
    );
  }
}
