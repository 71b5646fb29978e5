/**
 * The agent: a model, instructions, tools and run policy. `generate` runs
 * the step loop; `callTool` dispatches one call through the tool chain.
 *
 * @module
 */

import type { AskFn } from "./input.ts";
import type { LogFn } from "./logging.ts";
import type { SampleFn } from "./sampling.ts";
import type { AuthInfo } from "./auth.ts";
import type { Decision } from "./decisions.ts";
import { quote } from "./errors.ts";
import type { EventHandler } from "./events.ts";
import type { Message } from "./messages.ts";
import type { ToolMiddleware } from "./middleware.ts";
import type { Model } from "./model.ts";
import { type LoopConfig, runLoop } from "./_loop.ts";
import { OutputRecorder, outputTool } from "./output.ts";
import { DEFAULT_MAX_RESULT_BYTES } from "./policy.ts";
import type { RunResult } from "./run.ts";
import { snapshotTools, toolChain } from "./_chain.ts";
import { RunStream } from "./stream.ts";
import { argumentText, context } from "./_tool_build.ts";
import type {
  CallInfo,
  ProgressFn,
  ToolArguments,
  ToolDef,
  ToolResult,
} from "./tool.ts";
import type { SchemaInput } from "./schema_input.ts";
import {
  SEARCH_TOOLS,
  ToolSearch,
  type ToolSearchOptions,
} from "./_tool_search.ts";
import { SUBMIT_OUTPUT } from "./output.ts";
import type { CodeModeOptions } from "./code_mode.ts";
import { codeTool } from "./_code_tool.ts";

/**
 * How an agent is built. Every field is optional.
 *
 * @example A named agent with a step budget
 * ```ts
 * import { Agent, type AgentOptions } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const options: AgentOptions = {
 *   name: "helper",
 *   instructions: "Answer in one word.",
 *   maxSteps: 3,
 * };
 * const agent = new Agent(script(say("hi")), options);
 * assert.equal(agent.name, "helper");
 * assert.equal((await agent.generate("hello")).text, "hi");
 * ```
 */
export interface AgentOptions {
  /** The agent's name: the subagent tool's default name, `serveAgent`'s tool name. */
  name?: string;
  /** The system prompt. */
  instructions?: string;
  /** Registered tools, in order. A repeated name throws `TypeError`. */
  tools?: readonly ToolDef[];
  /**
   * More tools, read once per step and once per `callTool`, advertised after
   * the registered ones. A repeated name fails the run with
   * `DuplicateToolError`, a missing entry with `MissingToolError`.
   */
  toolSource?: () => readonly (ToolDef | null | undefined)[];
  /** Structured final output: registers `submit_output` over this schema. */
  output?: SchemaInput<unknown>;
  /**
   * The step budget; default 10, values below 1 ignored.
   * @default 10
   */
  maxSteps?: number;
  /**
   * The most calls in flight per step; default 4, values below 1 ignored.
   * @default 4
   */
  parallelism?: number;
  /** Middleware around every call, outside each tool's own. */
  wrapTools?: readonly ToolMiddleware[];
  /**
   * Default per-call timeout in ms; non-positive values ignored (no timeout).
   * @default no timeout
   */
  timeout?: number;
  /**
   * Default result cap in UTF-8 bytes; default 64 KiB, 0 for none, negative ignored.
   * @default 65536
   */
  maxResultBytes?: number;
  /**
   * Reject undeclared argument fields for every typed tool.
   * @default false
   */
  strictInput?: boolean;
  /** Observes every run's events. */
  onEvent?: EventHandler;
  /**
   * Many tools, one small request: the model first sees a `search_tools`
   * tool (and the tools named always visible) instead of every definition;
   * the tools a search names are in the request from the next step on, and
   * stay there for the run (a resumed run too). The list only grows, in the
   * order found, so each step's tool list is a prefix of the next one's.
   * Approval, scopes and every other policy of a tool are unchanged.
   * Absent: every tool is in every request.
   *
   * @experimental Tool search's heuristics (matching, ranking) may change.
   */
  toolSearch?: ToolSearchOptions;
  /**
   * Code mode: the model gets one tool (`code`) whose input is a program
   * over the agent's tools, described by a generated typed API, and run by
   * the given executor; each call the program makes goes through the same
   * middleware, approval, scopes and policy as a direct call. The tools
   * stay directly callable only with `direct: true` (the toolSource's
   * tools then too; otherwise they are reached through programs).
   * Absent: no code tool.
   *
   * @experimental Code mode may change.
   */
  codeMode?: CodeModeOptions;
}

