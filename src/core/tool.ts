/**
 * ToolDef: a tool as the agent loop and the bridge see it, and its two
 * constructors, `tool` (typed, over a Standard Schema) and `rawTool` (a raw
 * JSON Schema document and the raw argument text).
 *
 * CONTRACT FILE: the interfaces below are shared by every layer; the
 * constructors are implemented by the core-tools work.
 *
 * @module
 */

import type { ContentItem, ToolContent } from "./content.ts";
import type { AskFn, InputAnswer } from "./input.ts";
import type { AuthInfo } from "./auth.ts";
import type { LogFn } from "./logging.ts";
import type { SampleFn } from "./sampling.ts";
import type { ToolView } from "./messages.ts";
import type { ToolAppOptions } from "./app_view.ts";
import { type ApprovalRequest, quote } from "./errors.ts";
import {
  ACCEPTED_SCHEMAS,
  missingJsonSchema,
  type SchemaInput,
  standardize,
  type StandardSchemaWithJSON,
} from "./schema_input.ts";
import type { ToolMiddleware } from "./middleware.ts";
import type { Schema } from "./schema.ts";
import {
  build,
  checkName,
  derive,
  maybeObjectSchema,
  objectSchema,
  rawBody,
  typedBody,
} from "./_tool_build.ts";

/** Where a call runs inside the loop. Absent outside the loop (invoke, callTool, MCP). */
export interface CallInfo {
  /** The run's id. */
  readonly runId: string;
  /** The step index, from 0. */
  readonly step: number;
  /** The call's id. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** Whether this call runs because a resume approved it (`approve(id)`) or answered it (`answer`). */
  readonly approved: boolean;
  /** The answer to the input this call asked for, when a resume answered it (`answer`). */
  readonly answer?: InputAnswer;
  /**
   * What the approval was given for, when the resume's decision carried it
   * (`approve(pending)` of a call whose tool said why it asked): a tool
   * that shows a definition to approve checks it is still the one shown.
   */
  readonly approval?: ApprovalRequest;
  /**
   * Fires when the host suspends the run (`GenerateOptions.suspend`): a
   * call whose work goes on elsewhere (an imported tool's server task) may
   * stop waiting, without cancelling the work, and throw
   * `CallSuspendedError`; the call parks with `suspended`. Absent when the
   * run was given no `suspend`.
   */
  readonly suspend?: AbortSignal;
  /** The state this call was suspended with, when a resume continues it (`resume`). */
  readonly suspended?: string;
}

/**
 * One progress report from a running tool. Every field is optional; the
 * loop copies a finite `progress`/`total` and a string `message` into its
 * `tool_progress` event, and the MCP export sends them as
 * `notifications/progress`.
 */
export interface ToolProgress {
  /** How far the work has got, on the tool's own scale. */
  progress?: number;
  /** The value `progress` reaches when the work is done, when known. */
  total?: number;
  /** A short, human-readable status. */
  message?: string;
}

/** Receives a tool's progress reports. Synchronous; never throws into the tool. */
export type ProgressFn = (update: ToolProgress) => void;

/**
 * What a handler receives beside its input.
 *
 * @example Report progress and watch the signal
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const reports: number[] = [];
 * const slow = rawTool({
 *   name: "slow",
 *   description: "Reports its progress.",
 *   run: (_args, ctx) => {
 *     ctx.progress?.({ progress: 1, total: 1 });
 *     return ctx.signal.aborted ? "stopped" : "done";
 *   },
 * });
 * const text = await slow.invoke("{}", {
 *   progress: (update) => reports.push(update.progress ?? 0),
 * });
 * assert.equal(text, "done");
 * assert.deepEqual(reports, [1]);
 * ```
 */
