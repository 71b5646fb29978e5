/**
 * Regular expressions written by someone else (a model's search query),
 * matched in time linear in the text: RE2's automata (the `re2js` port),
 * never V8's backtracking engine, so no pattern can stall the process.
 * The one module of the core that imports an npm package.
 *
 * @module
 */

import { RE2JS } from "re2js";

/**
 * Why a pattern is not matched: `"invalid"` (not a regular expression),
 * `"unsupported"` (JavaScript accepts it, RE2 does not: back-references,
 * lookaround, `\u0041`), `"too_large"` (its compiled program,
 * counted repetitions expanded, is over the cap).
 */
export type LinearRegexRefusal = "invalid" | "unsupported" | "too_large";

/** A pattern refused by {@linkcode linearRegex}; `detail` is RE2's reason, or the program size. */
export class LinearRegexError extends Error {
  /** Why it was refused. */
  readonly kind: LinearRegexRefusal;
  /** RE2's parse error, or `<n> instructions` for `"too_large"`. */
  readonly detail: string;

  /** Builds the refusal of a pattern. */
  constructor(kind: LinearRegexRefusal, detail: string, cause?: unknown) {
    super(`regular expression refused (${kind}): ${detail}`, { cause });
    this.name = "LinearRegexError";
    this.kind = kind;
    this.detail = detail;
  }
}

/** A compiled pattern: `test` says whether it matches somewhere in `text`. */
export interface LinearRegex {
  test(text: string): boolean;
}

/** `linearRegex`' options. */
export interface LinearRegexOptions {
  /** Match regardless of case. */
  readonly ignoreCase?: boolean;
  /**
   * The most instructions the compiled program may have: matching costs
   * at most the text's length times this (`a{1000}` is a thousand).
   */
  readonly maxProgram: number;
}

/**
 * Compiles `source`, in RE2 syntax (Perl's, without back-references or
 * lookaround; `\x{41}` for a code point), for matching in linear time, or
 * throws a {@linkcode LinearRegexError}. It is not translated from
 * JavaScript's: a translation turns `\k<name>` into the letters `k<name>`,
 * a silent change of meaning.
 */
export function linearRegex(
  source: string,
  options: LinearRegexOptions,
): LinearRegex {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(
      source,
      options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0,
    );
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new LinearRegexError(
      jsAccepts(source) ? "unsupported" : "invalid",
      detail,
      err,
    );
  }
  const size = programSize(compiled);
  if (size > options.maxProgram) {
    throw new LinearRegexError("too_large", `${size} instructions`);
  }
  return { test: (text) => compiled.test(text) };
}

// Whether V8 compiles `source`: compiling runs nothing, so it cannot stall.
function jsAccepts(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false; // the pattern is invalid for both engines: reported as such
  }
}

// The compiled program's instruction count. re2js does not type it: read
// defensively, and count an unreadable program as empty (re2js is pinned
// to one version, whose shape the search's tests exercise).
function programSize(compiled: RE2JS): number {
  const prog = (compiled.re2() as { prog?: { inst?: unknown } }).prog;
  return Array.isArray(prog?.inst) ? prog.inst.length : 0;
}
