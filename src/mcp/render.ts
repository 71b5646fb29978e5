/**
 * Rendering a `tools/call` result as the text a model sees: weft's
 * transcript carries text only, so non-text content becomes one-line
 * markers.
 *
 * @module
 */

/**
 * Renders a `tools/call` result (as it arrived, unvalidated) to text.
 *
 * - `structuredContent` present and not `null`: its compact JSON
 *   (`JSON.stringify`), whatever `content` holds.
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
 * assert.equal(renderContent({ structuredContent: { a: 1 } }), '{"a":1}');
 * ```
 */
export function renderContent(result: unknown): string {
  if (!isRecord(result)) return "";
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    return JSON.stringify(structured);
  }
  const content = result.content;
  if (!Array.isArray(content)) return "";
  if (content.length === 1) return renderItem(content[0]);
  const lines: string[] = new Array(content.length);
  for (let i = 0; i < content.length; i++) lines[i] = renderItem(content[i]);
  return lines.join("\n");
}

function renderItem(item: unknown): string {
  if (!isRecord(item)) return "[content]";
  switch (item.type) {
    case "text":
      return typeof item.text === "string" ? item.text : "[content]";
    case "image":
    case "audio":
      return renderMedia(item.type, item);
    case "resource": {
      const resource = item.resource;
      const uri = isRecord(resource) && typeof resource.uri === "string"
        ? resource.uri
        : "";
      return `[resource ${uri}]`;
    }
    case "resource_link":
      return typeof item.uri === "string"
        ? `[resource ${item.uri}]`
        : "[content]";
    default:
      return "[content]";
  }
}

function renderMedia(kind: string, item: Record<string, unknown>): string {
  const { mimeType, data } = item;
  if (typeof mimeType !== "string" || typeof data !== "string") {
    return "[content]";
  }
  return `[${kind} ${mimeType}, ${base64DecodedLength(data)} bytes]`;
}

const hasWhitespace = /[\t\n\r ]/;
const allWhitespace = /[\t\n\r ]/g;

/**
 * The number of bytes a base64 text decodes to, from its length and its `=`
 * padding, without decoding. Whitespace (MIME line breaks) is not counted;
 * unpadded text counts the same as padded.
 *
 * @example Using `base64DecodedLength`
 * ```ts
 * import { base64DecodedLength } from "./render.ts";
 * import assert from "node:assert/strict";
 * assert.equal(base64DecodedLength("QQ=="), 1);
 * assert.equal(base64DecodedLength("QUI="), 2);
 * assert.equal(base64DecodedLength("QUJD"), 3);
 * assert.equal(base64DecodedLength("QUI"), 2);
 * ```
 */
export function base64DecodedLength(data: string): number {
  const text = hasWhitespace.test(data)
    ? data.replace(allWhitespace, "")
    : data;
  let length = text.length;
  let padding = 0;
  while (padding < 2 && length > 0 && text.charCodeAt(length - 1) === 0x3d) {
    length--;
    padding++;
  }
  // Each 4 characters carry 3 bytes; a trailing group of 2 or 3 carries 1 or 2.
  return Math.floor((length * 3) / 4);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