export interface ToolContext {
  /** Aborts when the run, the call's timeout, or the MCP request ends. */
  readonly signal: AbortSignal;
  /** The loop's record of this call; absent outside the loop. */
  readonly call?: CallInfo;
  /**
   * The agents running above this call, outermost first (subagent cycle
   * detection). Empty or absent outside any agent.
   */
  readonly lineage?: readonly object[];
  /**
   * Reports progress to whoever listens: the loop (a `tool_progress` event),
   * an MCP client that sent a progress token, or an `invoke`/`callTool`
   * caller. Absent when nobody listens, so call it as
   * `ctx.progress?.({ progress: 1, total: 3 })`.
   */
  readonly progress?: ProgressFn;
  /**
   * Asks whoever runs the call for input (MCP's elicitation): resolves to
   * the answer (`accept` with the form's `content`, `decline`, `cancel`).
   * In the agent loop the call parks until a resume answers (`answer`); over
   * MCP a 2025 client gets `elicitation/create`, a 2026-07-28 client an
   * `input_required` result and a retry. Parking and the 2026 retry run the
   * handler again from the top, with the answers so far returned in ask
   * order: ask in the same order every time, and do nothing before asking
   * that must not happen twice. Never catch what `ask` throws. Absent when
   * nobody can answer (plain `invoke`, `callTool`).
   */
  readonly ask?: AskFn;
  /**
   * Sends a log message to whoever runs the call: over MCP a
   * `notifications/message` (level, optional `logger`, `data`) on the
   * call's stream, dropped when below the level the client asked for
   * (`logging/setLevel` for its session; a 2026-07-28 request's own
   * `_meta` level, without which nothing is sent). Absent when nobody
   * listens, so call it as `ctx.log?.("info", "started")`.
   */
  readonly log?: LogFn;
  /**
   * Asks the caller's model for a completion (MCP's
   * `sampling/createMessage`): a 2025 client that declared `sampling` gets
   * the request on the call's stream; a 2026-07-28 client gets an
   * `input_required` result and retries with the answer, the handler
   * running again from the top (as with `ask`: sample in the same order
   * every time). Rejects with `SamplingUnavailableError` when the client
   * cannot be asked (no capability, no session, a path that carries no
   * requests). Absent outside MCP.
   */
  readonly sample?: SampleFn;
  /**
   * The verified caller, when the tool is served over HTTP with `auth` on
   * (`httpHandler`'s option): its token, client id, scopes. Absent
   * otherwise. Never forward `auth.token` to another service.
   */
  readonly auth?: AuthInfo;
}

/** Options for one `ToolDef.invoke`. */
export interface InvokeOptions {
  /** The call's signal; a fresh, never-aborting one when absent. */
  signal?: AbortSignal;
  /** The loop's call record, passed to the handler's context. */
  call?: CallInfo;
  /** The agents running above this call, passed to the handler's context. */
  lineage?: readonly object[];
  /** Reject fields the schema does not declare (ORed with the tool's own flag). */
  strictInput?: boolean;
  /** Receives the handler's progress reports (its context's `progress`). */
  progress?: ProgressFn;
  /** Answers the handler's requests for input (its context's `ask`). */
  ask?: AskFn;
  /** Receives the handler's log messages (its context's `log`). */
  log?: LogFn;
  /** Answers the handler's sampling requests (its context's `sample`). */
  sample?: SampleFn;
  /** The verified caller, passed to the handler's context. */
  auth?: AuthInfo;
  /**
   * Receives the call's whole result — the text `invoke` resolves to, plus
   * the content items or the structured value it stands for — once, just
   * before `invoke` resolves (never on failure). The MCP export reads
   * content results through it; a wrapper that rewrites the text makes the
   * two differ, and then the text wins.
   */
  onResult?: (result: ToolResult) => void;
}

/**
 * Per-tool options.
 *
 * @example A gated tool that never runs beside another
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const write = rawTool({
 *   name: "write_file",
 *   description: "Writes a file.",
 *   run: () => "written",
 *   sequential: true,
 *   requireApproval: true,
 *   timeout: 5_000,
 * });
 * assert.equal(write.sequential, true);
 * assert.equal(write.requiresApproval, true);
 * assert.equal(write.timeout, 5_000);
 * ```
 */
