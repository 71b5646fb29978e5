/**
 * Scripted models for tests: a `Model` that plays its turns in order.
 *
 * @module
 */

// --- testing (agent-loop) ---
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
// --- end testing ---
