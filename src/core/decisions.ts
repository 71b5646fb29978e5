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

import { type ApprovalRequest, CodeDenied, ToolError } from "./errors.ts";
import type { InputResponse, PendingInput } from "./input.ts";
import type { PendingCall } from "./run.ts";
import type { PendingSuspension } from "./suspend.ts";

/** Run the parked call, with `approved` true in its call info. */
export interface ApproveDecision {
  /** Discriminator. */
  readonly type: "approve";
  /** The pending call's id. */
  readonly id: string;
  /**
   * What was approved: the pending call's `approval`, as shown to the
   * person deciding (`approve(pending)` copies it). An imported tool whose
   * definition waits for approval runs only when its digest is still the
   * one shown; otherwise, or without it, the call parks again. A code-mode
   * program gets back the journal it parked with (`approval.state`).
   */
  readonly approval?: ApprovalRequest;
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

/** Run the parked call again with the answer to the input it asked for. */
export interface AnswerDecision {
  /** Discriminator. */
  readonly type: "answer";
  /** The pending call's id. */
  readonly id: string;
  /** The pending call's input request, as the run left it (its state travels with the answer). */
  readonly input: PendingInput;
  /** The answers, by request key. */
  readonly responses: Readonly<Record<string, InputResponse>>;
}

/** Continue a call suspended with its run: it waits for the same work again. */
export interface ResumeDecision {
  /** Discriminator. */
  readonly type: "resume";
  /** The pending call's id. */
  readonly id: string;
  /** The pending call's suspension, as the run left it (its state travels with the decision). */
  readonly suspended: PendingSuspension;
}

/** A decision on one pending call, for `GenerateOptions.decisions`. */
export type Decision =
  | ApproveDecision
  | DenyDecision
  | ResolveDecision
  | AnswerDecision
  | ResumeDecision;

/** The result text of a pending call that got no decision on a resume that carried others. */
export const NO_DECISION = "DENIED: no decision";

/** The result text transcript repair gives a call that has none (and is not decided on). */
export const NO_RESULT_RECORDED =
  "no result recorded: the call was interrupted";

/**
 * Approves a pending call: it runs (through the agent's middleware,
 * timeout, result cap and events) before the first model call, with
 * `ctx.call.approved` true. Given the pending call itself, the state it
 * parked with (`approval.state`: a code-mode program's journal of the calls
 * it already made) travels with the decision, so the program does not make
 * them again.
 *
 * Pass the entry of `RunResult.pending` itself when it carries an
 * `approval` (an imported tool whose pinned definition changed, a new
 * tool): the decision then carries what was shown (`approval.digest`), and
 * the call runs and pins only that definition — if the server lists
 * another one by the time the run resumes, the call parks again with the
 * new diff. An id alone approves no such definition (the call parks
 * again); it is enough for a `requireApproval` tool.
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
export function approve(call: string | PendingCall): ApproveDecision {
  if (typeof call === "string") return { type: "approve", id: call };
  if (typeof call?.id !== "string") {
    throw new TypeError(
      "weft: approve takes a pending call's id or the entry of RunResult.pending",
    );
  }
  const approval = call.approval;
  return approval === undefined
    ? { type: "approve", id: call.id }
    : { type: "approve", id: call.id, approval };
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

/**
 * Answers the input a parked call asked for: the call runs again (through
 * the agent's middleware, timeout, result cap and events, with
 * `ctx.call.approved` true) and its tool gets the answer — an imported MCP
 * tool retries `tools/call` with it (2026-07-28: the server's `requestState`
 * and `inputResponses`; 2025: the answer goes to the server's waiting
 * `elicitation/create`), a local tool's `ctx.ask` returns it.
 *
 * `pending` is the entry from `RunResult.pending` (its `input` carries the
 * state the call resumes with, so a host may store it and resume later).
 * `response` is one answer — `{ action: "accept", content }`, or
 * `{ action: "decline" }` / `{ action: "cancel" }` — when the call asked one
 * thing, or the answers by request key when it asked several.
 *
 * @example Answer what a tool asked
 * ```ts
 * import assert from "node:assert/strict";
 * import { Agent, answer, rawTool } from "@weft/mcp";
 * import { callTools, say, script } from "@weft/mcp/testing";
 *
 * const greet = rawTool({
 *   name: "greet",
 *   description: "Greets someone by name.",
 *   run: async (_args, ctx) => {
 *     const reply = await ctx.ask!({
 *       message: "Whom should I greet?",
 *       schema: { type: "object", properties: { name: { type: "string" } } },
 *     });
 *     return reply.action === "accept" ? `hello ${reply.content?.name}` : "no one";
 *   },
 * });
 * const agent = new Agent(script(callTools({ name: "greet" }), say("Done.")), {
 *   tools: [greet],
 * });
 * const parked = await agent.generate("Greet someone.");
 * assert.equal(parked.pending[0].input?.requests.ask_0.method, "elicitation/create");
 * const resumed = await agent.generate(parked.messages, {
 *   decisions: [answer(parked.pending[0], { action: "accept", content: { name: "Ada" } })],
 * });
 * // The answered call's result, also in `resumed.messages`:
 * assert.equal(resumed.resumed[0].content, "hello Ada");
 * ```
 */
export function answer(
  pending: PendingCall,
  response: InputResponse | Readonly<Record<string, InputResponse>>,
): AnswerDecision {
  const input = pending?.input;
  if (input === undefined || input === null || typeof input !== "object") {
    throw new TypeError(
      "weft: answer takes a pending call that asked for input (an entry of RunResult.pending with an input); use approve, deny or resolve for the others",
    );
  }
  const keys = Object.keys(input.requests ?? {});
  let responses: Readonly<Record<string, InputResponse>>;
  if (typeof (response as { action?: unknown })?.action === "string") {
    if (keys.length !== 1) {
      throw new TypeError(
        `weft: call ${
          JSON.stringify(pending.id)
        } asked for ${keys.length} inputs; answer each by its key (${
          keys.join(", ")
        })`,
      );
    }
    responses = { [keys[0]]: response as InputResponse };
  } else {
    responses = response as Readonly<Record<string, InputResponse>>;
  }
  return { type: "answer", id: pending.id, input, responses };
}

/** The text a denied call reads: `DENIED: <reason>`, or `DENIED` for an empty reason. */
export function deniedText(reason: string): string {
  return new ToolError(CodeDenied, reason).message;
}

/**
 * Continues the pending call a suspended run left (`GenerateOptions.suspend`;
 * the entry has `suspended`): the call runs again (through the agent's
 * middleware, timeout, result cap and events, with `ctx.call.approved`
 * true) with the state it was suspended with in `ctx.call.suspended`, and
 * waits for the same work — an imported tool called as a server task polls
 * that task by its id; the tool is not called again. The entry is plain
 * JSON data: save the run, and resume it in another process.
 *
 * @example Suspend a run mid-task, resume it later
 * ```ts
 * import { Agent, type Client, importTools } from "@weft/mcp";
 * import { resume } from "@weft/mcp/core";
 * import { callTools, say, script } from "@weft/mcp/testing";
 *
 * async function suspendAndResume(before: Client, after: Client) {
 *   const stop = new AbortController();
 *   const agent = new Agent(script(callTools({ name: "crawl" })), {
 *     tools: (await importTools(before)).tools,
 *   });
 *   const running = agent.generate("crawl it", { suspend: stop.signal });
 *   stop.abort(); // the host must stop: the task goes on on its server
 *   const saved = JSON.stringify(await running);
 *
 *   // Later, in another process:
 *   const run = JSON.parse(saved);
 *   const again = new Agent(script(say("done")), {
 *     tools: (await importTools(after)).tools,
 *   });
 *   return await again.generate(run.messages, {
 *     decisions: run.pending.map(resume),
 *   });
 * }
 * void suspendAndResume;
 * ```
 */
export function resume(pending: PendingCall): ResumeDecision {
  const suspended = pending?.suspended;
  if (
    suspended === undefined || suspended === null ||
    typeof suspended !== "object"
  ) {
    throw new TypeError(
      "weft: resume takes a pending call that was suspended (an entry of RunResult.pending with suspended); use approve, deny, resolve or answer for the others",
    );
  }
  return { type: "resume", id: pending.id, suspended };
}
