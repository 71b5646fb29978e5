/**
 * The core's tracing hook: three wrappers the loop puts around a run, each
 * model call and each tool call. The core names no tracing library; by
 * default every wrapper just calls its function. `@weft/mcp` installs the
 * OpenTelemetry implementation (`src/trace/otel.ts`) when it loads; it costs
 * nothing more than a closure per call until a host registers a provider.
 *
 * @module
 */

import type {
  ModelInfo,
  ModelResponseInfo,
  StopReason,
  Usage,
} from "./model.ts";

/** What the run wrapper knows of a run when it starts. */
export interface RunAbout {
  /** The agent's name, `""` when unnamed. */
  readonly agent: string;
  /** The run id. */
  readonly runId: string;
  /** The model's identity, when it gives one. */
  readonly model?: ModelInfo;
}

/** How a run ended, as the run wrapper reads it. */
export interface RunOutcome {
  /** The run's summed usage. */
  readonly usage: Usage;
}

/** What the model-call wrapper knows before the call. */
export interface ChatAbout {
  /** The model's identity, when it gives one. */
  readonly model?: ModelInfo;
  /** The run id. */
  readonly runId: string;
  /** The number of tools offered. */
  readonly tools: number;
}

/** How a model call ended. */
export interface ChatOutcome {
  /** The call's usage. */
  readonly usage: Usage;
  /** Why the model stopped. */
  readonly reason: StopReason;
  /** What the provider said about its response. */
  readonly response?: ModelResponseInfo;
}

/** What the tool-call wrapper knows before the call. */
export interface ToolAbout {
  /** The tool name as called. */
  readonly name: string;
  /** The call id. */
  readonly callId: string;
  /** The run id. */
  readonly runId: string;
  /** The argument text, verbatim (recorded only when the host opts in). */
  readonly args: string;
  /** The tool's description, when the tool is known. */
  readonly description?: string;
}

/**
 * How a tool call failed, for the wrapper: `"tool_error"` for a failure the
 * tool reported (a `ToolError`, an MCP `isError` result), a class name
 * otherwise; undefined for an ending that is no failure (a call parked for
 * approval or input).
 */
export type ToolFailure = (thrown: unknown) => string | undefined;

/** The three wrappers; see the module doc. */
export interface Telemetry {
  /**
   * Whether anyone records: when false, the loop skips the wrappers (and
   * building what they would be told).
   */
  enabled(): boolean;
  /** Runs a whole agent run. */
  run<T extends RunOutcome>(about: RunAbout, fn: () => Promise<T>): Promise<T>;
  /** Runs one model call; `outcome` reads its result. */
  chat<T>(
    about: ChatAbout,
    fn: () => Promise<T>,
    outcome: (value: T) => ChatOutcome,
  ): Promise<T>;
  /** Runs one tool call, resolving to its result text. */
  tool(
    about: ToolAbout,
    fn: () => Promise<string>,
    failure: ToolFailure,
  ): Promise<string>;
}

const PASS_THROUGH: Telemetry = {
  enabled: () => false,
  run: (_about, fn) => fn(),
  chat: (_about, fn) => fn(),
  tool: (_about, fn) => fn(),
};

let installed: Telemetry = PASS_THROUGH;

/** The wrappers in force. */
export function telemetry(): Telemetry {
  return installed;
}

/**
 * Installs `hooks` as the wrappers (the last install wins); `undefined`
 * restores the pass-through ones.
 *
 * @example Install a wrapper that counts tool calls
 * ```ts
 * import { installTelemetry, telemetry } from "./telemetry.ts";
 *
 * let calls = 0;
 * const before = telemetry();
 * installTelemetry({ ...before, tool: (about, fn, failure) => { calls++; return before.tool(about, fn, failure); } });
 * installTelemetry(before);
 * ```
 */
export function installTelemetry(hooks: Telemetry | undefined): void {
  installed = hooks ?? PASS_THROUGH;
}

/** A JSON-RPC request id. */
type WireId = string | number;

/**
 * The client's ids of the requests a server transport handed on under ids
 * of its own (weft's HTTP host does: a process-wide sequence), by the id
 * handed on; kept only while someone records, so that the server's span
 * names the request by the id the client sent (`jsonrpc.request.id`).
 */
const wireIds = new Map<WireId, WireId>();

/**
 * Notes that the request the client sent as `wire` reaches the server as
 * `own` (a no-op while nothing records); {@linkcode forgetWireId} when it
 * is answered or dropped.
 *
 * @example A transport that renumbers
 * ```ts
 * import { forgetWireId, noteWireId, wireIdOf } from "./telemetry.ts";
 *
 * noteWireId(1001, 7);
 * wireIdOf(1001); // 7 while a provider records, else undefined
 * forgetWireId(1001);
 * ```
 */
export function noteWireId(own: WireId, wire: WireId): void {
  if (installed.enabled()) wireIds.set(own, wire);
}

/** Forgets what {@linkcode noteWireId} noted of `own`. */
export function forgetWireId(own: WireId): void {
  if (wireIds.size !== 0) wireIds.delete(own);
}

/** The client's id of the request the server knows as `own`, if it was renumbered. */
export function wireIdOf(own: WireId): WireId | undefined {
  return wireIds.size === 0 ? undefined : wireIds.get(own);
}
