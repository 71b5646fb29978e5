/**
 * What the bridge's tool registry holds and hands a tool's run: one
 * exported tool (`Exported`: its listing and how to run it), entries shared
 * by many servers, the SDK handler context of a call and its channels to
 * the client. `exportTools` and `serveAgent` build these; the registry
 * (`_registry.ts`) keeps them; a call (`_tool_call.ts`) runs them.
 *
 * @module
 */

import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  ServerNotification,
  ServerRequest,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ProgressFn, TaskSupport, ToolResult } from "../core/tool.ts";
import type { AskFn } from "../core/input.ts";
import type { AuthInfo } from "../core/auth.ts";
import type { LogFn } from "../core/logging.ts";
import type { SampleFn } from "../core/sampling.ts";
import type { TaskRunOptions } from "./task_hook.ts";

/** What a `tools/call` handler receives beside the request. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The verified caller the HTTP handler put on the request, as invoke options. */
export function authOf(extra: CallExtra): { auth?: AuthInfo } {
  const auth = extra.authInfo as AuthInfo | undefined;
  return auth === undefined ? {} : { auth };
}

/** A call's channels to the client beside progress and input: `ctx.log`, `ctx.sample`. */
export interface CallChannels {
  /** Sends `notifications/message`; absent when nothing may be sent. */
  readonly log?: LogFn;
  /** Sends `sampling/createMessage` (or parks a modern call on it). */
  readonly sample?: SampleFn;
}

/** One tool as the registry holds it: its listing entry and how to run it. */
export interface Exported {
  /** The name clients call. */
  readonly name: string;
  /** The `tools/list` entry, built once at registration. */
  readonly listing: Tool;
  /** Whether the result text must be JSON and goes out as `structuredContent` too. */
  readonly structured: boolean;
  /** OAuth scopes a call needs over authenticated HTTP. */
  readonly scopes?: readonly string[];
  /** The exported tool definition: its requestStates' default key is its own. */
  readonly owner?: object;
  /** Whether callers may or must run it as a task (on servers that serve tasks). */
  readonly taskSupport?: TaskSupport;
  /** Whether a task of it resumes from a checkpoint after a takeover (`run`'s `task`). */
  readonly resumable?: boolean;
  /**
   * Runs one call on the client's arguments (as the SDK decoded them:
   * missing, or an object); resolves to the whole result. `progress` is
   * there when the client asked for progress.
   */
  run(
    args: unknown,
    extra: CallExtra,
    progress?: ProgressFn,
    ask?: AskFn,
    task?: Pick<TaskRunOptions, "checkpoint" | "saveCheckpoint">,
    channels?: CallChannels,
  ): Promise<ToolResult>;
}

/**
 * Registry entries built once and registered whole on many servers (the
 * frozen tools a server factory exports on a server per request): a
 * server's registry holds this map itself, as it is, until a later
 * registration on that server copies it.
 */
export interface SharedEntries {
  /** The entries by name, in registration order; never changed. */
  readonly tools: ReadonlyMap<string, Exported>;
  /** Their `tools/list` entries (frozen), made on first listing. */
  listing?: readonly Tool[];
}
