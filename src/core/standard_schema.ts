/**
 * The Standard Schema v1 and Standard JSON Schema v1 shapes the core accepts,
 * declared here by their members (https://standardschema.dev). Any library
 * that implements the specs (zod, valibot, arktype, ...) fits them
 * structurally; nothing of the spec package is needed at runtime or in a
 * user's import map.
 *
 * @module
 */

/**
 * The input and output types a schema carries for inference only (never
 * present at runtime).
 */
export interface StandardTypes<Input = unknown, Output = Input> {
  /** The type the schema accepts. */
  readonly input: Input;
  /** The type the schema validates to. */
  readonly output: Output;
}

/** One validation problem: a message and, optionally, where it is. */
export interface StandardIssue {
  /** What is wrong. */
  readonly message: string;
  /** The path to the offending value: keys, or `{ key }` segments. */
  readonly path?:
    | ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>
    | undefined;
}

/** A validation's outcome: the value on success, the issues on failure. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The `~standard` properties of a Standard Schema v1 validator. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** The spec version, `1`. */
  readonly version: 1;
  /** The library that made the schema. */
  readonly vendor: string;
  /** Validates a value, synchronously or not. */
  readonly validate: (
    value: unknown,
    options?:
      | { readonly libraryOptions?: Record<string, unknown> | undefined }
      | undefined,
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  /** The inferred types, for type-level use only. */
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/**
 * A Standard Schema v1 validator: any object with a `~standard` property of
 * the shape above.
 *
 * @example Validate through the standard interface
 * ```ts
 * import type { StandardSchemaV1 } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const schema: StandardSchemaV1<unknown, number> = z.number();
 * const result = await schema["~standard"].validate(3);
 * assert.deepEqual(result, { value: 3 });
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The standard properties. */
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The options a Standard JSON Schema converter takes. */
export interface StandardJSONSchemaOptions {
  /** The JSON Schema dialect to produce, such as `"draft-2020-12"`. */
  readonly target: string;
  /** Options specific to the library. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The `~standard` properties of a Standard JSON Schema v1 schema. */
export interface StandardJSONSchemaProps<Input = unknown, Output = Input> {
  /** The spec version, `1`. */
  readonly version: 1;
  /** The library that made the schema. */
  readonly vendor: string;
  /** Converts the schema to JSON Schema, for its input or its output. */
  readonly jsonSchema: {
    /** The JSON Schema of the values the schema accepts. */
    readonly input: (
      options: StandardJSONSchemaOptions,
    ) => Record<string, unknown>;
    /** The JSON Schema of the values the schema validates to. */
    readonly output: (
      options: StandardJSONSchemaOptions,
    ) => Record<string, unknown>;
  };
  /** The inferred types, for type-level use only. */
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/**
 * A schema that implements Standard JSON Schema v1: it converts itself to a
 * JSON Schema document.
 *
 * @example Read a zod schema's JSON Schema
 * ```ts
 * import type { StandardJSONSchemaV1 } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const schema: StandardJSONSchemaV1 = z.object({ a: z.number() });
 * const doc = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
 * assert.equal(doc.type, "object");
 * ```
 */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  /** The standard properties. */
  readonly "~standard": StandardJSONSchemaProps<Input, Output>;
}

/** The output type of a Standard Schema, `unknown` when it carries none. */
export type StandardOutput<S extends StandardSchemaV1> = NonNullable<
  S["~standard"]["types"]
>["output"];
