/**
 * Scripted models for tests: a `Model` that plays its turns in order. The
 * agent loop cannot tell a scripted model from a real one, so a test drives
 * tools, approvals and structured output without a provider.
 *
 * @example Script a tool call, then an answer
 * ```ts
 * import { Agent, rawTool } from "@weft/mcp";
 * import { callTools, say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = rawTool({
 *   name: "clock",
 *   description: "Tells the time.",
 *   run: () => "12:00",
 * });
 * const model = script(
 *   callTools({ name: "clock", args: {} }),
 *   say("It is noon."),
 * );
 * const result = await new Agent(model, { tools: [clock] }).generate("Time?");
 * assert.equal(result.text, "It is noon.");
 * assert.equal(result.steps.length, 2);
 * ```
 *
 * @module
 */

export {
  callTools,
  fail,
  maxTokens,
  raw,
  say,
  sayThenFail,
  script,
  SCRIPT_USAGE,
  ScriptExhaustedError,
  submit,
  think,
  withUsage,
} from "./src/testing/script.ts";
export type { ScriptedCall, ScriptModel, Turn } from "./src/testing/script.ts";