export interface ToolOptions {
  /** Per-call deadline in ms, applied by the loop. `0` lifts the agent's default. */
  timeout?: number;
  /** Result cap in UTF-8 bytes, applied by the loop. `0` lifts the cap. */
  maxResultBytes?: number;
  /** Park calls for approval in the loop; refuse them in `callTool`. */
  requireApproval?: boolean;
  /** Run as a barrier: never beside another call of the step. */
  sequential?: boolean;
  /** Reject argument fields the schema does not declare (typed tools only). */
  strictInput?: boolean;
  /** The tool's own middleware, inside the agent's. First listed is outermost. */
  wrap?: ToolMiddleware[];
  /** Observability label: `""` for own tools, `"mcp"` for imported ones. */
  origin?: string;
  /**
   * OAuth scopes a call needs when the tool is served over HTTP with `auth`
   * on: a caller whose token lacks one gets HTTP 403 `insufficient_scope`
   * naming them, before the tool runs.
   */
  scopes?: string[];
  /**
   * Whether an MCP caller may run the tool as a task (MCP's
   * `execution.taskSupport`): `"optional"` — a call that asks for a task
   * gets a handle at once and polls, any other call runs as usual;
   * `"required"` — only task calls are accepted. Takes effect on servers
   * that serve tasks (`serveTasks`). Absent: never a task.
   */
  taskSupport?: TaskSupport;
  /**
   * An interactive view (MCP Apps) shipped with the tool: exported, it is
   * served as the resource `ui://<server>/<tool>` and named on the tool's
   * `_meta.ui`; results keep their text for hosts without views.
   */
  app?: ToolAppOptions;
}

/**
 * A tool's stance on running as an MCP task: `"optional"` or `"required"`.
 *
 * @experimental Follows MCP's experimental tasks and the draft tasks extension; may change with them.
 *
 * @example A tool callers may run as a task
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import type { TaskSupport } from "@weft/mcp/tasks";
 * const taskSupport: TaskSupport = "optional";
 * const report = rawTool({ name: "report", description: "Slow.", taskSupport, run: () => "ok" });
 * console.log(report.taskSupport); // "optional"
 * ```
 */
export type TaskSupport = "optional" | "required";

/**
 * What a tool says about itself, for clients and their users: MCP's tool
 * annotations. Every field is a hint, optional, and untrusted on the
 * receiving side; none changes how weft runs the tool. The MCP export sends
 * them (and `title` as the tool's display name); the MCP import runs a tool
 * marked `readOnlyHint: true` in parallel and every other one sequentially.
 *
 * @example A read-only tool says so
 * ```ts
 * import { rawTool, type ToolAnnotations } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const annotations: ToolAnnotations = { title: "Search", readOnlyHint: true };
 * const search = rawTool({
 *   name: "search",
 *   description: "Searches the index.",
 *   annotations,
 *   run: () => "no hits",
 * });
 * assert.deepEqual(search.annotations, annotations);
 * ```
 */
export interface ToolAnnotations {
  /** A human-readable display name. */
  readonly title?: string;
  /** The tool changes nothing in its environment. */
  readonly readOnlyHint?: boolean;
  /** A tool that changes things may destroy something (meaningful when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling again with the same arguments has no further effect (meaningful when not read-only). */
  readonly idempotentHint?: boolean;
  /** The tool reaches beyond a closed world (the web, other systems). */
  readonly openWorldHint?: boolean;
}

/**
 * A tool call's whole result, as `InvokeOptions.onResult` receives it: the
 * text the model reads (what `invoke` resolves to), and what that text
 * stands for when the result is more than text.
 */
export interface ToolResult {
  /** The text the model reads: a content result's rendering, a value's JSON, or the text itself. */
  readonly text: string;
  /**
   * The content items, when the handler returned `content(…)` (or the
   * remote server sent them, for an imported tool); `text` is their
   * rendering. Absent for a plain text result.
   */
  readonly content?: readonly ContentItem[];
  /**
   * The structured value `text` is the JSON of: a typed tool's non-string
   * result, or an imported tool's `structuredContent`. Absent otherwise.
   */
  readonly structured?: unknown;
  /** The view the call produced (an imported MCP App tool); the run records it and emits an `app` event. */
  readonly view?: ToolView;
}

/**
 * A tool's arguments: the model's JSON text, or an object. An object reads
 * exactly as the JSON text `stringifyExact` writes for it (a `bigint` keeps
 * its digits, `undefined` fields drop out); plain JSON data is taken as it
 * is, without writing it out and reading it back.
 */
export type ToolArguments = string | Readonly<Record<string, unknown>>;

/**
 * A tool as the agent loop and the bridge see it.
 *
 * @example Inspect and call a tool by hand
 * ```ts
 * import { tool, type ToolDef } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 *
 * const add: ToolDef = tool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => String(a + b),
 * });
 * assert.equal(add.name, "add");
 * assert.deepEqual(add.inputSchema.raw.required, ["a", "b"]);
 * assert.equal(await add.invoke('{"a":2,"b":3}'), "5");
 * ```
 */
