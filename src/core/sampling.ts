/**
 * Sampling from inside a tool: `ctx.sample(request)` asks whoever runs the
 * call for a completion from their model (MCP's `sampling/createMessage`).
 * The core defines the shape and its typed failure; the MCP export fills it
 * in.
 *
 * @module
 */

/** One content item of a sampling message: text, an image or audio (base64). */
export type SampleContent =
  | {
    /** `"text"`. */
    readonly type: "text";
    /** The text. */
    readonly text: string;
  }
  | {
    /** `"image"` or `"audio"`. */
    readonly type: "image" | "audio";
    /** Base64 of the bytes. */
    readonly data: string;
    /** The bytes' MIME type. */
    readonly mimeType: string;
  }
  /** Any other item a revision defines (`tool_use`, `tool_result`), passed as it is. */
  | { readonly type: string; readonly [key: string]: unknown };

/** One message of the conversation to sample from. */
export interface SampleMessage {
  /** Who says it. */
  readonly role: "user" | "assistant";
  /** What is said: one item, or several. */
  readonly content: SampleContent | readonly SampleContent[];
}

/**
 * What a tool asks the client's model for: MCP's `sampling/createMessage`
 * params. Only `messages` and `maxTokens` are required; the client may
 * ignore the preferences.
 *
 * @example A one-message request
 * ```ts
 * import type { SampleRequest } from "@weft/mcp/core";
 * const request: SampleRequest = {
 *   messages: [{ role: "user", content: { type: "text", text: "Summarize: …" } }],
 *   maxTokens: 200,
 * };
 * console.log(request.maxTokens);
 * ```
 */
export interface SampleRequest {
  /** The conversation, in order. */
  readonly messages: readonly SampleMessage[];
  /** The most tokens to sample. */
  readonly maxTokens: number;
  /** A system prompt the client may use. */
  readonly systemPrompt?: string;
  /** The sampling temperature the client may use. */
  readonly temperature?: number;
  /** Where the client may stop sampling. */
  readonly stopSequences?: readonly string[];
  /** Hints for the client's choice of model (MCP's `modelPreferences`). */
  readonly modelPreferences?: {
    /** Model names to prefer, most preferred first (substrings the client matches). */
    readonly hints?: readonly {
      /** A model name, or part of one. */
      readonly name?: string;
    }[];
    /** How much cost matters, 0 to 1. */
    readonly costPriority?: number;
    /** How much speed matters, 0 to 1. */
    readonly speedPriority?: number;
    /** How much capability matters, 0 to 1. */
    readonly intelligencePriority?: number;
  };
  /** Provider-specific metadata, passed through. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** The client model's answer. */
export interface SampleResult {
  /** Who says it (`"assistant"` as a rule). */
  readonly role: "user" | "assistant";
  /** What the model said: one item, or several. */
  readonly content: SampleContent | readonly SampleContent[];
  /** The model that answered, as the client names it. */
  readonly model: string;
  /** Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, or the client's own). */
  readonly stopReason?: string;
}

/** Options of one `ctx.sample`. */
export interface SampleOptions {
  /** Stops waiting for the answer; the call's own signal always does. */
  signal?: AbortSignal;
}

/** Asks the caller's model; rejects with {@link SamplingUnavailableError} when it cannot be asked. */
export type SampleFn = (
  request: SampleRequest,
  options?: SampleOptions,
) => Promise<SampleResult>;

/**
 * Why a tool's `ctx.sample` cannot reach a model:
 * - `"no-capability"`: the client declared no `sampling` capability;
 * - `"no-session"`: a 2025 client served statelessly (no session carries
 *   the answer back);
 * - `"unsupported"`: the path the call runs by cannot carry a request to
 *   the client (a task, or an era that has none).
 */
export type SamplingUnavailableReason =
  | "no-capability"
  | "no-session"
  | "unsupported";

/**
 * `ctx.sample` could not ask the client's model. A tool that does not
 * catch it fails with its message (`tool "x" asked the client's model
 * (sampling), but …`), never the protocol.
 *
 * @example Fall back when sampling is out of reach
 * ```ts
 * import { SamplingUnavailableError } from "@weft/mcp/core";
 * const err = new SamplingUnavailableError("summarize", "no-capability");
 * console.log(err instanceof SamplingUnavailableError, err.reason); // true "no-capability"
 * ```
 */
export class SamplingUnavailableError extends Error {
  /** Why. */
  readonly reason: SamplingUnavailableReason;
  /** The tool that asked. */
  readonly tool: string;

  /** The refusal of `tool`'s sample for `reason`; `detail` says why for `"unsupported"`. */
  constructor(
    tool: string,
    reason: SamplingUnavailableReason,
    detail?: string,
  ) {
    super(samplingUnavailableText(tool, reason, detail));
    this.name = "SamplingUnavailableError";
    this.tool = tool;
    this.reason = reason;
  }
}

/** The message of a {@link SamplingUnavailableError}. */
function samplingUnavailableText(
  tool: string,
  reason: SamplingUnavailableReason,
  detail: string | undefined,
): string {
  const start = `tool ${
    JSON.stringify(tool)
  } asked the client's model (sampling), but `;
  switch (reason) {
    case "no-capability":
      return `${start}the client declared no sampling capability`;
    case "no-session":
      return `${start}no session carries the client's answer (a 2025 client served statelessly); serve with sessions to sample from such clients`;
    default:
      return `${start}${
        detail ?? "this call cannot send requests to the client"
      }`;
  }
}
