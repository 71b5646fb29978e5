/**
 * The parts `tool` and `rawTool` share: the construction checks, schema
 * derivation, result encoding, the handler's context and the frozen def.
 * Internal to the core; the public constructors are in `tool.ts`, and the
 * bridge reaches `build` and the value path through `bridge.ts`.
 *
 * @module
 */

import type { AskFn } from "./input.ts";
import type { LogFn } from "./logging.ts";
import type { SampleFn } from "./sampling.ts";
import type { AuthInfo } from "./auth.ts";
import type { StandardResult, StandardSchemaV1 } from "./standard_schema.ts";
import { isToolContent, renderContentItems } from "./content.ts";
import {
  OutputSchemaError,
  quote,
  SchemaError,
  ToolOutputError,
} from "./errors.ts";
import { isPlainJson, stringifyExact } from "./json.ts";
import { reuseSchema, type Schema } from "./schema.ts";
import type { ToolMiddleware } from "./middleware.ts";
import type {
  CallInfo,
  InvokeOptions,
  ProgressFn,
  RawToolDef,
  StandardSchemaWithJSON,
  ToolAnnotations,
  ToolArguments,
  ToolContext,
  ToolDef,
  ToolOptions,
  ToolResult,
  TypedToolDef,
} from "./tool.ts";
import {
  issueReason,
  isThenable,
  parseArguments,
  validateNow,
} from "./_decode.ts";

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
    ask?: AskFn;
    log?: LogFn;
    sample?: SampleFn;
    auth?: AuthInfo;
  } = {
    signal: options.signal ?? new AbortController().signal,
  };
  if (options.call !== undefined) ctx.call = options.call;
  if (options.lineage !== undefined) ctx.lineage = options.lineage;
  if (typeof options.progress === "function") ctx.progress = options.progress;
  if (typeof options.ask === "function") ctx.ask = options.ask;
  if (typeof options.log === "function") ctx.log = options.log;
  if (typeof options.sample === "function") ctx.sample = options.sample;
  if (options.auth !== undefined) ctx.auth = options.auth;
  return ctx;
}

const NO_WRAP: readonly ToolMiddleware[] = Object.freeze([]);

function nonNegative(value: number | undefined): number | undefined {
  return typeof value === "number" && value >= 0 ? value : undefined;
}

/** A tool's invoke body: `ToolDef.invoke` with its options filled in. */
export type InvokeBody = (
  args: ToolArguments,
  options: InvokeOptions,
) => Promise<string>;

/** The text of a whole result, handed to `onResult` first (the caller built it because someone listens). */
export function reported(
  onResult: ((result: ToolResult) => void) | undefined,
  whole: ToolResult,
): string {
  onResult?.(whole);
  return whole.text;
}

/**
 * A typed tool's arguments as the object to validate: text is read with
 * `parseArguments`; plain JSON data is taken as it is (it reads exactly as
 * its text would); any other object is read as the text `stringifyExact`
 * writes for it. Missing arguments are `{}`.
 */
function argumentsObject(
  args: ToolArguments | undefined | null,
  name: string,
): Record<string, unknown> {
  if (typeof args === "string") return parseArguments(args, name);
  if (args === undefined || args === null) return {};
  if (typeof args === "object" && !Array.isArray(args) && isPlainJson(args)) {
    return args as Record<string, unknown>;
  }
  return parseArguments(stringifyExact(args) ?? "", name);
}

/**
 * A raw tool's argument text: text verbatim; an object as the text
 * `stringifyExact` writes for it; missing arguments as `{}`.
 */
export function argumentText(args: ToolArguments | undefined | null): string {
  if (typeof args === "string") return args;
  return stringifyExact(args ?? {}) ?? "{}";
}

/** What `typedBody` needs beside the definition. */
export interface TypedShape {
  /** The tool name. */
  readonly name: string;
  /** The parsed input schema (its document words input issues). */
  readonly inputSchema: Schema;
  /** The output validator, when the output schema is advertised: results are checked. */
  readonly output?: StandardSchemaWithJSON<unknown>;
  /** The advertised output schema (its document words output issues). */
  readonly outputSchema?: Schema;
}

/**
 * A typed tool's invoke body. It runs synchronously up to the first value that
 * is a promise (a validator or a handler answering later): no promise hop
 * for what is already known, the export bridge's hot path. A
 * synchronous throw still rejects. With an advertised output schema, a
 * result is checked against it before it is returned
 * (`OutputSchemaError`).
 */
