/**
 * Argument decoding for typed tools: the model's argument text becomes a
 * validated input value, or an `INVALID_INPUT` tool error whose text the
 * model reads.
 *
 * Which issue wins when there are several:
 *
 * 1. The text itself: invalid JSON, a second value, a non-object top level.
 * 2. Then the Standard Schema validates. When it accepts, the input is the
 *    validator's value; under strict input the undeclared fields are looked
 *    for first (the first in document order wins).
 * 3. When it refuses, the derived JSON Schema explains why: the first
 *    structural issue a left-to-right reader meets (a wrong JSON type, an
 *    undeclared field under strict input, a missing required field, noticed
 *    where its object closes). Only when the JSON Schema finds nothing does
 *    the validator's own issue show, the one earliest in the document.
 *
 * "Document order" is the order JavaScript enumerates the parsed keys, which
 * is the text's order except that integer-like keys come first.
 *
 * @module
 */

import type {
  StandardIssue,
  StandardResult,
  StandardSchemaV1,
} from "./standard_schema.ts";
import { InvalidInputError, quote } from "./errors.ts";
import { jsonTypeOf } from "./json.ts";
import { JsonSyntaxError, scanJson } from "./_json_scan.ts";

type Node = Readonly<Record<string, unknown>>;
type Segment = string | number;

/**
 * Reads the model's argument text as one JSON object. Empty text, JSON
 * whitespace and `null` read as `{}`. Throws {@link InvalidInputError} with
 * `invalid JSON at offset N: <reason>` (N is the UTF-8 byte offset of the
 * offending character), `invalid JSON: unexpected end of input`,
 * `trailing data after the JSON arguments`, or
 * `expected object at the top level, got <JSON type>`.
 *
 * @example Using `parseArguments`
 * ```ts
 * import { parseArguments } from "./_decode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(JSON.stringify(parseArguments(" null ", "t")), "{}");
 * ```
 */
export function parseArguments(
  args: string,
  tool: string,
): Record<string, unknown> {
  let value: unknown;
  try {
    // JSON.parse accepts exactly the texts the scanner reads as one value,
    // several times faster; the scanner runs only to word a refusal (the
    // export hot path, bench/export_bench.ts).
    value = JSON.parse(args);
  } catch {
    value = scannedValue(args, tool);
  }
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw notAnObject(value, tool);
  }
  return value as Record<string, unknown>;
}

/**
 * The refusal of arguments that decoded to `value`, a JSON value that is
 * not an object: an {@link InvalidInputError} reading
 * `INVALID_INPUT: tool "<tool>": expected object at the top level, got <JSON type>`.
 *
 * @example Using `notAnObject`
 * ```ts
 * import { notAnObject } from "./_decode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   notAnObject([1], "t").message,
 *   'INVALID_INPUT: tool "t": expected object at the top level, got array',
 * );
 * ```
 */
export function notAnObject(value: unknown, tool: string): InvalidInputError {
  return new InvalidInputError(
    tool,
    `expected object at the top level, got ${jsonTypeOf(value)}`,
  );
}

// The value of text JSON.parse refused: blank text reads as null; otherwise
// the scanner's reason as an INVALID_INPUT error.
function scannedValue(args: string, tool: string): unknown {
  let extent;
  try {
    extent = scanJson(args);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    const reason = err.endOfInput
      ? `invalid JSON: ${err.message}`
      : `invalid JSON at offset ${err.offset}: ${err.message}`;
    throw new InvalidInputError(tool, reason, { cause: err });
  }
  if (extent === undefined) return null;
  if (extent.trailing !== -1) {
    throw new InvalidInputError(tool, "trailing data after the JSON arguments");
  }
  return JSON.parse(args);
}

/** Options for {@link decodeArguments}. */
export interface DecodeOptions {
  /** The tool's name, for the error texts. */
  readonly tool: string;
  /** The JSON Schema derived from the validator (a parsed schema's `raw`). */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  /** Reject fields the JSON Schema does not declare. */
  readonly strict?: boolean;
}

