/**
 * The tool chain every dispatched call runs through, in the loop and in
 * `Agent.callTool` alike: the agent's middleware, then the tool's own, then
 * the base call (unknown tool, approval check, the caller's scopes, decode,
 * handler).
 *
 * @module
 */

import {
  type ApprovalRequest,
  ApprovalRequiredError,
  DuplicateToolError,
  MissingToolError,
  NoSuchToolError,
} from "./errors.ts";
import {
  composeMiddleware,
  type ToolCall,
  type ToolCaller,
  type ToolMiddleware,
} from "./middleware.ts";
import type { ToolDef, ToolResult } from "./tool.ts";
import { InsufficientScopeError, missingScopes } from "./auth.ts";

/** A validated tool snapshot: names in order, looked up by name. */
export type ToolSnapshot = ReadonlyMap<string, ToolDef>;

/**
 * Validates a tool list into a snapshot: a missing entry throws
 * `MissingToolError`, a repeated name `DuplicateToolError`.
 */
export function snapshotTools(
  statics: readonly ToolDef[],
  sourced: readonly (ToolDef | null | undefined)[] | undefined,
): ToolSnapshot {
  const tools = new Map<string, ToolDef>();
  for (const tool of statics) tools.set(tool.name, tool);
  if (sourced === undefined) return tools;
  if (!Array.isArray(sourced)) {
    throw new TypeError("weft: toolSource must return an array of tools");
  }
  for (let i = 0; i < sourced.length; i++) {
    const tool = sourced[i];
    if (tool === null || tool === undefined) throw new MissingToolError(i);
    if (tools.has(tool.name)) throw new DuplicateToolError(tool.name);
    tools.set(tool.name, tool);
  }
  return tools;
}

/** What the chain needs from the agent. */
export interface ChainOptions {
  /** The agent's middleware (first is outermost). */
  readonly middleware: readonly ToolMiddleware[];
  /** The agent-level strictness, ORed with each tool's own. */
  readonly strictInput: boolean;
  /** Receives the called tool's whole result, with the call as the base saw it. */
  readonly onResult?: (result: ToolResult, call: ToolCall) => void;
}

/**
 * The caller for one call against `tools`: agent middleware, the called
 * tool's middleware (none for an unknown name), then the base. The base
 * rejects an unknown name with `NoSuchToolError` and an approval-gated,
 * unapproved call with `ApprovalRequiredError`.
 */
export function toolChain(
  tools: ToolSnapshot,
  options: ChainOptions,
): ToolCaller {
  const onResult = options.onResult;
  const base: ToolCaller = async (call, ctx) => {
    const tool = tools.get(call.name);
    if (tool === undefined) throw new NoSuchToolError(call.name);
    if (tool.requiresApproval && ctx.call?.approved !== true) {
      throw new ApprovalRequiredError(tool.name);
    }
    // A verified caller (a served agent's run, a resume) must hold the
    // tool's scopes on every path, not only on a direct tools/call.
    const missing = missingScopes(tool, ctx.auth);
    if (missing.length > 0) {
      throw new InsufficientScopeError(tool.name, missing);
    }
    return await tool.invoke(call.args, {
      signal: ctx.signal,
      call: ctx.call,
      lineage: ctx.lineage,
      strictInput: options.strictInput,
      progress: ctx.progress,
      ask: ctx.ask,
      log: ctx.log,
      sample: ctx.sample,
      auth: ctx.auth,
      onResult: onResult === undefined
        ? undefined
        : (result) => onResult(result, call),
    });
  };
  return async (call, ctx) => {
    const own = tools.get(call.name)?.wrap ?? [];
    const caller = composeMiddleware([...options.middleware, ...own], base);
    return await caller(call, ctx);
  };
}

/**
 * The chain of {@link toolChain} for one batch of calls, with the whole
 * results it reported (`onResult`), by call id: the dispatch reads a call's
 * media from there.
 */
export function recordingChain(
  tools: ToolSnapshot,
  options: Omit<ChainOptions, "onResult">,
): { caller: ToolCaller; reported: Map<string, ToolResult> } {
  const reported = new Map<string, ToolResult>();
  const caller = toolChain(tools, {
    ...options,
    onResult: (result, call) => reported.set(call.id, result),
  });
  return { caller, reported };
}

/** The reason the first `ApprovalRequiredError` in `err`'s cause chain carries, if any. */
export function approvalRequestOf(err: unknown): ApprovalRequest | undefined {
  let current = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof ApprovalRequiredError) return current.request;
    current = current.cause;
  }
  return undefined;
}

/** Whether `err` (or a cause below it) asks for approval: such a call is parked. */
export function isApprovalRequired(err: unknown): boolean {
  let current = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof ApprovalRequiredError) return true;
    current = current.cause;
  }
  return false;
}
