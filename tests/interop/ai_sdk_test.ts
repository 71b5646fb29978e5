/**
 * Interop: the Vercel AI SDK's MCP client (`npm:@ai-sdk/mcp`) against
 * `examples/server.ts` served by `httpHandler` on 127.0.0.1, stateless and
 * with sessions. What the library lists, what it hands a model
 * (`tools()`), what a call returns and how a failure reaches the model.
 * docs/interop.md records the findings.
 */

import assert from "node:assert/strict";
import { createMCPClient } from "@ai-sdk/mcp";
import { z } from "zod";
import { assertJsonEqual } from "../_helpers/json_equal.ts";
import {
  AGENT_TEXT,
  CANCEL_ERROR,
  FOREIGN_SCHEMA,
  listen,
  LOOKUP_ORDER_OUTPUT,
  ORDER_TEXT,
  OURS,
  TOOL_NAMES,
  TRACK_TEXT,
  withoutEraStamps,
} from "./_server.ts";

/** The slice of an AI SDK tool these tests use (the library's own types are generic over schemas). */
interface AiTool {
  inputSchema: { jsonSchema: unknown };
  execute(
    args: unknown,
    options: { toolCallId: string; messages: unknown[] },
  ): Promise<unknown>;
  toModelOutput(options: { output: unknown }): unknown;
}

const CALL = { toolCallId: "call_1", messages: [] };

for (const sessions of [false, true]) {
  const mode = sessions ? "sessions" : "stateless";
  Deno.test(`interop @ai-sdk/mcp 2.0.99 (${mode})`, async (t) => {
    await using listener = listen({ sessions });
    const client = await createMCPClient({
      transport: { type: "http", url: listener.url.href },
    });
    try {
      await t.step(
        "listTools: every tool, every input keyword, the output schema",
        async () => {
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((tool) => tool.name), TOOL_NAMES);
          for (const tool of tools) {
            assertJsonEqual(tool.inputSchema, OURS[tool.name], tool.name);
          }
          assertJsonEqual(
            tools[1].outputSchema,
            LOOKUP_ORDER_OUTPUT,
            "lookup_order output",
          );
          assert.equal(
            tools[0].description,
            "Answer where a customer's order is.",
          );
        },
      );

      const tools = await client.tools() as unknown as Record<string, AiTool>;

      await t.step(
        "tools(): the model sees ours, with additionalProperties forced to false",
        () => {
          assert.deepEqual(Object.keys(tools), TOOL_NAMES);
          for (const name of TOOL_NAMES) {
            const expected = { ...OURS[name], additionalProperties: false };
            assertJsonEqual(tools[name].inputSchema.jsonSchema, expected, name);
          }
          // The foreign schema already says false: it reaches the model unchanged.
          assertJsonEqual(
            tools.track_shipment.inputSchema.jsonSchema,
            FOREIGN_SCHEMA,
          );
        },
      );

      await t.step(
        "lookup_order: one text item and structuredContent",
        async () => {
          const result = await tools.lookup_order.execute(
            { order_id: "5678" },
            CALL,
          );
          assert.deepEqual(withoutEraStamps(result, "weft-getting-started"), {
            content: [{ type: "text", text: ORDER_TEXT }],
            structuredContent: { id: "5678", status: "shipped" },
            isError: false,
          });
        },
      );

      await t.step(
        "lookup_order with declared schemas: execute returns structuredContent",
        async () => {
          const typed = await client.tools({
            schemas: {
              lookup_order: {
                inputSchema: z.object({ order_id: z.string() }),
                outputSchema: z.object({ id: z.string(), status: z.string() }),
              },
            },
          }) as unknown as Record<string, AiTool>;
          assert.deepEqual(Object.keys(typed), ["lookup_order"]);
          assert.deepEqual(
            await typed.lookup_order.execute({ order_id: "7" }, CALL),
            {
              id: "7",
              status: "shipped",
            },
          );
        },
      );

      await t.step(
        "getting-started (the agent tool) and the raw tool",
        async () => {
          const answer = await tools["getting-started"].execute({
            prompt: "Where is order 1234?",
          }, CALL);
          assert.deepEqual(withoutEraStamps(answer, "weft-getting-started"), {
            content: [{ type: "text", text: AGENT_TEXT }],
            isError: false,
          });
          const track = await tools.track_shipment.execute({
            carrier: "ups",
            tracking: "AB123456789",
          }, CALL);
          assert.deepEqual(withoutEraStamps(track, "weft-getting-started"), {
            content: [{ type: "text", text: TRACK_TEXT }],
            isError: false,
          });
        },
      );

      await t.step(
        "cancel_order: isError with our exact text; the model gets the text, unflagged",
        async () => {
          const result = await tools.cancel_order.execute(
            { order_id: "1234" },
            CALL,
          );
          assert.deepEqual(withoutEraStamps(result, "weft-getting-started"), {
            content: [{ type: "text", text: CANCEL_ERROR }],
            isError: true,
          });
          assert.deepEqual(
            tools.cancel_order.toModelOutput({ output: result }),
            {
              type: "content",
              value: [{ type: "text", text: CANCEL_ERROR }],
            },
          );
        },
      );

      await t.step(
        "no client-side validation: our INVALID_INPUT text comes back",
        async () => {
          const result = await tools.lookup_order.execute(
            { order_id: 5 },
            CALL,
          );
          assert.deepEqual(withoutEraStamps(result, "weft-getting-started"), {
            content: [{
              type: "text",
              text:
                'INVALID_INPUT: tool "lookup_order": field "order_id": expected string, got number',
            }],
            isError: true,
          });
        },
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(listener.errors, []);
  });
}
