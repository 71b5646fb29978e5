/**
 * The transcript model: user, assistant and tool messages made of text,
 * reasoning, tool-call and tool-result parts. One step's results share one
 * tool message, in call order.
 *
 * @module
 */

import type { AudioContent, ImageContent } from "./content.ts";
import type { ProviderMetadata } from "./model.ts";

/** A piece of text. */
export interface TextPart {
  /** Discriminator. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
  /** The provider's opaque data for the text, sent back with it. */
  readonly providerMetadata?: ProviderMetadata;
}

/** The model's reasoning, kept so providers can verify signed blocks. */
export interface ReasoningPart {
  /** Discriminator. */
  readonly type: "reasoning";
  /** The reasoning text. */
  readonly text: string;
  /** The provider's signature, when the block was signed. */
  readonly signature?: string;
  /** The provider's opaque data for the block (encrypted or redacted reasoning), sent back with it. */
  readonly providerMetadata?: ProviderMetadata;
}

/** A tool call the model made. */
export interface ToolCallPart {
  /** Discriminator. */
  readonly type: "tool_call";
  /** The call id. */
  readonly id: string;
  /** The tool name as called. */
  readonly name: string;
  /** The argument JSON text, verbatim. */
  readonly args: string;
  /** The provider's opaque data for the call (e.g. a thought signature), sent back with it. */
  readonly providerMetadata?: ProviderMetadata;
}

/** The outcome of one call, as the model reads it. */
export interface ToolResultPart {
  /** Discriminator. */
  readonly type: "tool_result";
  /** The id of the call this answers. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** The (capped) result or failure text. */
  readonly content: string;
  /** Whether `content` reports a failure. */
  readonly isError: boolean;
  /**
   * The result's image and audio items (base64 data and MIME type, in
   * order), when the tool returned some and `content` is their rendering
   * (no middleware rewrote it). A provider that takes media in tool results
   * receives them after `content`; any other reads `content` alone, where
   * each one is a `[image <mimeType>, <N> bytes]` line. Never on an error.
   */
  readonly media?: readonly (ImageContent | AudioContent)[];
  /**
   * The view the call's tool ships (an MCP App tool imported with `apps`):
   * the server, the tool, the `ui://` resource and the call's input and
   * whole result, so a page can render the view again from the saved run.
   * Never read by a provider. Absent for any other call and on an error.
   */
  readonly view?: ToolView;
}

/**
 * An interactive view a tool call produced (an MCP App): what a host needs to
 * render it — the `ui://` resource to load and the input and result to hand it.
 *
 * @example A view as a run records it
 * ```ts
 * import type { ToolView } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 *
 * const view: ToolView = {
 *   server: "clock",
 *   tool: "get-time",
 *   resourceUri: "ui://get-time/mcp-app.html",
 *   input: {},
 *   result: { content: [{ type: "text", text: "12:00" }] },
 * };
 * assert.equal(view.resourceUri.startsWith("ui://"), true);
 * ```
 */
export interface ToolView {
  /** The server the tool came from (its `connectServers` name, or the name it reports). */
  readonly server: string;
  /** The tool's name on that server (before any prefix). */
  readonly tool: string;
  /** The view's `ui://` resource URI. */
  readonly resourceUri: string;
  /** The call's arguments, as sent. */
  readonly input: unknown;
  /** The server's whole result (`content`, `structuredContent`, `_meta`, …), as received. */
  readonly result: unknown;
}

/** Any part of a message. */
export type Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart;

/** Who a message is from. There is no system role: instructions travel as `ModelRequest.system`. */
export type Role = "user" | "assistant" | "tool";

/** One transcript entry. */
export interface Message {
  /** The author. */
  readonly role: Role;
  /** The parts, in order. */
  readonly content: readonly Part[];
}

/**
 * A user message with one text part.
 *
 * @example Using `userMessage`
 * ```ts
 * import { userMessage } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * assert.equal(userMessage("hi").content[0].type, "text");
 * ```
 */
export function userMessage(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

/**
 * The text parts of a message, joined; `""` when it has none.
 *
 * @example Using `messageText`
 * ```ts
 * import { messageText } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const msg = { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] } as const;
 * assert.equal(messageText(msg), "ab");
 * ```
 */
export function messageText(message: Message): string {
  let text = "";
  for (const part of message.content) {
    if (part.type === "text") text += part.text;
  }
  return text;
}

/** The text of the last assistant message in `messages`, or `""`. */
export function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "assistant") return messageText(messages[i]);
  }
  return "";
}
