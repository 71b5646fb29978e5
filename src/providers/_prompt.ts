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
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { parseLossless } from "../core/json.ts";
import type { Message, Part } from "../core/messages.ts";
import type { ModelRequest, ProviderMetadata } from "../core/model.ts";

type AssistantPart = Extract<
  LanguageModelV4Message,
  { role: "assistant" }
>["content"][number];
type ToolPart = Extract<
  LanguageModelV4Message,
  { role: "tool" }
>["content"][number];

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
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.system !== "") {
    prompt.push({ role: "system", content: request.system });
  }
  for (const message of request.messages) {
    prompt.push(toMessage(message, optionsKey));
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
        content: message.content.map((part) => toolPart(part)),
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

function toolPart(part: Part): ToolPart {
  if (part.type !== "tool_result") throw misplaced(part, "tool");
  return {
    type: "tool-result",
    toolCallId: part.callId,
    toolName: part.name,
    output: part.isError
      ? { type: "error-text", value: part.content }
      : { type: "text", value: part.content },
  };
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
