/**
 * A tool's image and audio reach a model that takes them as media: the loop
 * keeps a result's image and audio items on its transcript part (`media`)
 * beside the text markers, and `aiSdkModel` sends them to a provider that
 * takes them in tool results as the version's media parts after the text.
 * Over scripted models, an MCP tool imported in memory, and hand-written AI
 * SDK models of each specification version (the real packages:
 * tests/interop/providers_media_test.ts).
 */

import assert from "node:assert/strict";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "../src/core/agent.ts";
import { audio, content, image } from "../src/core/content.ts";
import { approve } from "../src/core/decisions.ts";
import type { Message, ToolResultPart } from "../src/core/messages.ts";
import type { ToolMiddleware } from "../src/core/middleware.ts";
import { rawTool, type ToolDef } from "../src/core/tool.ts";
import { importTools } from "../src/bridge/import.ts";
import { aiSdkModel, type AiSdkModelOptions } from "../src/providers/ai_sdk.ts";
import { callTools, say, script } from "../src/testing/script.ts";

const PNG = "iVBORw0KGgoAAf7/";
const WAV = "UklGRg==";
const RENDERED =
  "the chart:\n[image image/png, 12 bytes]\n[audio audio/wav, 4 bytes]\n[resource file:///c.csv]";
const MEDIA = [
  { type: "image", data: PNG, mimeType: "image/png" },
  { type: "audio", data: WAV, mimeType: "audio/wav" },
];

function chart(
  options: { wrap?: ToolMiddleware[]; fail?: boolean; cap?: number } = {},
) {
  return rawTool({
    name: "chart",
    description: "Draws the chart.",
    wrap: options.wrap,
    maxResultBytes: options.cap,
    run: () => {
      if (options.fail) throw new Error("no chart today");
      return content(
        "the chart:",
        image(PNG, "image/png"),
        audio(WAV, "audio/wav"),
        { type: "resource_link", uri: "file:///c.csv", name: "c" },
      );
    },
  });
}

function toolResults(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

async function oneCall(tool: ToolDef): Promise<ToolResultPart> {
  const result = await new Agent(
    script(callTools({ name: tool.name }), say("ok")),
    { tools: [tool], maxResultBytes: 0 },
  ).generate("go");
  return toolResults(result.messages)[0];
}

Deno.test("core: a content result's image and audio ride on the result part beside the markers", async () => {
  const result = await new Agent(
    script(callTools({ name: "chart" }), say("ok")),
    { tools: [chart({ cap: 12 })] },
  ).generate("go");
  const [first] = toolResults(result.messages);
  // The text is capped (maxResultBytes: 12); the media go whole.
  assert.deepEqual(first, {
    type: "tool_result",
    callId: "call_1",
    name: "chart",
    content: "the chart:\n[\n…[truncated 78 bytes]",
    isError: false,
    media: MEDIA,
  });
  assert.deepEqual(result.steps[0].results, [first]);
  assert.ok(Object.isFrozen(first.media));
});

Deno.test("core: no media when middleware rewrote the text or the call failed", async () => {
  const rewrite: ToolMiddleware = (next) => async (call, ctx) =>
    (await next(call, ctx)).toUpperCase();
  const passThrough: ToolMiddleware = (next) => (call, ctx) => next(call, ctx);
  const rewritten = await oneCall(chart({ wrap: [rewrite] }));
  assert.equal(rewritten.content, RENDERED.toUpperCase());
  assert.equal("media" in rewritten, false);
  const passed = await oneCall(chart({ wrap: [passThrough] }));
  assert.equal(passed.content, RENDERED);
  assert.deepEqual(passed.media, MEDIA);
  const failed = await oneCall(chart({ fail: true }));
  assert.deepEqual(failed, {
    type: "tool_result",
    callId: "call_1",
    name: "chart",
    content: "no chart today",
    isError: true,
  });
  const plain = await oneCall(
    rawTool({ name: "chart", description: "", run: () => "text only" }),
  );
  assert.equal("media" in plain, false);
});

Deno.test("core: an approved call's media survive the park and the resume", async () => {
  const gated = rawTool({
    name: "chart",
    description: "Draws the chart.",
    requireApproval: true,
    run: () => content("the chart:", image(PNG, "image/png")),
  });
  const agent = new Agent(
    script(callTools({ name: "chart" }), say("ok")),
    { tools: [gated] },
  );
  const parked = await agent.generate("go");
  assert.deepEqual(parked.pending.map((p) => p.id), ["call_1"]);
  const resumed = await agent.generate(parked.messages, {
    decisions: [approve("call_1")],
  });
  assert.deepEqual(toolResults(resumed.messages), [{
    type: "tool_result",
    callId: "call_1",
    name: "chart",
    content: "the chart:\n[image image/png, 12 bytes]",
    isError: false,
    media: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }]);
});

/** An MCP server of someone else's (the SDK's low-level `Server`) whose tool answers an image. */
async function remoteScreenshot(): Promise<
  { client: Client; tools: ToolDef[] }
> {
  const server = new Server({ name: "browser", version: "0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: "screenshot",
      description: "Takes a screenshot.",
      inputSchema: { type: "object" },
    }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [
      { type: "text", text: "the page:" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
  }));
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "agent", version: "0" });
  await client.connect(clientEnd);
  const { tools } = await importTools(client);
  return { client, tools };
}

