/**
 * Calling tasks: imported tools a server marks `taskSupport` are called as
 * tasks (2025-11-25 `params.task`) — against the v1 SDK's experimental
 * task server (`registerToolTask`, `InMemoryTaskStore`) and weft-to-weft
 * (`serveTasks`). The model sees one ordinary result; status messages
 * arrive as progress; a task's question parks the run, and the parked run,
 * saved to JSON and resumed on another connection, polls the same task
 * instead of calling the tool again; cancelling the run cancels the task.
 */

import assert from "node:assert/strict";
import {
  Agent,
  answer,
  Client,
  exportTools,
  httpHandler,
  importTools,
  InMemoryTransport,
  rawTool,
  Server,
} from "../mod.ts";
import { serveTasks } from "../tasks.ts";
import { memoryStore } from "../store.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { callTools, say, script } from "../testing.ts";
import type { RunEvent } from "../core.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/experimental/tasks"
import {
  type CreateTaskRequestHandlerExtra,
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
  type TaskRequestHandlerExtra,
} from "@modelcontextprotocol/sdk/experimental/tasks";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  ElicitResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "./_helpers/wait.ts";

async function connect(
  server: { connect(t: InMemoryTransport): Promise<void> },
  capabilities: Record<string, unknown> = {},
): Promise<Client & AsyncDisposable> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "host", version: "1" }, { capabilities });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: () => client.close(),
  });
}

/** The methods a client sent, in order (a spy on its transport). */
function spy(client: Client): string[] {
  const sent: string[] = [];
  const transport = client.transport!;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ("method" in message) sent.push(message.method);
    return send(message, options);
  };
  return sent;
}

