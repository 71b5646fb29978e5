/**
 * Rendering a `tools/call` result as the text a model sees: weft's
 * transcript carries text only, so non-text content becomes one-line
 * markers (the core's `renderContentItems`).
 *
 * @module
 */

import { renderContentItems } from "../core/content.ts";

/**
 * What the model reads of a result that carries `structuredContent`:
 *
 * - `"structured"` (the default): its compact JSON, whatever `content` holds.
 * - `"text"`: the content items; the JSON only when there are none.
 * - `"both"`: the content items, then the JSON on a line of its own — left
 *   out when a text item already holds that JSON.
 *
 * A result without structured content reads as its content items in every
 * mode.
 */
export type ResultRendering = "structured" | "text" | "both";

/** Options for {@link renderContent}. */
export interface RenderOptions {
  /** Which of the result's channels the text is made of; `"structured"` when absent. */
  render?: ResultRendering;
}

/**
 * Renders a `tools/call` result (as it arrived, unvalidated) to text.
 *
 * - `structuredContent` present and not `null`: its compact JSON
 *   (`JSON.stringify`), whatever `content` holds — or, with `render`, the
 *   content items, or both ({@link ResultRendering}).
 * - Otherwise one line per `content` item, joined with `"\n"`:
 *   a text item verbatim; an image or audio item as
 *   `[image <mimeType>, <N> bytes]` / `[audio <mimeType>, <N> bytes]`, N the
 *   decoded payload size (computed from the base64 text, padding-exact,
 *   never decoded); an embedded resource as `[resource <uri>]` (`[resource ]`
 *   when the resource object or its uri is missing); a resource link as
 *   `[resource <uri>]`; anything else, including an item missing the fields
 *   its type needs, as `[content]`.
 * - No content and no structured content: `""`.
 *
 * @example Using `renderContent`
 * ```ts
 * import { renderContent } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 * const text = renderContent({
 *   content: [
 *     { type: "text", text: "one" },
 *     { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
 *   ],
 * });
 * assert.equal(text, "one\n[image image/png, 8 bytes]");
 * const both = { content: [{ type: "text", text: "1 hit" }], structuredContent: { hits: 1 } };
 * assert.equal(renderContent(both), '{"hits":1}');
 * assert.equal(renderContent(both, { render: "text" }), "1 hit");
 * assert.equal(renderContent(both, { render: "both" }), '1 hit\n{"hits":1}');
 * ```
 */
export function renderContent(
  result: unknown,
  options: RenderOptions = {},
): string {
  if (!isRecord(result)) return "";
  const structured = result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : undefined;
  if (structured === undefined || structured === null) {
    return content === undefined ? "" : renderContentItems(content);
  }
  const mode = options.render ?? "structured";
  if (mode === "structured" || content === undefined || content.length === 0) {
    return JSON.stringify(structured);
  }
  const items = renderContentItems(content);
  if (mode === "text") return items;
  const json = JSON.stringify(structured);
  return content.some((item) => holdsJson(item, json))
    ? items
    : `${items}\n${json}`;
}

// Whether a content item is a text item holding `json` (compact or not).
function holdsJson(item: unknown, json: string): boolean {
  if (!isRecord(item) || item.type !== "text") return false;
  const text = item.text;
  if (typeof text !== "string") return false;
  if (text === json) return true;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
