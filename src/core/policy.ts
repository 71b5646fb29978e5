/**
 * Run-policy helpers the agent loop applies around a tool call: the
 * duration rendering of timeouts, the result cap with its truncation marker,
 * and the rule that tells a handler error from a panic.
 *
 * @module
 */

import { ToolPanicError } from "./errors.ts";

/** The default result cap, in UTF-8 bytes (64 KiB). */
export const DEFAULT_MAX_RESULT_BYTES = 65536;

const NS_PER_US = 1000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * Renders a duration given in milliseconds (possibly fractional) in the
 * compact duration format weft's texts use, at nanosecond precision (rounded): `0s`; below
 * a second the smallest fitting unit with its fraction trimmed (`500ns`,
 * `1.5µs` with U+00B5, `20ms`, `1.5ms`); from a second on `[Nh][Nm]N[.f]s`,
 * smaller units always printed once a larger one is (`1.5s`, `1m0s`,
 * `2m30s`, `1h0m0s`). Negative durations get a leading `-`. A non-finite
 * input renders as `String(ms)`.
 *
 * @example Using `formatDuration`
 * ```ts
 * import { formatDuration } from "./policy.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatDuration(50), "50ms");
 * assert.equal(formatDuration(150_000), "2m30s");
 * ```
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const ns = BigInt(Math.round(ms * 1e6));
  const negative = ns < 0n;
  const text = formatNanoseconds(negative ? -ns : ns);
  return negative ? `-${text}` : text;
}

function formatNanoseconds(ns: bigint): string {
  if (ns === 0n) return "0s";
  if (ns < NS_PER_US) return `${ns}ns`;
  if (ns < NS_PER_MS) return `${fraction(ns, NS_PER_US)}µs`;
  if (ns < NS_PER_S) return `${fraction(ns, NS_PER_MS)}ms`;
  const hours = ns / (3600n * NS_PER_S);
  const minutes = (ns / (60n * NS_PER_S)) % 60n;
  const seconds = fraction(ns % (60n * NS_PER_S), NS_PER_S);
  if (hours > 0n) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

// `value / unit` in decimal, the fraction's trailing zeros trimmed.
function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return `${whole}`;
  const width = unit.toString().length - 1;
  const digits = rest.toString().padStart(width, "0").replace(/0+$/, "");
  return `${whole}.${digits}`;
}

/**
 * Caps a result at `maxBytes` UTF-8 bytes. When the text is longer, it is
 * cut at the cap, moved back to the start of a code point, and given the
 * marker `\n…[truncated N bytes]` (U+2026), N being the bytes the model does
 * not receive; the marker is not counted against the cap. A cap of 0 or
 * less (or NaN) means no cap.
 *
 * @example Using `truncateResult`
 * ```ts
 * import { truncateResult } from "./policy.ts";
 * import assert from "node:assert/strict";
 * assert.equal(truncateResult("x".repeat(500), 8), "xxxxxxxx\n…[truncated 492 bytes]");
 * ```
 */
export function truncateResult(text: string, maxBytes: number): string {
  if (!(maxBytes > 0)) return text;
  const cap = Math.floor(maxBytes);
  // A string of n UTF-16 units holds at most 3n UTF-8 bytes.
  if (text.length * 3 <= cap) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= cap) return text;
  let cut = cap;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  const kept = new TextDecoder().decode(bytes.subarray(0, cut));
  return `${kept}\n…[truncated ${bytes.length - cut} bytes]`;
}

/**
 * Whether a thrown value is a panic rather than a handler error: anything
 * that is not an `Error`, and the engine's own error classes (`TypeError`,
 * `ReferenceError`, `RangeError`, `SyntaxError`, `EvalError`, `URIError`,
 * subclasses included), which signal a bug, not an outcome.
 *
 * @example Using `isPanic`
 * ```ts
 * import { isPanic } from "./policy.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isPanic("bang") && isPanic(new TypeError("x")) && !isPanic(new Error("x")));
 * ```
 */
export function isPanic(thrown: unknown): boolean {
  return !(thrown instanceof Error) ||
    thrown instanceof TypeError ||
    thrown instanceof ReferenceError ||
    thrown instanceof RangeError ||
    thrown instanceof SyntaxError ||
    thrown instanceof EvalError ||
    thrown instanceof URIError;
}

/**
 * The failure a thrown value stands for: a handler error is returned as it
 * is; a panic (see {@link isPanic}) becomes a `ToolPanicError` with the
 * value as its cause.
 *
 * @example Using `failureError`
 * ```ts
 * import { failureError } from "./policy.ts";
 * import assert from "node:assert/strict";
 * assert.equal(failureError("t", 42).message, 'tool "t" panicked: 42');
 * ```
 */
export function failureError(tool: string, thrown: unknown): Error {
  if (isPanic(thrown)) return new ToolPanicError(tool, thrown);
  return thrown as Error;
}

/**
 * The text the model reads for a failed call: a handler
 * error's message (a `ToolError` renders `CODE: Message`), or
 * `tool "x" panicked: <String(value)>` for a panic.
 *
 * @example Using `failureText`
 * ```ts
 * import { failureText } from "./policy.ts";
 * import { ToolError } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * assert.equal(failureText("t", new ToolError("RETRY", "again")), "RETRY: again");
 * assert.equal(failureText("t", "bang"), 'tool "t" panicked: bang');
 * ```
 */
export function failureText(tool: string, thrown: unknown): string {
  return failureError(tool, thrown).message;
}
