import assert from "node:assert/strict";
import { ToolError, ToolPanicError } from "../src/core/errors.ts";
import {
  DEFAULT_MAX_RESULT_BYTES,
  failureError,
  failureText,
  formatDuration,
  isPanic,
  truncateResult,
} from "../src/core/policy.ts";

Deno.test("formatDuration writes Go's duration format", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [0.0005, "500ns"],
    [0.000001, "1ns"],
    [0.0015, "1.5µs"],
    [0.999, "999µs"],
    [1.5, "1.5ms"],
    [10, "10ms"],
    [20, "20ms"],
    [50, "50ms"],
    [100, "100ms"],
    [999.9999, "999.9999ms"],
    [1000, "1s"],
    [1500, "1.5s"],
    [10_000, "10s"],
    [60_000, "1m0s"],
    [90_500, "1m30.5s"],
    [150_000, "2m30s"],
    [3_600_000, "1h0m0s"],
    [3_661_001, "1h1m1.001s"],
    [-1500, "-1.5s"],
    [-0.0005, "-500ns"],
  ];
  for (const [ms, text] of cases) {
    assert.equal(formatDuration(ms), text, `${ms}`);
  }
});

Deno.test("formatDuration uses U+00B5 for microseconds", () => {
  assert.equal(formatDuration(0.002), "2\u00b5s");
});

Deno.test("formatDuration rounds to the nanosecond", () => {
  assert.equal(formatDuration(0.0000004), "0s");
  assert.equal(formatDuration(0.1), "100µs");
});

Deno.test("formatDuration renders a non-finite input as String(ms)", () => {
  assert.equal(formatDuration(Infinity), "Infinity");
  assert.equal(formatDuration(NaN), "NaN");
});

Deno.test("truncateResult caps at the byte limit with the marker", () => {
  assert.equal(
    truncateResult("x".repeat(500), 8),
    "xxxxxxxx\n…[truncated 492 bytes]",
  );
  assert.equal(
    truncateResult("x".repeat(1000), 10),
    "xxxxxxxxxx\n…[truncated 990 bytes]",
  );
  assert.ok(
    truncateResult("x".repeat(1000), 100).endsWith(
      "\n\u2026[truncated 900 bytes]",
    ),
  );
});

Deno.test("truncateResult leaves text at or under the cap alone", () => {
  assert.equal(truncateResult("x".repeat(8), 8), "xxxxxxxx");
  assert.equal(truncateResult("éé", 4), "éé");
});

Deno.test("truncateResult cuts back to a code point boundary", () => {
  assert.equal(truncateResult("éé", 3), "é\n…[truncated 2 bytes]");
  assert.equal(truncateResult("a😀b", 3), "a\n…[truncated 5 bytes]");
  assert.equal(truncateResult("😀a", 2), "\n…[truncated 5 bytes]");
});

Deno.test("truncateResult counts UTF-8 bytes, not UTF-16 units", () => {
  // 4 characters, 8 UTF-16 units, 16 UTF-8 bytes.
  assert.equal(truncateResult("😀😀😀😀", 8), "😀😀\n…[truncated 8 bytes]");
});

Deno.test("truncateResult without a positive cap does not cap", () => {
  const long = "x".repeat(100_000);
  assert.equal(truncateResult(long, 0), long);
  assert.equal(truncateResult(long, -1), long);
  assert.equal(truncateResult(long, NaN), long);
});

Deno.test("the default result cap is 64 KiB", () => {
  assert.equal(DEFAULT_MAX_RESULT_BYTES, 65536);
});

Deno.test("failureText: an Error is a handler error and reads its message", () => {
  assert.equal(
    failureText("t", new Error("warehouse unreachable")),
    "warehouse unreachable",
  );
  assert.equal(failureText("t", new AggregateError([], "several")), "several");
  assert.equal(
    failureText("t", new DOMException("gone", "AbortError")),
    "gone",
  );
});

Deno.test("failureText: a ToolError renders CODE: Message", () => {
  assert.equal(failureText("t", new ToolError("DENIED", "no")), "DENIED: no");
  assert.equal(failureText("t", new ToolError("DENIED")), "DENIED");
});

Deno.test("failureText: a thrown non-Error is a panic", () => {
  assert.equal(failureText("x", "bang"), 'tool "x" panicked: bang');
  assert.equal(failureText("x", 42), 'tool "x" panicked: 42');
  assert.equal(failureText("x", undefined), 'tool "x" panicked: undefined');
  assert.equal(failureText("x", null), 'tool "x" panicked: null');
  assert.equal(
    failureText("x", { a: 1 }),
    'tool "x" panicked: [object Object]',
  );
});

Deno.test("failureText: the engine's error classes are panics", () => {
  assert.equal(
    failureText("x", new TypeError("a is undefined")),
    'tool "x" panicked: TypeError: a is undefined',
  );
  assert.equal(
    failureText("x", new ReferenceError("r")),
    'tool "x" panicked: ReferenceError: r',
  );
  assert.equal(
    failureText("x", new RangeError("r")),
    'tool "x" panicked: RangeError: r',
  );
  assert.equal(
    failureText("x", new SyntaxError("s")),
    'tool "x" panicked: SyntaxError: s',
  );
  assert.equal(
    failureText("x", new EvalError("e")),
    'tool "x" panicked: EvalError: e',
  );
  assert.equal(
    failureText("x", new URIError("u")),
    'tool "x" panicked: URIError: u',
  );
});

Deno.test("failureText: subclasses of the engine's classes are panics too", () => {
  class Broken extends TypeError {}
  assert.ok(isPanic(new Broken("b")));
});

Deno.test("failureText: a value whose String() throws still renders", () => {
  const hostile = Object.create(null);
  assert.equal(failureText("x", hostile), 'tool "x" panicked: [object Object]');
});

Deno.test("failureError returns handler errors unchanged and wraps panics", () => {
  const handler = new ToolError("RETRY", "again");
  assert.equal(failureError("t", handler), handler);
  const panic = failureError("t", "bang");
  assert.ok(panic instanceof ToolPanicError);
  assert.equal(panic.cause, "bang");
  assert.equal((panic as ToolPanicError).tool, "t");
});
