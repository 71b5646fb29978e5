/**
 * The schemas a typed tool accepts, each turned into one shape the core
 * works with (a Standard Schema validator plus its JSON Schema):
 *
 * - a Standard Schema that implements Standard JSON Schema (zod 4.2 and
 *   later, and any library that implements it);
 * - a Standard Schema with its library's own converter as a method
 *   (`toJsonSchema()`, as arktype's types have);
 * - a Standard Schema paired with its library's converter function by
 *   `withJsonSchema` (zod 3.25's `zod/v4` and zod 4.0–4.1 with
 *   `z.toJSONSchema`, valibot with `@valibot/to-json-schema`'s
 *   `toJsonSchema`);
 * - a plain JSON Schema document, `{ jsonSchema }`, with an optional
 *   `validate` function.
 *
 * @module
 */

import type {
  StandardJSONSchemaProps,
  StandardOutput,
  StandardResult,
  StandardSchemaProps,
  StandardSchemaV1,
} from "./standard_schema.ts";
import { structuralIssue } from "./_decode.ts";
import { errorText } from "./errors.ts";

/**
 * A Standard Schema (`~standard.validate`) that also implements Standard JSON
 * Schema (`~standard.jsonSchema`), validating to values of type `T`. Zod 4.2+
 * schemas are; so is any library that implements the spec. The input type is
 * left open, so schemas with defaults or transforms fit.
 */
export interface StandardSchemaWithJSON<T = unknown> {
  /** The Standard Schema and Standard JSON Schema properties. */
  readonly "~standard":
    & StandardSchemaProps<unknown, T>
    & StandardJSONSchemaProps<unknown, T>;
}

/**
 * A Standard Schema whose library converts it to JSON Schema through a
 * method on the schema itself, as arktype's `type(...).toJsonSchema()`.
 */
export interface SchemaWithConverter<T = unknown> {
  /** The Standard Schema properties. */
  readonly "~standard": StandardSchemaProps<unknown, T>;
  /** Returns the schema's JSON Schema document. */
  toJsonSchema(): unknown;
}

/**
 * A plain JSON Schema document as a tool's schema. Without `validate` the
 * arguments are checked against the document's types and `required` only;
 * with it, `validate` has the last word: it returns the value the handler
 * receives, or throws, and the thrown error's message becomes the
 * `INVALID_INPUT` reason.
 */
export interface JsonSchemaInput<T = unknown> {
  /** The JSON Schema document advertised to the model (and to MCP clients). */
  readonly jsonSchema: Record<string, unknown>;
  /** Checks a decoded value: returns it (or a replacement) or throws. */
  validate?(value: unknown): T;
}

/** Every schema form `tool` accepts for its `input` and `output`. */
export type SchemaInput<T = unknown> =
  | StandardSchemaWithJSON<T>
  | SchemaWithConverter<T>
  | JsonSchemaInput<T>;

/**
 * Pairs a Standard Schema with its library's JSON Schema converter, for the
 * libraries whose schemas do not implement Standard JSON Schema themselves:
 * zod 3.25 (`zod/v4`) and zod 4.0–4.1 with `z.toJSONSchema`, valibot with
 * `toJsonSchema` from `@valibot/to-json-schema`. The converter is called
 * once per `tool`, with the schema and `{ io: "input" }` or
 * `{ io: "output" }` (zod reads `io`; other converters ignore it).
 *
 * @example A zod 4.1 schema
 * ```ts
 * import { tool, withJsonSchema } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const search = tool({
 *   name: "search",
 *   description: "Searches the catalogue.",
 *   input: withJsonSchema(z.object({ query: z.string() }), z.toJSONSchema),
 *   run: ({ query }) => `found ${query}`,
 * });
 * assert.equal(search.inputSchema.raw.type, "object");
 * assert.equal(await search.invoke('{"query":"lamp"}'), "found lamp");
 * ```
 */
