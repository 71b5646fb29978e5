/**
 * An MCP tool's image reaches a vision model as an image, through the real
 * provider packages: `@ai-sdk/openai` Responses sends it as an
 * `input_image` in the function call output, `@ai-sdk/anthropic` as an
 * image block in the `tool_result`; Chat Completions, which cannot take
 * media in a tool message, gets the text markers and no bytes. The tools
 * come from someone else's MCP server (the SDK's low-level `Server`),
 * imported in memory; the HTTP APIs are replayed from our own fixtures. No
 * network.
 */

import assert from "node:assert/strict";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "../../src/core/agent.ts";
import type { Model } from "../../src/core/model.ts";
import { importTools } from "../../src/bridge/import.ts";
import { aiSdkModel } from "../../src/providers/ai_sdk.ts";
import { own, replayFetch } from "../_helpers/provider_replay.ts";

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** A WAV header with no samples. */
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

const PARIS = "Paris: 18°C, sunny (radar below)\n[image image/png, 70 bytes]";
const ROME = "Rome: 21°C (forecast read aloud)\n[audio audio/wav, 44 bytes]";

const RESULTS: Record<string, unknown[]> = {
  get_weather: [
    { type: "text", text: "Paris: 18°C, sunny (radar below)" },
    { type: "image", data: PNG, mimeType: "image/png" },
  ],
  weather: [
    { type: "text", text: "Rome: 21°C (forecast read aloud)" },
    { type: "audio", data: WAV, mimeType: "audio/wav" },
  ],
  calculator: [{ type: "text", text: "6" }],
};

/**
 * Runs `model` over the weather server's tools, imported in memory; resolves
 * to the provider's warnings.
 */
async function runOverWeatherServer(model: Model): Promise<unknown[]> {
  const server = new Server({ name: "weather", version: "0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.keys(RESULTS).map((name) => ({
      name,
      description: `The ${name} tool.`,
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: RESULTS[request.params.name],
  }));
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "agent", version: "0" });
  await client.connect(clientEnd);
  try {
    const { tools } = await importTools(client);
    const warned: unknown[] = [];
    await new Agent(model, { tools }).generate("Weather in Paris?", {
      onEvent: (e) => {
        if (e.type === "model_warning") warned.push(e.warning);
      },
    });
    return warned;
  } finally {
    await client.close();
  }
}

Deno.test("openai responses: the MCP tool's image goes back as an input_image after the text", async () => {
  const replay = replayFetch([
    { body: own("openai-responses-parallel-tools.sse") },
    { body: own("openai-responses-answer.sse") },
  ]);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  await runOverWeatherServer(
    aiSdkModel(openai.responses("gpt-5.1"), {
      providerOptions: { openai: { store: false } },
    }),
  );
  const outputs = (replay.requests[1].body.input as Record<string, unknown>[])
    .filter((item) => item.type === "function_call_output");
  assert.deepEqual(outputs, [
    {
      type: "function_call_output",
      call_id: "call_p1",
      output: [
        { type: "input_text", text: PARIS },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
      ],
    },
    { type: "function_call_output", call_id: "call_p2", output: "6" },
  ]);
});

Deno.test("anthropic: the image is an image block in the tool_result; the audio, which Anthropic cannot take, stays its marker", async () => {
  const replay = replayFetch([
    { body: own("anthropic-parallel-tools.sse") },
    { body: own("anthropic-answer.sse") },
  ]);
  const anthropic = createAnthropic({
    apiKey: "test-key",
    fetch: replay.fetch,
  });
  const warned = await runOverWeatherServer(
    aiSdkModel(anthropic("claude-sonnet-4-5")),
  );
  const messages = replay.requests[1].body.messages as {
    role: string;
    content: Record<string, unknown>[];
  }[];
  assert.deepEqual(messages.at(-1), {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_01A",
        content: [
          { type: "text", text: PARIS },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: PNG },
          },
        ],
      },
      { type: "tool_result", tool_use_id: "toolu_01B", content: ROME },
    ],
  });
  // Nothing was sent that the package had to drop (audio would warn).
  assert.deepEqual(warned, []);
});

Deno.test("openai chat: no media in a tool message, so the model reads the markers and no bytes are sent", async () => {
  const replay = replayFetch([
    { body: own("openai-chat-tool-call.sse") },
    { body: own("openai-chat-answer.sse") },
  ]);
  const openai = createOpenAI({ apiKey: "test-key", fetch: replay.fetch });
  await runOverWeatherServer(aiSdkModel(openai.chat("gpt-4o")));
  const messages = replay.requests[1].body.messages as Record<
    string,
    unknown
  >[];
  assert.deepEqual(messages.at(-1), {
    role: "tool",
    tool_call_id: "call_w1",
    content: PARIS,
  });
  assert.equal(replay.requests[1].text.includes(PNG), false);
});
