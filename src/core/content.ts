/**
 * Content results: what a tool returns when its answer is more than text —
 * images, audio, embedded resources, resource links — and the one-line
 * markers a text-only transcript shows for them. The shapes are MCP's
 * content items (the export sends them as they are); the core owns them and
 * their text rendering, so the loop, the export and the import read the
 * same bytes.
 *
 * @module
 */

/** Optional hints on one content item, as MCP carries them. */
export interface ContentAnnotations {
  /** Who the item is for. */
  readonly audience?: readonly ("user" | "assistant")[];
  /** How important the item is, from 0 (least) to 1 (most). */
  readonly priority?: number;
  /** When the item last changed, an ISO 8601 timestamp. */
  readonly lastModified?: string;
}

/** A text item. */
export interface TextContent {
  /** The item kind. */
  readonly type: "text";
  /** The text, verbatim. */
  readonly text: string;
  /** Optional hints. */
  readonly annotations?: ContentAnnotations;
  /** Metadata passed through untouched. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** An image item: base64 data and its MIME type. */
export interface ImageContent {
  /** The item kind. */
  readonly type: "image";
  /** The image bytes, base64-encoded. */
  readonly data: string;
  /** The image's MIME type, e.g. `image/png`. */
  readonly mimeType: string;
  /** Optional hints. */
  readonly annotations?: ContentAnnotations;
  /** Metadata passed through untouched. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** An audio item: base64 data and its MIME type. */
export interface AudioContent {
  /** The item kind. */
  readonly type: "audio";
  /** The audio bytes, base64-encoded. */
  readonly data: string;
  /** The audio's MIME type, e.g. `audio/wav`. */
  readonly mimeType: string;
  /** Optional hints. */
  readonly annotations?: ContentAnnotations;
  /** Metadata passed through untouched. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource's contents, as text or as base64 bytes. */
export type ResourceContents =
  | {
    /** The resource's URI. */
    readonly uri: string;
    /** Its MIME type, when known. */
    readonly mimeType?: string;
    /** Its contents as text. */
    readonly text: string;
  }
  | {
    /** The resource's URI. */
    readonly uri: string;
    /** Its MIME type, when known. */
    readonly mimeType?: string;
    /** Its contents, base64-encoded. */
    readonly blob: string;
  };

/** A resource embedded in the result, contents included. */
export interface EmbeddedResource {
  /** The item kind. */
  readonly type: "resource";
  /** The resource: its URI and its contents. */
  readonly resource: ResourceContents;
  /** Optional hints. */
  readonly annotations?: ContentAnnotations;
  /** Metadata passed through untouched. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A link to a resource the client may read. */
export interface ResourceLink {
  /** The item kind. */
  readonly type: "resource_link";
  /** The resource's URI. */
  readonly uri: string;
  /** The resource's name. */
  readonly name: string;
  /** A display name. */
  readonly title?: string;
  /** What the resource is. */
  readonly description?: string;
  /** Its MIME type, when known. */
  readonly mimeType?: string;
  /** Its size in bytes, when known. */
  readonly size?: number;
  /** Optional hints. */
  readonly annotations?: ContentAnnotations;
  /** Metadata passed through untouched. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One item of a content result: MCP's five content kinds. */
export type ContentItem =
  | TextContent
  | ImageContent
  | AudioContent
  | EmbeddedResource
  | ResourceLink;

const BRAND = Symbol.for("@weft/mcp/content");

/**
 * A tool result made of content items, built by {@link content}. A
 * handler returns it in place of text; the loop and `invoke` read it as the
 * one-line-per-item rendering ({@link renderContentItems}), the MCP export
 * sends the items as they are, and the loop keeps the image and audio
 * items on the result's transcript part (`media`) for a provider that takes
 * them.
 */
export interface ToolContent {
  /** The items, in order. */
  readonly items: readonly ContentItem[];
}

/**
 * Builds a content result from items; a string is a text item. Bytes given
 * to {@link image} or {@link audio} are base64-encoded there. The result is
 * frozen and recognised by a registered symbol, so a second copy of this
 * module recognises it too.
 *
 * @example Using `content`
 * ```ts
 * import assert from "node:assert/strict";
 * import { content, image, tool } from "@weft/mcp";
 * import { z } from "zod";
 *
 * const chart = tool({
 *   name: "chart",
 *   description: "Draws the chart.",
 *   input: z.object({}),
 *   run: () => content("the chart:", image(new Uint8Array([1, 2, 3]), "image/png")),
 * });
 * assert.equal(await chart.invoke({}), "the chart:\n[image image/png, 3 bytes]");
 * ```
 */
export function content(...items: (string | ContentItem)[]): ToolContent {
  const list = items.map((item): ContentItem => {
    if (typeof item === "string") return { type: "text", text: item };
    if (!isRecord(item) || typeof item.type !== "string") {
      throw new TypeError(
        'weft: content: each item must be a string or a content item ({ type: "text" | "image" | "audio" | "resource" | "resource_link", … })',
      );
    }
    return item;
  });
  const result = { items: Object.freeze(list) };
  Object.defineProperty(result, BRAND, { value: true });
  return Object.freeze(result);
}

/** Whether `value` is a content result built by {@link content}. */
export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === "object" && value !== null &&
    (value as { [BRAND]?: unknown })[BRAND] === true &&
    Array.isArray((value as { items?: unknown }).items);
}

/**
 * An image item from raw bytes (base64-encoded here) or base64 text (kept
 * as given).
 *
 * @example Using `image`
 * ```ts
 * import assert from "node:assert/strict";
 * import { image } from "@weft/mcp";
 * assert.deepEqual(image(new Uint8Array([0xff]), "image/png"), {
 *   type: "image",
 *   data: "/w==",
 *   mimeType: "image/png",
 * });
 * ```
 */
export function image(
  data: Uint8Array | string,
  mimeType: string,
): ImageContent {
  return { type: "image", data: base64Of(data), mimeType };
}

/**
 * An audio item from raw bytes (base64-encoded here) or base64 text (kept
 * as given).
 *
 * @example Using `audio`
 * ```ts
 * import assert from "node:assert/strict";
 * import { audio } from "@weft/mcp/core";
 * assert.equal(audio("UklGRg==", "audio/wav").data, "UklGRg==");
 * ```
 */
export function audio(
  data: Uint8Array | string,
  mimeType: string,
): AudioContent {
  return { type: "audio", data: base64Of(data), mimeType };
}

function base64Of(data: Uint8Array | string): string {
  if (typeof data === "string") return data;
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < data.length; i += CHUNK) {
    binary += String.fromCharCode(...data.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/**
 * Renders content items (as they arrived, unvalidated) to the text a model
 * reads: one line per item, joined with `"\n"`. A text item verbatim; an
 * image or audio item as `[image <mimeType>, <N> bytes]` /
 * `[audio <mimeType>, <N> bytes]`, N the decoded payload size (from the
 * base64 text, padding-exact, never decoded); an embedded resource as
 * `[resource <uri>]` (`[resource ]` when the resource object or its uri is
 * missing); a resource link as `[resource <uri>]`; anything else, including
 * an item missing the fields its type needs, as `[content]`. No items: `""`.
 *
 * @example Using `renderContentItems`
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderContentItems } from "./content.ts";
 * assert.equal(
 *   renderContentItems([
 *     { type: "text", text: "one" },
 *     { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
 *   ]),
 *   "one\n[image image/png, 8 bytes]",
 * );
 * ```
 */
export function renderContentItems(items: readonly unknown[]): string {
  if (items.length === 1) return renderItem(items[0]);
  const lines: string[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) lines[i] = renderItem(items[i]);
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
 * import assert from "node:assert/strict";
 * import { base64DecodedLength } from "./content.ts";
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
