/**
 * Tool middleware: a function from the next caller to a caller. The agent's
 * middleware wraps the tool's own, which wraps the base call.
 *
 * @module
 */

import type { ToolContext } from "./tool.ts";

/** One tool call as middleware sees it: the call id, the tool name, the raw argument JSON text. */
export interface ToolCall {
  /** The call's id (the model's, or `mcp_call_<n>` under `serveAgent`). */
  readonly id: string;
  /** The tool name as called. */
  readonly name: string;
  /** The model's argument JSON text, verbatim. */
  readonly args: string;
}

/** Runs one tool call; resolves to the result text, rejects with the failure. */
export type ToolCaller = (call: ToolCall, ctx: ToolContext) => Promise<string>;

/** Wraps a caller: may inspect, rewrite, refuse or time the call. */
export type ToolMiddleware = (next: ToolCaller) => ToolCaller;

/**
 * Composes middleware around a base caller. The first middleware listed is
 * the outermost: it sees the call first and the result last.
 *
 * @example Using `composeMiddleware`
 * ```ts
 * import { composeMiddleware, type ToolMiddleware } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const tag = (label: string): ToolMiddleware => (next) => (call, ctx) => {
 *   seen.push(label);
 *   return next(call, ctx);
 * };
 * const run = composeMiddleware([tag("outer"), tag("inner")], () => Promise.resolve("ok"));
 * await run({ id: "1", name: "t", args: "{}" }, { signal: new AbortController().signal });
 * assert.equal(seen.join(","), "outer,inner");
 * ```
 */
export function composeMiddleware(
  middleware: readonly (ToolMiddleware | undefined | null)[],
  base: ToolCaller,
): ToolCaller {
  let caller = base;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i];
    if (mw) caller = mw(caller);
  }
  return caller;
}
