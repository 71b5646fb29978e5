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

import type { Schema } from "./schema.ts";
import type { ToolMiddleware } from "./middleware.ts";

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
  /** Whether this call was approved on a resume (always false for now). */
  readonly approved: boolean;
}

/** What a handler receives beside its input. */
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
}

/** Per-tool options. Go: Timeout, MaxResultBytes, RequireApproval, Sequential, StrictInput, WrapTools, Origin. */
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
}

/** A tool as the agent loop and the bridge see it. Go: *weft.ToolDef. */
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
  /**
   * Runs the handler on the model's argument JSON text. Resolves to the
   * result text; rejects with the failure (a `ToolError` for bad input).
   * No middleware, approval check, timeout, cap or containment. Go: Invoke.
   */
  invoke(args: string, options?: InvokeOptions): Promise<string>;
}
