/**
 * The two things a view may ask of its server through the host, each behind
 * its gates: read a view (only a `ui://` URI a tool of that server names,
 * only `text/html;profile=mcp-app`, `_meta.ui` merged from the listing and
 * the item) and call a tool (only that server's, only one whose visibility
 * includes `"app"`, through the agent's own chain, parked when it waits for
 * approval).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Agent } from "../core/agent.ts";
import type { CallInfo, ToolDef, ToolResult } from "../core/tool.ts";
import { type ApprovalRequest, ApprovalRequiredError } from "../core/errors.ts";
import {
  APP_MIME_TYPE,
  type AppServer,
  type AppToolInfo,
  appToolInfo,
} from "../bridge/app_meta.ts";
import { AppGateError } from "./errors.ts";

/** A view document as the host page gets it. */
export interface ViewDocument {
  readonly uri: string;
  readonly mimeType: typeof APP_MIME_TYPE;
  readonly html: string;
  /** `_meta.ui` of the listing, then of the read item (the item wins). */
  readonly meta: Record<string, unknown>;
}

/** The most `resources/list` pages read to find a view's listing. */
const MAX_LIST_PAGES = 20;

/** Reads `uri` of `server` for a view, behind the read gates. */
export async function readView(
  server: AppServer,
  uri: string,
  signal: AbortSignal,
): Promise<ViewDocument> {
  if (typeof uri !== "string" || !uri.startsWith("ui://")) {
    throw new AppGateError(
      "not_ui_uri",
      `view read of ${
        JSON.stringify(uri)
      } on server "${server.name}" refused: only ui:// URIs are views`,
    );
  }
  const named = server.tools.some((t) => appToolInfo(t)?.resourceUri === uri);
  if (!named) {
    throw new AppGateError(
      "foreign_resource",
      `view read of ${uri} refused: no tool of server "${server.name}" names it as its view`,
    );
  }
  const listed = await listedUi(server, uri, signal);
  const result = await server.client.request(
    { method: "resources/read", params: { uri } },
    ResultSchema,
    { signal },
  ) as { contents?: unknown };
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const item = (contents.find((c) => c?.uri === uri) ?? contents[0]) as
    | Record<string, unknown>
    | undefined;
  if (item?.mimeType !== APP_MIME_TYPE) {
    throw new AppGateError(
      "wrong_mime_type",
      `view read of ${uri} on server "${server.name}" refused: its MIME type is ${
        JSON.stringify(item?.mimeType ?? null)
      }, not ${APP_MIME_TYPE}`,
    );
  }
  const html = typeof item.text === "string"
    ? item.text
    : typeof item.blob === "string"
    ? new TextDecoder().decode(
      Uint8Array.from(atob(item.blob), (c) => c.charCodeAt(0)),
    )
    : "";
  return {
    uri,
    mimeType: APP_MIME_TYPE,
    html,
    meta: { ...listed, ...uiOf(item._meta) },
  };
}

// The view's `_meta.ui` as `resources/list` gives it; `{}` when the server
// lists no resources or not this one (a view may be read without a listing).
async function listedUi(
  server: AppServer,
  uri: string,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await server.client.request(
        {
          method: "resources/list",
          params: cursor === undefined ? {} : { cursor },
        },
        ResultSchema,
        { signal },
      ) as { resources?: unknown; nextCursor?: unknown };
      const resources = Array.isArray(result.resources) ? result.resources : [];
      const found = resources.find((r) => r?.uri === uri);
      if (found !== undefined) return uiOf(found._meta);
      if (typeof result.nextCursor !== "string") return {};
      cursor = result.nextCursor;
    }
  } catch {
    // A server without resources/list still serves reads: the item's
    // `_meta.ui` alone then, nothing lost.
    signal.throwIfAborted();
  }
  return {};
}

function uiOf(meta: unknown): Record<string, unknown> {
  const ui = (meta as { ui?: unknown } | undefined)?.ui;
  return typeof ui === "object" && ui !== null && !Array.isArray(ui)
    ? { ...ui as Record<string, unknown> }
    : {};
}