/**
 * Decodes and validates a typed tool's argument text: {@link parseArguments},
 * then the Standard Schema's `validate`, with the issue rules of this
 * module's doc. Resolves to the validator's value; rejects with
 * {@link InvalidInputError}.
 *
 * @example Using `decodeArguments`
 * ```ts
 * import { z } from "zod";
 * import { decodeArguments } from "./_decode.ts";
 * import assert from "node:assert/strict";
 * const input = z.object({ q: z.string() });
 * const jsonSchema = input["~standard"].jsonSchema.input({ target: "draft-2020-12" });
 * const err = await decodeArguments("{}", input, { tool: "search", jsonSchema }).catch((e) => e);
 * assert.equal(err.message, 'INVALID_INPUT: tool "search": missing required field "q"');
 * ```
 */
export async function decodeArguments<T>(
  args: string,
  validator: StandardSchemaV1<unknown, T>,
  options: DecodeOptions,
): Promise<T> {
  const value = parseArguments(args, options.tool);
  return await validateNow(value, validator, options);
}

/**
 * {@link decodeArguments} after {@link parseArguments}, on the decoded
 * object, and without a promise when the validator answers synchronously
 * (zod does): the value, or a synchronous throw. Internal to weft: the
 * typed tool's invoke saves two promise hops per call with it, and the
 * export bridge hands it the client's arguments object when that is plain
 * JSON data, which reads exactly as its text would.
 */
export function validateNow<T>(
  value: Record<string, unknown>,
  validator: StandardSchemaV1<unknown, T>,
  options: DecodeOptions,
): T | Promise<T> {
  const outcome = validator["~standard"].validate(value);
  return isThenable(outcome)
    ? Promise.resolve(outcome).then((result) => settle(result, value, options))
    : settle(outcome, value, options);
}

/** Whether `value` is a promise or another thenable (what `await` adopts). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") &&
    value !== null && typeof (value as { then?: unknown }).then === "function";
}

function settle<T>(
  result: StandardResult<T>,
  value: Record<string, unknown>,
  options: DecodeOptions,
): T {
  const strict = options.strict === true;
  if (result.issues !== undefined) {
    const reason =
      walk(value, options.jsonSchema, [], { types: true, unknown: strict }) ??
        validatorReason(result.issues, value);
    throw new InvalidInputError(options.tool, reason);
  }
  if (strict) {
    const reason = walk(value, options.jsonSchema, [], {
      types: false,
      unknown: true,
    });
    if (reason !== undefined) throw new InvalidInputError(options.tool, reason);
  }
  return result.value;
}

/**
 * The first issue of a value a validator refused, worded as the
 * `INVALID_INPUT` reasons are: the first structural issue against the JSON
 * Schema in document order, else the validator's own issue earliest in the
 * document. Internal to weft (a typed tool's output check).
 */
export function issueReason(
  value: unknown,
  issues: readonly StandardIssue[],
  jsonSchema: Readonly<Record<string, unknown>>,
): string {
  return walk(value, jsonSchema as Node, [], { types: true, unknown: false }) ??
    validatorReason(issues, value);
}

/**
 * The first structural issue of `value` against a JSON Schema document (a
 * wrong type or a missing required field, in document order), or
 * `undefined`: the check a plain JSON Schema tool input gets.
 */
export function structuralIssue(
  value: unknown,
  jsonSchema: Readonly<Record<string, unknown>>,
): string | undefined {
  return walk(value, jsonSchema as Node, [], { types: true, unknown: false });
}

