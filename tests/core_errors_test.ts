import assert from "node:assert/strict";
import {
  ApprovalRequiredError,
  CodeDenied,
  CodeInvalidInput,
  CodeNoSuchTool,
  CodeRetry,
  CodeSubagentCycle,
  CodeSubagentFailed,
  CodeSubagentPending,
  DuplicateToolError,
  errorText,
  InvalidInputError,
  MaxStepsError,
  MissingToolError,
  ModelContractError,
  ModelStreamError,
  NoSuchToolError,
  quote,
  SchemaError,
  ToolError,
  ToolOutputError,
  ToolPanicError,
  ToolTimeoutError,
} from "../src/core/errors.ts";

Deno.test("the codes are the Go strings", () => {
  assert.equal(CodeInvalidInput, "INVALID_INPUT");
  assert.equal(CodeNoSuchTool, "NO_SUCH_TOOL");
  assert.equal(CodeDenied, "DENIED");
  assert.equal(CodeRetry, "RETRY");
  assert.equal(CodeSubagentFailed, "SUBAGENT_FAILED");
  assert.equal(CodeSubagentPending, "SUBAGENT_PENDING");
  assert.equal(CodeSubagentCycle, "SUBAGENT_CYCLE");
});

Deno.test("ToolError renders CODE: Message", () => {
  const err = new ToolError("RETRY", "try a shorter query");
  assert.equal(err.message, "RETRY: try a shorter query");
  assert.equal(err.code, "RETRY");
  assert.equal(err.detail, "try a shorter query");
  assert.equal(err.name, "ToolError");
  assert.ok(err instanceof Error);
});

Deno.test("ToolError renders the code alone when the detail is empty", () => {
  assert.equal(new ToolError("DENIED").message, "DENIED");
  assert.equal(new ToolError("DENIED", "").message, "DENIED");
});

Deno.test("ToolError renders the detail alone when there is no code", () => {
  assert.equal(new ToolError("", "plain").message, "plain");
});

Deno.test("ToolError keeps its cause out of the text", () => {
  const cause = new Error("secret");
  const err = new ToolError("DENIED", "no", { cause });
  assert.equal(err.message, "DENIED: no");
  assert.equal(err.cause, cause);
});

Deno.test('InvalidInputError renders INVALID_INPUT: tool "x": reason', () => {
  const err = new InvalidInputError("search", 'missing required field "q"');
  assert.equal(
    err.message,
    'INVALID_INPUT: tool "search": missing required field "q"',
  );
  assert.equal(err.code, "INVALID_INPUT");
  assert.equal(err.reason, 'missing required field "q"');
  assert.ok(err instanceof ToolError);
});

Deno.test('NoSuchToolError renders NO_SUCH_TOOL: no tool named "x"', () => {
  const err = new NoSuchToolError("nope");
  assert.equal(err.message, 'NO_SUCH_TOOL: no tool named "nope"');
  assert.equal(err.code, "NO_SUCH_TOOL");
  assert.ok(err instanceof ToolError);
});

Deno.test("ApprovalRequiredError renders the approval text", () => {
  assert.equal(
    new ApprovalRequiredError("deploy").message,
    'weft: tool call requires approval: tool "deploy"',
  );
});

Deno.test('ToolPanicError renders tool "x" panicked: value', () => {
  const err = new ToolPanicError("panic", "bang");
  assert.equal(err.message, 'tool "panic" panicked: bang');
  assert.equal(err.cause, "bang");
  assert.equal(
    new ToolPanicError("p", new TypeError("t")).message,
    'tool "p" panicked: TypeError: t',
  );
});

Deno.test('ToolTimeoutError renders tool "x" timed out after d', () => {
  const err = new ToolTimeoutError("research", 50, "50ms");
  assert.equal(err.message, 'tool "research" timed out after 50ms');
  assert.equal(err.timeout, 50);
});

Deno.test('ToolOutputError renders marshal output of tool "x": cause', () => {
  const err = new ToolOutputError("o", new TypeError("cyclic"));
  assert.equal(err.message, 'marshal output of tool "o": cyclic');
  assert.ok(!(err instanceof ToolError));
});

Deno.test("SchemaError renders weft: parseSchema: detail", () => {
  const err = new SchemaError("empty schema");
  assert.equal(err.message, "weft: parseSchema: empty schema");
  assert.equal(err.detail, "empty schema");
});

Deno.test("the run-level errors render their texts", () => {
  assert.equal(
    new ModelContractError("stream ended without a finish event").message,
    "weft: model violated the stream contract: stream ended without a finish event",
  );
  assert.equal(
    new ModelStreamError(new Error("provider down")).message,
    "model stream: provider down",
  );
  assert.equal(
    new MaxStepsError().message,
    "weft: run exceeded the maximum number of steps",
  );
  assert.equal(
    new DuplicateToolError("x").message,
    'weft: duplicate tool name from tool source: "x"',
  );
  assert.equal(
    new MissingToolError(2).message,
    "weft: toolSource returned null or undefined at entry 2",
  );
});

Deno.test("quote is Go's %q for printable text", () => {
  assert.equal(quote("a"), '"a"');
  assert.equal(quote('a"b\\c\n'), '"a\\"b\\\\c\\n"');
});

Deno.test("errorText reads an Error's message or String(value)", () => {
  assert.equal(errorText(new Error("m")), "m");
  assert.equal(errorText("s"), "s");
  assert.equal(errorText(Object.create(null)), "[object Object]");
});
