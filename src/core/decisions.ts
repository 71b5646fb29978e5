/**
 * Decisions on parked calls. A run that parks a call (its tool has
 * `requireApproval`, or middleware asked for approval) ends successfully
 * with the call on `RunResult.pending` and no result for it in the
 * transcript. Pass that transcript back to `Agent.generate` with a decision
 * per pending call: {@linkcode approve} runs it, {@linkcode deny} answers
 * `DENIED: <reason>`, {@linkcode resolve} and {@linkcode resolveError}
 * answer with your own text. A pending call left without a decision reads
 * `DENIED: no decision`.
 *
 * @module
 */

import { CodeDenied, ToolError } from "./errors.ts";

/** Run the parked call, with `approved` true in its call info. */
export interface ApproveDecision {
  /** Discriminator. */
  readonly type: "approve";
  /** The pending call's id. */
  readonly id: string;
}

/** Answer the parked call with `DENIED: <reason>` (an error result) without running it. */
export interface DenyDecision {
  /** Discriminator. */
  readonly type: "deny";
  /** The pending call's id. */
  readonly id: string;
  /** What the model reads after `DENIED: `. */
  readonly reason: string;
}

/** Answer the parked call with `content` without running it. */
export interface ResolveDecision {
  /** Discriminator: `resolve` is a plain result, `resolve_error` an error result. */
  readonly type: "resolve" | "resolve_error";
  /** The pending call's id. */
  readonly id: string;
  /** The result text the model reads (capped like any result). */
  readonly content: string;
}

/** A decision on one pending call, for `GenerateOptions.decisions`. */
export type Decision = ApproveDecision | DenyDecision | ResolveDecision;

/** The result text of a pending call that got no decision on a resume that carried others. */
export const NO_DECISION = "DENIED: no decision";

/** The result text transcript repair gives a call that has none (and is not decided on). */
export const NO_RESULT_RECORDED =
  "no result recorded: the call was interrupted";

/**
 * Approves the pending call `id`: it runs (through the agent's middleware,
 * timeout, result cap and events) before the first model call, with
 * `ctx.call.approved` true.
 *
 * @example Using `approve`
 * ```ts
 * import assert from "node:assert/strict";
 * import { Agent, approve, tool } from "@weft/mcp";
 * import { callTools, say, script } from "@weft/mcp/testing";
 * import { z } from "zod";
 *
 * const remove = tool({
 *   name: "delete_file",
 *   description: "Deletes a file.",
 *   input: z.object({ path: z.string() }),
 *   requireApproval: true,
 *   run: ({ path }, ctx) => `deleted ${path} (approved: ${ctx.call?.approved})`,
 * });
 * const agent = new Agent(
 *   script(callTools({ name: "delete_file", args: { path: "a.txt" } }), say("Done.")),
 *   { tools: [remove] },
 * );
 * const parked = await agent.generate("Delete a.txt.");
 * assert.equal(parked.pending[0].id, "call_1");
 * const resumed = await agent.generate(parked.messages, {
 *   decisions: [approve("call_1")],
 * });
 * assert.equal(resumed.text, "Done.");
 * ```
 */
export function approve(id: string): ApproveDecision {
  return { type: "approve", id };
}

/**
 * Denies the pending call `id`: it never runs, and the model reads the
 * error result `DENIED: <reason>` (`DENIED` alone for an empty reason).
 *
 * @example Using `deny`
 * ```ts
 * import assert from "node:assert/strict";
 * import { deny } from "@weft/mcp";
 * assert.deepEqual(deny("call_1", "not on Fridays"), {
 *   type: "deny",
 *   id: "call_1",
 *   reason: "not on Fridays",
 * });
 * ```
 */
export function deny(id: string, reason: string): DenyDecision {
  return { type: "deny", id, reason };
}

/**
 * Answers the pending call `id` with `content` as its (successful) result,
 * without running it: e.g. a person did the work by hand.
 *
 * @example Using `resolve`
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolve } from "@weft/mcp";
 * assert.equal(resolve("call_1", "sent by hand").type, "resolve");
 * ```
 */
export function resolve(id: string, content: string): ResolveDecision {
  return { type: "resolve", id, content };
}

/**
 * Answers the pending call `id` with `content` as an error result, without
 * running it.
 *
 * @example Using `resolveError`
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveError } from "@weft/mcp";
 * assert.equal(resolveError("call_1", "the printer is out of paper").type, "resolve_error");
 * ```
 */
export function resolveError(id: string, content: string): ResolveDecision {
  return { type: "resolve_error", id, content };
}

/** The text a denied call reads: `DENIED: <reason>`, or `DENIED` for an empty reason. */
export function deniedText(reason: string): string {
  return new ToolError(CodeDenied, reason).message;
}
