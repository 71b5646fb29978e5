/**
 * Interop: LangChain's MCP adapters (`npm:@langchain/mcp-adapters`, with
 * `@langchain/core` and LangGraph's `ToolNode` as an agent would run them)
 * against `examples/server.ts` served by `httpHandler` on 127.0.0.1,
 * stateless and with sessions. The adapter receives our schemas whole and
 * then simplifies them for the model; this test pins that rewrite exactly.
 * docs/interop.md records the findings.
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { AIMessage, type ToolMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { assertJsonEqual } from "../_helpers/json_equal.ts";
import {
  AGENT_TEXT,
  CANCEL_ERROR,
  FOREIGN_SCHEMA,
  listen,
  ORDER_TEXT,
  OURS,
  TOOL_NAMES,
  TRACK_TEXT,
  trackCalls,
} from "./_server.ts";

/**
 * The foreign schema as LangChain hands it to the model: `$schema` dropped,
 * `$ref` inlined and `$defs` dropped, the `oneOf` merged into one object
 * with both variants' properties and neither's `required` (the intersection
 * is empty) nor the zip variant's `additionalProperties`.
 */
const FOREIGN_SIMPLIFIED = (() => {
  const { $schema: _s, $defs: _d, ...rest } = FOREIGN_SCHEMA as Record<
    string,
    unknown
  >;
  const properties = { ...(rest.properties as Record<string, unknown>) };
  properties.destination = {
    type: "object",
    properties: {
      zip: { type: "string", pattern: "^[0-9]{5}$" },
      country: { type: "string", minLength: 2, maxLength: 2 },
    },
  };
  return { ...rest, properties };
})();

/** Ours without `$schema`, the only change for schemas with no unions or references. */
function withoutDialect(
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const { $schema: _, ...rest } = schema;
  return rest;
}

for (const sessions of [false, true]) {
  const mode = sessions ? "sessions" : "stateless";
  Deno.test(`interop @langchain/mcp-adapters 1.1.4 (${mode})`, async (t) => {
    await using listener = listen({ sessions });
    const client = new MultiServerMCPClient({
      mcpServers: { weft: { url: listener.url.href, transport: "http" } },
    });
    try {
      const tools = await client.getTools();

      await t.step(
        "the adapter's session lists every schema whole",
        async () => {
          // The adapter's `Client` type does not resolve under Deno's npm types; it is the SDK's.
          const session = await client.getClient("weft") as unknown as
            | Client
            | undefined;
          assert.ok(session !== undefined);
          const { tools: listed } = await session.listTools();
          assert.deepEqual(listed.map((tool) => tool.name), TOOL_NAMES);
          for (const tool of listed) {
            assertJsonEqual(tool.inputSchema, OURS[tool.name], tool.name);
          }
        },
      );

      await t.step(
        "the model's schemas: ours, simplified (unions merged, refs inlined)",
        () => {
          assert.deepEqual(
            tools.map((tool) => tool.name),
            TOOL_NAMES,
          );
          const byName = new Map(tools.map((tool) => [tool.name, tool.schema]));
          assertJsonEqual(
            byName.get("getting-started"),
            OURS["getting-started"],
          );
          assertJsonEqual(
            byName.get("lookup_order"),
            withoutDialect(OURS.lookup_order),
          );
          assertJsonEqual(byName.get("cancel_order"), OURS.cancel_order);
          assertJsonEqual(byName.get("track_shipment"), FOREIGN_SIMPLIFIED);
        },
      );

      const node = new ToolNode(tools);
      const run = async (
        calls: { id: string; name: string; args: Record<string, unknown> }[],
      ) => {
        const out = await node.invoke({
          messages: [new AIMessage({ content: "", tool_calls: calls })],
        });
        return (out as { messages: ToolMessage[] }).messages;
      };

      await t.step(
        "ToolNode: results, structuredContent as the artifact, the error as status error",
        async () => {
          const [order, agent, track, cancel] = await run([
            { id: "c1", name: "lookup_order", args: { order_id: "5678" } },
            {
              id: "c2",
              name: "getting-started",
              args: { prompt: "Where is order 1234?" },
            },
            {
              id: "c3",
              name: "track_shipment",
              args: { carrier: "ups", tracking: "AB123456789" },
            },
            { id: "c4", name: "cancel_order", args: { order_id: "1234" } },
          ]);
          // With structuredContent the model sees the whole content block, JSON-encoded.
          assert.equal(order.status, "success");
          assert.equal(
            order.content,
            JSON.stringify({
              type: "text",
              text: ORDER_TEXT,
              structuredContent: { id: "5678", status: "shipped" },
            }),
          );
          assert.deepEqual(order.artifact, [{
            type: "mcp_structured_content",
            data: { id: "5678", status: "shipped" },
          }]);
          assert.equal(agent.status, "success");
          assert.equal(agent.content, AGENT_TEXT);
          assert.equal(track.content, TRACK_TEXT);
          assert.equal(cancel.status, "error");
          assert.equal(
            cancel.content,
            `Error: MCP tool 'cancel_order' on server 'weft' returned an error: ${CANCEL_ERROR}\n Please fix your mistakes.`,
          );
        },
      );

      await t.step(
        "invoke: isError becomes a ToolException carrying our exact text",
        async () => {
          const cancel = tools.find((tool) => tool.name === "cancel_order")!;
          await assert.rejects(
            cancel.invoke({ order_id: "1234" }),
            (err: Error) => {
              assert.equal(err.name, "ToolException");
              assert.equal(
                err.message,
                `MCP tool 'cancel_order' on server 'weft' returned an error: ${CANCEL_ERROR}`,
              );
              return true;
            },
          );
        },
      );

      await t.step(
        "client-side validation against the enum: never reaches us",
        async () => {
          const track = tools.find((tool) => tool.name === "track_shipment")!;
          const before = trackCalls.count;
          await assert.rejects(
            track.invoke({ carrier: "usps", tracking: "AB123456789" }),
            ToolInputParsingException,
          );
          assert.equal(trackCalls.count, before);
        },
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(listener.errors, []);
  });
}
