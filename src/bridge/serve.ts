/**
 * Serve: a whole agent on an MCP server — one tool named after it, plus its
 * registered tools under its tool chain.
 *
 * @module
 */

import type { AskFn } from "../core/input.ts";
import type { ToolServer as Server } from "./peers.ts";
import type { Agent } from "../core/agent.ts";
import { quote } from "../core/errors.ts";
import { SUBMIT_OUTPUT } from "../core/output.ts";
import { runSubagent, subagent } from "../core/subagent.ts";
import type { Message } from "../core/messages.ts";
import type { TaskRunOptions } from "./task_hook.ts";
import type {
  ProgressFn,
  TaskSupport,
  ToolDef,
  ToolResult,
} from "../core/tool.ts";
import { exported } from "./export.ts";
import { runReporter } from "./_progress.ts";
import {
  authOf,
  type CallChannels,
  type CallExtra,
  type Exported,
} from "./_exported.ts";
import { argumentText, register } from "./_registry.ts";

/**
 * Options of {@link serveAgent}.
 *
 * @example A served agent callers run as a task
 * ```ts
 * import type { ServeAgentOptions } from "@weft/mcp/bridge";
 * const options: ServeAgentOptions = { taskSupport: "optional" };
 * ```
 */
export interface ServeAgentOptions {
  /**
   * Whether callers may (`"optional"`) or must (`"required"`) run the
   * agent tool as an MCP task, on a server that serves tasks
   * (`serveTasks`): the call answers a task handle at once and the run
   * goes on detached from the request. Absent: never a task.
   */
  readonly taskSupport?: TaskSupport;
  /**
   * Whether the agent's registered tools are listed and callable beside the
   * agent tool. Default `true`: clients see the agent tool and every tool
   * in `agent.tools`. `false` serves the agent alone — one tool taking a
   * `prompt` — its tools running only inside the agent's own steps.
   */
  readonly exposeTools?: boolean;
}

/**
 * Exposes an agent over MCP: one tool named after the agent (a name is
 * required) that runs it on a prompt, plus — unless `exposeTools: false`
 * serves the agent alone — the agent's registered tools (`agent.tools`),
 * each dispatched through `agent.callTool` with call ids
 * `mcp_call_1`, `mcp_call_2`, … (one counter per `serveAgent` call), so agent
 * and tool middleware and approval policy apply — an approval-gated tool
 * answers with the `weft: tool call requires approval: tool "x"` error
 * result rather than running, loud where `exportTools` refuses outright. Run
 * policy (timeout, maxResultBytes) is not applied, per `callTool`'s rule.
 *
 * The agent tool is `subagent(agent, description)` over the wire: the same
 * `{"prompt": string}` input schema, the same final-text or submitted-output
 * rule, the same `SUBAGENT_*` failure texts, no output schema. `description`
 * is what MCP clients (and their models) read to decide when to call the
 * agent: the whole routing surface, written by the caller, never synthesised;
 * the agent's instructions are never exposed. When the client's call carries
 * a progress token, the child run's finished tool calls and steps, and its
 * tools' own progress reports (`tool "x": <message>`), are sent as
 * `notifications/progress`; the client's cancellation aborts the run. The
 * agent's own tools get the call's progress channel too.
 *
 * A `toolSource`'s tools are not enumerated (they still run inside the agent
 * tool's own steps), and an output agent's `submit_output` is not exposed.
 * Every other rule is `exportTools`': listing, results, failures as `isError`
 * results, the registry and the tools capability.
 *
 * Throws a `TypeError`, registering nothing, on a missing or unnamed agent,
 * an `exposeTools` that is not a boolean, or a tool whose name collides
 * with the agent's or an earlier tool's.
 *
 * @example Using `serveAgent`
 * ```ts
 * import { Agent, serveAgent, Server } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 *
 * const research = new Agent(script(say("research complete")), {
 *   name: "research",
 *   instructions: "You research.",
 * });
 * const server = new Server({ name: "demo", version: "0" });
 * serveAgent(server, research, "Research a topic in depth.");
 * ```
 *
 * @example The agent alone: one tool taking a `prompt`
 * ```ts
 * import { Agent, rawTool, serveAgent, Server } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 *
 * const lookup = rawTool({ name: "lookup", description: "Looks up.", run: () => "" });
 * const research = new Agent(script(say("done")), {
 *   name: "research",
 *   tools: [lookup],
 * });
 * const server = new Server({ name: "demo", version: "0" });
 * serveAgent(server, research, "Research a topic in depth.", {
 *   exposeTools: false,
 * });
 * ```
 */