export function withJsonSchema<S extends StandardSchemaV1>(
  schema: S,
  convert: (schema: S) => unknown,
): StandardSchemaWithJSON<StandardOutput<S>> {
  const std = schema?.["~standard"];
  if (typeof std?.validate !== "function") {
    throw new TypeError(
      "withJsonSchema(schema, convert): schema must be a Standard Schema (a ~standard.validate function)",
    );
  }
  if (typeof convert !== "function") {
    throw new TypeError(
      "withJsonSchema(schema, convert): convert must be the library's JSON Schema converter (z.toJSONSchema, valibot's toJsonSchema)",
    );
  }
  const call = convert as (schema: S, options: { io: string }) => unknown;
  const read = (io: string) => (): Record<string, unknown> =>
    asDocument(call(schema, { io }));
  return {
    "~standard": {
      ...std,
      validate: std.validate,
      jsonSchema: { input: read("input"), output: read("output") },
    } as StandardSchemaWithJSON<StandardOutput<S>>["~standard"],
  };
}

/** What `tool` accepts, for its error text. */
export const ACCEPTED_SCHEMAS =
  "a Standard Schema with Standard JSON Schema (zod 4.2+), a Standard Schema with a toJsonSchema() method (arktype), withJsonSchema(schema, converter) (zod 3.25's zod/v4 and zod 4.0–4.1 with z.toJSONSchema, valibot with toJsonSchema), or { jsonSchema, validate? }";

/**
 * Turns any accepted schema form into a Standard Schema with Standard JSON
 * Schema; `undefined` for anything else (the caller names what is accepted).
 */
export function standardize<T>(
  value: unknown,
): StandardSchemaWithJSON<T> | undefined {
  if (!isObjectLike(value)) return undefined;
  const std = (value as { "~standard"?: unknown })["~standard"];
  if (std !== undefined) return fromStandard<T>(value, std);
  const { jsonSchema, validate } = value as Partial<JsonSchemaInput<T>>;
  if (!isRecord(jsonSchema)) return undefined;
  if (validate !== undefined && typeof validate !== "function") {
    return undefined;
  }
  return fromJsonSchema(jsonSchema, validate?.bind(value));
}

/** Whether a Standard Schema lacks only the JSON Schema (zod before 4.2, valibot). */
export function missingJsonSchema(value: unknown): string | undefined {
  if (!isObjectLike(value)) return undefined;
  const std =
    (value as { "~standard"?: { vendor?: unknown; validate?: unknown } })[
      "~standard"
    ];
  if (typeof std?.validate !== "function") return undefined;
  return typeof std.vendor === "string" ? std.vendor : "";
}

function fromStandard<T>(
  value: object,
  std: unknown,
): StandardSchemaWithJSON<T> | undefined {
  const props = std as Partial<StandardSchemaWithJSON<T>["~standard"]>;
  if (typeof props.validate !== "function") return undefined;
  if (
    typeof props.jsonSchema?.input === "function" &&
    typeof props.jsonSchema?.output === "function"
  ) {
    return value as StandardSchemaWithJSON<T>;
  }
  const method = (value as { toJsonSchema?: unknown }).toJsonSchema;
  if (typeof method !== "function") return undefined;
  const read = (): Record<string, unknown> => asDocument(method.call(value));
  return {
    "~standard": {
      ...props,
      validate: props.validate,
      jsonSchema: { input: read, output: read },
    } as StandardSchemaWithJSON<T>["~standard"],
  };
}

function fromJsonSchema<T>(
  document: Record<string, unknown>,
  validate: ((value: unknown) => T) | undefined,
): StandardSchemaWithJSON<T> {
  const read = (): Record<string, unknown> => document;
  const check = (value: unknown): StandardResult<T> => {
    const issue = structuralIssue(value, document);
    if (issue !== undefined) return { issues: [{ message: issue }] };
    if (validate === undefined) return { value: value as T };
    try {
      return { value: validate(value) };
    } catch (err) {
      return { issues: [{ message: errorText(err) }] };
    }
  };
  return {
    "~standard": {
      version: 1,
      vendor: "json-schema",
      validate: check,
      jsonSchema: { input: read, output: read },
    },
  };
}

function asDocument(doc: unknown): Record<string, unknown> {
  if (!isRecord(doc)) {
    throw new TypeError(
      `the converter returned ${
        doc === null ? "null" : typeof doc
      }, not a JSON Schema object`,
    );
  }
  return doc;
}

// Schemas may be callable (arktype's types are functions).
function isObjectLike(value: unknown): value is object {
  return value !== null &&
    (typeof value === "object" || typeof value === "function");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