export interface ToolDef {
  /** The name the model calls. */
  readonly name: string;
  /** The model-facing description. */
  readonly description: string;
  /** The argument schema; its raw document is kept whole. */
  readonly inputSchema: Schema;
  /** The result schema, for typed tools with a non-string output (object schemas only). */
  readonly outputSchema?: Schema;
  /** Never runs beside another call. */
  readonly sequential: boolean;
  /** Parked in the loop, refused by `callTool`. */
  readonly requiresApproval: boolean;
  /** Rejects undeclared argument fields. */
  readonly strictInput: boolean;
  /** `""` for own tools, `"mcp"` for imported, `"subagent"` for subagents. */
  readonly origin: string;
  /** ms; run policy applied by the loop. Undefined: the agent's default. */
  readonly timeout?: number;
  /** Run policy applied by the loop. Undefined: the agent's default. */
  readonly maxResultBytes?: number;
  /** The tool's own middleware (first is outermost). */
  readonly wrap: readonly ToolMiddleware[];
  /** What the tool says about itself (MCP annotations); absent when nothing was said. */
  readonly annotations?: ToolAnnotations;
  /** OAuth scopes a call needs over authenticated HTTP; absent: none. */
  readonly scopes?: readonly string[];
  /** Whether MCP callers may (`"optional"`) or must (`"required"`) run it as a task; absent: never. */
  readonly taskSupport?: TaskSupport;
  /** The tool's interactive view (MCP Apps), when it ships one. */
  readonly app?: ToolAppOptions;
  /**
   * Runs the handler on the arguments — the model's JSON text, or an
   * object ({@link ToolArguments}: both give the same result). Resolves to
   * the result text; rejects with the failure (a `ToolError` for bad
   * input). No middleware, approval check, timeout, cap or containment.
   * Given `onResult`, hands it the whole result (content items, structured
   * value) before resolving. A hand-written `ToolDef` must take both
   * argument forms too (an object reads as its JSON text).
   */
  invoke(args: ToolArguments, options?: InvokeOptions): Promise<string>;
}

export type { StandardSchemaWithJSON } from "./schema_input.ts";

/** The definition `tool` takes. */
export interface TypedToolDef<I, O = unknown> extends ToolOptions {
  /** The name the model calls; must not be empty. */
  name: string;
  /** The model-facing description. */
  description: string;
  /** The argument schema: validates the arguments, and its JSON Schema is advertised. Any `SchemaInput` form. */
  input: SchemaInput<I>;
  /** The result schema; advertised (as `outputSchema`) only when it is an object schema. Any `SchemaInput` form. */
  output?: SchemaInput<O>;
  /** What the tool says about itself: MCP annotations, sent by the export. */
  annotations?: ToolAnnotations;
  /**
   * The handler: a string result is the text verbatim, a `content(…)`
   * result is its items (rendered to markers for the model), anything else
   * is JSON-encoded.
   */
  run(
    input: I,
    ctx: ToolContext,
  ): O | string | ToolContent | Promise<O | string | ToolContent>;
}

/** The definition `rawTool` takes. */
export interface RawToolDef extends ToolOptions {
  /** The name the model calls; must not be empty. */
  name: string;
  /** The model-facing description. */
  description: string;
  /** The argument schema document; `{"type":"object"}` when absent. Must be an object schema. */
  inputSchema?: string | Record<string, unknown> | Schema;
  /** The result schema document, if any. Must be an object schema. */
  outputSchema?: string | Record<string, unknown> | Schema;
  /** What the tool says about itself: MCP annotations, sent by the export. */
  annotations?: ToolAnnotations;
  /**
   * The handler: receives the argument text verbatim (an object argument
   * as its JSON text) and returns the result text, or a `content(…)` result.
   */
  run(
    args: string,
    ctx: ToolContext,
  ): string | ToolContent | Promise<string | ToolContent>;
}

const TARGET = { target: "draft-2020-12" } as const;