Deno.test("the v1 SDK's task server: a required tool is called as a task, polled, one result", async () => {
  const store = new InMemoryTaskStore();
  const sdk = new McpServer({ name: "sdk-tasks", version: "1" }, {
    capabilities: {
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    taskStore: store,
  });
  let runs = 0;
  sdk.experimental.tasks.registerToolTask("crawl", {
    description: "Crawls for a while.",
    execution: { taskSupport: "required" },
  }, {
    createTask: async (extra: CreateTaskRequestHandlerExtra) => {
      runs++;
      const task = await extra.taskStore.createTask({
        ttl: 60_000,
        pollInterval: 10,
      });
      setTimeout(() => {
        void extra.taskStore.storeTaskResult(task.taskId, "completed", {
          content: [{ type: "text", text: "crawled 3 pages" }],
        });
      }, 40);
      return { task };
    },
    getTask: async (extra: TaskRequestHandlerExtra) =>
      (await extra.taskStore.getTask(extra.taskId))!,
    getTaskResult: async (extra: TaskRequestHandlerExtra) =>
      await extra.taskStore.getTaskResult(extra.taskId) as CallToolResult,
  });
  await using client = await connect(sdk);
  const sent = spy(client);
  const { tools } = await importTools(client);
  const agent = new Agent(
    script(callTools({ name: "crawl" }), say("done")),
    { tools },
  );
  const result = await agent.generate("crawl it");
  const toolResult = result.messages[2].content[0] as { content: string };
  assert.equal(toolResult.content, "crawled 3 pages");
  assert.equal(runs, 1);
  assert.equal(sent[sent.indexOf("tools/call") + 1], "tasks/get");
  assert.ok(sent.includes("tasks/result"));
  store.cleanup();
  await sdk.close();
});

/** A weft server with a task tool that reports, asks, and counts its runs. */
function weftServer(seen: { runs: number; signal?: AbortSignal }) {
  const store = memoryStore();
  const deploy = rawTool({
    name: "deploy",
    description: "Deploys after asking where.",
    taskSupport: "required",
    run: async (_args, ctx) => {
      seen.runs++;
      seen.signal = ctx.signal;
      ctx.progress?.({ message: "preparing" });
      const where = await ctx.ask!({
        message: "Which region?",
        schema: { type: "object", properties: { region: { type: "string" } } },
      });
      return `deployed to ${where.content?.region}`;
    },
  });
  return {
    store,
    make(): Server {
      const server = new Server({ name: "weft-tasks", version: "1" });
      exportTools(server, deploy);
      serveTasks(server, { store, pollIntervalMs: 10 });
      return server;
    },
  };
}

Deno.test("weft to weft: a task's question parks the run; resumed from JSON on another connection it polls the same task", async () => {
  const seen = { runs: 0 } as { runs: number; signal?: AbortSignal };
  const weft = weftServer(seen);
  const events: RunEvent[] = [];
  let first: Awaited<ReturnType<Agent["generate"]>>;
  {
    await using client = await connect(weft.make(), { elicitation: {} });
    const { tools } = await importTools(client);
    const agent = new Agent(script(callTools({ name: "deploy" })), {
      tools,
      onEvent: (e) => events.push(e),
    });
    first = await agent.generate("deploy it");
  }
  assert.equal(first.pending.length, 1);
  const pending = JSON.parse(JSON.stringify(first.pending[0]));
  assert.equal(
    pending.input.requests.ask_0.params.message,
    "Which region?",
  );
  const state = JSON.parse(pending.input.state);
  assert.equal(typeof state.task, "string");
  const progressed = events.filter((e) => e.type === "tool_progress");
  assert.ok(progressed.length >= 1, "the task's status message is progress");

  // Another connection (as another process would open), the run from JSON.
  await using again = await connect(weft.make(), { elicitation: {} });
  const sent = spy(again);
  const { tools } = await importTools(again);
  const agent = new Agent(script(say("deployed")), { tools });
  const resumed = await agent.generate(
    JSON.parse(JSON.stringify(first.messages)),
    {
      decisions: [answer(pending, {
        action: "accept",
        content: { region: "eu" },
      })],
    },
  );
  assert.equal(
    (resumed.resumed[0] as { content: string }).content,
    "deployed to eu",
  );
  assert.equal(seen.runs, 1, "the tool ran once");
  assert.equal(sent.includes("tools/call"), false, "no second call");
  assert.ok(sent.includes("tasks/get"));
  await weft.store.close();
});

Deno.test("weft to weft: cancelling the run cancels the task and reaches the tool", async () => {
  const seen = { runs: 0 } as { runs: number; signal?: AbortSignal };
  const weft = weftServer(seen);
  // The host never answers: the question waits, the task stays input_required.
  await using client = await connect(weft.make(), { elicitation: {} });
  const { tools } = await importTools(client, {
    onInput: () => new Promise(() => {}),
  });
  const stop = new AbortController();
  const agent = new Agent(script(callTools({ name: "deploy" })), { tools });
  const run = agent.generate("deploy it", { signal: stop.signal });
  const signal = await waitFor(() => seen.signal, "the tool starts");
  stop.abort(new Error("the user stopped the run"));
  await assert.rejects(run);
  // A latch on the tool's signal, failing fast past the deadline.
  await new Promise<void>((resolve, reject) => {
    if (signal.aborted) return resolve();
    const late = setTimeout(
      () => reject(new Error("the task was not cancelled")),
      10_000,
    );
    signal.addEventListener("abort", () => {
      clearTimeout(late);
      resolve();
    }, { once: true });
  });
  assert.equal(signal.reason?.name, "TaskCancelledError");
  await weft.store.close();
});

Deno.test("a task cancelled by someone else reads as the pinned mcp text to the model", async () => {
  const seen = { runs: 0 } as { runs: number; signal?: AbortSignal };
  const weft = weftServer(seen);
  await using client = await connect(weft.make(), { elicitation: {} });
  const { tools } = await importTools(client, {
    onInput: () => new Promise(() => {}),
  });
  const agent = new Agent(script(callTools({ name: "deploy" }), say("ok")), {
    tools,
  });
  const run = agent.generate("deploy it");
  const ids = await waitFor(async () => {
    const ids = (await weft.store.get<string[]>("task/index/-"))?.value ?? [];
    return ids.length > 0 && ids;
  }, "a task is made");
  // Another caller holding the id cancels it.
  await using other = await connect(weft.make());
  await other.experimental.tasks.cancelTask(ids[0]);
  const result = await run;
  const read = result.messages[2].content[0] as {
    content: string;
    isError?: boolean;
  };
  assert.equal(read.content, `mcp: the server cancelled task ${ids[0]}`);
  assert.equal(read.isError, true);
  await weft.store.close();
});

Deno.test({
  name:
    "weft to weft, 2026-07-28 over HTTP: the task's question parks the run; resumed on a new connection, tasks/update answers it",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const seen = { runs: 0 } as { runs: number; signal?: AbortSignal };
    const weft = weftServer(seen);
    const handler = httpHandler(() => weft.make());
    const listener = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      handler,
    );
    const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
    try {
      let first: Awaited<ReturnType<Agent["generate"]>>;
      {
        await using client = await connectHttp(url, { protocol: "modern" });
        assert.equal(client.getProtocolEra()?.era, "modern");
        const { tools } = await importTools(client);
        const agent = new Agent(script(callTools({ name: "deploy" })), {
          tools,
        });
        first = await agent.generate("deploy it");
      }
      assert.equal(first.pending.length, 1);
      const pending = JSON.parse(JSON.stringify(first.pending[0]));
      assert.equal(
        pending.input.requests.ask_0.params.message,
        "Which region?",
      );
      const state = JSON.parse(pending.input.state);
      assert.equal(state.era, "task");

      await using again = await connectHttp(url, { protocol: "modern" });
      const { tools } = await importTools(again);
      const agent = new Agent(script(say("deployed")), { tools });
      const resumed = await agent.generate(first.messages, {
        decisions: [answer(pending, {
          action: "accept",
          content: { region: "eu" },
        })],
      });
      assert.equal(
        (resumed.resumed[0] as { content: string }).content,
        "deployed to eu",
      );
      assert.equal(seen.runs, 1, "the tool ran once");
    } finally {
      await handler.close();
      await listener.shutdown();
      await weft.store.close();
    }
  },
});

