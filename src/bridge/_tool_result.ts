/**
 * A tool's result as a `CallToolResult`: its content items, its structured
 * value (a tool with an output schema must give a JSON object), an error
 * result's text; and a call's argument text.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { jsonTypeOf, parseLossless } from "../core/json.ts";
import { quote } from "../core/errors.ts";
import type { ToolResult } from "../core/tool.ts";

// The content items to send: a content result's items as they are, else
// the text as one text item.
export function contentOf(result: ToolResult): CallToolResult["content"] {
  if (result.content !== undefined) {
    return result.content.slice() as CallToolResult["content"];
  }
  return [{ type: "text", text: result.text }];
}

/**
 * The argument JSON text of a call: missing, `null` or empty arguments are
 * `{}`; otherwise `JSON.stringify` of the decoded object (which writes
 * `JSON.rawJSON` values from a lossless transport with every digit and does
 * not escape `<`, `>` or `&`).
 */
export function argumentText(args: unknown): string {
  if (args === undefined || args === null) return "{}";
  return JSON.stringify(args);
}

export function structuredResult(
  name: string,
  text: string,
  content: CallToolResult["content"],
): CallToolResult {
  let value: unknown;
  try {
    value = parseResult(text);
  } catch {
    return errorResult(
      `tool ${
        quote(name)
      } advertised an output schema, so its result must be JSON; got non-JSON text`,
    );
  }
  const kind = jsonTypeOf(value);
  if (kind !== "object") {
    // The SDK (and the spec) carry structuredContent as an object; a scalar
    // or an array would be refused as an invalid result, a protocol error.
    return errorResult(
      `tool ${
        quote(name)
      } advertised an output schema, so its result must be a JSON object; got ${kind}`,
    );
  }
  return { content, structuredContent: value as Record<string, unknown> };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

// A number JSON.parse would change has at least 16 digits in a row (an
// integer beyond 2^53) or a three-digit exponent (beyond a double's range).
const MAY_LOSE_DIGITS = /[0-9]{16}|[eE][+-]?[0-9]{3}/;

/**
 * `parseLossless`, with `JSON.parse` for text that holds no number it could
 * change: the lossless reviver costs several times `JSON.parse` on every
 * result of a tool with an output schema (bench/export_bench.ts).
 */
function parseResult(text: string): unknown {
  return MAY_LOSE_DIGITS.test(text) ? parseLossless(text) : JSON.parse(text);
}
