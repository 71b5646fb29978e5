/**
 * Serving MCP tasks (2025-11-25 shape): the v1 SDK's experimental task
 * client against weft's tools over in-memory transports.
 */

import assert from "node:assert/strict";
import {
  Agent,
  Client,
  exportTools,
  InMemoryTransport,
  rawTool,
  serveAgent,
  Server,
} from "../mod.ts";
import {
  serveTasks,
  type ServeTasksOptions,
  TaskAccessError,
  TaskCancelledError,
} from "../tasks.ts";
import {
  CANCELLED_TEXT,
  notResumableText,
  RESUMED_TEXT,
} from "../src/tasks/_host.ts";
import { memoryStore } from "../store.ts";
import { waitFor } from "./_helpers/wait.ts";
import { register } from "../src/bridge/_registry.ts";
import { exported } from "../src/bridge/export.ts";
import { say, script } from "../testing.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** A gate a test opens: the tool waits on it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => open = resolve);
  return { wait, open };
}

interface Pair extends AsyncDisposable {
  readonly client: Client;
  readonly server: Server;
}

async function pair(
  setup: (server: Server) => void,
  options: ServeTasksOptions & { capabilities?: Record<string, unknown> } = {},
): Promise<Pair> {
  const server = new Server({ name: "tasks", version: "1" });
  setup(server);
  serveTasks(server, { store: options.store ?? memoryStore(), ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "host", version: "1" },
    {
      capabilities: options.capabilities ?? {},
      defaultTaskPollInterval: 10,
    } as ConstructorParameters<typeof Client>[1],
  );
  await client.connect(clientSide);
  await client.listTools();
  return {
    client,
    server,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Polls `tasks/get` until `done` holds of the task (a deadline, not a budget). */
async function until(
  client: Client,
  taskId: string,
  done: (task: { status: string; statusMessage?: string }) => boolean,
): Promise<{ status: string; statusMessage?: string }> {
  let last: unknown;
  return await waitFor(async () => {
    const task = await client.experimental.tasks.getTask(taskId);
    last = task;
    return done(task) && task;
  }, () => `task ${taskId} done (last: ${JSON.stringify(last)})`);
}

function slowTool(
  opened: { wait: Promise<void> },
  seen: { signal?: AbortSignal; runs: number },
  taskSupport: "optional" | "required" = "optional",
) {
  return rawTool({
    name: "build",
    description: "Builds for a long time.",
    taskSupport,
    run: async (_args, ctx) => {
      seen.runs++;
      seen.signal = ctx.signal;
      ctx.progress?.({ message: "compiling", progress: 1, total: 2 });
      await Promise.race([
        opened.wait,
        new Promise((_, reject) =>
          ctx.signal?.addEventListener(
            "abort",
            () => reject(ctx.signal?.reason),
          )
        ),
      ]);
      return "built";
    },
  });
}

Deno.test("the capability and execution.taskSupport are listed only where tasks are served", async () => {
  const opened = gate();
  const tool = slowTool(opened, { runs: 0 }, "required");
  await using served = await pair((s) => exportTools(s, tool));
  const caps = served.client.getServerCapabilities() as Record<string, unknown>;
  assert.deepEqual(caps.tasks, {
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const { tools } = await served.client.listTools();
  assert.deepEqual(tools[0].execution, { taskSupport: "required" });

  const plain = new Server({ name: "plain", version: "1" });
  exportTools(plain, tool);
  const [c, s] = InMemoryTransport.createLinkedPair();
  await plain.connect(s);
  const client = new Client({ name: "h", version: "1" });
  await client.connect(c);
  const listed = await client.listTools();
  assert.equal(listed.tools[0].execution, undefined);
  await client.close();
  await plain.close();
});

Deno.test("a task call answers the handle at once, the record stored before; result, list and status follow", async () => {
  const opened = gate();
  const seen = { runs: 0 } as { signal?: AbortSignal; runs: number };
  const store = memoryStore();
  await using served = await pair(
    (s) => exportTools(s, slowTool(opened, seen)),
    { store, pollIntervalMs: 20 },
  );
  const created = await served.client.request(
    {
      method: "tools/call",
      params: { name: "build", arguments: {}, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  ) as {
    task: { taskId: string; status: string; ttl: number; pollInterval: number };
  };
  assert.equal(created.task.status, "working");
  assert.equal(created.task.ttl, 60_000);
  assert.equal(created.task.pollInterval, 20);
  // The record is in the store when the handle is returned.
  const record = await store.get<{ status: string; tool: string }>(
    `task/${created.task.taskId}`,
  );
  assert.equal(record?.value.tool, "build");

  const progressed = await until(
    served.client,
    created.task.taskId,
    (t) => t.statusMessage === "compiling",
  );
  assert.equal(progressed.status, "working");
  const listed = await served.client.experimental.tasks.listTasks();
  assert.deepEqual(listed.tasks.map((t) => t.taskId), [created.task.taskId]);

  const result = served.client.experimental.tasks.getTaskResult(
    created.task.taskId,
    CallToolResultSchema,
  );
  opened.open();
  const done = await result;
  assert.deepEqual(done.content, [{ type: "text", text: "built" }]);
  const task = await served.client.experimental.tasks.getTask(
    created.task.taskId,
  );
  assert.equal(task.status, "completed");
  assert.equal(seen.runs, 1);
});

Deno.test("callToolStream: taskCreated, statuses, then the one result", async () => {
  const opened = gate();
  await using served = await pair(
    (s) => exportTools(s, slowTool(opened, { runs: 0 })),
    { pollIntervalMs: 10 },
  );
  const kinds: string[] = [];
  let text = "";
  for await (
    const message of served.client.experimental.tasks.callToolStream({
      name: "build",
      arguments: {},
    })
  ) {
    kinds.push(message.type);
    // The tool ends once a status was streamed (a latch, not a timer).
    if (message.type === "taskStatus") opened.open();
    if (message.type === "result") {
      text = (message.result.content as { text: string }[])[0].text;
    }
    if (message.type === "error") throw message.error;
  }
  assert.equal(kinds[0], "taskCreated");
  assert.ok(kinds.includes("taskStatus"), kinds.join());
  assert.equal(kinds.at(-1), "result");
  assert.equal(text, "built");
});

Deno.test("a call without params.task runs as before; a required tool without one is -32601", async () => {
  const opened = gate();
  opened.open();
  await using served = await pair((s) => {
    exportTools(s, slowTool(opened, { runs: 0 }));
    exportTools(
      s,
      rawTool({
        name: "must",
        description: "Only as a task.",
        taskSupport: "required",
        run: () => "ok",
      }),
    );
  });
  const plain = await served.client.callTool({ name: "build", arguments: {} });
  assert.deepEqual(plain.content, [{ type: "text", text: "built" }]);
  await assert.rejects(
    served.client.request(
      { method: "tools/call", params: { name: "must", arguments: {} } },
      CallToolResultSchema,
    ),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.MethodNotFound &&
      err.message.includes('tool "must" must be called as a task'),
  );
});

Deno.test("tasks/cancel reaches the tool's signal and is sticky", async () => {
  const opened = gate();
  const seen = { runs: 0 } as { signal?: AbortSignal; runs: number };
  await using served = await pair(
    (s) => exportTools(s, slowTool(opened, seen)),
  );
  const stream = served.client.experimental.tasks.callToolStream({
    name: "build",
    arguments: {},
  });
  const first = await stream.next();
  assert.equal(first.value?.type, "taskCreated");
  const taskId = (first.value as { task: { taskId: string } }).task.taskId;
  await until(served.client, taskId, () => seen.signal !== undefined);
  const cancelled = await served.client.experimental.tasks.cancelTask(taskId);
  assert.equal(cancelled.status, "cancelled");
  assert.equal(seen.signal?.aborted, true);
  assert.equal(seen.signal?.reason?.name, "TaskCancelledError");
  // The run ended at the abort; its gate opening now changes nothing, and
  // the round trip below comes after whatever the host did on its end.
  opened.open();
  const task = await served.client.experimental.tasks.getTask(taskId);
  assert.equal(task.status, "cancelled");
  await assert.rejects(
    served.client.experimental.tasks.cancelTask(taskId),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.InvalidParams &&
      /already ended cancelled/.test(err.message),
  );
  await stream.return(undefined);
});

Deno.test("ctx.ask in a task: input_required, tasks/result asks the client, the answer resumes it", async () => {
  const runs = { count: 0 };
  const asker = rawTool({
    name: "deploy",
    description: "Deploys after asking where.",
    taskSupport: "optional",
    run: async (_args, ctx) => {
      runs.count++;
      const where = await ctx.ask!({
        message: "Which region?",
        schema: {
          type: "object",
          properties: { region: { type: "string" } },
        },
      });
      return `deployed to ${where.content?.region}`;
    },
  });
  await using served = await pair((s) => exportTools(s, asker), {
    capabilities: { elicitation: {} },
    pollIntervalMs: 10,
  });
  const asked: { message: string; related: unknown }[] = [];
  served.client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push({
      message: request.params.message,
      related: request.params._meta?.["io.modelcontextprotocol/related-task"],
    });
    return { action: "accept", content: { region: "eu" } };
  });
  const stream = served.client.experimental.tasks.callToolStream({
    name: "deploy",
    arguments: {},
  });
  const first = await stream.next();
  const taskId = (first.value as { task: { taskId: string } }).task.taskId;
  const waiting = await until(
    served.client,
    taskId,
    (t) => t.status === "input_required",
  );
  assert.equal(waiting.statusMessage, "Which region?");
  let text = "";
  for await (const message of stream) {
    if (message.type === "result") {
      text = (message.result.content as { text: string }[])[0].text;
    }
    if (message.type === "error") throw message.error;
  }
  assert.equal(text, "deployed to eu");
  assert.deepEqual(asked, [{ message: "Which region?", related: { taskId } }]);
  assert.equal(runs.count, 1);
});

Deno.test("an isError result ends the task failed, its result kept", async () => {
  await using served = await pair((s) =>
    exportTools(
      s,
      rawTool({
        name: "boom",
        description: "Fails.",
        taskSupport: "optional",
        run: () => {
          throw new Error("disk full");
        },
      }),
    )
  );
  const stream = served.client.experimental.tasks.callToolStream({
    name: "boom",
    arguments: {},
  });
  const first = await stream.next();
  const taskId = (first.value as { task: { taskId: string } }).task.taskId;
  const task = await until(
    served.client,
    taskId,
    (t) => t.status !== "working",
  );
  assert.equal(task.status, "failed");
  assert.match(task.statusMessage ?? "", /disk full/);
  const result = await served.client.experimental.tasks.getTaskResult(
    taskId,
    CallToolResultSchema,
  );
  assert.equal(result.isError, true);
  await stream.return(undefined);
});

Deno.test("an unknown task id is -32602", async () => {
  await using served = await pair((s) =>
    exportTools(
      s,
      rawTool({
        name: "t",
        description: "T.",
        taskSupport: "optional",
        run: () => "ok",
      }),
    )
  );
  const unknown = "00000000-0000-4000-8000-000000000000";
  await assert.rejects(
    served.client.experimental.tasks.getTask(unknown),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.InvalidParams &&
      err.message.includes(`task not found: ${unknown} (`),
  );
});

Deno.test("wrong-shaped tasks/* params are -32602, not an internal error", async () => {
  await using served = await pair((s) =>
    exportTools(
      s,
      rawTool({
        name: "t",
        description: "T.",
        taskSupport: "optional",
        run: () => "ok",
      }),
    )
  );
  const probes: [string, Record<string, unknown>][] = [
    ["tasks/get", {}],
    ["tasks/result", { taskId: 5 }],
    ["tasks/cancel", { taskId: null }],
    ["tasks/update", { taskId: "x" }],
    ["tasks/list", { cursor: 5 }],
  ];
  for (const [method, params] of probes) {
    await assert.rejects(
      served.client.request({ method, params } as never, ResultSchema),
      (err: unknown) =>
        err instanceof McpError && err.code === ErrorCode.InvalidParams &&
        err.message.includes(`invalid ${method} params`),
      method,
    );
  }
});

Deno.test("a served agent runs as a task", async () => {
  const agent = new Agent(script(say("research complete")), {
    name: "research",
    instructions: "You research.",
  });
  await using served = await pair(
    (s) =>
      serveAgent(s, agent, "Research a topic.", { taskSupport: "required" }),
    { pollIntervalMs: 10 },
  );
  const { tools } = await served.client.listTools();
  assert.deepEqual(tools[0].execution, { taskSupport: "required" });
  let text = "";
  for await (
    const message of served.client.experimental.tasks.callToolStream({
      name: "research",
      arguments: { prompt: "MCP tasks" },
    })
  ) {
    if (message.type === "result") {
      text = (message.result.content as { text: string }[])[0].text;
    }
    if (message.type === "error") throw message.error;
  }
  assert.equal(text, "research complete");
});

Deno.test("the texts a caller (and a model reading an imported result) sees are pinned", () => {
  assert.equal(
    notResumableText("build"),
    'the instance running this task stopped, and tool "build" cannot be resumed; call it again',
  );
  assert.equal(CANCELLED_TEXT, "The task was cancelled by its caller.");
  assert.equal(
    RESUMED_TEXT,
    "resumed on another instance after the one running it stopped",
  );
  assert.equal(
    TaskAccessError.notFound("t1").message,
    "task not found: t1 (unknown, expired past its ttl, or not this caller's)",
  );
  assert.equal(
    TaskAccessError.terminal("t1", "completed").message,
    "cannot cancel task t1: it already ended completed",
  );
  assert.equal(new TaskCancelledError("t1").message, "task t1 was cancelled");
});

Deno.test("a host stopped by its signal lets go of its tasks: the next instance takes them over at once", async () => {
  const store = memoryStore();
  const seen = { runs: 0 } as { signal?: AbortSignal; runs: number };
  const stop = new AbortController();
  const never = gate();
  // Instance A (the signal stops it), then instance B on the same store.
  const a = new Server({ name: "a", version: "1" });
  exportTools(a, slowTool(never, seen));
  serveTasks(a, { store, signal: stop.signal, leaseMs: 60_000 });
  const [ca, sa] = InMemoryTransport.createLinkedPair();
  await a.connect(sa);
  const onA = new Client({ name: "host", version: "1" });
  await onA.connect(ca);
  const created = await onA.request({
    method: "tools/call",
    params: { name: "build", arguments: {}, task: {} },
  }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  await until(onA, taskId, () => seen.signal !== undefined);
  stop.abort();
  await until(onA, taskId, () => seen.signal?.aborted === true);
  await waitFor(
    async () => (await store.get(`task/${taskId}/lease`)) === undefined,
    "the stopped host releases the lease",
  );
  // B: not the stopped host; its first tasks/get takes the task over, though
  // the lease (60 s) would not have lapsed yet.
  await using onB = await pair(
    (s) => exportTools(s, slowTool(never, { runs: 0 })),
    { store },
  );
  const task = await onB.client.experimental.tasks.getTask(taskId);
  assert.equal(task.status, "failed");
  assert.equal(task.statusMessage, notResumableText("build"));
  await onA.close();
  await a.close();
  await store.close();
});

/** Makes every request `client` sends arrive as `principal`'s (a verified token's caller). */
function asPrincipal(client: Client, clientId: string, sub: string): void {
  const transport = client.transport!;
  const send = transport.send.bind(transport);
  transport.send = (message, options) =>
    send(
      message,
      {
        ...options,
        authInfo: { token: "t", clientId, scopes: [], extra: { sub } },
      } as typeof options,
    );
}

Deno.test("a principal's task is not another's: get, result, cancel and list refuse or omit it", async () => {
  const store = memoryStore();
  const opened = gate();
  const tool = slowTool(opened, { runs: 0 });
  await using alice = await pair((s) => exportTools(s, tool), { store });
  await using mallory = await pair((s) => exportTools(s, tool), { store });
  await using aliceAgain = await pair((s) => exportTools(s, tool), { store });
  asPrincipal(alice.client, "app", "alice");
  asPrincipal(mallory.client, "app", "mallory");
  asPrincipal(aliceAgain.client, "app", "alice");
  const created = await alice.client.request({
    method: "tools/call",
    params: { name: "build", arguments: {}, task: {} },
  }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  const refused = (err: unknown) =>
    err instanceof McpError && err.code === ErrorCode.InvalidParams &&
    err.message.includes(`task not found: ${taskId}`);
  const tasks = mallory.client.experimental.tasks;
  await assert.rejects(tasks.getTask(taskId), refused);
  await assert.rejects(
    tasks.getTaskResult(taskId, CallToolResultSchema),
    refused,
  );
  await assert.rejects(tasks.cancelTask(taskId), refused);
  assert.deepEqual((await tasks.listTasks()).tasks, []);
  // The same principal on another connection sees it, and it still runs.
  const seen = await aliceAgain.client.experimental.tasks.getTask(taskId);
  assert.equal(seen.status, "working");
  assert.deepEqual(
    (await aliceAgain.client.experimental.tasks.listTasks()).tasks.map((t) =>
      t.taskId
    ),
    [taskId],
  );
  opened.open();
  const result = await aliceAgain.client.experimental.tasks.getTaskResult(
    taskId,
    CallToolResultSchema,
  );
  assert.deepEqual(result.content, [{ type: "text", text: "built" }]);
  await store.close();
});

Deno.test("a task taken over by a verified poller resumes without that poller's authority when an anonymous caller made it", async () => {
  const store = memoryStore();
  const seen: { auth: unknown[]; aborted?: AbortSignal } = { auth: [] };
  const def = rawTool({
    name: "resumable",
    description: "Resumes after a takeover.",
    taskSupport: "optional",
    run: () => "unused",
  });
  // Its first run waits until its host stops; a resumed run ends at once.
  const entry = exported(
    def,
    (_args, extra) => {
      seen.auth.push(extra.authInfo);
      if (seen.auth.length > 1) return Promise.resolve({ text: "resumed" });
      seen.aborted = extra.signal;
      return new Promise((_, reject) =>
        extra.signal.addEventListener(
          "abort",
          () => reject(extra.signal.reason),
        )
      );
    },
    { taskSupport: "optional", resumable: true },
  );
  const stop = new AbortController();
  const a = new Server({ name: "a", version: "1" });
  register(a, [entry], "test");
  serveTasks(a, { store, signal: stop.signal, leaseMs: 60_000 });
  const [ca, sa] = InMemoryTransport.createLinkedPair();
  await a.connect(sa);
  const onA = new Client({ name: "anonymous", version: "1" });
  await onA.connect(ca);
  const created = await onA.request({
    method: "tools/call",
    params: { name: "resumable", arguments: {}, task: {} },
  }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  await until(onA, taskId, () => seen.aborted !== undefined);
  stop.abort();
  await waitFor(
    async () => (await store.get(`task/${taskId}/lease`)) === undefined,
    "the stopped host releases the lease",
  );
  // A verified principal holding the id polls it on instance B: the run it
  // resumes is not granted that principal's token.
  await using onB = await pair((s) => register(s, [entry], "test"), { store });
  asPrincipal(onB.client, "app", "alice");
  await until(onB.client, taskId, (t) => t.status === "completed");
  assert.equal(seen.auth.length, 2);
  assert.equal(seen.auth[1], undefined);
  await onA.close();
  await a.close();
  await store.close();
});

Deno.test("tasks/update checks an answer as a direct call does: a wrong action or form is -32602 and the task still waits", async () => {
  const asker = rawTool({
    name: "deploy",
    description: "Deploys after asking where.",
    taskSupport: "optional",
    run: async (_args, ctx) => {
      const where = await ctx.ask!({
        message: "Which region?",
        schema: {
          type: "object",
          properties: { region: { type: "string" } },
          required: ["region"],
        },
      });
      return `${where.action} ${where.content?.region}`;
    },
  });
  await using served = await pair((s) => exportTools(s, asker));
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
  };
  const created = await served.client.request({
    method: "tools/call",
    params: { name: "deploy", arguments: {}, _meta },
  } as never, ResultSchema.passthrough()) as { taskId: string };
  const taskId = created.taskId;
  const get = () =>
    served.client.request({
      method: "tasks/get",
      params: { taskId, _meta },
    } as never, ResultSchema.passthrough()) as Promise<
      { status: string; inputRequests?: Record<string, unknown> }
    >;
  let task = await waitFor(async () => {
    const task = await get();
    return task.status === "input_required" && task;
  }, "the task asks for input");
  const key = Object.keys(task.inputRequests ?? {})[0];
  for (
    const wrong of [
      { action: "yes" },
      { action: "accept", content: { region: 5 } },
      { action: "accept", content: {} },
    ]
  ) {
    await assert.rejects(
      served.client.request({
        method: "tasks/update",
        params: { taskId, inputResponses: { [key]: wrong }, _meta },
      } as never, ResultSchema),
      (err: unknown) =>
        err instanceof McpError && err.code === ErrorCode.InvalidParams &&
        err.message.includes(`invalid inputResponses "${key}"`),
      JSON.stringify(wrong),
    );
  }
  assert.equal((await get()).status, "input_required");
  await served.client.request({
    method: "tasks/update",
    params: {
      taskId,
      inputResponses: {
        [key]: { action: "accept", content: { region: "eu" } },
      },
      _meta,
    },
  } as never, ResultSchema);
  task = await waitFor(async () => {
    const task = await get();
    return task.status === "completed" && task;
  }, "the task completes");
  assert.deepEqual(
    (task as { result?: { content?: unknown } }).result?.content,
    [{ type: "text", text: "accept eu" }],
  );
});

Deno.test("a principal whose client id holds a colon is not another principal whose subject does", async () => {
  const store = memoryStore();
  const opened = gate();
  const tool = slowTool(opened, { runs: 0 });
  await using alice = await pair((s) => exportTools(s, tool), { store });
  await using mallory = await pair((s) => exportTools(s, tool), { store });
  asPrincipal(alice.client, "app", "x:alice");
  asPrincipal(mallory.client, "app:x", "alice");
  const created = await alice.client.request({
    method: "tools/call",
    params: { name: "build", arguments: {}, task: {} },
  }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  await assert.rejects(
    mallory.client.experimental.tasks.getTask(taskId),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.InvalidParams,
  );
  assert.deepEqual(
    (await mallory.client.experimental.tasks.listTasks()).tasks,
    [],
  );
  opened.open();
  await alice.client.experimental.tasks.getTaskResult(
    taskId,
    CallToolResultSchema,
  );
  await store.close();
});