/** Options for one {@linkcode Agent.generate} run. */
export interface GenerateOptions {
  /** Cancels the run; the run fails with the signal's reason as its cause. */
  signal?: AbortSignal;
  /**
   * Suspends the run without cancelling work that goes on elsewhere (the
   * host must stop: a deploy, a restart). When it fires, calls in flight
   * whose work runs elsewhere — imported tools called as server tasks —
   * stop waiting (their tasks are not cancelled) and park on
   * `RunResult.pending` with `suspended`; other calls in flight finish as
   * usual (pass `signal` too to abort them); no further step starts (a
   * model turn in flight completes, and its calls run). The run resolves
   * with its result: save it as JSON, and continue it later, anywhere,
   * with `generate(messages, { decisions: pending.map(resume) })` — a
   * resumed task call polls the same task, the tool is not called again.
   * A run suspended with nothing pending continues with
   * `generate(messages)`.
   */
  suspend?: AbortSignal;
  /** Observes this run's events (after the agent's own `onEvent`). */
  onEvent?: EventHandler;
  /** The agents already running above this run, outermost first (subagent cycle detection). */
  lineage?: readonly object[];
  /**
   * The verified caller this run acts for (a served agent called over
   * authenticated HTTP): every tool the run calls sees it as `ctx.auth`.
   */
  auth?: AuthInfo;
  /** The run id; a random 128-bit hex id when absent. */
  runId?: string;
  /**
   * Decisions on the pending calls of the transcript given to `generate`
   * (`approve`, `deny`, `resolve`, `resolveError`), applied before the
   * first step. With any decision given, a pending call without one reads
   * `DENIED: no decision`; a decision on a call that is not pending fails
   * the run at its first step (`weft: run failed at step 1: …`) with
   * `NotPendingError`.
   */
  decisions?: readonly Decision[];
  /**
   * Called after each step the run goes on from (its tool calls all have
   * results), with the transcript so far, and awaited before the next
   * step: save it, and `generate(messages)` resumes the run from there (a
   * served agent's MCP task resumes so on another instance).
   */
  checkpoint?: (messages: readonly Message[]) => void | Promise<void>;
}

/** Options for one {@linkcode Agent.callTool}. */
export interface CallToolOptions {
  /** The call's signal, passed to the handler. */
  signal?: AbortSignal;
  /** The call id middleware sees as `ToolCall.id` (`serveAgent` passes `mcp_call_<n>`); default `""`. */
  id?: string;
  /** The agents running above this call, passed to the handler's context. */
  lineage?: readonly object[];
  /** Receives the handler's progress reports (its context's `progress`); absent: none asked. */
  progress?: ProgressFn;
  /** Answers the handler's requests for input (its context's `ask`); absent: none can be asked. */
  ask?: AskFn;
  /** Receives the handler's log messages (its context's `log`); absent: none sent. */
  log?: LogFn;
  /** Answers the handler's sampling requests (its context's `sample`); absent: none can be asked. */
  sample?: SampleFn;
  /** The verified caller (`serveAgent` over authenticated HTTP), passed to the handler's context. */
  auth?: AuthInfo;
  /**
   * Receives the tool's whole result (`InvokeOptions.onResult`): the text
   * the tool produced, with the content items or structured value it stands
   * for. Middleware may still rewrite what `callTool` resolves to.
   */
  onResult?: (result: ToolResult) => void;
  /**
   * The call's identity, passed to the handler's context (`ctx.call`):
   * with `approved: true`, an approval-gated tool runs (the caller decided).
   */
  call?: CallInfo;
  /**
   * Tools this call may reach beyond the agent's own (an app host's
   * app-only tools, which no model sees); the agent's own win a name clash.
   */
  extraTools?: readonly ToolDef[];
}

