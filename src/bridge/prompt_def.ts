/**
 * Prompt definitions: prompt templates with typed arguments (`prompt`),
 * built once, exported on any number of servers with `exportPrompts`.
 *
 * @module
 */

import type { AuthInfo } from "../core/auth.ts";
import type { ContentItem } from "../core/content.ts";
import { errorText, quote } from "../core/errors.ts";
import {
  ACCEPTED_SCHEMAS,
  type SchemaInput,
  standardize,
} from "../core/schema_input.ts";
import type { StandardIssue } from "../core/standard_schema.ts";
import type { Completer, Icon } from "./resource_def.ts";
import { INTERNAL_ERROR, INVALID_PARAMS, ProtocolError } from "./_pages.ts";

/** One message of a prompt: who says it, and one content item (or text). */
export interface PromptMessage {
  /** Who speaks. */
  readonly role: "user" | "assistant";
  /** Text, an image, audio, an embedded resource or a resource link. */
  readonly content: string | ContentItem;
}

/** What a prompt's `get` returns: text (one user message), messages, or messages with a description. */
export type PromptBody =
  | string
  | readonly PromptMessage[]
  | {
    /** A description of this filled-in prompt. */
    readonly description?: string;
    /** Its messages. */
    readonly messages: readonly PromptMessage[];
  };

/** What a prompt's `get` is called with beside its arguments. */
export interface PromptRequest {
  /** The prompt's name. */
  readonly name: string;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** The verified caller, when the request came over authenticated HTTP. */
  readonly auth?: AuthInfo;
}

/** Options of {@linkcode prompt}. */
export interface PromptOptions<A> {
  /** The name clients get it by. */
  readonly name: string;
  /** A display name. */
  readonly title?: string;
  /** What it is for. */
  readonly description?: string;
  /** Icons a client may show. */
  readonly icons?: readonly Icon[];
  /** Metadata listed as it is. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /**
   * Its arguments: an object schema whose properties are strings (MCP
   * carries prompt arguments as text), in any form `tool` takes for its
   * input — a Standard Schema with JSON Schema (zod 4.2+), arktype,
   * `withJsonSchema(…)`, or `{ jsonSchema, validate? }`. Listed as the
   * prompt's arguments (name, `description`, `title`, `required`).
   */
  readonly arguments?: SchemaInput<A>;
  /** Value suggestions per argument, for `completion/complete`. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Fills the prompt in from its validated arguments. */
  get(args: A, request: PromptRequest): PromptBody | Promise<PromptBody>;
}

/** A prompt, as `prompt` builds it. */
export interface PromptDef {
  /** Which kind of definition this is. */
  readonly kind: "prompt";
  /** The name clients get it by. */
  readonly name: string;
  /** Its `prompts/list` entry. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** Its argument completers. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /**
   * Validates `args` and fills the prompt in: `{ description?, messages }`
   * as `prompts/get` answers. Rejects with a protocol error (`code`
   * -32602) on invalid arguments.
   */
  get(
    args: Readonly<Record<string, string>>,
    request: PromptRequest,
  ): Promise<Record<string, unknown>>;
}

const TARGET = { target: "draft-2020-12" } as const;

function issueText(issues: readonly StandardIssue[]): string {
  return issues.map((issue) => {
    const path = (issue.path ?? []).map((p) =>
      typeof p === "object" ? String(p.key) : String(p)
    );
    return path.length > 0
      ? `${path.join(".")}: ${issue.message}`
      : issue.message;
  }).join("; ");
}

/**
 * Defines a prompt: its name, description and typed arguments, and `get`,
 * which fills it in. `prompts/get` checks the client's arguments against
 * the schema first: a failure is Invalid params (-32602)
 * `invalid arguments for prompt "<name>": <issues>`, and `get` does not
 * run. Throws a `TypeError` on an empty name, a schema of another form,
 * one that is not an object schema, a property that is not a string, or a
 * completer for an argument the schema does not have.
 *
 * @example A prompt with an argument
 * ```ts
 * import { prompt } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const review = prompt({
 *   name: "review",
 *   description: "Review a piece of code.",
 *   arguments: z.object({ code: z.string().describe("The code") }),
 *   get: ({ code }) => `Please review:\n${code}`,
 * });
 * assert.deepEqual(review.listing.arguments, [{ name: "code", description: "The code", required: true }]);
 * const got = await review.get({ code: "x = 1" }, { name: "review", signal: AbortSignal.timeout(1000) });
 * assert.deepEqual(got.messages, [{ role: "user", content: { type: "text", text: "Please review:\nx = 1" } }]);
 * ```
 */
