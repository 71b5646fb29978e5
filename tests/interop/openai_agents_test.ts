/**
 * Interop: the OpenAI Agents SDK's MCP client (`npm:@openai/agents`, its
 * `MCPServerStreamableHttp` on the v2 MCP SDK `@modelcontextprotocol/client`)
 * against `examples/server.ts` served by `httpHandler` on 127.0.0.1,
 * stateless and with sessions: the raw listing, the function tools the
 * runner hands a model (default and strict), and what a call returns.
 * docs/interop.md records the findings.
 */

import assert from "node:assert/strict";
import {
  getAllMcpTools,
  MCPServerStreamableHttp,
  RunContext,
} from "@openai/agents";
import { assertJsonEqual } from "../_helpers/json_equal.ts";
import {
  AGENT_TEXT,
  CANCEL_ERROR,
  capturing,
  FOREIGN_SCHEMA,
  listen,
  ORDER_TEXT,
  OURS,
  TOOL_NAMES,
  TRACK_TEXT,
} from "./_server.ts";

/** The slice of a function tool these tests use. */
interface FunctionToolView {
  name: string;
  strict: boolean;
  parameters: unknown;
  invoke(context: RunContext, input: string): Promise<unknown>;
}

/** Function tool names: every character outside [A-Za-z0-9] becomes `_`. */
const FUNCTION_NAMES = [
  "getting_started",
  "lookup_order",
  "track_shipment",
  "cancel_order",
];

/** What the default (non-strict) conversion hands the model: `additionalProperties` forced to true. */
function nonStrict(schema: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, additionalProperties: true };
}

async function functionTools(
  server: MCPServerStreamableHttp,
  strict: boolean,
): Promise<Map<string, FunctionToolView>> {
  const tools = await getAllMcpTools({
    mcpServers: [server],
    convertSchemasToStrict: strict,
  });
  const views = tools as unknown as FunctionToolView[];
  return new Map(views.map((tool) => [tool.name, tool]));
}

for (const sessions of [false, true]) {
  const mode = sessions ? "sessions" : "stateless";
  Deno.test(`interop @openai/agents 0.20.0 (${mode})`, async (t) => {
    await using listener = listen({ sessions });
    const server = new MCPServerStreamableHttp({
      url: listener.url.href,
      name: "weft",
    });
    await server.connect();
    try {
      await t.step("listTools: every tool, every input keyword", async () => {
        const listed = await server.listTools();
        assert.deepEqual(listed.map((tool) => tool.name), TOOL_NAMES);
        for (const tool of listed) {
          assertJsonEqual(tool.inputSchema, OURS[tool.name], tool.name);
        }
      });

      const tools = await functionTools(server, false);

      await t.step(
        "function tools (default): names sanitised, additionalProperties forced to true",
        () => {
          assert.deepEqual([...tools.keys()], FUNCTION_NAMES);
          TOOL_NAMES.forEach((name, i) => {
            const tool = tools.get(FUNCTION_NAMES[i])!;
            assert.equal(tool.strict, false);
            assertJsonEqual(tool.parameters, nonStrict(OURS[name]), name);
          });
          // Our `additionalProperties: false` reaches the model as true.
          assert.equal(FOREIGN_SCHEMA.additionalProperties, false);
        },
      );

      await t.step(
        "function tools (strict): ours closed; the foreign schema falls back, kept",
        async () => {
          let strict = new Map<string, FunctionToolView>();
          const warnings = await capturing("warn", async () => {
            strict = await functionTools(server, true);
          });
          assert.equal(warnings.length, 1);
          assert.match(
            warnings[0],
            /^Error converting MCP schema to strict mode:/,
          );
          TOOL_NAMES.forEach((name, i) => {
            const tool = strict.get(FUNCTION_NAMES[i])!;
            assert.equal(tool.strict, name !== "track_shipment", name);
            assertJsonEqual(tool.parameters, {
              ...OURS[name],
              additionalProperties: false,
            }, name);
          });
        },
      );

      const context = new RunContext();

      await t.step("invoke: the text item the model sees", async () => {
        const call = (name: string, args: unknown) =>
          tools.get(name)!.invoke(context, JSON.stringify(args));
        assert.deepEqual(await call("lookup_order", { order_id: "5678" }), {
          type: "text",
          text: ORDER_TEXT,
        });
        assert.deepEqual(
          await call("getting_started", { prompt: "Where is order 1234?" }),
          {
            type: "text",
            text: AGENT_TEXT,
          },
        );
        assert.deepEqual(
          await call("track_shipment", {
            carrier: "ups",
            tracking: "AB123456789",
          }),
          {
            type: "text",
            text: TRACK_TEXT,
          },
        );
      });

      await t.step(
        "cancel_order: the model gets our exact text, not flagged as an error",
        async () => {
          const output = await tools.get("cancel_order")!.invoke(
            context,
            '{"order_id":"1234"}',
          );
          assert.deepEqual(output, { type: "text", text: CANCEL_ERROR });
        },
      );

      await t.step(
        "no client-side validation: our INVALID_INPUT text comes back",
        async () => {
          const output = await tools.get("lookup_order")!.invoke(
            context,
            '{"order_id":5}',
          );
          assert.deepEqual(output, {
            type: "text",
            text:
              'INVALID_INPUT: tool "lookup_order": field "order_id": expected string, got number',
          });
        },
      );

      await t.step(
        "callTool / callToolResult: isError and structuredContent are there",
        async () => {
          const content = await server.callTool("cancel_order", {
            order_id: "1234",
          });
          assert.deepEqual(content, [{ type: "text", text: CANCEL_ERROR }]);
          assert.equal(
            (content as unknown as { isError?: boolean }).isError,
            true,
          ); // non-enumerable
          const result = await server.callToolResult("lookup_order", {
            order_id: "5678",
          });
          assert.deepEqual(result.content, [{
            type: "text",
            text: ORDER_TEXT,
          }]);
          assert.deepEqual(result.structuredContent, {
            id: "5678",
            status: "shipped",
          });
          assert.notEqual(result.isError, true);
        },
      );
    } finally {
      await server.close();
    }
    assert.deepEqual(listener.errors, []);
  });
}