interface WalkOptions {
  /** Report wrong types and missing required fields. */
  readonly types: boolean;
  /** Report fields a closed object does not declare. */
  readonly unknown: boolean;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function dotted(path: readonly Segment[]): string {
  return path.map(String).join(".");
}

// The first structural issue of `value` against schema node `node`, in
// document order; a node's missing required fields count at its end.
function walk(
  value: unknown,
  node: Node,
  path: Segment[],
  options: WalkOptions,
): string | undefined {
  if (options.types) {
    const expected = expectedType(node, value);
    if (expected !== undefined) {
      return `field ${quote(dotted(path))}: expected ${expected}, got ${
        jsonTypeOf(value)
      }`;
    }
  }
  if (Array.isArray(value)) {
    if (!isNode(node.items)) return undefined;
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], node.items, [...path, i], options);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isNode(value)) return undefined;
  return walkObject(value, node, path, options);
}

function walkObject(
  value: Node,
  node: Node,
  path: Segment[],
  options: WalkOptions,
): string | undefined {
  const properties = isNode(node.properties) ? node.properties : undefined;
  const extra = node.additionalProperties;
  const open = isNode(extra) || extra === true ||
    node.patternProperties !== undefined;
  const closed = !open && (properties !== undefined || extra === false);
  for (const key of Object.keys(value)) {
    const declared = properties !== undefined && Object.hasOwn(properties, key)
      ? properties[key]
      : undefined;
    const child = declared ?? (isNode(extra) ? extra : undefined);
    if (isNode(child)) {
      const found = walk(value[key], child, [...path, key], options);
      if (found !== undefined) return found;
    } else if (declared === undefined && closed && options.unknown) {
      return `unknown field ${
        quote(dotted([...path, key]))
      }: not in the schema`;
    }
  }
  if (options.types && Array.isArray(node.required)) {
    for (const name of node.required) {
      if (typeof name === "string" && !Object.hasOwn(value, name)) {
        return `missing required field ${quote(dotted([...path, name]))}`;
      }
    }
  }
  return undefined;
}

const TYPE_CHECKS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  array: (v) => Array.isArray(v),
  object: (v) => isNode(v),
  null: (v) => v === null,
};

// The advertised type `value` fails, as the text names it; undefined when
// it passes or the node's `type` is nothing this check knows.
function expectedType(node: Node, value: unknown): string | undefined {
  const type = node.type;
  const names = typeof type === "string"
    ? [type]
    : Array.isArray(type) && type.every((t) => typeof t === "string")
    ? type as string[]
    : [];
  if (
    names.length === 0 || !names.every((n) => Object.hasOwn(TYPE_CHECKS, n))
  ) {
    return undefined;
  }
  if (names.some((n) => TYPE_CHECKS[n](value))) return undefined;
  return names.join(" or ");
}

function segmentsOf(issue: StandardIssue): Segment[] {
  return (issue.path ?? []).map((part) => {
    const key = typeof part === "object" && part !== null ? part.key : part;
    return typeof key === "number" ? key : String(key);
  });
}

// The position of an issue in document order: the index of each path
// segment among its container's keys, ending at the addressed node's close
// (Infinity). A segment the value lacks sorts at its container's close.
function positionOf(value: unknown, path: readonly Segment[]): number[] {
  const position: number[] = [];
  let current = value;
  for (const segment of path) {
    let index = -1;
    if (Array.isArray(current) && typeof segment === "number") {
      index = segment < current.length ? segment : -1;
    } else if (isNode(current)) {
      index = Object.keys(current).indexOf(String(segment));
    }
    if (index < 0) break;
    position.push(index);
    current = (current as Record<string, unknown>)[String(segment)];
  }
  position.push(Infinity);
  return position;
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i];
  }
  return a.length < b.length;
}

function validatorReason(
  issues: readonly StandardIssue[],
  value: unknown,
): string {
  let best: StandardIssue | undefined;
  let bestAt: number[] = [];
  for (const issue of issues) {
    const at = positionOf(value, segmentsOf(issue));
    if (best === undefined || before(at, bestAt)) {
      best = issue;
      bestAt = at;
    }
  }
  if (best === undefined) return "the arguments do not satisfy the schema";
  const path = dotted(segmentsOf(best));
  return path === "" ? best.message : `field ${quote(path)}: ${best.message}`;
}
