/**
 * The bridge's view of a server's record (`src/core/server_state.ts`):
 * the same one object, its bridge fields typed. Every bridge module that
 * keeps something per server reads and writes its field here — found once
 * per server, then held — instead of a lookup of its own.
 *
 * @module
 */

import {
  type ServerState,
  serverState,
  serverStateOf,
} from "../core/server_state.ts";
import type { LogLevel } from "../core/logging.ts";
import type { Registry } from "./_registry.ts";
import type { ResourceRegistry } from "./resources.ts";
import type { PromptRegistry } from "./prompts.ts";
import type { CompletionSources } from "./_completions.ts";
import type { TaskRunner } from "./task_hook.ts";
import type { StateConfig } from "./_ask.ts";

/** A server's record as the bridge reads it. */
export interface BridgeState extends ServerState {
  tools: Registry | undefined;
  resources: ResourceRegistry | undefined;
  prompts: PromptRegistry | undefined;
  completions: CompletionSources | undefined;
  taskRunner: TaskRunner | undefined;
  /** `logging/setLevel`'s levels by session, for servers that are not the SDK's. */
  logLevels: Map<string | undefined, LogLevel> | undefined;
  requestState: StateConfig | undefined;
}

/** The record of `server`, made on first use. */
export const bridgeState = serverState as (server: object) => BridgeState;

/** The record of `server`, or `undefined` when nothing was kept for it yet. */
export const bridgeStateOf = serverStateOf as (
  server: object,
) => BridgeState | undefined;
