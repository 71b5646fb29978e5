/**
 * What an app host's run log holds: the agent's events and what its views
 * did, in order.
 *
 * @module
 */

import type { RunEvent } from "../core/events.ts";
import type { ApprovalRequest } from "../core/errors.ts";

/**
 * What a view did in a run, as the run's log records it: a call it made
 * (never the model), or a message or context update it sent, as it entered
 * the run (labelled with its server and tool).
 *
 * @example
 * ```ts
 * import type { AppRecord } from "@weft/mcp/apps";
 *
 * const record: AppRecord = {
 *   type: "app_message",
 *   from: "app",
 *   server: "clock",
 *   tool: "get-time",
 *   text: 'The app of tool "get-time" (server "clock") says: "hi"',
 * };
 * console.log(record.from);
 * ```
 */
export type AppRecord =
  | {
    /** A call a view made (never the model). */
    readonly type: "app_call";
    /** Always `"app"`: a view made it. */
    readonly from: "app";
    /** The server whose view made the call. */
    readonly server: string;
    /** The server's name for the tool. */
    readonly tool: string;
    /** The call's arguments. */
    readonly input: unknown;
    /** The MCP result. */
    readonly result: unknown;
    /** Whether the result is an error. */
    readonly isError: boolean;
    /** The call's id, when it was parked for approval first (`app_call_<n>`). */
    readonly id?: string;
    /** What the page decided on the parked call. */
    readonly decision?: "approve" | "deny";
  }
  | {
    /**
     * A call a view made that waits for approval (the tool's
     * `requireApproval`, middleware, a changed pinned definition): it has
     * not run; the page decides on it (`POST /runs/<id>/decisions`).
     */
    readonly type: "app_pending";
    /** Always `"app"`: a view made it. */
    readonly from: "app";
    /** The id to decide on (`app_call_<n>`). */
    readonly id: string;
    /** The server whose view made the call. */
    readonly server: string;
    /** The server's name for the tool. */
    readonly tool: string;
    /** The call's arguments. */
    readonly input: unknown;
    /** Why it waits, as the tool said; absent for a `requireApproval` tool. */
    readonly approval?: ApprovalRequest;
  }
  | {
    /**
     * With pins: a view read whose view changed since it was pinned; it is
     * not shown until the page approves it (`POST /runs/<id>/decisions`).
     */
    readonly type: "view_pending";
    /** Always `"app"`: the app's view. */
    readonly from: "app";
    /** The id to decide on (`app_view_<n>`). */
    readonly id: string;
    /** The view's server. */
    readonly server: string;
    /** The view's `ui://` URI. */
    readonly uri: string;
    /** `view_changed`, the old and new digests as its diff, the new one as `digest`. */
    readonly approval: ApprovalRequest;
  }
  | {
    /** The page's decision on a changed view. */
    readonly type: "view_decided";
    /** Always `"app"`: the app's view. */
    readonly from: "app";
    /** The parked read's id. */
    readonly id: string;
    /** The view's server. */
    readonly server: string;
    /** The view's `ui://` URI. */
    readonly uri: string;
    /** Approved (pinned and shown) or denied. */
    readonly decision: "approve" | "deny";
  }
  | {
    /** A `ui/message` or `ui/update-model-context` of a view, as it entered the run. */
    readonly type: "app_message" | "app_context";
    /** Always `"app"`: a view said it, never the user. */
    readonly from: "app";
    /** The server whose view spoke. */
    readonly server: string;
    /** The tool whose view spoke. */
    readonly tool: string;
    /** The labelled text the model reads. */
    readonly text: string;
  };

/**
 * One entry of an app host's run log (`AppHostHandler.log`): an event of the
 * agent's run, or what a view did.
 *
 * @example
 * ```ts
 * import type { RunRecord } from "@weft/mcp/apps";
 *
 * function appCalls(log: readonly RunRecord[]): number {
 *   return log.filter((r) => r.type === "app_call").length;
 * }
 * console.log(appCalls([]));
 * ```
 */
export type RunRecord = RunEvent | AppRecord;