Deno.test("core: an imported MCP tool's image reaches the transcript part", async () => {
  const { client, tools } = await remoteScreenshot();
  try {
    const part = await oneCall(tools[0]);
    assert.deepEqual(part, {
      type: "tool_result",
      callId: "call_1",
      name: "screenshot",
      content: "the page:\n[image image/png, 12 bytes]",
      isError: false,
      media: [{ type: "image", data: PNG, mimeType: "image/png" }],
    });
  } finally {
    await client.close();
  }
});

const STOP = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: {
      total: 1,
      noCache: 1,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
} as const satisfies LanguageModelV4StreamPart;

const CALL_CHART = {
  type: "tool-call",
  toolCallId: "c1",
  toolName: "chart",
  input: "{}",
} as const satisfies LanguageModelV4StreamPart;

/**
 * The tool-result output the second call of a `version` model of `provider`
 * receives after the model called `chart`.
 */
async function sentOutput(
  provider: string,
  version: "v2" | "v3" | "v4",
  options?: AiSdkModelOptions,
  tool: ToolDef = chart(),
): Promise<unknown> {
  const seen: LanguageModelV4CallOptions[] = [];
  const turns: LanguageModelV4StreamPart[][] = [
    [CALL_CHART, {
      ...STOP,
      finishReason: { unified: "tool-calls", raw: "tool_use" },
    }],
    [{ type: "text-delta", id: "t", delta: "done" }, STOP],
  ];
  let n = 0;
  const model = {
    specificationVersion: version,
    provider,
    modelId: "m",
    doStream(call: LanguageModelV4CallOptions) {
      seen.push(call);
      return Promise.resolve({ stream: ReadableStream.from(turns[n++]) });
    },
  };
  await new Agent(aiSdkModel(model, options), {
    tools: [tool],
    maxResultBytes: 0,
  }).generate("draw");
  const toolMessage = seen[1].prompt.find((m) => m.role === "tool");
  assert.ok(toolMessage?.role === "tool");
  const [part] = toolMessage.content;
  assert.ok(part.type === "tool-result");
  return part.output;
}

Deno.test("v4: openai.responses and anthropic.messages get the image as a file part after the text; audio stays a marker", async () => {
  for (const provider of ["openai.responses", "anthropic.messages"]) {
    assert.deepEqual(await sentOutput(provider, "v4"), {
      type: "content",
      value: [
        { type: "text", text: RENDERED },
        {
          type: "file",
          data: { type: "data", data: PNG },
          mediaType: "image/png",
        },
      ],
    }, provider);
  }
});

Deno.test("every other provider reads the text alone unless told; toolResultMedia overrides either way", async () => {
  for (
    const provider of ["openai.chat", "ollama.chat", "google.generative-ai"]
  ) {
    assert.deepEqual(await sentOutput(provider, "v4"), {
      type: "text",
      value: RENDERED,
    }, provider);
  }
  assert.deepEqual(
    await sentOutput("ollama.chat", "v4", {
      toolResultMedia: ["image", "audio"],
    }),
    {
      type: "content",
      value: [
        { type: "text", text: RENDERED },
        {
          type: "file",
          data: { type: "data", data: PNG },
          mediaType: "image/png",
        },
        {
          type: "file",
          data: { type: "data", data: WAV },
          mediaType: "audio/wav",
        },
      ],
    },
  );
  assert.deepEqual(
    await sentOutput("anthropic.messages", "v4", { toolResultMedia: [] }),
    { type: "text", value: RENDERED },
  );
});

Deno.test("v2 and v3 models: none by default (their packages were not checked); given, each version's own parts", async () => {
  assert.deepEqual(await sentOutput("openai.responses", "v3"), {
    type: "text",
    value: RENDERED,
  });
  const both = { toolResultMedia: ["image", "audio"] } as const;
  assert.deepEqual(await sentOutput("openai.responses", "v3", both), {
    type: "content",
    value: [
      { type: "text", text: RENDERED },
      { type: "image-data", data: PNG, mediaType: "image/png" },
      { type: "file-data", data: WAV, mediaType: "audio/wav" },
    ],
  });
  assert.deepEqual(await sentOutput("anthropic.messages", "v2", both), {
    type: "content",
    value: [
      { type: "text", text: RENDERED },
      { type: "media", data: PNG, mediaType: "image/png" },
      { type: "media", data: WAV, mediaType: "audio/wav" },
    ],
  });
});

Deno.test("an error result is error text whatever the provider takes", async () => {
  assert.deepEqual(
    await sentOutput(
      "anthropic.messages",
      "v4",
      undefined,
      chart({ fail: true }),
    ),
    { type: "error-text", value: "no chart today" },
  );
});
