/**
 * The weft tools the conformance server exposes: the ones the suite's server
 * scenarios call, by the names and with the behaviour the scenarios ask for
 * (see docs/conformance.md). The logging and sampling tools use `ctx.log`
 * and `ctx.sample`; the elicitation tools ask through `ctx.ask`.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import {
  Agent,
  content,
  exportTools,
  image,
  rawTool,
  serveAgent,
  tool,
  type ToolContext,
  type ToolDef,
} from "../../mod.ts";
import { type AskRequest, audio, type InputResponse } from "../../core.ts";
import { callTools, say, script } from "../../testing.ts";
import { exportConformanceSurface } from "./resources.ts";

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

/** A minimal PNG (1×1 pixel), base64. */
export const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** A minimal WAV: a RIFF header, 8 kHz mono 8-bit, `samples` of silence. */
export function silentWav(samples = 8): Uint8Array {
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true); // sample rate
  view.setUint32(28, 8000, true); // byte rate
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  bytes.fill(128, 44); // 8-bit silence
  return bytes;
}

/** `tools-call-image`: one image item. */
export const imageContent: ToolDef = tool({
  name: "test_image_content",
  description: "Returns an image (conformance: tools-call-image).",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => content(image(PNG_1X1, "image/png")),
});

/** `tools-call-audio`: one audio item. */
export const audioContent: ToolDef = tool({
  name: "test_audio_content",
  description: "Returns audio (conformance: tools-call-audio).",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => content(audio(silentWav(), "audio/wav")),
});

/** `tools-call-embedded-resource`: one embedded text resource. */
export const embeddedResource: ToolDef = tool({
  name: "test_embedded_resource",
  description:
    "Returns an embedded resource (conformance: tools-call-embedded-resource).",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  run: () =>
    content({
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }),
});

/** `tools-call-mixed-content`: text, an image and a resource. */
export const multipleContentTypes: ToolDef = tool({
  name: "test_multiple_content_types",
  description:
    "Returns text, an image and a resource (conformance: tools-call-mixed-content).",
  input: z.object({}),
  annotations: { readOnlyHint: true },
  run: () =>
    content(
      "Multiple content types test:",
      image(PNG_1X1, "image/png"),
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: '{"test":"data","value":123}',
        },
      },
    ),
});

/** `tools-call-elicitation`: asks the caller the scenario's form, answers with the reply. */
export const elicitation: ToolDef = tool({
  name: "test_elicitation",
  description: "Asks the user for input (conformance: tools-call-elicitation).",
  input: z.object({ message: z.string() }),
  run: async ({ message }, ctx) => {
    const reply = await ask(ctx, {
      message,
      schema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      },
    });
    return `User response: ${JSON.stringify(reply)}`;
  },
});

/** `elicitation-sep1034-defaults`: a form with a default for every primitive type. */
export const elicitationDefaults: ToolDef = tool({
  name: "test_elicitation_sep1034_defaults",
  description:
    "Asks a form with defaults (conformance: elicitation-sep1034-defaults).",
  input: z.object({}),
  run: async (_input, ctx) =>
    completed(
      await ask(ctx, {
        message: "Please review the defaults",
        schema: {
          type: "object",
          properties: {
            name: { type: "string", default: "John Doe" },
            age: { type: "integer", default: 30 },
            score: { type: "number", default: 95.5 },
            status: {
              type: "string",
              enum: ["active", "inactive", "pending"],
              default: "active",
            },
            verified: { type: "boolean", default: true },
          },
        },
      }),
    ),
});

/** `elicitation-sep1330-enums`: a form with the five enum shapes. */
export const elicitationEnums: ToolDef = tool({
  name: "test_elicitation_sep1330_enums",
  description: "Asks a form of enums (conformance: elicitation-sep1330-enums).",
  input: z.object({}),
  run: async (_input, ctx) =>
    completed(
      await ask(ctx, {
        message: "Please choose",
        schema: {
          type: "object",
          properties: {
            untitledSingle: {
              type: "string",
              enum: ["option1", "option2", "option3"],
            },
            titledSingle: {
              type: "string",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              items: {
                type: "string",
                enum: ["option1", "option2", "option3"],
              },
            },
            titledMulti: {
              type: "array",
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      }),
    ),
});

function ask(
  ctx: ToolContext,
  request: AskRequest,
): Promise<InputResponse> {
  if (ctx.ask === undefined) throw new Error("nobody to ask");
  return ctx.ask(request);
}

function completed(reply: InputResponse): string {
  return `Elicitation completed: action=${reply.action}, content=${
    JSON.stringify(reply.content ?? {})
  }`;
}

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

/**
 * `tools-call-with-logging`: three `ctx.log("info", …)` messages about
 * 50 ms apart, sent as `notifications/message` at or above the level the
 * client set.
 */
export const withLogging: ToolDef = tool({
  name: "test_tool_with_logging",
  description: "Logs three messages (conformance: tools-call-with-logging).",
  input: z.object({}),
  run: async (_input, ctx) => {
    ctx.log?.("info", "Tool execution started");
    await pause(PROGRESS_STEP_MS, ctx.signal);
    ctx.log?.("info", "Tool processing data");
    await pause(PROGRESS_STEP_MS, ctx.signal);
    ctx.log?.("info", "Tool execution completed");
    return "logged three messages";
  },
});

/**
 * `tools-call-sampling`: asks the client's model with `ctx.sample` and
 * answers `LLM response: <its text>`; a client without the sampling
 * capability makes the call fail (`SamplingUnavailableError`). Served as
 * one of the agent's tools, so `serveAgent`'s path carries the request.
 */
export const sampling: ToolDef = tool({
  name: "test_sampling",
  description: "Asks the client's model (conformance: tools-call-sampling).",
  input: z.object({ prompt: z.string() }),
  run: async ({ prompt }, ctx) => {
    if (ctx.sample === undefined) throw new Error("no sampling here");
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100,
    });
    const item = Array.isArray(answer.content)
      ? answer.content[0]
      : answer.content;
    return `LLM response: ${item?.type === "text" ? item.text : ""}`;
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
    { name: AGENT_NAME, tools: [simpleText, errorHandling, sampling] },
  );
}

/**
 * A fresh SDK server carrying the conformance tools: `json_schema_2020_12_tool`,
 * `test_reconnection`, `test_tool_with_progress` and the four content tools
 * through `exportTools`, the agent and its two tools through `serveAgent`.
 * No capabilities are declared here: the bridge declares `tools` itself.
 */
export function conformanceServer(): Server {
  const server = new Server({ name: "weft-conformance", version: "0.1.0" });
  exportTools(
    server,
    jsonSchema202012,
    reconnection,
    withProgress,
    withLogging,
    imageContent,
    audioContent,
    embeddedResource,
    multipleContentTypes,
    elicitation,
    elicitationDefaults,
    elicitationEnums,
  );
  serveAgent(
    server,
    conformanceAgent(),
    "Runs the conformance agent on a prompt.",
  );
  exportConformanceSurface(server);
  return server;
}