/**
 * Builds a typed tool. The input's JSON Schema is derived once, here, and
 * must be an object schema. `invoke` takes the arguments as JSON text or as
 * an object (the same reading), decodes and validates them
 * (`INVALID_INPUT` texts, see `decodeArguments`), runs the handler and
 * returns its text: a string verbatim, a `content(…)` result as its
 * one-line-per-item markers, anything else JSON-encoded (a failing encoding
 * rejects with `ToolOutputError`). The `output` schema is recorded as
 * `outputSchema` only when it is an object schema; then each result is
 * checked against it before it is returned (`OutputSchemaError`), as a
 * validating MCP client would. `annotations` are kept on the tool for the
 * MCP export. Throws `TypeError` for an empty name, a missing `run`, or an
 * input that is not an object schema.
 *
 * @example Using `tool`
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { tool } from "@weft/mcp";
 *
 * const add = tool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   output: z.object({ sum: z.number() }),
 *   annotations: { readOnlyHint: true },
 *   run: ({ a, b }) => ({ sum: a + b }),
 * });
 * assert.equal(await add.invoke('{"a":1,"b":2}'), '{"sum":3}');
 * assert.equal(await add.invoke({ a: 1, b: 2 }), '{"sum":3}');
 * ```
 */
export function tool<I, O = unknown>(def: TypedToolDef<I, O>): ToolDef {
  const name = checkName("tool", def);
  const input = accepted<I>(name, "input", def.input);
  const std = input["~standard"];
  const inputSchema = objectSchema(
    () => `weft: tool ${quote(name)}: input`,
    derive(name, "input", () => std.jsonSchema.input(TARGET)),
  );
  let outputSchema: Schema | undefined;
  let output: StandardSchemaWithJSON<O> | undefined;
  if (def.output !== undefined) {
    output = accepted<O>(name, "output", def.output);
    const out = output["~standard"];
    outputSchema = maybeObjectSchema(
      derive(name, "output", () => out.jsonSchema.output(TARGET)),
    );
  }
  return build(
    def,
    { name, inputSchema, outputSchema },
    typedBody({ ...def, input }, {
      name,
      inputSchema,
      // Checked only when advertised: what a client may validate against.
      output: outputSchema === undefined ? undefined : output,
      outputSchema,
    }),
  );
}

// The schema as a Standard Schema with Standard JSON Schema, or a TypeError
// that says what is accepted (and, for a schema missing only its JSON Schema,
// how to pair it with its library's converter).
function accepted<T>(
  name: string,
  which: "input" | "output",
  schema: unknown,
): StandardSchemaWithJSON<T> {
  const std = standardize<T>(schema);
  if (std !== undefined) return std;
  const vendor = missingJsonSchema(schema);
  const hint = vendor === undefined
    ? ""
    : `; this ${
      vendor === "" ? "Standard Schema" : `${vendor} schema`
    } has no JSON Schema of its own: pass withJsonSchema(schema, converter) from @weft/mcp${
      vendor === "zod"
        ? " (zod before 4.2: withJsonSchema(schema, z.toJSONSchema))"
        : ""
    }`;
  throw new TypeError(
    `weft: tool ${quote(name)}: ${which} must be ${ACCEPTED_SCHEMAS}${hint}`,
  );
}

/**
 * Builds a tool over a raw JSON Schema document. Its handler receives the
 * argument text verbatim (an object given to `invoke` as the JSON text
 * `stringifyExact` writes for it): no decoding, no `{}` for empty text, no
 * `INVALID_INPUT`, and `strictInput` has no effect. It returns text, or a
 * `content(…)` result. The schemas (text or object) are kept whole; both
 * must be object schemas; results are not checked against the output
 * schema (there is no validator). Throws `TypeError` for an empty name, a
 * missing `run`, or a schema `parseSchema` refuses.
 *
 * @example Using `rawTool`
 * ```ts
 * import assert from "node:assert/strict";
 * import { rawTool } from "@weft/mcp";
 *
 * const echo = rawTool({ name: "echo", description: "Echoes.", run: (args) => args });
 * assert.equal(await echo.invoke(" {} "), " {} ");
 * assert.equal(await echo.invoke({ q: "x" }), '{"q":"x"}');
 * assert.equal(JSON.stringify(echo.inputSchema), '{"type":"object"}');
 * ```
 */
export function rawTool(def: RawToolDef): ToolDef {
  const name = checkName("rawTool", def);
  const inputSchema = objectSchema(
    () => `weft: rawTool ${quote(name)}: inputSchema`,
    def.inputSchema ?? { type: "object" },
  );
  const outputSchema =
    def.outputSchema === undefined || def.outputSchema === null
      ? undefined
      : objectSchema(
        () => `weft: rawTool ${quote(name)}: outputSchema`,
        def.outputSchema,
      );
  return build(
    def,
    { name, inputSchema, outputSchema },
    rawBody(def, name),
  );
}