/**
 * An agent.
 *
 * @example Using `Agent`
 * ```ts
 * import { Agent } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 * const agent = new Agent(script(say("hello")), { name: "greeter" });
 * const result = await agent.generate("hi");
 * assert.equal(result.text, "hello");
 * ```
 */
export class Agent {
  /** The name, `""` when unnamed. */
  readonly name: string;
  /** The system prompt, `""` when none. */
  readonly instructions: string;
  /** The model. */
  readonly model: Model;
  /** The registered tools in order (`submit_output` last for an output agent); not the toolSource's. */
  readonly tools: readonly ToolDef[];
  /** The structured-output schema, when the agent has one. */
  readonly output?: SchemaInput<unknown>;
  #config: LoopConfig;

  /** Builds an agent; throws `TypeError` on a missing model, a missing tool or a repeated name. */
  constructor(model: Model, options: AgentOptions = {}) {
    if (
      model === null || model === undefined ||
      typeof model.stream !== "function"
    ) {
      throw new TypeError(
        "new Agent(model): model is required: pass a Model (an object with a stream method)",
      );
    }
    const registered = [...(options.tools ?? [])];
    const code = options.codeMode;
    const tools = code === undefined || code.direct === true
      ? [...registered]
      : [];
    let outputs: OutputRecorder | undefined;
    if (options.output !== undefined) {
      outputs = new OutputRecorder();
      tools.push(outputTool(options.output, outputs));
    }
    const timeout = positive(options.timeout) ? options.timeout : 0;
    const maxResultBytes = nonNegative(options.maxResultBytes)
      ? options.maxResultBytes
      : DEFAULT_MAX_RESULT_BYTES;
    const middleware = Object.freeze([...(options.wrapTools ?? [])]);
    const strictInput = options.strictInput === true;
    if (code !== undefined) {
      checkTools(registered);
      const source = options.toolSource;
      tools.push(codeTool({
        tools: () => snapshotTools(registered, source?.()),
        middleware,
        strictInput,
        timeout,
        maxResultBytes,
      }, code));
    }
    checkTools(tools);
    let search: ToolSearch | undefined;
    if (options.toolSearch !== undefined) {
      if (tools.some((t) => t.name === SEARCH_TOOLS)) {
        throw new TypeError(
          `new Agent(model, { toolSearch }): a registered tool is named ${
            quote(SEARCH_TOOLS)
          }, the search tool's name; rename it`,
        );
      }
      search = new ToolSearch(
        options.toolSearch,
        outputs === undefined ? [] : [SUBMIT_OUTPUT],
      );
    }
    this.name = options.name ?? "";
    this.instructions = options.instructions ?? "";
    this.model = model;
    this.tools = Object.freeze(tools);
    if (options.output !== undefined) this.output = options.output;
    this.#config = {
      self: this,
      model,
      name: this.name,
      instructions: this.instructions,
      tools: this.tools,
      toolSource: code === undefined || code.direct === true
        ? options.toolSource
        : undefined,
      maxSteps: atLeastOne(options.maxSteps, 10),
      parallelism: atLeastOne(options.parallelism, 4),
      middleware,
      timeout,
      maxResultBytes,
      strictInput,
      onEvent: options.onEvent,
      outputs,
      search,
    };
  }

  /**
   * Runs the agent on `input`: a prompt (a fresh transcript with one user
   * message), or a transcript to continue, such as a previous
   * `result.messages` (with a new `userMessage` appended for the next turn
   * of a conversation, or with `options.decisions` for its parked calls).
   * The transcript is copied, never changed; a call in it without a result
   * (and not decided on) reads `no result recorded: the call was
   * interrupted`. Resolves with the result; rejects with a `RunError`
   * carrying the failing step, the cause and the partial result, or with a
   * `TypeError` when `input` is neither a string nor an array of messages.
   *
   * @example Using `generate`
   * ```ts
   * import assert from "node:assert/strict";
   * import { Agent } from "@weft/mcp";
   * import { userMessage } from "@weft/mcp/core";
   * import { say, script } from "@weft/mcp/testing";
   *
   * const agent = new Agent(script(say("Hi, Ada."), say("Your name is Ada.")));
   * const first = await agent.generate("I am Ada.");
   * const second = await agent.generate([
   *   ...first.messages,
   *   userMessage("What is my name?"),
   * ]);
   * assert.equal(second.text, "Your name is Ada.");
   * assert.equal(second.messages.length, 4);
   * ```
   */
  generate(
    input: string | readonly Message[],
    options: GenerateOptions = {},
  ): Promise<RunResult> {
    return runLoop(this.#config, input, options);
  }

  /**
   * Runs the agent like {@linkcode Agent.generate} and returns the run as
   * it happens: a {@linkcode RunStream}, an async iterable of the run's
   * events (text deltas as they arrive, tool starts and finishes, steps)
   * that ends when the run does, with the outcome on `stream.result`.
   * Leaving the loop early cancels the run. `options.onEvent` still sees
   * every event.
   *
   * @example Using `stream`
   * ```ts
   * import assert from "node:assert/strict";
   * import { Agent } from "@weft/mcp";
   * import { say, script } from "@weft/mcp/testing";
   *
   * const agent = new Agent(script(say("Hello!")));
   * const stream = agent.stream("Say hello.");
   * const types: string[] = [];
   * for await (const event of stream) types.push(event.type);
   * assert.deepEqual(types, [
   *   "run_start", "step_start", "text_delta", "step_finish", "run_finish",
   * ]);
   * assert.equal((await stream.result).text, "Hello!");
   * ```
   */
  stream(
    input: string | readonly Message[],
    options: GenerateOptions = {},
  ): RunStream {
    const controller = new AbortController();
    const signal = options.signal === undefined
      ? controller.signal
      : AbortSignal.any([options.signal, controller.signal]);
    const observe = options.onEvent;
    return new RunStream(
      (emit) =>
        runLoop(this.#config, input, {
          ...options,
          signal,
          onEvent: observe === undefined ? emit : (event) => {
            emit(event);
            observe(event);
          },
        }),
      (reason) => controller.abort(reason),
    );
  }

  /**
   * Dispatches one call through the tool chain: agent middleware, the
   * tool's middleware, then the base (unknown tool → `NoSuchToolError`,
   * approval-gated → `ApprovalRequiredError`, decode with strictness of the
   * agent or the tool, handler). No containment, no timeout, no result cap,
   * no events (the handler's progress goes to `options.progress`); the
   * toolSource is read afresh. The arguments are JSON text or an object;
   * middleware sees an object as the JSON text `stringifyExact` writes for
   * it (`ToolCall.args`).
   */
  async callTool(
    name: string,
    args: ToolArguments,
    options: CallToolOptions = {},
  ): Promise<string> {
    let all = snapshotTools(
      this.#config.tools,
      this.#config.toolSource?.(),
    );
    if (options.extraTools !== undefined) {
      const more = new Map(all);
      for (const t of options.extraTools) {
        if (!more.has(t.name)) more.set(t.name, t);
      }
      all = more;
    }
    const tools = this.#config.search?.withSearch(all) ?? all;
    const caller = toolChain(tools, {
      middleware: this.#config.middleware,
      strictInput: this.#config.strictInput,
      onResult: options.onResult,
    });
    const ctx = context({
      signal: options.signal,
      lineage: options.lineage ?? [],
      progress: options.progress,
      ask: options.ask,
      log: options.log,
      sample: options.sample,
      auth: options.auth,
      call: options.call,
    });
    const text = typeof args === "string" ? args : argumentText(args);
    return await caller({ id: options.id ?? "", name, args: text }, ctx);
  }
}

function checkTools(tools: readonly ToolDef[]): void {
  const seen = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (tool === null || tool === undefined) {
      throw new TypeError(
        `new Agent(model, { tools }): tools[${i}] is ${tool}; pass a tool built with tool() or rawTool()`,
      );
    }
    if (seen.has(tool.name)) {
      throw new TypeError(
        `weft: duplicate tool name ${quote(tool.name)}`,
      );
    }
    seen.add(tool.name);
  }
}

function atLeastOne(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1
    ? Math.floor(value)
    : fallback;
}

function positive(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

function nonNegative(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}