export function typedBody<I, O>(
  def: TypedToolDef<I, O> & { readonly input: StandardSchemaV1<unknown, I> },
  shape: TypedShape,
): InvokeBody {
  const { name, inputSchema, output, outputSchema } = shape;
  const { run, input } = def;
  const ownStrict = def.strictInput === true;
  const text = (result: unknown): string =>
    typeof result === "string"
      ? result
      : isToolContent(result)
      ? renderContentItems(result.items)
      : encode(name, result);
  const whole = (result: unknown): ToolResult => {
    if (typeof result === "string") return { text: result };
    if (isToolContent(result)) {
      return { text: renderContentItems(result.items), content: result.items };
    }
    return { text: encode(name, result), structured: result };
  };
  const checked = output === undefined || outputSchema === undefined
    ? undefined
    : <R>(result: unknown, finish: (result: unknown) => R): R | Promise<R> => {
      const verdict = checkOutput(name, result, output, outputSchema.raw);
      return verdict === undefined
        ? finish(result)
        : verdict.then(() => finish(result));
    };
  const runOn = <R>(
    value: I,
    options: InvokeOptions,
    finish: (result: unknown) => R,
  ): Promise<R> => {
    const result = run.call(def, value, context(options));
    if (checked === undefined) {
      return isThenable(result)
        ? Promise.resolve(result).then(finish)
        : Promise.resolve(finish(result));
    }
    return isThenable(result)
      ? Promise.resolve(result).then((r) => checked(r, finish))
      : Promise.resolve(checked(result, finish));
  };
  return (args: ToolArguments, options: InvokeOptions): Promise<string> => {
    const onResult = options.onResult;
    const finish = typeof onResult === "function"
      ? (result: unknown) => reported(onResult, whole(result))
      : text;
    try {
      const value = validateNow(argumentsObject(args, name), input, {
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
}

/**
 * Checks a typed result against the advertised output schema: throws
 * `OutputSchemaError` (or returns a promise that rejects with it, for an
 * asynchronous validator); `undefined` when it passes synchronously. A
 * string result is checked as the JSON it holds (text that is not JSON is
 * left to the export's own rule); a content result never passes.
 */
function checkOutput(
  name: string,
  result: unknown,
  output: StandardSchemaWithJSON<unknown>,
  jsonSchema: Readonly<Record<string, unknown>>,
): Promise<void> | undefined {
  if (isToolContent(result)) throw new OutputSchemaError(name, "");
  let value: unknown;
  if (typeof result === "string") {
    try {
      value = JSON.parse(result);
    } catch {
      return undefined;
    }
  } else if (isPlainJson(result)) {
    value = result;
  } else {
    // What a client reads: the JSON the value writes (a Date as its string).
    value = JSON.parse(encode(name, result));
  }
  const outcome = output["~standard"].validate(value);
  const settle = (verdict: StandardResult<unknown>): void => {
    if (verdict.issues !== undefined) {
      throw new OutputSchemaError(
        name,
        issueReason(value, verdict.issues, jsonSchema),
      );
    }
  };
  if (isThenable(outcome)) return Promise.resolve(outcome).then(settle);
  settle(outcome);
  return undefined;
}

/**
 * A raw tool's invoke body: the handler gets the argument text (an object as its
 * JSON text) and returns text or a content result. Not async functions: one
 * promise hop fewer per call. A synchronous throw still rejects.
 */
export function rawBody(def: RawToolDef, name: string): InvokeBody {
  const run = def.run;
  const refuse = (result: unknown): never => {
    throw new TypeError(
      `weft: rawTool ${
        quote(name)
      } handler returned ${typeof result}, not a string`,
    );
  };
  const text = (result: unknown): string =>
    typeof result === "string"
      ? result
      : isToolContent(result)
      ? renderContentItems(result.items)
      : refuse(result);
  const whole = (result: unknown): ToolResult =>
    typeof result === "string"
      ? { text: result }
      : isToolContent(result)
      ? { text: renderContentItems(result.items), content: result.items }
      : refuse(result);
  return (args: ToolArguments, options: InvokeOptions): Promise<string> => {
    const onResult = options.onResult;
    const finish = typeof onResult === "function"
      ? (result: unknown) => reported(onResult, whole(result))
      : text;
    let result: unknown;
    try {
      result = run.call(def, argumentText(args), context(options));
    } catch (err) {
      return Promise.reject(err);
    }
    if (typeof result === "string") return Promise.resolve(finish(result));
    return Promise.resolve(result).then(finish);
  };
}

/**
 * The annotations worth keeping from `value`: the five MCP fields, each
 * only when it has its type (a string title, boolean hints); `undefined`
 * when none is left. Frozen.
 */
export function annotationsOf(value: unknown): ToolAnnotations | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const given = value as Record<string, unknown>;
  const kept: Record<string, string | boolean> = {};
  let any = false;
  if (typeof given.title === "string") {
    kept.title = given.title;
    any = true;
  }
  for (const hint of HINTS) {
    if (typeof given[hint] === "boolean") {
      kept[hint] = given[hint] as boolean;
      any = true;
    }
  }
  return any ? Object.freeze(kept) as ToolAnnotations : undefined;
}

const HINTS = [
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
] as const;

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
 * Freezes a `ToolDef` from the options, the shape and the invoke body. A plain
 * object with `invoke` as an own property, so `{ ...def }` copies behave
 * the same; negative `timeout`/`maxResultBytes` are ignored;
 * annotations are kept as `annotationsOf` reads them.
 */
export function build(
  options: ToolOptions & { description?: string; annotations?: unknown },
  shape: Shape,
  invoke: InvokeBody,
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
    invoke: (args: ToolArguments, opts?: InvokeOptions) =>
      invoke(args, opts ?? {}),
  };
  const annotations = annotationsOf(options.annotations);
  if (annotations !== undefined) def.annotations = annotations;
  if (shape.outputSchema !== undefined) def.outputSchema = shape.outputSchema;
  const timeout = nonNegative(options.timeout);
  if (timeout !== undefined) def.timeout = timeout;
  const maxResultBytes = nonNegative(options.maxResultBytes);
  if (maxResultBytes !== undefined) def.maxResultBytes = maxResultBytes;
  if (Array.isArray(options.scopes) && options.scopes.length > 0) {
    def.scopes = Object.freeze(
      options.scopes.filter((s) => typeof s === "string"),
    );
  }
  if (
    options.taskSupport === "optional" || options.taskSupport === "required"
  ) {
    def.taskSupport = options.taskSupport;
  }
  return Object.freeze(def);
}
