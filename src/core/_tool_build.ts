/**
 * The parts `tool` and `rawTool` share: the construction checks, schema
 * derivation, result encoding, the handler's context and the frozen def.
 * Internal to the core; the public constructors are in `tool.ts`, and the
 * bridge reaches `build` and the value path through `bridge.ts`.
 *
 * @module
 */

import { quote, SchemaError, ToolOutputError } from "./errors.ts";
import { stringifyExact } from "./json.ts";
import { reuseSchema, type Schema } from "./schema.ts";
import type { ToolMiddleware } from "./middleware.ts";
import type {
  CallInfo,
  InvokeOptions,
  ProgressFn,
  ToolContext,
  ToolDef,
  ToolOptions,
  TypedToolDef,
} from "./tool.ts";
import { isThenable, parseArguments, validateNow } from "./_decode.ts";
import type { StandardSchemaV1 } from "@standard-schema/spec";

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
      `weft: ${kind} ${quote(def.name)} called without a run function`,
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
      `weft: tool ${
        quote(name)
      }: ${which} JSON Schema could not be derived: ${why}`,
      { cause: err },
    );
  }
}

/**
 * Parses a schema that must be an object schema; a refusal becomes a
 * `TypeError` after `prefix()` (built only then: the import bridge builds a
 * thousand tools in a listing). A root `parseSchema` or `adoptSchema` built
 * is kept as is.
 */
export function objectSchema(prefix: () => string, doc: unknown): Schema {
  try {
    return reuseSchema(doc as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    throw new TypeError(`${prefix()} must be an object schema: ${err.detail}`, {
      cause: err,
    });
  }
}

/** Parses a schema when it is an object schema; `undefined` when `parseSchema` refuses it. */
export function maybeObjectSchema(doc: unknown): Schema | undefined {
  try {
    return reuseSchema(doc as Record<string, unknown>);
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

/** The handler's context for one invoke: the signal (never-aborting by default), call, lineage and progress. */
export function context(options: InvokeOptions): ToolContext {
  const ctx: {
    signal: AbortSignal;
    call?: CallInfo;
    lineage?: readonly object[];
    progress?: ProgressFn;
  } = {
    signal: options.signal ?? new AbortController().signal,
  };
  if (options.call !== undefined) ctx.call = options.call;
  if (options.lineage !== undefined) ctx.lineage = options.lineage;
  if (typeof options.progress === "function") ctx.progress = options.progress;
  return ctx;
}

const NO_WRAP: readonly ToolMiddleware[] = Object.freeze([]);

function nonNegative(value: number | undefined): number | undefined {
  return typeof value === "number" && value >= 0 ? value : undefined;
}

/** What a {@link ValueInvoke} resolves to. */
export interface TypedResult {
  /** The result text, as `invoke` resolves to it. */
  readonly text: string;
  /** The handler's result when it was not a string: `text` is its JSON. */
  readonly value?: unknown;
}

/** A typed tool's invoke on an arguments object already decoded from JSON. */
export type ValueInvoke = (
  args: Record<string, unknown>,
  options: InvokeOptions,
) => Promise<TypedResult>;

/** Each `ToolDef` `tool` built (not a copy of one) and its {@link ValueInvoke}. */
export const valueInvokers: WeakMap<ToolDef, ValueInvoke> = new WeakMap();

/**
 * The typed tool's invoke on a decoded arguments object, for a `ToolDef`
 * that `tool` built; `undefined` for any other (a raw tool, a spread copy).
 * It equals `invoke(JSON.stringify(args))` when `args` is plain JSON data
 * (`isPlainJson`), minus the text, and also gives the handler's result
 * value: the export bridge's fast path.
 */
export function valueInvoker(def: ToolDef): ValueInvoke | undefined {
  return valueInvokers.get(def);
}

/**
 * A typed tool's two invoke bodies: on the argument text (`ToolDef.invoke`)
 * and on an already-decoded object ({@link ValueInvoke}). Each runs
 * synchronously up to the first value that is a promise (a validator or a
 * handler answering later): no promise hop for what is already known, the
 * export bridge's hot path. A synchronous throw still rejects.
 */
export function typedInvokes<I, O>(
  def: TypedToolDef<I, O> & { readonly input: StandardSchemaV1<unknown, I> },
  shape: { readonly name: string; readonly inputSchema: Schema },
): {
  invoke: (args: string, options: InvokeOptions) => Promise<string>;
  invokeValue: ValueInvoke;
} {
  const { name, inputSchema } = shape;
  const { run, input } = def;
  const ownStrict = def.strictInput === true;
  const text = (result: unknown): string =>
    typeof result === "string" ? result : encode(name, result);
  const both = (result: unknown): TypedResult =>
    typeof result === "string"
      ? { text: result }
      : { text: encode(name, result), value: result };
  const runOn = <R>(
    value: I,
    options: InvokeOptions,
    finish: (result: unknown) => R,
  ): Promise<R> => {
    const result = run.call(def, value, context(options));
    return isThenable(result)
      ? Promise.resolve(result).then(finish)
      : Promise.resolve(finish(result));
  };
  const validated = <R>(
    args: Record<string, unknown>,
    options: InvokeOptions,
    finish: (result: unknown) => R,
  ): Promise<R> => {
    try {
      const value = validateNow(args, input, {
        tool: name,
        jsonSchema: inputSchema.raw,
        strict: ownStrict || options.strictInput === true,
      });
      return isThenable(value)
        ? Promise.resolve(value).then((v) => runOn(v, options, finish))
        : runOn(value, options, finish);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const invokeValue: ValueInvoke = (args, options) =>
    validated(args, options, both);
  const invoke = (args: string, options: InvokeOptions): Promise<string> => {
    let value: Record<string, unknown>;
    try {
      value = parseArguments(typeof args === "string" ? args : "", name);
    } catch (err) {
      return Promise.reject(err);
    }
    return validated(value, options, text);
  };
  return { invoke, invokeValue };
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
 * working; negative `timeout`/`maxResultBytes` are ignored.
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
    wrap: options.wrap === undefined || options.wrap === null
      ? NO_WRAP
      : Object.freeze(options.wrap.filter((mw) => typeof mw === "function")),
    invoke: (args: string, opts?: InvokeOptions) => invoke(args, opts ?? {}),
  };
  if (shape.outputSchema !== undefined) def.outputSchema = shape.outputSchema;
  const timeout = nonNegative(options.timeout);
  if (timeout !== undefined) def.timeout = timeout;
  const maxResultBytes = nonNegative(options.maxResultBytes);
  if (maxResultBytes !== undefined) def.maxResultBytes = maxResultBytes;
  return Object.freeze(def);
}
