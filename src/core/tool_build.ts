/**
 * The parts `tool` and `rawTool` share: the construction checks, schema
 * derivation, result encoding, the handler's context and the frozen def.
 * Internal to the core; the public constructors are in `tool.ts`.
 *
 * @module
 */

import { SchemaError, ToolOutputError } from "./errors.ts";
import { stringifyExact } from "./json.ts";
import { parseSchema, type Schema } from "./schema.ts";
import type {
  CallInfo,
  InvokeOptions,
  ToolContext,
  ToolDef,
  ToolOptions,
} from "./tool.ts";

/** Checks the name and handler `tool`/`rawTool` need; throws `TypeError`. Returns the name. */
export function checkName(
  kind: string,
  def: { name: string; run: unknown },
): string {
  if (typeof def?.name !== "string" || def.name === "") {
    throw new TypeError(`weft: ${kind} called with an empty name`);
  }
  if (typeof def.run !== "function") {
    throw new TypeError(
      `weft: ${kind} ${JSON.stringify(def.name)} called without a run function`,
    );
  }
  return def.name;
}

/** Reads a derived JSON Schema; a throwing converter becomes a `TypeError`. */
export function derive(
  name: string,
  which: string,
  read: () => Record<string, unknown>,
): unknown {
  try {
    return read();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new TypeError(
      `weft: Tool ${
        JSON.stringify(name)
      }: ${which} JSON Schema could not be derived: ${why}`,
      { cause: err },
    );
  }
}

/** Parses a schema that must be an object schema; a refusal becomes a `TypeError` after `prefix`. */
export function objectSchema(prefix: string, doc: unknown): Schema {
  try {
    return parseSchema(doc as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    throw new TypeError(`${prefix} must be an object schema: ${err.detail}`, {
      cause: err,
    });
  }
}

/** Parses a schema when it is an object schema; `undefined` when `parseSchema` refuses it. */
export function maybeObjectSchema(doc: unknown): Schema | undefined {
  try {
    return parseSchema(doc as Record<string, unknown>);
  } catch (err) {
    if (err instanceof SchemaError) return undefined;
    throw err;
  }
}

/** JSON-encodes a typed result (`bigint` exact, `undefined` as `null`); rejects with `ToolOutputError`. */
export function encode(name: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = stringifyExact(value);
  } catch (err) {
    throw new ToolOutputError(name, err);
  }
  // undefined (and functions, symbols) have no JSON text; JSON's null stands in.
  return text ?? "null";
}

/** The handler's context for one invoke: the signal (never-aborting by default), call and lineage. */
export function context(options: InvokeOptions): ToolContext {
  const ctx: {
    signal: AbortSignal;
    call?: CallInfo;
    lineage?: readonly object[];
  } = {
    signal: options.signal ?? new AbortController().signal,
  };
  if (options.call !== undefined) ctx.call = options.call;
  if (options.lineage !== undefined) ctx.lineage = options.lineage;
  return ctx;
}

function nonNegative(value: number | undefined): number | undefined {
  return typeof value === "number" && value >= 0 ? value : undefined;
}

/** What a constructor settled on: the name and the parsed schemas. */
export interface Shape {
  /** The tool name. */
  readonly name: string;
  /** The parsed input schema. */
  readonly inputSchema: Schema;
  /** The parsed output schema, if recorded. */
  readonly outputSchema: Schema | undefined;
}

/**
 * Freezes a `ToolDef` from the options, the shape and the invoke body. A
 * plain object with `invoke` as an own property, so `{ ...def }` copies keep
 * working; negative `timeout`/`maxResultBytes` are ignored, as in Go.
 */
export function build(
  options: ToolOptions & { description?: string },
  shape: Shape,
  invoke: (args: string, options: InvokeOptions) => Promise<string>,
): ToolDef {
  const def: { -readonly [K in keyof ToolDef]: ToolDef[K] } = {
    name: shape.name,
    description: typeof options.description === "string"
      ? options.description
      : "",
    inputSchema: shape.inputSchema,
    sequential: options.sequential === true,
    requiresApproval: options.requireApproval === true,
    strictInput: options.strictInput === true,
    origin: typeof options.origin === "string" ? options.origin : "",
    wrap: Object.freeze(
      (options.wrap ?? []).filter((mw) => typeof mw === "function"),
    ),
    invoke: (args: string, opts?: InvokeOptions) => invoke(args, opts ?? {}),
  };
  if (shape.outputSchema !== undefined) def.outputSchema = shape.outputSchema;
  const timeout = nonNegative(options.timeout);
  if (timeout !== undefined) def.timeout = timeout;
  const maxResultBytes = nonNegative(options.maxResultBytes);
  if (maxResultBytes !== undefined) def.maxResultBytes = maxResultBytes;
  return Object.freeze(def);
}