/** A view's call, as the host ran it. */
export interface ViewCall {
  /** The tool as its server names it. */
  readonly tool: AppToolInfo;
  /** The tool's name in the agent (prefixed). */
  readonly name: string;
  /** The MCP result handed back to the view; absent while the call is parked. */
  readonly result?: Record<string, unknown>;
  /** Whether it failed. */
  readonly isError: boolean;
  /**
   * Set when the call waits for approval (the tool's `requireApproval`,
   * middleware, or a changed pinned definition): it did not run;
   * `approval` is why, when the tool said.
   */
  readonly parked?: { readonly approval?: ApprovalRequest };
}

/** What a view's call is made with. */
export interface ViewCallOptions {
  /** The server's name for the tool. */
  readonly name: string;
  /** The call's arguments. */
  readonly args: Record<string, unknown>;
  /** Stops the call. */
  readonly signal: AbortSignal;
  /** Set when the page approved the parked call: its run, id and what was shown. */
  readonly approved?: {
    readonly runId: string;
    readonly callId: string;
    readonly approval?: ApprovalRequest;
  };
}

/**
 * Runs a view's `tools/call` of `name` (the server's name for the tool) on
 * `server`, behind the call gates, through `agent.callTool` (its
 * middleware, the tool's own policy, approval and pins). A call that waits
 * for approval comes back `parked`, not run.
 */
export async function callFromView(
  agent: Agent,
  server: AppServer,
  { name, args, signal, approved }: ViewCallOptions,
): Promise<ViewCall> {
  let tool: ToolDef | undefined;
  let info: AppToolInfo | undefined;
  for (const t of server.tools) {
    const i = appToolInfo(t);
    if (i !== undefined && i.server === server.name && i.tool === name) {
      tool = t;
      info = i;
      break;
    }
  }
  if (tool === undefined || info === undefined) {
    throw new AppGateError(
      "foreign_tool",
      `a view of server "${server.name}" called ${
        JSON.stringify(name)
      }: server "${server.name}" has no such tool (a view calls only its own server's tools)`,
    );
  }
  if (!info.visibility.includes("app")) {
    throw new AppGateError(
      "not_app_visible",
      `a view of server "${server.name}" called "${name}": its visibility is ${
        JSON.stringify(info.visibility)
      }, without "app"`,
    );
  }
  let whole: ToolResult | undefined;
  const call: CallInfo | undefined = approved === undefined ? undefined : {
    runId: approved.runId,
    step: 0,
    callId: approved.callId,
    name: tool.name,
    approved: true,
    ...(approved.approval === undefined ? {} : { approval: approved.approval }),
  };
  try {
    const text = await agent.callTool(tool.name, args, {
      signal,
      extraTools: [tool],
      ...(call === undefined ? {} : { id: call.callId, call }),
      onResult: (r) => {
        whole = r;
      },
    });
    return {
      tool: info,
      name: tool.name,
      result: mcpResult(whole, text),
      isError: false,
    };
  } catch (error) {
    if (signal.aborted) throw error;
    const asked = approvalOf(error);
    if (asked !== undefined) {
      return { tool: info, name: tool.name, isError: false, parked: asked };
    }
    const text = error instanceof Error ? error.message : String(error);
    return {
      tool: info,
      name: tool.name,
      result: { content: [{ type: "text", text }], isError: true },
      isError: true,
    };
  }
}

// The approval request of the first `ApprovalRequiredError` in the cause
// chain, if it gave one; undefined when the call did not ask.
function approvalOf(
  error: unknown,
): { readonly approval?: ApprovalRequest } | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 16; depth++) {
    if (e instanceof ApprovalRequiredError) {
      return e.request === undefined ? {} : { approval: e.request };
    }
    e = e.cause;
  }
  return undefined;
}

// The MCP result a view reads: the server's whole result when the tool
// ships a view, else the content items (or the text) and structured value.
function mcpResult(
  whole: ToolResult | undefined,
  text: string,
): Record<string, unknown> {
  const remote = whole?.view?.result;
  if (typeof remote === "object" && remote !== null) {
    return remote as Record<string, unknown>;
  }
  return {
    content: whole?.content ?? [{ type: "text", text }],
    ...(whole?.structured === undefined
      ? {}
      : { structuredContent: whole.structured }),
  };
}
