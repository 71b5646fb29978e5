/**
 * The weft tools the conformance server exposes: the ones the suite's server
 * scenarios call, by the names and with the behaviour the scenarios ask for
 * (see docs/conformance.md). Tools a scenario would need other content types,
 * logging, sampling or elicitation for are not faked here; those
 * scenarios are in the baseline with their reason.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import {
  Agent,
  exportTools,
  rawTool,
  serveAgent,
  tool,
  type ToolDef,
} from "../../mod.ts";
import { callTools, say, script } from "../../testing.ts";

/** `tools-call-simple-text`: no arguments, one fixed text. */
export const simpleText: ToolDef = tool({
  name: "test_simple_text",
  description: "Returns a fixed text (conformance: tools-call-simple-text).",
  input: z.object({}),
  run: () => "This is a simple text response for testing.",
});

/** The message `test_error_handling` fails with. */
export const ERROR_MESSAGE =
  "This tool intentionally returns an error for testing";

/** `tools-call-error`: always fails; the bridge must answer `isError`. */
export const errorHandling: ToolDef = tool({
  name: "test_error_handling",
  description: "Always fails (conformance: tools-call-error).",
  input: z.object({}),
  run: (): string => {
    throw new Error(ERROR_MESSAGE);
  },
});

/** What `test_reconnection` answers once it has run. */
export const RECONNECTION_TEXT = "reconnection test finished";

/**
 * `server-sse-polling` (SEP-1699): a call that takes a moment, long enough
 * for the handler's stream-closing to cut its SSE stream mid-call; the
 * client resumes with `Last-Event-ID` and gets the answer from the
 * session's event store.
 */
export const reconnection: ToolDef = tool({
  name: "test_reconnection",
  description: "Answers after a short wait (conformance: server-sse-polling).",
  input: z.object({}),
  run: async (_input, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 300);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    return RECONNECTION_TEXT;
  },
});

/** The input schema `json-schema-2020-12` expects to see listed unchanged. */
export const JSON_SCHEMA_2020_12: Record<string, unknown> = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
  },
  additionalProperties: false,
};

/** `json-schema-2020-12`: a raw schema whose 2020-12 keywords must survive. */
export const jsonSchema202012: ToolDef = rawTool({
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features",
  inputSchema: JSON_SCHEMA_2020_12,
  run: (args: string) => `received ${args}`,
});

/** The name of the agent `serveAgent` exposes. */
export const AGENT_NAME = "conformance_agent";

/** How long `test_tool_with_progress` waits between its reports, in ms. */
export const PROGRESS_STEP_MS = 50;

/**
 * `tools-call-with-progress`: a plain weft tool reporting through
 * `ctx.progress` — 0/100, 50/100, 100/100, about 50 ms apart — which the
 * export sends as `notifications/progress` when the call carries a progress
 * token (ADR 0066). Without a token it waits the same and answers.
 */
export const withProgress: ToolDef = tool({
  name: "test_tool_with_progress",
  description:
    "Reports progress 0, 50, 100 of 100 (conformance: tools-call-with-progress).",
  input: z.object({}),
  run: async (_input, ctx) => {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(PROGRESS_STEP_MS, ctx.signal);
      ctx.progress?.({ progress, total: 100 });
    }
    return "progress reported: 0, 50, 100 of 100";
  },
});

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * The agent `serveAgent` exposes: one tool named after it, plus its own
 * tools (the two tool-call scenarios) under its chain. A scripted model (no
 * network): one run calls `test_simple_text`, then answers, so a call with a
 * progress token yields three notifications (a finished call, two steps).
 * One agent per server, as the script plays its turns once.
 */
export function conformanceAgent(): Agent {
  return new Agent(
    script(
      callTools({ name: simpleText.name }),
      say("conformance agent: done"),
    ),
    { name: AGENT_NAME, tools: [simpleText, errorHandling] },
  );
}

/**
 * A fresh SDK server carrying the conformance tools: `json_schema_2020_12_tool`,
 * `test_reconnection` and `test_tool_with_progress` through `exportTools`, the agent and its two tools through `serveAgent`.
 * No capabilities are declared here: the bridge declares `tools` itself.
 */
export function conformanceServer(): Server {
  const server = new Server({ name: "weft-conformance", version: "0.1.0" });
  exportTools(server, jsonSchema202012, reconnection, withProgress);
  serveAgent(
    server,
    conformanceAgent(),
    "Runs the conformance agent on a prompt.",
  );
  return server;
}
