/**
 * Serving MCP tasks over Streamable HTTP (a real listener on 127.0.0.1):
 * the v1 SDK's experimental task client against `httpHandler` with
 * sessions — a task's question reaches the client on its `tasks/result`
 * stream and the answer resumes it — and statelessly, where every request
 * gets a server of its own and the records in the store carry the task.
 */

import assert from "node:assert/strict";
import { Client, exportTools, httpHandler, rawTool, Server } from "../mod.ts";
import { serveTasks } from "../tasks.ts";
import { memoryStore, type Store } from "../store.ts";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

const deploy = rawTool({
  name: "deploy",
  description: "Deploys after asking where.",
  taskSupport: "optional",
  run: async (_args, ctx) => {
    ctx.progress?.({ message: "preparing" });
    const where = await ctx.ask!({
      message: "Which region?",
      schema: { type: "object", properties: { region: { type: "string" } } },
    });
    return `deployed to ${where.content?.region}`;
  },
});

const report = rawTool({
  name: "report",
  description: "Reports.",
  taskSupport: "required",
  run: () => "the report",
});

function serve(
  store: Store,
  sessions: boolean,
): { url: string } & AsyncDisposable {
  const handler = httpHandler(() => {
    const server = new Server({ name: "tasks", version: "1" });
    exportTools(server, deploy, report);
    serveTasks(server, { store, pollIntervalMs: 20 });
    return server;
  }, { sessions, store: sessions ? store : undefined });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    [Symbol.asyncDispose]: async () => {
      await handler.close();
      await listener.shutdown();
    },
  };
}

async function connect(
  url: string,
  capabilities: Record<string, unknown> = {},
): Promise<Client & AsyncDisposable> {
  const client = new Client(
    { name: "host", version: "1" },
    {
      capabilities,
      defaultTaskPollInterval: 20,
    } as ConstructorParameters<typeof Client>[1],
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, {
    [Symbol.asyncDispose]: () => client.close(),
  });
}

Deno.test({
  name:
    "over HTTP with sessions: a task asks, tasks/result carries the question, the answer resumes it",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using store = memoryStore();
    await using endpoint = serve(store, true);
    await using client = await connect(endpoint.url, { elicitation: {} });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(
        request.params._meta?.["io.modelcontextprotocol/related-task"],
      );
      return { action: "accept", content: { region: "eu" } };
    });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.execution?.taskSupport]),
      [["deploy", "optional"], ["report", "required"]],
    );
    const created = await client.request(
      {
        method: "tools/call",
        params: { name: "deploy", arguments: {}, task: { ttl: 30_000 } },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const deadline = Date.now() + 10_000;
    let status = "";
    while (status !== "input_required") {
      if (Date.now() > deadline) throw new Error(`stuck at ${status}`);
      status = (await client.experimental.tasks.getTask(taskId)).status;
    }
    const result = await client.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    );
    assert.deepEqual(result.content, [{
      type: "text",
      text: "deployed to eu",
    }]);
    assert.deepEqual(asked, [{ taskId }]);
    const listed = await client.experimental.tasks.listTasks();
    assert.deepEqual(listed.tasks.map((t) => t.status), ["completed"]);
  },
});

Deno.test({
  name:
    "over HTTP, stateless: the task outlives its request's server; required without a task is -32601",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using store = memoryStore();
    await using endpoint = serve(store, false);
    await using client = await connect(endpoint.url);
    // The SDK client learns which tools are tasks from the listing.
    await client.listTools();
    let text = "";
    for await (
      const message of client.experimental.tasks.callToolStream({
        name: "report",
        arguments: {},
      })
    ) {
      if (message.type === "error") throw message.error;
      if (message.type === "result") {
        text = (message.result.content as { text: string }[])[0].text;
      }
    }
    assert.equal(text, "the report");
    await assert.rejects(
      client.request(
        { method: "tools/call", params: { name: "report", arguments: {} } },
        CallToolResultSchema,
      ),
      (err: unknown) =>
        err instanceof McpError && err.code === ErrorCode.MethodNotFound,
    );
  },
});
