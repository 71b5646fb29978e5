/**
 * Interop: `examples/server.ts` exactly as `--http` runs it (`serveHttp`:
 * stateless, 127.0.0.1, `/mcp`), driven by each of the four client
 * libraries in turn: each lists the example's two tools and gets the agent
 * tool's answer and the typed tool's structured result.
 */

import assert from "node:assert/strict";
import { createMCPClient } from "@ai-sdk/mcp";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { MCPClient } from "@mastra/mcp";
import { noopLogger } from "@mastra/core/logger";
import {
  getAllMcpTools,
  MCPServerStreamableHttp,
  RunContext,
} from "@openai/agents";
import { serveHttp } from "../../examples/server.ts";
import { AGENT_TEXT, ORDER_TEXT, withoutEraStamps } from "./_server.ts";

const PROMPT = { prompt: "Where is order 1234?" };
const ORDER = { order_id: "5678" };

/** The slices of each library's tool type these steps use (theirs are generic over schemas). */
interface Invocable {
  name: string;
  invoke(...args: unknown[]): Promise<unknown>;
}
type Executable = Record<
  string,
  { execute(input: unknown, options: unknown): Promise<unknown> }
>;

Deno.test("interop: examples/server.ts --http, with each client library", async (t) => {
  const stop = new AbortController();
  const listening = Promise.withResolvers<URL>();
  const serving = serveHttp({
    signal: stop.signal,
    onListen: (url) => listening.resolve(url),
  });
  try {
    const url = await listening.promise;

    await t.step("@ai-sdk/mcp", async () => {
      const client = await createMCPClient({
        transport: { type: "http", url: url.href },
      });
      try {
        const tools = await client.tools() as unknown as Executable;
        assert.deepEqual(Object.keys(tools), [
          "getting-started",
          "lookup_order",
        ]);
        const call = { toolCallId: "c1", messages: [] };
        const answer = await tools["getting-started"].execute(PROMPT, call);
        assert.deepEqual(withoutEraStamps(answer, "weft-getting-started"), {
          content: [{ type: "text", text: AGENT_TEXT }],
          isError: false,
        });
        const order = await tools.lookup_order.execute(ORDER, call) as {
          structuredContent: unknown;
        };
        assert.deepEqual(order.structuredContent, {
          id: "5678",
          status: "shipped",
        });
      } finally {
        await client.close();
      }
    });

    await t.step("@langchain/mcp-adapters", async () => {
      const client = new MultiServerMCPClient({
        mcpServers: { example: { url: url.href, transport: "http" } },
      });
      try {
        const tools = await client.getTools() as unknown as Invocable[];
        assert.deepEqual(tools.map((tool) => tool.name), [
          "getting-started",
          "lookup_order",
        ]);
        assert.equal(await tools[0].invoke(PROMPT), AGENT_TEXT);
      } finally {
        await client.close();
      }
    });

    await t.step("@mastra/mcp", async () => {
      const mcp = new MCPClient({
        id: "interop-example",
        servers: { example: { url } },
      });
      mcp.__setLogger(noopLogger);
      try {
        const tools = await mcp.listTools() as unknown as Executable;
        assert.deepEqual(Object.keys(tools), [
          "example_getting-started",
          "example_lookup_order",
        ]);
        const order = await tools.example_lookup_order.execute(ORDER, {});
        assert.deepEqual(order, { id: "5678", status: "shipped" });
      } finally {
        await mcp.disconnect();
      }
    });

    await t.step("@openai/agents", async () => {
      const server = new MCPServerStreamableHttp({
        url: url.href,
        name: "example",
      });
      await server.connect();
      try {
        const tools = await getAllMcpTools({
          mcpServers: [server],
        }) as unknown as {
          name: string;
          invoke(context: RunContext, input: string): Promise<unknown>;
        }[];
        assert.deepEqual(tools.map((tool) => tool.name), [
          "getting_started",
          "lookup_order",
        ]);
        const context = new RunContext();
        assert.deepEqual(
          await tools[0].invoke(context, JSON.stringify(PROMPT)),
          { type: "text", text: AGENT_TEXT },
        );
        assert.deepEqual(
          await tools[1].invoke(context, JSON.stringify(ORDER)),
          { type: "text", text: ORDER_TEXT },
        );
      } finally {
        await server.close();
      }
    });
  } finally {
    stop.abort();
    await serving;
  }
});
