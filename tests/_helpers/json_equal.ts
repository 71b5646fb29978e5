/**
 * Semantic JSON comparison for tests: objects compare order-insensitively,
 * arrays in order, numbers by value. A `JSON.rawJSON` value compares by its
 * JSON text, so an integer beyond 2^53 is equal only to the same digits.
 *
 * Shared by every test that compares schema documents (go-mcp P-9).
 */

import { AssertionError } from "node:assert/strict";

type RawJSONApi = { isRawJSON(value: unknown): boolean };
const rawApi = JSON as unknown as RawJSONApi;

function isRaw(value: unknown): value is { rawJSON: string } {
  return typeof rawApi.isRawJSON === "function" && rawApi.isRawJSON(value);
}

/** The JSON text of a leaf, for comparing a raw number with a plain one. */
function leafText(value: unknown): string {
  return isRaw(value) ? value.rawJSON : JSON.stringify(value);
}

/**
 * The first difference between two JSON values, as a path and a reason, or
 * `undefined` when they are semantically equal.
 */
export function jsonDiff(
  actual: unknown,
  expected: unknown,
  path = "$",
): string | undefined {
  if (isRaw(actual) || isRaw(expected)) {
    const a = leafText(actual);
    const e = leafText(expected);
    return a === e ? undefined : `${path}: ${a} !== ${e}`;
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected)) {
      return `${path}: array vs non-array`;
    }
    if (actual.length !== expected.length) {
      return `${path}: length ${actual.length} !== ${expected.length}`;
    }
    for (let i = 0; i < actual.length; i++) {
      const d = jsonDiff(actual[i], expected[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(actual) || isObject(expected)) {
    if (!isObject(actual) || !isObject(expected)) {
      return `${path}: object vs non-object`;
    }
    const aKeys = Object.keys(actual).sort();
    const eKeys = Object.keys(expected).sort();
    if (aKeys.join("\u0000") !== eKeys.join("\u0000")) {
      return `${path}: keys ${JSON.stringify(aKeys)} !== ${
        JSON.stringify(eKeys)
      }`;
    }
    for (const key of aKeys) {
      const d = jsonDiff(actual[key], expected[key], `${path}.${key}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return Object.is(actual, expected) || actual === expected
    ? undefined
    : `${path}: ${leafText(actual)} !== ${leafText(expected)}`;
}

/** Whether two JSON values are semantically equal. */
export function jsonEqual(actual: unknown, expected: unknown): boolean {
  return jsonDiff(actual, expected) === undefined;
}

/** Throws an `AssertionError` naming the first difference unless the values are semantically equal. */
export function assertJsonEqual(
  actual: unknown,
  expected: unknown,
  message?: string,
): void {
  const diff = jsonDiff(actual, expected);
  if (diff !== undefined) {
    throw new AssertionError({
      message: `${message ? message + ": " : ""}JSON differs at ${diff}`,
      actual,
      expected,
      operator: "jsonEqual",
    });
  }
}

/** Every object's keys in document order, depth first: equal lists mean equal key order. */
export function keyOrder(
  value: unknown,
  out: string[] = [],
  path = "$",
): string[] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => keyOrder(v, out, `${path}[${i}]`));
  } else if (isObject(value) && !isRaw(value)) {
    for (const key of Object.keys(value)) {
      out.push(`${path}.${key}`);
      keyOrder(value[key], out, `${path}.${key}`);
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
