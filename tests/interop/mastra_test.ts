/**
 * Interop: Mastra's MCP client (`npm:@mastra/mcp`, built on the v2 MCP SDK
 * `@modelcontextprotocol/client`) against `examples/server.ts` served by
 * `httpHandler` on 127.0.0.1, stateless and with sessions. Mastra probes the
 * 2026 protocol first and falls back to `initialize`; it validates
 * arguments against our whole schema before calling. docs/interop.md
 * records the findings.
 */

import assert from "node:assert/strict";
import { MCPClient } from "@mastra/mcp";
import { MastraError } from "@mastra/core/error";
import { noopLogger } from "@mastra/core/logger";
import { assertJsonEqual } from "../_helpers/json_equal.ts";
import {
  AGENT_TEXT,
  CANCEL_ERROR,
  capturing,
  listen,
  LOOKUP_ORDER_OUTPUT,
  ORDER_TEXT,
  OURS,
  TOOL_NAMES,
  TRACK_TEXT,
  trackCalls,
  withoutEraStamps,
} from "./_server.ts";

/** The slice of a Mastra tool these tests use. */
interface MastraTool {
  id: string;
  inputSchema: StandardJson;
  outputSchema?: StandardJson;
  execute(input: unknown, context: Record<string, unknown>): Promise<unknown>;
}

interface StandardJson {
  "~standard": {
    jsonSchema: {
      input(options: { target: string }): unknown;
      output(options: { target: string }): unknown;
    };
  };
}

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const TARGET = { target: "draft-2020-12" };

/** Mastra's id for one of our tools. */
function idOf(name: string): string {
  return `weft_${name}`;
}

let clients = 0;

for (const sessions of [false, true]) {
  const mode = sessions ? "sessions" : "stateless";
  Deno.test(`interop @mastra/mcp 2.0.0 (${mode})`, async (t) => {
    await using listener = listen({ sessions });
    const levels: string[] = [];
    const mcp = new MCPClient({
      // Mastra refuses two live clients with the same configuration unless each has an id.
      id: `interop-${++clients}`,
      servers: {
        weft: {
          url: listener.url,
          logger: (m) => void levels.push(m.level),
          // Every call carries a progress token (the run id): serveAgent reports the child run.
          enableProgressTracking: true,
        },
      },
    });
    // Mastra's own logger prints a stack for every isError result; the
    // server-level `logger` above still sees each event. Set before
    // anything connects: each server's client takes the logger set when
    // it is made (progress.onUpdate makes it).
    mcp.__setLogger(noopLogger);
    const progress: unknown[] = [];
    await mcp.progress.onUpdate("weft", (params) => void progress.push(params));
    try {
      await t.step(
        "listToolDefinitions: every schema whole, keyed by our names",
        async () => {
          const { weft } = await mcp.listToolDefinitions();
          assert.deepEqual(Object.keys(weft), TOOL_NAMES);
          for (const name of TOOL_NAMES) {
            assertJsonEqual(weft[name].inputSchema, OURS[name], name);
          }
          assertJsonEqual(weft.lookup_order.outputSchema, LOOKUP_ORDER_OUTPUT);
        },
      );

      const tools = await mcp.listTools() as unknown as Record<
        string,
        MastraTool
      >;

      await t.step(
        "listTools: ids prefixed with the server name; ours plus a default $schema",
        () => {
          assert.deepEqual(Object.keys(tools), TOOL_NAMES.map(idOf));
          for (const name of TOOL_NAMES) {
            const seen = tools[idOf(name)].inputSchema["~standard"].jsonSchema
              .input(TARGET);
            assertJsonEqual(seen, { $schema: DIALECT, ...OURS[name] }, name);
          }
          const output = tools[idOf("lookup_order")].outputSchema!["~standard"]
            .jsonSchema.output(TARGET);
          assertJsonEqual(output, LOOKUP_ORDER_OUTPUT);
        },
      );

      await t.step(
        "lookup_order: execute returns structuredContent, content attached",
        async () => {
          const result = await tools[idOf("lookup_order")].execute({
            order_id: "5678",
          }, {});
          assert.deepEqual(result, { id: "5678", status: "shipped" });
          const [content] = Object.getOwnPropertySymbols(result);
          assert.equal(content.description, "mastra.mcp.callToolContent");
          assert.deepEqual((result as Record<symbol, unknown>)[content], [{
            type: "text",
            text: ORDER_TEXT,
          }]);
        },
      );

      await t.step(
        "getting-started and the raw tool: the CallToolResult envelope; progress arrives",
        async () => {
          progress.length = 0;
          const answer = await tools[idOf("getting-started")].execute({
            prompt: "Where is order 1234?",
          }, { runId: "run-1" });
          assert.deepEqual(withoutEraStamps(answer, "weft-getting-started"), {
            content: [{ type: "text", text: AGENT_TEXT }],
          });
          assert.deepEqual(progress, [
            {
              progressToken: "run-1",
              progress: 1,
              message: 'tool "lookup_order" finished',
            },
            { progressToken: "run-1", progress: 2, message: "step 1 finished" },
            { progressToken: "run-1", progress: 3, message: "step 2 finished" },
          ]);
          let track: unknown;
          // Mastra's validator (ajv) warns about each `format` it does not know, once per tool.
          const warnings = await capturing("warn", async () => {
            track = await tools[idOf("track_shipment")].execute({
              carrier: "ups",
              tracking: "AB123456789",
            }, {});
          });
          assert.deepEqual(withoutEraStamps(track, "weft-getting-started"), {
            content: [{ type: "text", text: TRACK_TEXT }],
          });
          assert.ok(warnings.length > 0);
          for (const warning of warnings) {
            assert.equal(
              warning,
              'unknown format "email" ignored in schema at path "#/properties/notify/items"',
            );
          }
        },
      );

      await t.step(
        "cancel_order: isError becomes a thrown MastraError with our exact text",
        async () => {
          await assert.rejects(
            tools[idOf("cancel_order")].execute({ order_id: "1234" }, {}),
            (err: unknown) => {
              assert.ok(err instanceof MastraError);
              assert.equal(err.id, "MCP_CLIENT_TOOL_EXECUTION_FAILED");
              assert.equal(err.message, CANCEL_ERROR);
              return true;
            },
          );
          assert.ok(levels.includes("error"));
        },
      );

      await t.step(
        "client-side validation against the enum: an error value, never reaches us",
        async () => {
          const before = trackCalls.count;
          const result = await tools[idOf("track_shipment")].execute({
            carrier: "usps",
            tracking: "AB123456789",
          }, {});
          assert.equal(trackCalls.count, before);
          const failure = result as { error: boolean; message: string };
          assert.equal(failure.error, true);
          assert.match(
            failure.message,
            /^Tool input validation failed for weft_track_shipment\./,
          );
          assert.match(
            failure.message,
            /- carrier: must be equal to one of the allowed values/,
          );
        },
      );
    } finally {
      await mcp.disconnect();
    }
    assert.deepEqual(listener.errors, []);
  });
}