export function prompt<A = Record<string, string>>(
  options: PromptOptions<A>,
): PromptDef {
  const name = options?.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError("prompt: name must be a non-empty string");
  }
  const where = `prompt ${quote(name)}`;
  if (typeof options.get !== "function") {
    throw new TypeError(`${where}: get must be a function`);
  }
  const listing: Record<string, unknown> = { name };
  for (const key of ["title", "description", "icons", "_meta"] as const) {
    if (options[key] !== undefined) listing[key] = options[key];
  }
  let validate: ((args: unknown) => Promise<unknown>) | undefined;
  const names: string[] = [];
  if (options.arguments !== undefined) {
    const std = standardize<A>(options.arguments);
    if (std === undefined) {
      throw new TypeError(`${where}: arguments must be ${ACCEPTED_SCHEMAS}`);
    }
    const props = std["~standard"];
    const doc = props.jsonSchema.input(TARGET) as Record<string, unknown>;
    listing.arguments = argumentsOf(doc, where, names);
    validate = async (args) => {
      const result = await props.validate(args);
      if (result.issues !== undefined) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `invalid arguments for ${where}: ${issueText(result.issues)}`,
        );
      }
      return result.value;
    };
  }
  for (const [arg, fn] of Object.entries(options.complete ?? {})) {
    if (!names.includes(arg) || typeof fn !== "function") {
      throw new TypeError(
        `${where}: complete.${arg} must be a function completing one of its arguments (${
          names.join(", ") || "none"
        })`,
      );
    }
  }
  const def: PromptDef = {
    kind: "prompt",
    name,
    listing: Object.freeze(listing),
    ...(options.complete !== undefined &&
      { complete: Object.freeze({ ...options.complete }) }),
    get: async (args, request) => {
      const value = validate === undefined
        ? { ...args }
        : await validate({ ...args });
      let body: PromptBody;
      try {
        body = await options.get(value as A, request);
      } catch (error) {
        throw new ProtocolError(
          INTERNAL_ERROR,
          `${where} failed: ${errorText(error)}`,
        );
      }
      return resultOf(body, where);
    },
  };
  return Object.freeze(def);
}

/** The listed arguments of an object schema whose properties are strings. */
function argumentsOf(
  doc: Record<string, unknown>,
  where: string,
  names: string[],
): Record<string, unknown>[] {
  if (doc?.type !== "object") {
    throw new TypeError(`${where}: arguments must be an object schema`);
  }
  const properties = (doc.properties ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  const required = Array.isArray(doc.required) ? doc.required : [];
  return Object.entries(properties).map(([name, prop]) => {
    if (prop?.type !== undefined && prop.type !== "string") {
      throw new TypeError(
        `${where}: argument ${quote(name)} has type ${
          JSON.stringify(prop.type)
        }; MCP carries prompt arguments as strings`,
      );
    }
    names.push(name);
    return {
      name,
      ...(typeof prop?.title === "string" && { title: prop.title }),
      ...(typeof prop?.description === "string" &&
        { description: prop.description }),
      required: required.includes(name),
    };
  });
}

function resultOf(body: PromptBody, where: string): Record<string, unknown> {
  const described = typeof body === "object" && !Array.isArray(body)
    ? body as { description?: string; messages: readonly PromptMessage[] }
    : undefined;
  const messages = typeof body === "string"
    ? [{ role: "user" as const, content: body }]
    : described?.messages ?? body as readonly PromptMessage[];
  if (!Array.isArray(messages)) {
    throw new ProtocolError(
      INTERNAL_ERROR,
      `${where} failed: get must return text, messages or { messages }`,
    );
  }
  return {
    ...(described?.description !== undefined &&
      { description: described.description }),
    messages: messages.map((m) => ({
      role: m.role,
      content: typeof m.content === "string"
        ? { type: "text", text: m.content }
        : m.content,
    })),
  };
}