export function serveAgent(
  server: Server,
  agent: Agent,
  description: string,
  options?: ServeAgentOptions,
): void {
  if (agent === null || agent === undefined) {
    throw new TypeError(
      "serveAgent(server, agent, description): agent is required",
    );
  }
  if (agent.name === "") {
    throw new TypeError(
      "serveAgent: the agent has no name; set one with the Agent's name option — the exposed tool is named after the agent",
    );
  }
  const exposeTools = options?.exposeTools ?? true;
  if (typeof exposeTools !== "boolean") {
    throw new TypeError(
      `serveAgent: the exposeTools option must be true or false, got ${typeof exposeTools}`,
    );
  }
  const entries: Exported[] = [
    agentEntry(agent, description, options?.taskSupport),
  ];
  const seen = new Set<string>([agent.name]);
  let calls = 0;
  const nextId = (): string => `mcp_call_${++calls}`;
  for (const tool of exposeTools ? exposedTools(agent) : []) {
    if (seen.has(tool.name)) {
      throw new TypeError(
        `serveAgent: tool ${
          quote(tool.name)
        } collides with the agent tool or an earlier tool`,
      );
    }
    seen.add(tool.name);
    entries.push(
      exported(
        tool,
        async (
          args: unknown,
          extra: CallExtra,
          progress?: ProgressFn,
          ask?: AskFn,
          _task?: unknown,
          channels?: CallChannels,
        ) => {
          let whole: ToolResult | undefined;
          const text = await agent.callTool(tool.name, argumentText(args), {
            signal: extra.signal,
            id: nextId(),
            progress,
            ask,
            log: channels?.log,
            sample: channels?.sample,
            ...authOf(extra),
            onResult: (result) => whole = result,
          });
          // Content travels only with the text it renders to: middleware
          // that rewrote the text sends its text.
          return whole !== undefined && whole.text === text ? whole : { text };
        },
      ),
    );
  }
  register(server, entries, "serveAgent");
}

/** The agent's registered tools, minus missing entries and an output agent's `submit_output`. */
function exposedTools(agent: Agent): ToolDef[] {
  const tools: ToolDef[] = [];
  for (const tool of agent.tools ?? []) {
    if (tool === null || tool === undefined) continue;
    if (agent.output !== undefined && tool.name === SUBMIT_OUTPUT) continue;
    tools.push(tool);
  }
  return tools;
}

/**
 * The agent tool: `subagent(agent, description)`. A call that asks for
 * progress runs a subagent tool built for it, observing the child run: its
 * finished calls and steps, and its tools' own progress, go to the call's
 * progress sink.
 */
function agentEntry(
  agent: Agent,
  description: string,
  taskSupport: TaskSupport | undefined,
): Exported {
  const tool = subagent(agent, description);
  return exported(
    tool,
    (
      args: unknown,
      extra: CallExtra,
      progress?: ProgressFn,
      _ask?: AskFn,
      task?: Pick<TaskRunOptions, "checkpoint" | "saveCheckpoint">,
    ) => {
      const prompt = (args as { prompt?: unknown } | undefined)?.prompt;
      if (task !== undefined && typeof prompt === "string") {
        // A task: each finished step is saved, and a takeover resumes
        // from the last one.
        const saved = task.checkpoint;
        return runSubagent(
          agent,
          Array.isArray(saved) ? saved as Message[] : prompt,
          {
            signal: extra.signal,
            ...authOf(extra),
            onEvent: progress === undefined ? undefined : runReporter(progress),
            checkpoint: task.saveCheckpoint,
          },
        ).then(textResult);
      }
      const text = argumentText(args);
      if (progress === undefined) {
        return tool.invoke(text, { signal: extra.signal, ...authOf(extra) })
          .then(textResult);
      }
      const observed = subagent(agent, description, {
        onEvent: runReporter(progress),
      });
      return observed.invoke(text, { signal: extra.signal, ...authOf(extra) })
        .then(textResult);
    },
    { taskSupport, resumable: true },
  );
}

function textResult(text: string): ToolResult {
  return { text };
}
