/**
 * The answer to an exported tool's `ctx.ask`, checked before the tool sees
 * it, in both eras: an elicitation result (`action` one of `accept`,
 * `decline`, `cancel`; `content` an object of strings, numbers, booleans or
 * string arrays), and for `accept` its `content` (missing: `{}`) valid
 * against the schema that was asked, with the server's JSON Schema
 * validator (the SDK's own, Ajv by default), as the SDK's `elicitInput`
 * checks it. A refusal is an `InvalidAnswerError` (InvalidParams, -32602).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/validation/ajv"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { InputResponse } from "../core/input.ts";
import {
  serverValidator,
  type ValidatorProvider,
} from "../seam/sdk_internals.ts";

/**
 * An answer to `ctx.ask` that does not answer what was asked. A 2026-07-28
 * retry carrying it is refused with this protocol error; a 2025 caller's
 * makes `ask` reject with it.
 */
export class InvalidAnswerError extends Error {
  readonly code: number = -32602;
  /** What was wrong with the answer (the message without where it was). */
  readonly reason: string;

  constructor(where: string, reason: string) {
    super(`invalid ${where}: ${reason}`);
    this.name = "InvalidAnswerError";
    this.reason = reason;
  }
}

type Check = (input: unknown) => { valid: boolean; errorMessage?: string };

// Compiled checks by schema text, per provider. Bounded: past the bound the
// cache (and, for our own provider, Ajv's own cache of compiled schemas)
// starts again.
const CACHE_MAX = 256;
let ownProvider: ValidatorProvider | undefined;
const caches = new WeakMap<ValidatorProvider, Map<string, Check>>();

function providerOf(server: object): ValidatorProvider {
  const given = serverValidator(server);
  if (given !== undefined) return given;
  ownProvider ??= new AjvJsonSchemaValidator() as ValidatorProvider;
  return ownProvider;
}

function checkOf(server: object, schema: Record<string, unknown>): Check {
  let provider = providerOf(server);
  let cache = caches.get(provider);
  if (cache === undefined) caches.set(provider, cache = new Map());
  const text = JSON.stringify(schema);
  const known = cache.get(text);
  if (known !== undefined) return known;
  if (cache.size >= CACHE_MAX) {
    cache.clear();
    if (provider === ownProvider) {
      provider =
        ownProvider =
          new AjvJsonSchemaValidator() as ValidatorProvider;
      caches.set(provider, cache = new Map());
    }
  }
  const check = provider.getValidator(JSON.parse(text));
  cache.set(text, check);
  return check;
}

const ACTIONS: ReadonlySet<string> = new Set(["accept", "decline", "cancel"]);

/**
 * `value` as the answer to a question whose form is `schema`, checked; a
 * fresh object holding only `action` and (for `accept`) `content`.
 * `where` names the answer in a refusal (`elicitation result`,
 * `inputResponses "ask_0"`).
 */
export function checkAnswer(
  server: object,
  schema: Readonly<Record<string, unknown>> | undefined,
  value: unknown,
  where: string,
): InputResponse {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidAnswerError(
      where,
      `expected an elicitation result object ({ action, content? }), got ${
        kindOf(value)
      }`,
    );
  }
  const { action, content } = value as Record<string, unknown>;
  if (typeof action !== "string" || !ACTIONS.has(action)) {
    throw new InvalidAnswerError(
      where,
      `action must be "accept", "decline" or "cancel", got ${
        action === undefined ? "none" : JSON.stringify(action) ?? kindOf(action)
      }`,
    );
  }
  if (action !== "accept") return { action } as InputResponse;
  const form = content === undefined || content === null ? {} : content;
  if (typeof form !== "object" || Array.isArray(form)) {
    throw new InvalidAnswerError(
      where,
      `content must be an object, got ${kindOf(form)}`,
    );
  }
  for (const [key, field] of Object.entries(form)) {
    if (!isFieldValue(field)) {
      throw new InvalidAnswerError(
        where,
        `content field ${
          JSON.stringify(key)
        } must be a string, number, boolean or array of strings, got ${
          kindOf(field)
        }`,
      );
    }
  }
  if (schema !== undefined) {
    const result = checkOf(server, schema as Record<string, unknown>)(form);
    if (!result.valid) {
      throw new InvalidAnswerError(
        where,
        `content does not match the requested schema: ${result.errorMessage}`,
      );
    }
  }
  return { action, content: form as Record<string, unknown> };
}

function isFieldValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((v) => typeof v === "string");
  return typeof value === "string" ||
    (typeof value === "number" && Number.isFinite(value)) ||
    typeof value === "boolean";
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value) ?? String(value)}`;
}
