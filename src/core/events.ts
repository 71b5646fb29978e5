/**
 * Run events: what an observer (`onEvent`) sees while a run goes on. Every
 * event carries a snake_case `type` and the run's id; tool events carry a
 * per-run sequence number, so their order is their `seq` order.
 *
 * @module
 */

import type {
  ModelInfo,
  ModelResponseInfo,
  ModelWarning,
  ProviderMetadata,
  StopReason,
  Usage,
} from "./model.ts";
import type { PendingCall } from "./run.ts";
import type { ToolView } from "./messages.ts";

/** The run began. */
export interface RunStartEvent {
  /** Discriminator. */
  readonly type: "run_start";
  /** The run id. */
  readonly runId: string;
  /** The agent's name, `""` when unnamed. */
  readonly agent: string;
  /** The model's provider and name, when it reports them. */
  readonly model?: ModelInfo;
}

/** A step began (before the model call). */
export interface StepStartEvent {
  /** Discriminator. */
  readonly type: "step_start";
  /** The run id. */
  readonly runId: string;
  /** The step index, from 0. */
  readonly index: number;
}

/** A piece of answer text arrived from the model. */
export interface TextDeltaEvent {
  /** Discriminator. */
  readonly type: "text_delta";
  /** The run id. */
  readonly runId: string;
  /** The delta. */
  readonly text: string;
}

/** A piece of reasoning arrived from the model. */
export interface ReasoningDeltaEvent {
  /** Discriminator. */
  readonly type: "reasoning_delta";
  /** The run id. */
  readonly runId: string;
  /** The delta. */
  readonly text: string;
}

/**
 * The provider warned about this step's model call: a setting or feature it
 * ignored or emulates, something deprecated, or a note of its own. Emitted
 * as it arrives (before the step's text, for the AI SDK's warnings), so it
 * is seen even when the step then fails; the step record keeps them all.
 *
 * @example See what the provider ignored
 * ```ts
 * import { Agent, type RunEvent } from "@weft/mcp";
 * import { raw, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const model = script(raw(
 *   { type: "warning", warning: { type: "unsupported", feature: "seed" } },
 *   { type: "text", text: "hi" },
 *   { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ));
 * const warned: string[] = [];
 * const agent = new Agent(model, {
 *   onEvent: (event: RunEvent) => {
 *     if (event.type === "model_warning") warned.push(`${event.warning.type}: ${event.warning.feature}`);
 *   },
 * });
 * const result = await agent.generate("hello");
 * assert.deepEqual(warned, ["unsupported: seed"]);
 * assert.deepEqual(result.steps[0].warnings, [{ type: "unsupported", feature: "seed" }]);
 * ```
 */
export interface ModelWarningEvent {
  /** Discriminator. */
  readonly type: "model_warning";
  /** The run id. */
  readonly runId: string;
  /** The index of the step whose model call it concerns. */
  readonly index: number;
  /** The provider's warning. */
  readonly warning: ModelWarning;
}

/** A call started (or was parked: a parked call has a start and no finish). */
export interface ToolStartEvent {
  /** Discriminator. */
  readonly type: "tool_start";
  /** The run id. */
  readonly runId: string;
  /** The per-run event sequence number. */
  readonly seq: number;
  /** The call id. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** The argument JSON text, verbatim. */
  readonly args: string;
}

/**
 * A running call reported progress (`ctx.progress`). Only between the call's
 * `tool_start` and `tool_finish`, never after the call's signal ended; the
 * fields are the tool's, as given (a non-finite number or a non-string
 * message is left out).
 */
export interface ToolProgressEvent {
  /** Discriminator. */
  readonly type: "tool_progress";
  /** The run id. */
  readonly runId: string;
  /** The per-run event sequence number. */
  readonly seq: number;
  /** The call id. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** How far the work has got, on the tool's scale. */
  readonly progress?: number;
  /** The value `progress` reaches when done, when the tool knows it. */
  readonly total?: number;
  /** The tool's status text. */
  readonly message?: string;
}

/** A call finished; `content` is the capped text the model sees. */
export interface ToolFinishEvent {
  /** Discriminator. */
  readonly type: "tool_finish";
  /** The run id. */
  readonly runId: string;
  /** The per-run event sequence number. */
  readonly seq: number;
  /** The call id. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** The capped result or failure text. */
  readonly content: string;
  /** Whether `content` reports a failure. */
  readonly isError: boolean;
}

/**
 * A call's tool shipped a view (an MCP App tool imported with `apps`), right
 * after its `tool_finish`: what a page needs to render it. The call's
 * `ToolResultPart.view` keeps the same, so a saved run renders it again.
 */
export interface AppEvent {
  /** Discriminator. */
  readonly type: "app";
  /** The run id. */
  readonly runId: string;
  /** The per-run event sequence number. */
  readonly seq: number;
  /** The call id. */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** The view: server, tool, `ui://` resource, input and whole result. */
  readonly view: ToolView;
}

/** A step finished. */
export interface StepFinishEvent {
  /** Discriminator. */
  readonly type: "step_finish";
  /** The run id. */
  readonly runId: string;
  /** The step index. */
  readonly index: number;
  /** The model's stop reason for the step. */
  readonly reason: StopReason;
  /** The step's model usage. */
  readonly usage: Usage;
  /** What the provider said about its response (id, the model that answered, when), when it said anything. */
  readonly response?: ModelResponseInfo;
  /** The provider's data about the call from its finish, when it gave any. */
  readonly providerMetadata?: ProviderMetadata;
}

/** The run ended successfully. A failed run ends with its `RunError` instead. */
export interface RunFinishEvent {
  /** Discriminator. */
  readonly type: "run_finish";
  /** The run id. */
  readonly runId: string;
  /** The summed usage. */
  readonly usage: Usage;
  /** The number of steps taken. */
  readonly steps: number;
  /** Calls awaiting approval, when any were parked. */
  readonly pending?: readonly PendingCall[];
}

/**
 * Every event a run emits.
 *
 * @example Follow a run through its events
 * ```ts
 * import { Agent, type RunEvent } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const types: string[] = [];
 * const agent = new Agent(script(say("hi")), {
 *   onEvent: (event: RunEvent) => types.push(event.type),
 * });
 * await agent.generate("hello");
 * assert.equal(types[0], "run_start");
 * assert.equal(types.at(-1), "run_finish");
 * ```
 */
export type RunEvent =
  | RunStartEvent
  | StepStartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ModelWarningEvent
  | ToolStartEvent
  | ToolProgressEvent
  | ToolFinishEvent
  | AppEvent
  | StepFinishEvent
  | RunFinishEvent;

/** Observes a run's events. Called synchronously; a throw is ignored and never breaks the run. */
export type EventHandler = (event: RunEvent) => void;
