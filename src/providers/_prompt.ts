/**
 * The request direction of the AI SDK mapping: a weft `ModelRequest` as the
 * AI SDK's language-model prompt and function tools.
 *
 * @module
 */

import type {
  JSONSchema7,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { AudioContent, ImageContent } from "../core/content.ts";
import { parseLossless } from "../core/json.ts";
import type { Message, Part, ToolResultPart } from "../core/messages.ts";
import type { ModelRequest, ProviderMetadata } from "../core/model.ts";

type AssistantPart = Extract<
  LanguageModelV4Message,
  { role: "assistant" }
>["content"][number];
type ToolPart = Extract<
  LanguageModelV4Message,
  { role: "tool" }
>["content"][number];

type ContentOutput = Extract<
  LanguageModelV4ToolResultOutput,
  { type: "content" }
>["value"][number];

/** The media kinds a tool result may carry as media parts. */
export type MediaKind = "image" | "audio";

/** How the prompt writes tool results' media: which kinds, in which version's parts. */
export interface MediaSettings {
  /** The kinds the provider takes in tool results; none: the text alone. */
  readonly kinds: ReadonlySet<MediaKind>;
  /** The model's specification version, whose part names the media take. */
  readonly version: string;
}

const NO_MEDIA: MediaSettings = { kinds: new Set(), version: "v4" };

/**
 * The prompt for `request`: the system text first (when not empty), then
 * every message in order.
 *
 * `optionsKey` names the provider's options entry (`openai`, `anthropic`,
 * …); a reasoning part's bare `signature` is sent under it when the part
 * has no provider metadata of its own.
 */
export function toPrompt(
  request: ModelRequest,
  optionsKey: string,
  media: MediaSettings = NO_MEDIA,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.system !== "") {
    prompt.push({ role: "system", content: request.system });
  }
  for (const message of request.messages) {
    prompt.push(toMessage(message, optionsKey, media));
  }
  return prompt;
}

/** The step's tools as function tools, each schema document whole. */
export function toTools(
  request: ModelRequest,
): LanguageModelV4FunctionTool[] | undefined {
  if (request.tools.length === 0) return undefined;
  return request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    // The document whole: every keyword, integers beyond 2^53 as their digits.
    inputSchema: tool.inputSchema.raw as JSONSchema7,
  }));
}

function toMessage(
  message: Message,
  optionsKey: string,
  media: MediaSettings,
): LanguageModelV4Message {
  switch (message.role) {
    case "user":
      return {
        role: "user",
        content: message.content.map((part) => {
          if (part.type !== "text") throw misplaced(part, "user");
          return { type: "text", text: part.text };
        }),
      };
    case "assistant":
      return {
        role: "assistant",
        content: message.content.map((part) => assistantPart(part, optionsKey)),
      };
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) => toolPart(part, media)),
      };
    default:
      throw new TypeError(
        `aiSdkModel: a message has the role ${
          JSON.stringify((message as { role?: unknown }).role)
        }; the transcript holds user, assistant and tool messages`,
      );
  }
}

function assistantPart(part: Part, optionsKey: string): AssistantPart {
  switch (part.type) {
    case "text":
      return {
        type: "text",
        text: part.text,
        ...options(part.providerMetadata),
      };
    case "reasoning": {
      const metadata = part.providerMetadata ??
        (part.signature
          ? { [optionsKey]: { signature: part.signature } }
          : undefined);
      return { type: "reasoning", text: part.text, ...options(metadata) };
    }
    case "tool_call":
      return {
        type: "tool-call",
        toolCallId: part.id,
        toolName: part.name,
        input: argumentValue(part.args),
        ...options(part.providerMetadata),
      };
    default:
      throw misplaced(part, "assistant");
  }
}

function toolPart(part: Part, media: MediaSettings): ToolPart {
  if (part.type !== "tool_result") throw misplaced(part, "tool");
  return {
    type: "tool-result",
    toolCallId: part.callId,
    toolName: part.name,
    output: part.isError
      ? { type: "error-text", value: part.content }
      : resultOutput(part, media),
  };
}

/**
 * A result's output: its text, then each of its media items the provider
 * takes as a media part (`content` output); the text alone (`text` output)
 * when there is none to send.
 */
function resultOutput(
  part: ToolResultPart,
  media: MediaSettings,
): LanguageModelV4ToolResultOutput {
  const sent = (part.media ?? []).filter((item) => media.kinds.has(item.type));
  if (sent.length === 0) return { type: "text", value: part.content };
  return {
    type: "content",
    value: [
      { type: "text", text: part.content },
      ...sent.map((item) => mediaPart(item, media.version)),
    ],
  };
}

/**
 * One media item as the version's part: v4 `file` with `data` as
 * `{ type: "data", data }`; v3 `image-data` for an image, `file-data`
 * otherwise; v2 `media`. Each with the base64 data and the MIME type.
 */
function mediaPart(
  item: ImageContent | AudioContent,
  version: string,
): ContentOutput {
  const { data, mimeType: mediaType } = item;
  switch (version) {
    case "v2":
      return { type: "media", data, mediaType } as unknown as ContentOutput;
    case "v3":
      return {
        type: item.type === "image" ? "image-data" : "file-data",
        data,
        mediaType,
      } as unknown as ContentOutput;
    default:
      return { type: "file", data: { type: "data", data }, mediaType };
  }
}

/**
 * The call's arguments as the value providers serialise: the JSON parsed
 * with integers beyond 2^53 kept as their digits, so writing it back gives
 * the same numbers; text that is not JSON goes as a string.
 */
function argumentValue(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    return parseLossless(args);
  } catch {
    return args;
  }
}

function options(
  metadata: ProviderMetadata | undefined,
): { providerOptions?: SharedV4ProviderOptions } {
  return metadata === undefined
    ? {}
    : { providerOptions: metadata as SharedV4ProviderOptions };
}

function misplaced(part: Part, role: string): TypeError {
  return new TypeError(
    `aiSdkModel: a ${role} message holds a ${
      JSON.stringify((part as { type?: unknown }).type)
    } part, which the AI SDK prompt cannot carry there; ` +
      "user messages hold text, assistant messages text, reasoning and tool calls, tool messages tool results",
  );
}
