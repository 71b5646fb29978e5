/**
 * `taskClient`: a client holding only a task id, against weft's own task
 * server (`serveTasks`) over a real listener on 127.0.0.1, in both eras —
 * the 2025-11-25 shape (`protocol: "legacy"`) and the 2026-07-28 one that
 * `connectHttp` picks by itself. One connection starts a task with a `ttl`
 * (granted as asked, in both eras) and goes away; a second connection,
 * knowing the id only, reads its status, lists it, waits for its result;
 * a third cancels a running task (the tool's signal aborts, the result is
 * a typed `cancelled`, a second cancel is refused); another principal's
 * connection cannot see either task.
 */

import assert from "node:assert/strict";
import {
  connectHttp,
  exportTools,
  httpHandler,
  rawTool,
  Server,
} from "../mod.ts";
import { RemoteTaskError, serveTasks, taskClient } from "../tasks.ts";
import { memoryStore } from "../store.ts";
import type { McpClient } from "../src/runtime/client/disposable_client.ts";

const DEADLINE = 10_000;

/** A task server whose `report` waits for `release()` and whose `slow` runs until cancelled. */
function serve() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  let onAbort: (reason: unknown) => void = () => {};
  const aborted = new Promise<unknown>((resolve) => onAbort = resolve);
  let slowStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => slowStarted = resolve);
  const report = rawTool({
    name: "report",
    description: "Builds the report once released.",
    taskSupport: "optional",
    run: async () => {
      await released;
      return "the report";
    },
  });
  const slow = rawTool({
    name: "slow",
    description: "Runs until cancelled.",
    taskSupport: "required",
    run: (_args, ctx) =>
      new Promise((_, reject) => {
        slowStarted();
        ctx.signal?.addEventListener("abort", () => {
          onAbort(ctx.signal?.reason);
          reject(ctx.signal?.reason);
        }, { once: true });
      }),
  });
  const store = memoryStore();
  const handler = httpHandler(() => {
    const server = new Server({ name: "jobs", version: "1" });
    exportTools(server, report, slow);
    serveTasks(server, { store, pollIntervalMs: 20 });
    return server;
  }, {
    auth: {
      resource: "http://127.0.0.1/mcp",
      authorizationServers: ["http://127.0.0.1:9/issuer"],
      // Two principals: tasks are theirs alone.
      verify: (token) =>
        token === "alice" || token === "bob"
          ? { token, clientId: "agent", scopes: [], extra: { sub: token } }
          : undefined,
    },
  });
  // The methods the server is sent, in order.
  const methods: string[] = [];
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (incoming, info) => {
      if (incoming.method !== "POST") return await handler(incoming, info);
      const body = await incoming.text();
      const method = (JSON.parse(body) as { method?: unknown }).method;
      if (typeof method === "string") methods.push(method);
      return await handler(
        new Request(incoming.url, {
          method: "POST",
          headers: incoming.headers,
          body,
        }),
        info,
      );
    },
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    methods,
    release,
    aborted,
    started,
    async [Symbol.asyncDispose]() {
      release();
      await handler.close();
      await listener.shutdown();
      await store.close();
    },
  };
}

for (const protocol of ["legacy", "auto"] as const) {
  const era = protocol === "legacy" ? "legacy" : "modern";
  const shape = protocol === "legacy" ? "2025-11-25" : "2026-07-28";

  Deno.test(`taskClient (${shape}): another connection with only the id gets status, list and result; a third cancels`, async () => {
    await using server = serve();
    const signal = AbortSignal.timeout(DEADLINE);
    const open = (who: string): Promise<McpClient> =>
      connectHttp(server.url, {
        protocol,
        headers: { authorization: `Bearer ${who}` },
        signal,
      });

    // The first caller starts the task, asking a ttl, and goes away.
    const first = await open("alice");
    assert.equal(first.getProtocolEra()?.era, era);
    const started = await taskClient(first).start("report", {
      arguments: {},
      ttl: 120_000,
      signal,
    });
    await first.close();
    assert.equal(started.shape, shape);
    assert.equal(started.status, "working");
    assert.equal(started.ttl, 120_000, "the ttl asked is the ttl granted");
    const taskId = started.taskId;

    // A second connection knows the id only.
    await using second = await open("alice");
    const tasks = taskClient(second);
    const seen = await tasks.get(taskId, { signal });
    assert.equal(seen.status, "working");
    assert.equal(seen.ttl, 120_000);
    assert.equal(seen.pollInterval, 20);
    const { tasks: listed } = await tasks.list({ signal });
    assert.ok(listed.some((t) => t.taskId === taskId), JSON.stringify(listed));
    server.release();
    server.methods.length = 0;
    const result = await tasks.result(taskId, { signal });
    // 2025-11-25 fetches the end with tasks/result; the 2026-07-28 task
    // carries its result inline in tasks/get (the extension has no
    // tasks/result).
    assert.equal(
      server.methods.includes("tasks/result"),
      shape === "2025-11-25",
      server.methods.join(", "),
    );
    assert.deepEqual(result.content, [{ type: "text", text: "the report" }]);
    assert.equal((result as Record<string, unknown>).resultType, undefined);
    assert.equal((await tasks.get(taskId, { signal })).status, "completed");

    // Another principal holding the id sees nothing.
    await using stranger = await open("bob");
    const hidden = await taskClient(stranger).get(taskId, { signal })
      .then(() => assert.fail("bob read alice's task"), (e: unknown) => e);
    assert.ok(hidden instanceof RemoteTaskError, String(hidden));
    assert.equal(hidden.reason, "refused");
    assert.equal(hidden.code, -32602);
    assert.equal(hidden.taskId, taskId);

    // A running task, cancelled by a third connection holding its id.
    const running = await tasks.start("slow", { signal });
    await server.started;
    await using third = await open("alice");
    const cancelled = await taskClient(third).cancel(running.taskId, {
      signal,
    });
    assert.equal(cancelled.taskId, running.taskId);
    assert.equal(cancelled.status, "cancelled");
    const reason = await server.aborted;
    assert.equal((reason as Error).name, "TaskCancelledError");
    const none = await taskClient(third).result(running.taskId, { signal })
      .then(() => assert.fail("a cancelled task has no result"), (e) => e);
    assert.ok(none instanceof RemoteTaskError, String(none));
    assert.equal(none.reason, "cancelled");
    assert.equal(
      none.message,
      `task ${running.taskId} was cancelled; it has no result`,
    );
    // Sticky: a second cancel is refused, typed.
    const again = await taskClient(third).cancel(running.taskId, { signal })
      .then(() => assert.fail("cancelled twice"), (e) => e);
    assert.ok(again instanceof RemoteTaskError, String(again));
    assert.equal(again.reason, "refused");
    assert.match(again.message, /already ended cancelled/);
  });
}

Deno.test("taskClient: an unknown id and a bad ttl fail typed, before anything runs", async () => {
  await using server = serve();
  const signal = AbortSignal.timeout(DEADLINE);
  await using client = await connectHttp(server.url, {
    headers: { authorization: "Bearer alice" },
    signal,
  });
  const tasks = taskClient(client);
  const unknown = await tasks.get("no-such-task", { signal })
    .then(() => assert.fail("found"), (e: unknown) => e);
  assert.ok(unknown instanceof RemoteTaskError);
  assert.equal(unknown.reason, "refused");
  assert.match(
    unknown.message,
    /^task no-such-task: the server refused tasks\/get \(-32602\): /,
  );
  await assert.rejects(
    tasks.start("report", { ttl: -1 }),
    (e: unknown) =>
      e instanceof RangeError && /ttl must be a positive/.test(e.message),
  );
});
