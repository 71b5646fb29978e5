/**
 * The handler of an imported tool: the model's argument text goes to
 * `tools/call` under the server's name, the result comes back as text.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
// The SDK's `*.js` subpaths carry no types under Deno; the extensionless
// subpath resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { parseArguments } from "../core/bridge.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { ContentItem } from "../core/content.ts";
import { isPlainJson, parseLossless, stringifyExact } from "../core/json.ts";
import type {
  InvokeOptions,
  ProgressFn,
  TaskSupport,
  ToolArguments,
  ToolProgress,
  ToolResult,
} from "../core/tool.ts";
import { linkSignal } from "../core/abort.ts";
import { RemoteToolError } from "./remote_error.ts";
import type { InputHandler } from "./input.ts";
import { legacyInput, serverNameOf } from "./_elicit.ts";
import { callRounds, type Remote } from "./_remote_input.ts";
import {
  callsAsTask,
  resumeTask,
  type TaskCalls,
  taskRounds,
} from "./_remote_task.ts";
import { renderContent, type RenderOptions } from "./render.ts";
import { tracedCall } from "../trace/mcp.ts";

const BLANK = /^[ \t\n\r]*$/;

/** How an imported tool's calls render and answer their server's requests for input. */
export interface RemoteOptions extends RenderOptions {
  /** Answers the server's requests for input at once; absent: the call parks (`InputRequiredError`). */
  readonly onInput?: InputHandler;
  /** The tool's `execution.taskSupport` as its server lists it. */
  readonly taskSupport?: TaskSupport;
  /** Which tools are called as tasks (default `"required"`: those the server requires). */
  readonly taskCalls?: TaskCalls;
  /** The tool's MCP App view: each successful result carries it (`ToolResult.view`). */
  readonly view?: { readonly server: string; readonly resourceUri: string };
}

/**
 * Builds the invoke body of `serverName` on `client`: it resolves to the
 * rendered text and, given `onResult`, hands it the whole result (the text,
 * the remote content items as sent and the structured content). `toolName`
 * (the composed, prefixed name) is the one error texts name; `render`
 * chooses what the text is made of (`renderContent`).
 *
 * Given no signal, the request carries none: nothing can cancel the call,
 * so there is nothing to link (`invoke`'s default context signal never
 * aborts). Given one, the request runs under a child of it, unlinked when
 * it settles (the SDK never removes the abort listener it adds).
 * Given a progress function, the request asks for progress (the SDK's
 * `onprogress`, which sends a progress token) and each remote
 * `notifications/progress` reaches it as `{ progress, total, message }`;
 * given none, nothing is asked.
 *
 * A server that asks for input — an `input_required` result (2026-07-28)
 * or an `elicitation/create` during the call (2025, see `_elicit.ts`) — is
 * answered by `onInput` and the call goes on (retried with the server's
 * `requestState` and the `inputResponses`, up to `MAX_INPUT_ROUNDS`
 * rounds); without `onInput` the call rejects with an `InputRequiredError`
 * (the loop parks it), and the call resumed with `answer` sends the answer.
 */
export function remoteInvoke(
  client: Client,
  serverName: string,
  toolName: string,
  options: RemoteOptions = {},
): (args: ToolArguments, options: InvokeOptions) => Promise<string> {
  const legacy = legacyInput(client);
  const remote: Remote = {
    client,
    serverName,
    toolName,
    onInput: options.onInput,
    legacy,
    server: legacy?.server ?? serverNameOf(client),
  };
  const render: RenderOptions = { render: options.render };
  const view = options.view;
  const asTask = callsAsTask(
    client,
    options.taskSupport,
    options.taskCalls ?? "required",
  );
  return async (args, options) => {
    const params: Record<string, unknown> = {
      name: serverName,
      arguments: decodeArguments(args, toolName) as Record<string, unknown>,
    };
    const { signal, progress } = options;
    const onprogress = progress === undefined ? undefined : forward(progress);
    const link = signal === undefined || signal === null
      ? undefined
      : linkSignal(signal);
    const suspended = options.call?.suspended;
    const state = {
      answer: options.call?.answer,
      signal: link?.signal,
      onprogress,
      suspend: options.call?.suspend,
    };
    let result: Record<string, unknown>;
    try {
      result = await tracedCall(
        client,
        params,
        (sent) =>
          suspended !== undefined
            // A call suspended with its run: its task goes on being polled.
            ? resumeTask(remote, sent, state, suspended, progress)
            : callRounds(
              remote,
              sent,
              state,
              asTask ? taskRounds(progress) : undefined,
            ),
        isErrorResult,
      );
    } finally {
      link?.unlink();
    }
    const text = renderContent(result, render);
    if (result.isError === true) throw new RemoteToolError(text);
    if (typeof options.onResult === "function") {
      const whole = wholeResult(result, text);
      options.onResult(
        view === undefined ? whole : {
          ...whole,
          view: {
            server: view.server,
            tool: serverName,
            resourceUri: view.resourceUri,
            input: params.arguments,
            result,
          },
        },
      );
    }
    return text;
  };
}

function isErrorResult(result: Record<string, unknown>): boolean {
  return result.isError === true;
}

// The whole result: the text, the remote content items as sent (when it
// sent an array of them) and the structured content (when not null).
function wholeResult(
  result: Record<string, unknown>,
  text: string,
): ToolResult {
  const whole: { text: string; content?: ContentItem[]; structured?: unknown } =
    { text };
  if (Array.isArray(result.content)) {
    whole.content = result.content as ContentItem[];
  }
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    whole.structured = structured;
  }
  return whole;
}

/** A remote `notifications/progress` (the SDK strips the token), passed on as given. */
function forward(progress: ProgressFn): (remote: Progress) => void {
  return (remote) => {
    const update: ToolProgress = { progress: remote.progress };
    if (remote.total !== undefined) update.total = remote.total;
    if (remote.message !== undefined) update.message = remote.message;
    progress(update);
  };
}

/**
 * The `arguments` value to send: an object of plain JSON data as it is
 * (any other object as the JSON text `stringifyExact` writes for it); empty
 * text (JSON whitespace) and `null` mean `{}`; anything else is the parsed text, losslessly (key order kept,
 * integers beyond 2^53 as `JSON.rawJSON` digits), object or not — the
 * server decides what it accepts. Text that is not JSON is refused with the
 * core's `INVALID_INPUT` texts, before anything is sent.
 */
function decodeArguments(args: ToolArguments, toolName: string): unknown {
  if (typeof args !== "string") {
    if (args === undefined || args === null) return {};
    if (isPlainJson(args)) return args;
    // Any other object reads as the JSON text it writes, losslessly.
    return parseLossless(stringifyExact(args) ?? "{}");
  }
  let value: unknown;
  try {
    value = parseLossless(args);
  } catch (err) {
    // Blank text is not JSON: checked only here, off the common path.
    if (BLANK.test(args)) return {};
    // The core's reader words the failure (offset, end of input, trailing
    // data); it throws for any text JSON.parse refuses.
    parseArguments(args, toolName);
    throw new InvalidInputError(toolName, "invalid JSON", { cause: err });
  }
  return value === null ? {} : value;
}
