/**
 * Tasks belong to their caller, and a caller holds a bounded share: two
 * real clients over a real listener on 127.0.0.1 (stateless and with
 * sessions) never list each other's tasks, and the per-caller limits of
 * `serveTasks` (running, kept, argument bytes) refuse with the pinned
 * texts before anything is stored.
 */

import assert from "node:assert/strict";
import { Client, exportTools, httpHandler, rawTool, Server } from "../mod.ts";
import {
  serveTasks,
  type ServeTasksOptions,
  TaskLimitError,
} from "../tasks.ts";
import { memoryStore, type Store } from "../store.ts";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CreateTaskResultSchema,
  ListTasksResultSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "./_helpers/wait.ts";

/** A tool that runs until the test lets it go. */
function holdingTool(release: Promise<void>) {
  return rawTool({
    name: "hold",
    description: "Holds until released.",
    taskSupport: "optional",
    run: async () => {
      await release;
      return "released";
    },
  });
}

function serve(
  store: Store,
  sessions: boolean,
  release: Promise<void>,
  options: ServeTasksOptions = {},
): { url: string } & AsyncDisposable {
  const hold = holdingTool(release);
  const handler = httpHandler(() => {
    const server = new Server({ name: "tasks", version: "1" });
    exportTools(server, hold);
    serveTasks(server, { store, pollIntervalMs: 20, ...options });
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

async function connect(url: string): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "caller", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, {
    [Symbol.asyncDispose]: () => client.close(),
  });
}

function start(client: Client, args: Record<string, unknown> = {}) {
  return client.request(
    {
      method: "tools/call",
      params: { name: "hold", arguments: args, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );
}

const listed = async (client: Client): Promise<string[]> =>
  (await client.request({ method: "tasks/list" }, ListTasksResultSchema))
    .tasks.map((t) => t.taskId);

/** A gate the test opens at the end: the held tools finish. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => open = resolve);
  return { wait, open };
}

Deno.test({
  name:
    "stateless and anonymous: a second caller lists none of the first one's tasks (nor does the first: ids are the only handle)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const release = gate();
    await using store = memoryStore();
    await using endpoint = serve(store, false, release.wait);
    await using alice = await connect(endpoint.url);
    await using mallory = await connect(endpoint.url);
    const made = [(await start(alice)).task.taskId];
    made.push((await start(alice)).task.taskId);
    assert.deepEqual(await listed(mallory), []);
    assert.deepEqual(await listed(alice), []);
    // The id is the capability: its holder reads it.
    const got = await alice.experimental.tasks.getTask(made[0]);
    assert.equal(got.status, "working");
    release.open();
  },
});

Deno.test({
  name:
    "with sessions: each caller lists its own tasks, never another session's",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const release = gate();
    await using store = memoryStore();
    await using endpoint = serve(store, true, release.wait);
    await using alice = await connect(endpoint.url);
    await using bob = await connect(endpoint.url);
    const a = (await start(alice)).task.taskId;
    const b = (await start(bob)).task.taskId;
    assert.deepEqual(await listed(alice), [a]);
    assert.deepEqual(await listed(bob), [b]);
    release.open();
  },
});

/** The error a refused request rejects with: its code and message. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string }> {
  const error = await promise.then(
    () => assert.fail("the request was not refused"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof McpError, String(error));
  return { code: error.code, message: error.message };
}

Deno.test({
  name:
    "limits: running per caller, kept per caller and argument bytes refuse with the pinned texts; nothing is stored for a refused call",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const release = gate();
    await using store = memoryStore();
    await using endpoint = serve(store, true, release.wait, {
      maxRunningPerCaller: 2,
      maxTasksPerCaller: 3,
      maxArgumentBytes: 1_000,
    });
    await using alice = await connect(endpoint.url);
    await using bob = await connect(endpoint.url);
    await start(alice);
    await start(alice);
    assert.deepEqual(await refusal(start(alice)), {
      code: -32000,
      message: `MCP error -32000: ${new TaskLimitError("running", 2).message}`,
    });
    // Another caller is not held by Alice's share.
    await start(bob);
    assert.deepEqual(await refusal(start(bob, { text: "é".repeat(600) })), {
      code: -32602,
      message: `MCP error -32602: ${
        new TaskLimitError("arguments", 1_000).message
      }`,
    });
    release.open();
    // Alice's two end; she may run again, up to three kept.
    await waitFor(
      async () => (await listed(alice)).length >= 2 && !await running(alice),
      "Alice's two tasks end",
    );
    await start(alice);
    assert.equal((await refusal(start(alice))).code, -32000);
    assert.equal((await listed(alice)).length, 3);
  },
});

async function running(client: Client): Promise<boolean> {
  const { tasks } = await client.request(
    { method: "tasks/list" },
    ListTasksResultSchema,
  );
  return tasks.some((t) => t.status === "working");
}

Deno.test("limits: the refusal texts are pinned", () => {
  assert.equal(
    new TaskLimitError("running", 16).message,
    "task refused: this caller already has 16 tasks running (the most allowed); wait for one to end or cancel one with tasks/cancel",
  );
  assert.equal(
    new TaskLimitError("kept", 100).message,
    "task refused: this caller already has 100 tasks kept (the most allowed); wait until one's ttl runs out (ask a shorter params.task.ttl)",
  );
  assert.equal(
    new TaskLimitError("arguments", 262_144).message,
    "task refused: its arguments take more than 262144 bytes as JSON (the most a task keeps); send smaller arguments or call the tool without params.task",
  );
  assert.equal(new TaskLimitError("running", 1).code, -32000);
  assert.equal(new TaskLimitError("arguments", 1).code, -32602);
});