Deno.test("the v1 SDK's task server asks mid-task: its question, delivered on tasks/result, parks the run; answer resumes it", async () => {
  const store = new InMemoryTaskStore();
  const sdk = new McpServer({ name: "sdk-tasks", version: "1" }, {
    capabilities: {
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    taskStore: store,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
  let runs = 0;
  sdk.experimental.tasks.registerToolTask("publish", {
    description: "Publishes after asking where.",
    execution: { taskSupport: "required" },
  }, {
    createTask: async (extra: CreateTaskRequestHandlerExtra) => {
      runs++;
      const task = await extra.taskStore.createTask({ pollInterval: 10 });
      void (async () => {
        await store.updateTaskStatus(task.taskId, "input_required");
        const answer = await sdk.server.request(
          {
            method: "elicitation/create",
            params: {
              message: "Which channel?",
              requestedSchema: {
                type: "object",
                properties: { channel: { type: "string" } },
              },
            },
          },
          ElicitResultSchema,
          { relatedTask: { taskId: task.taskId } },
        );
        await store.updateTaskStatus(task.taskId, "working");
        await store.storeTaskResult(task.taskId, "completed", {
          content: [{
            type: "text",
            text: `published to ${answer.content?.channel}`,
          }],
        });
      })();
      return { task };
    },
    getTask: async (extra: TaskRequestHandlerExtra) =>
      (await extra.taskStore.getTask(extra.taskId))!,
    getTaskResult: async (extra: TaskRequestHandlerExtra) =>
      await extra.taskStore.getTaskResult(extra.taskId) as CallToolResult,
  });
  await using client = await connect(sdk, { elicitation: {} });
  const { tools } = await importTools(client);
  const agent = new Agent(script(callTools({ name: "publish" }), say("ok")), {
    tools,
  });
  const parked = await agent.generate("publish it");
  assert.equal(parked.pending.length, 1);
  const pending = parked.pending[0];
  assert.equal(
    (pending.input?.requests.ask_0.params as { message: string }).message,
    "Which channel?",
  );
  const resumed = await agent.generate(parked.messages, {
    decisions: [answer(pending, {
      action: "accept",
      content: { channel: "news" },
    })],
  });
  assert.equal(
    (resumed.resumed[0] as { content: string }).content,
    "published to news",
  );
  assert.equal(runs, 1);
  store.cleanup();
  await sdk.close();
});
