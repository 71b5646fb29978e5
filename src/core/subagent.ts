/**
 * Subagents: an agent as a tool with input `{"prompt": string}`. The child
 * runs on a fresh transcript holding only the prompt, under the call's
 * signal; its failures are tool errors the parent model reads.
 *
 * @module
 */

import type { AuthInfo } from "./auth.ts";
import type { StandardResult } from "./standard_schema.ts";
import type { Agent } from "./agent.ts";
import {
  CodeSubagentCycle,
  CodeSubagentFailed,
  CodeSubagentPending,
  errorText,
  quote,
  ToolError,
} from "./errors.ts";
import type { EventHandler } from "./events.ts";
import type { Message } from "./messages.ts";
import { SUBMIT_OUTPUT } from "./output.ts";
import { RunError, type RunResult } from "./run.ts";
import {
  type StandardSchemaWithJSON,
  tool,
  type ToolDef,
  type ToolOptions,
} from "./tool.ts";

/** The pinned description of the subagent's `prompt` field. */
export const SUBAGENT_PROMPT_DESCRIPTION =
  "The task, stated in full: the agent sees only this prompt, not the conversation.";

/** Options of {@linkcode subagent}: tool options plus the tool's name. */
export interface SubagentOptions extends ToolOptions {
  /** The tool name; default the agent's name. */
  name?: string;
  /** Observes the events of every child run this tool starts (serveAgent's progress). */
  onEvent?: EventHandler;
}

/** Options of {@linkcode runSubagent}. */
export interface RunSubagentOptions {
  /** The tool name the `SUBAGENT_*` texts quote; default the agent's name. */
  name?: string;
  /** The call's signal: cancels the child run. */
  signal?: AbortSignal;
  /** The agents running above the call, outermost first. */
  lineage?: readonly object[];
  /** The caller the child run acts for: its tools see it as `ctx.auth`. */
  auth?: AuthInfo;
  /** Observes the child run's events (e.g. to report progress). */
  onEvent?: EventHandler;
  /** The child run's checkpoints (see `GenerateOptions.checkpoint`). */
  checkpoint?: (messages: readonly Message[]) => void | Promise<void>;
}

/**
 * `agent` as a tool. The model passes `{"prompt": "..."}`; the tool returns
 * the child's final text, or, for an agent with `output`, the raw argument
 * text of its last successful `submit_output` call. Failures are tool
 * errors: `SUBAGENT_FAILED`, `SUBAGENT_PENDING`, `SUBAGENT_CYCLE`. The name
 * defaults to the agent's; origin defaults to `"subagent"`.
 *
 * @example Using `subagent`
 * ```ts
 * import { Agent, subagent } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 * const research = new Agent(script(say("research done")), { name: "research" });
 * const t = subagent(research, "Researches a topic.");
 * assert.equal(await t.invoke('{"prompt":"find it"}'), "research done");
 * ```
 */
export function subagent(
  agent: Agent,
  description: string,
  options: SubagentOptions = {},
): ToolDef {
  if (agent === null || agent === undefined) {
    throw new TypeError(
      `subagent(agent, description): agent is required (tool ${
        quote(options.name ?? "")
      })`,
    );
  }
  const { name: given, onEvent, ...toolOptions } = options;
  const name = given !== undefined && given !== "" ? given : agent.name;
  if (name === "") {
    throw new TypeError(
      "weft: subagent needs a name: name the agent or pass options.name",
    );
  }
  return tool({
    origin: "subagent",
    ...toolOptions,
    name,
    description,
    input: promptSchema,
    run(input, ctx): Promise<string> {
      return runSubagent(agent, input.prompt, {
        name,
        signal: ctx.signal,
        lineage: ctx.lineage,
        ...(ctx.auth !== undefined ? { auth: ctx.auth } : {}),
        onEvent,
      });
    },
  });
}

/**
 * Runs `agent` as a subagent on `prompt` (or a transcript saved by a
 * `checkpoint`, to resume from) and renders the outcome the way the
 * subagent tool does: resolves to the answer, rejects with a `ToolError`
 * (`SUBAGENT_CYCLE` before any model call when `agent` is on the lineage,
 * `SUBAGENT_FAILED` with the child `RunError` as cause, `SUBAGENT_PENDING`).
 */
export async function runSubagent(
  agent: Agent,
  prompt: string | readonly Message[],
  options: RunSubagentOptions = {},
): Promise<string> {
  const name = options.name ?? agent.name;
  const lineage = options.lineage ?? [];
  if (lineage.includes(agent)) {
    throw new ToolError(
      CodeSubagentCycle,
      `agent ${quote(name)} is already running in this call chain`,
    );
  }
  let result: RunResult;
  try {
    result = await agent.generate(prompt, {
      signal: options.signal,
      lineage,
      auth: options.auth,
      onEvent: options.onEvent,
      checkpoint: options.checkpoint,
    });
  } catch (err) {
    if (!(err instanceof RunError)) throw err;
    throw new ToolError(
      CodeSubagentFailed,
      `agent ${quote(name)} failed at step ${err.step + 1}: ${
        errorText(err.cause)
      }`,
      { cause: err },
    );
  }
  if (result.pending.length > 0) {
    throw new ToolError(
      CodeSubagentPending,
      `agent ${
        quote(name)
      } ended awaiting approval of ${result.pending.length} call(s)`,
    );
  }
  if (agent.output !== undefined) {
    const submitted = lastSubmission(result.messages);
    if (submitted !== undefined) return submitted;
  }
  return result.text;
}

/** The raw argument text of the last `submit_output` call with a non-error result. */
function lastSubmission(messages: readonly Message[]): string | undefined {
  const args = new Map<string, string>();
  let last: string | undefined;
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === "tool_call" && part.name === SUBMIT_OUTPUT) {
        args.set(part.id, part.args);
      }
      if (
        part.type === "tool_result" && part.name === SUBMIT_OUTPUT &&
        !part.isError
      ) {
        last = args.get(part.callId) ?? last;
      }
    }
  }
  return last;
}

/** The pinned input schema document. */
function promptDocument(): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      prompt: { type: "string", description: SUBAGENT_PROMPT_DESCRIPTION },
    },
    required: ["prompt"],
  };
}

/** `{prompt: string}` as a Standard Schema with its pinned JSON Schema. */
const promptSchema: StandardSchemaWithJSON<{ prompt: string }> = {
  "~standard": {
    version: 1,
    vendor: "weft",
    validate(value: unknown): StandardResult<{ prompt: string }> {
      const prompt = typeof value === "object" && value !== null
        ? (value as Record<string, unknown>).prompt
        : undefined;
      if (typeof prompt === "string") return { value: { prompt } };
      return { issues: [{ message: "expected string", path: ["prompt"] }] };
    },
    jsonSchema: { input: promptDocument, output: promptDocument },
  },
};
