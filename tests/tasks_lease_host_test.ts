/**
 * The task host under its lease (src/tasks/_host.ts over
 * src/tasks/_lease.ts): a live runner whose heartbeat finds the lease
 * taken stops; two hosts racing one lapsed lease run the task once; a
 * caller's TTL is held to `maxTtlMs`. The heartbeat runs on a fake clock.
 */

import assert from "node:assert/strict";
import {
  Client,
  exportTools,
  InMemoryTransport,
  rawTool,
  Server,
} from "../mod.ts";
import { serveTasks, type ServeTasksOptions } from "../tasks.ts";
import { memoryStore, type Store } from "../store.ts";
import { register } from "../src/bridge/_registry.ts";
import { exported } from "../src/bridge/export.ts";
import { REAL_CLOCK, setTaskClock } from "../src/tasks/_outcome.ts";
import type { TaskRecord } from "../src/tasks/_record.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";
import { movableClock } from "./_helpers/clock.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

interface Pair extends AsyncDisposable {
  readonly client: Client;
}

async function pair(
  setup: (server: Server) => void,
  options: ServeTasksOptions & { store: Store },
): Promise<Pair> {
  const server = new Server({ name: "tasks", version: "1" });
  setup(server);
  serveTasks(server, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "host", version: "1" });
  await client.connect(clientSide);
  return {
    client,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A promise and the function that resolves it. */
function signal<T = void>(): { promise: Promise<T>; fire: (value: T) => void } {
  let fire!: (value: T) => void;
  const promise = new Promise<T>((resolve) => fire = resolve);
  return { promise, fire };
}

/** `promise`, or a failure naming `what` past 10 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  const timeout = AbortSignal.timeout(10_000);
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      timeout.addEventListener(
        "abort",
        () => reject(new Error(`not within 10 s: ${what}`)),
      )
    ),
  ]);
}

Deno.test("a live runner whose heartbeat finds its lease taken stops: its tool's signal aborts and it writes nothing", async () => {
  using clock = new FakeClock({ dates: false });
  await using store = memoryStore();
  setTaskClock(store, { sleep: REAL_CLOCK.sleep, lease: clock });
  const started = signal<AbortSignal>();
  await using endpoint = await pair((server) =>
    exportTools(
      server,
      rawTool({
        name: "build",
        description: "Builds until stopped.",
        taskSupport: "optional",
        run: (_args, ctx) => {
          started.fire(ctx.signal!);
          return new Promise((_, reject) =>
            ctx.signal!.addEventListener(
              "abort",
              () => reject(ctx.signal!.reason),
            )
          );
        },
      }),
    ), { store, leaseMs: 3_000 });
  const created = await endpoint.client.request({
    method: "tools/call",
    params: { name: "build", arguments: {}, task: {} },
  }, CreateTaskResultSchema);
  const id = created.task.taskId;
  const running = await within(started.promise, "the tool started");
  // The heartbeat renews while the lease is this host's.
  for (let beat = 1; beat <= 3; beat++) {
    const next = clock.scheduled();
    clock.advance(1_000);
    await within(next, `beat ${beat} ended`);
  }
  assert.equal(running.aborted, false);
  // Another instance holds the lease now (this one's lapsed meanwhile).
  const theirs = { instance: "another-instance" };
  await store.set(`task/${id}/lease`, theirs, { ttlMs: 60_000 });
  const aborted = new Promise((resolve) =>
    running.addEventListener("abort", resolve, { once: true })
  );
  clock.advance(1_000);
  await within(aborted, "the runner stopped on losing its lease");
  assert.equal(
    (running.reason as Error).message,
    "another instance took the task over",
  );
  assert.equal(clock.pending, 0, "no more beats");
  assert.deepEqual((await store.get(`task/${id}/lease`))?.value, theirs);
  const record = await store.get<TaskRecord>(`task/${id}`);
  assert.equal(record?.value.status, "working", "the loser wrote no outcome");
});

Deno.test("two hosts racing one lapsed lease: exactly one takes the task over and runs it", async () => {
  await using store = memoryStore();
  let runs = 0;
  const finish = signal();
  const entry = exported(
    rawTool({
      name: "resumable",
      description: "Resumes after a takeover.",
      taskSupport: "optional",
      run: () => "unused",
    }),
    async () => {
      runs++;
      await finish.promise;
      return { text: "resumed" };
    },
    { taskSupport: "optional", resumable: true },
  );
  // The instance that made it crashed: its record, no lease.
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await store.set(
    `task/${id}`,
    {
      taskId: id,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttl: 60_000,
      pollInterval: 10,
      tool: "resumable",
      args: {},
      owner: "",
      answers: {},
    } satisfies TaskRecord,
    { ttlMs: 60_000 },
  );
  await using a = await pair((s) => register(s, [entry], "test"), { store });
  await using b = await pair((s) => register(s, [entry], "test"), { store });
  // Both hosts read it at once, several times each.
  const reads = [a, b, a, b, a, b].map((host) =>
    host.client.experimental.tasks.getTask(id)
  );
  await Promise.all(reads);
  assert.equal(runs, 1, "taken over by one host only");
  finish.fire();
  for (const host of [a, b]) {
    const result = await host.client.experimental.tasks.getTaskResult(
      id,
      CallToolResultSchema,
    );
    assert.deepEqual(result.content, [{ type: "text", text: "resumed" }]);
  }
  assert.equal(runs, 1);
});

Deno.test("maxTtlMs holds a caller's ttl: the task says so and its record is gone past it", async () => {
  using dates = movableClock();
  await using store = memoryStore();
  const done = signal();
  await using endpoint = await pair((server) =>
    exportTools(
      server,
      rawTool({
        name: "build",
        description: "Builds.",
        taskSupport: "optional",
        run: async () => {
          await done.promise;
          return "built";
        },
      }),
    ), { store, maxTtlMs: 60_000, ttlMs: 30_000 });
  const created = await endpoint.client.request({
    method: "tools/call",
    params: { name: "build", arguments: {}, task: { ttl: 3_600_000 } },
  }, CreateTaskResultSchema);
  assert.equal(created.task.ttl, 60_000);
  const id = created.task.taskId;
  assert.equal((await store.get<TaskRecord>(`task/${id}`))?.value.ttl, 60_000);
  done.fire();
  await endpoint.client.experimental.tasks.getTaskResult(
    id,
    CallToolResultSchema,
  );
  dates.advance(59_000);
  assert.equal(
    (await endpoint.client.experimental.tasks.getTask(id)).status,
    "completed",
  );
  dates.advance(1_001);
  await assert.rejects(
    () => endpoint.client.experimental.tasks.getTask(id),
    (error: unknown) =>
      error instanceof McpError && /task not found/.test(error.message),
  );
});
