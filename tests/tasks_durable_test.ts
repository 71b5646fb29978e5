/**
 * Tasks durable across instances: two server processes on one Redis store
 * (tests/fixtures/tasks_http_server.ts) are two instances of one server,
 * reached by the v1 SDK's client over Streamable HTTP. A task made on A is
 * answered on B; cancelled on B it aborts on A; when A is killed mid-task,
 * B takes it over — a served agent resumes from its last saved step, a
 * plain tool ends `failed` with the reason — never `working` forever.
 */

import assert from "node:assert/strict";
import { Client } from "../mod.ts";
import { redisStore, type Store } from "../store.ts";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { type RunningServer, startRedis } from "./_helpers/store_servers.ts";
import { notResumableText } from "../src/tasks/_host.ts";
import { waitFor } from "./_helpers/wait.ts";

const FIXTURE = new URL("./fixtures/tasks_http_server.ts", import.meta.url)
  .pathname;

interface Instance {
  readonly url: string;
  /** Ends the process: SIGKILL is a crash (no lease let go, nothing flushed). */
  kill(signal?: Deno.Signal): Promise<void>;
}

async function startInstance(redis: string): Promise<Instance> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FIXTURE, redis],
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the task server exited before listening");
    text += value;
  }
  reader.releaseLock();
  let killed = false;
  return {
    url: `http://127.0.0.1:${text.trim()}/mcp`,
    async kill(signal: Deno.Signal = "SIGTERM") {
      if (!killed) {
        killed = true;
        child.kill(signal);
      }
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

async function connect(url: string): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "host", version: "1" }, {
    capabilities: {},
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, {
    [Symbol.asyncDispose]: () => client.close(),
  });
}

async function startTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const created = await client.request(
    { method: "tools/call", params: { name, arguments: args, task: {} } },
    CreateTaskResultSchema,
  );
  return created.task.taskId;
}

/** Polls until `done` holds (a deadline, not a timing budget). */
async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
): Promise<T> {
  let last: T | undefined;
  await waitFor(
    async () => done(last = await read()),
    () => `${what}: still ${JSON.stringify(last)}`,
    {
      signal: AbortSignal.timeout(20_000),
      everyMs: 20,
    },
  );
  return last as T;
}

interface Rig extends AsyncDisposable {
  readonly a: Instance;
  readonly b: Instance;
  readonly store: Store;
}

async function rig(): Promise<Rig> {
  const redis: RunningServer = await startRedis();
  const [a, b] = await Promise.all([
    startInstance(redis.url),
    startInstance(redis.url),
  ]);
  const store = redisStore(redis.url, { prefix: "tasks:" });
  return {
    a,
    b,
    store,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Promise.all([a.kill(), b.kill()]);
      await redis.stop();
    },
  };
}

function textOf(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

Deno.test({
  name: "tasks across instances on one Redis store",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using r = await rig();

    await t.step(
      "a task made on A is answered by B (tasks/get, tasks/result)",
      async () => {
        await using onA = await connect(r.a.url);
        await using onB = await connect(r.b.url);
        const taskId = await startTask(onA, "build", { ms: 400 });
        const seen = await onB.experimental.tasks.getTask(taskId);
        assert.equal(seen.status, "working");
        const result = await onB.experimental.tasks.getTaskResult(
          taskId,
          CallToolResultSchema,
        );
        assert.match(textOf(result), /^built by \d+$/);
        assert.equal(
          (await onB.experimental.tasks.getTask(taskId)).status,
          "completed",
        );
      },
    );

    await t.step(
      "tasks/cancel on B reaches the tool's signal on A",
      async () => {
        await using onA = await connect(r.a.url);
        await using onB = await connect(r.b.url);
        const marker = crypto.randomUUID();
        const taskId = await startTask(onA, "build", { ms: 60_000, marker });
        const cancelled = await onB.experimental.tasks.cancelTask(taskId);
        assert.equal(cancelled.status, "cancelled");
        await until(
          () => r.store.get(`test/aborted/${marker}`),
          (entry) => entry !== undefined,
          "the tool on A was not aborted",
        );
        assert.equal(
          (await onA.experimental.tasks.getTask(taskId)).status,
          "cancelled",
        );
      },
    );

    await t.step(
      "a served agent killed on A mid-run resumes on B from its last step",
      async () => {
        const onA = await connect(r.a.url);
        const taskId = await startTask(onA, "research", { prompt: "tasks" });
        // Wait for the first step's checkpoint, then crash A.
        await until(
          () => r.store.get<{ checkpoint?: unknown }>(`task/${taskId}`),
          (entry) => Array.isArray(entry?.value.checkpoint),
          "no checkpoint saved",
        );
        await r.a.kill("SIGKILL");
        await onA.close().catch(() => {});
        // A client restarted with only the task id, on B.
        await using onB = await connect(r.b.url);
        const result = await onB.experimental.tasks.getTaskResult(
          taskId,
          CallToolResultSchema,
        );
        const text = textOf(result);
        assert.match(text, /^research complete: /);
        const steps = JSON.parse(
          text.slice("research complete: ".length),
        ) as string[];
        assert.equal(steps.length, 3);
        const pids = steps.map((s) => s.replace("step by ", ""));
        // The first step ran on A and was not run again; the rest ran on B.
        assert.notEqual(pids[0], pids[2]);
        assert.equal(pids[1], pids[2]);
      },
    );
  },
});

Deno.test({
  name:
    "a plain tool's task whose instance died ends failed with the reason, not working forever",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using r = await rig();
    const onA = await connect(r.a.url);
    const taskId = await startTask(onA, "build", { ms: 60_000 });
    await using onB = await connect(r.b.url);
    assert.equal(
      (await onB.experimental.tasks.getTask(taskId)).status,
      "working",
    );
    await r.a.kill("SIGKILL");
    const died = performance.now();
    await onA.close().catch(() => {});
    const task = await until(
      () => onB.experimental.tasks.getTask(taskId),
      (task) => task.status !== "working",
      "the task stayed working",
    );
    const takeover = performance.now() - died;
    assert.equal(task.status, "failed");
    assert.equal(task.statusMessage, notResumableText("build"));
    const result = await onB.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    );
    assert.equal(result.isError, true);
    // Taken over once the dead instance's lease (1,000 ms) ran out, not when
    // the tool's 60 s would have: ten leases leave room for a loaded machine.
    assert.ok(
      takeover < 10_000,
      `death to takeover: ${Math.round(takeover)} ms`,
    );
  },
});
