/**
 * Tasks while the store is down. Over a real listener against a real
 * Redis: a task request the store cannot serve is answered as any such
 * request is — 503, `Retry-After`, the pinned text, no store address —
 * and a task that finishes while Redis is paused keeps its result (the
 * outcome is written again once Redis answers), never "the instance
 * stopped". Against a store double on a fake clock: the retries' pauses
 * (100, 200, 400, … ms) and the task failed with a reason when the store
 * refuses the outcome for good.
 */

import assert from "node:assert/strict";
import {
  Client,
  exportTools,
  httpHandler,
  InMemoryTransport,
  rawTool,
  Server,
} from "../mod.ts";
import { serveTasks, TaskStoreUnavailableError } from "../tasks.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CreateTaskResultSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  memoryStore,
  redisStore,
  type Store,
  StoreUnavailableError,
} from "../store.ts";
import {
  REAL_CLOCK,
  setTaskClock,
  type TaskClock,
  UNRECORDED_TEXT,
} from "../src/tasks/_outcome.ts";
import { startRedis } from "./_helpers/store_servers.ts";
import { waitFor } from "./_helpers/wait.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** The pinned 503 body for request `id`. */
const unavailable = (id: number) =>
  `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the shared session store is unreachable, so nothing was done; retry after 5 s"},"id":${id}}`;

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => open = resolve);
  return { wait, open };
}

/** A stateless endpoint serving one task tool that waits on `release`. */
function serve(
  store: Store,
  release: Promise<void>,
  leaseMs = 10_000,
): { url: string } & AsyncDisposable {
  const hold = rawTool({
    name: "hold",
    description: "Holds until released.",
    taskSupport: "optional",
    run: async () => {
      await release;
      return "released";
    },
  });
  const handler = httpHandler(() => {
    const server = new Server({ name: "tasks", version: "1" });
    exportTools(server, hold);
    serveTasks(server, { store, pollIntervalMs: 20, leaseMs });
    return server;
  }, { sessions: false });
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

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
  readonly message?: Record<string, unknown>;
}

let nextId = 1;

/** One JSON-RPC request over HTTP; an SSE answer's data is parsed. */
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<Answer & { id: number }> {
  const id = nextId++;
  const response = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const data = text.split("\n").find((line) => line.startsWith("data: {"));
  const json = data === undefined
    ? (text.startsWith("{") ? text : undefined)
    : data.slice(6);
  return {
    id,
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    text,
    message: json === undefined ? undefined : JSON.parse(json),
  };
}

const startTask = async (url: string): Promise<string> => {
  const answer = await rpc(url, "tools/call", {
    name: "hold",
    arguments: {},
    task: { ttl: 60_000 },
  });
  const task = (answer.message?.result as { task?: { taskId: string } })
    ?.task;
  assert.ok(task !== undefined, answer.text);
  return task.taskId;
};

Deno.test({
  name:
    "real Redis stopped: tasks/get and a task call answer the pinned 503 with Retry-After, naming no store address",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const redis = await startRedis();
    let stopped = false;
    const release = gate();
    try {
      await using store = redisStore(redis.url, { timeoutMs: 1_000 });
      await using endpoint = serve(store, release.wait);
      const taskId = await startTask(endpoint.url);
      await redis.stop();
      stopped = true;
      for (
        const [method, params] of [
          ["tasks/get", { taskId }],
          ["tools/call", { name: "hold", arguments: {}, task: {} }],
        ] as const
      ) {
        const answer = await rpc(endpoint.url, method, params);
        assert.equal(answer.status, 503, `${method}: ${answer.text}`);
        assert.equal(answer.retryAfter, "5");
        assert.equal(answer.text, unavailable(answer.id));
        assert.ok(!answer.text.includes(String(redis.port)), answer.text);
      }
      release.open();
    } finally {
      release.open();
      if (!stopped) await redis.stop();
    }
  },
});

Deno.test({
  name:
    "real Redis paused while the task finishes: its result is written once Redis answers again, not lost as 'the instance stopped'",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const redis = await startRedis();
    const release = gate();
    try {
      await using store = redisStore(redis.url, { timeoutMs: 200 });
      // The real pauses between the host's tries, recorded as each ends.
      const waited: number[] = [];
      setTaskClock(store, {
        sleep: (ms, signal) =>
          REAL_CLOCK.sleep(ms, signal).then(() => void waited.push(ms)),
      });
      await using endpoint = serve(store, release.wait, 600);
      const taskId = await startTask(endpoint.url);
      redis.signal("SIGSTOP");
      release.open();
      // The outage outlasts the lease (600 ms): before the fix the
      // outcome was dropped and the lapsed lease read as a dead instance.
      // Redis stays paused until the host has been retrying the outcome's
      // write for 1.5 s (100 + 200 + 400 + 800 ms of pauses).
      await waitFor(
        () => waited.reduce((a, b) => a + b, 0) >= 1_500,
        () => `the host retries the outcome for 1.5 s (paused ${waited})`,
      );
      redis.signal("SIGCONT");
      let task: Record<string, unknown> = {};
      await waitFor(async () => {
        const answer = await rpc(endpoint.url, "tasks/get", { taskId });
        task = (answer.message?.result ?? {}) as Record<string, unknown>;
        return task.status === "completed" || task.status === "failed";
      }, () => `the task ends (last: ${JSON.stringify(task)})`);
      assert.equal(task.status, "completed", JSON.stringify(task));
      const result = await rpc(endpoint.url, "tasks/result", { taskId });
      const content = (result.message?.result as { content: unknown[] })
        .content;
      assert.deepEqual(content, [{ type: "text", text: "released" }]);
    } finally {
      release.open();
      redis.signal("SIGCONT");
      await redis.stop();
    }
  },
});

/** A memory store whose writes of task records fail `failures` times with `error` once `armed`. */
function failingRecords(
  error: () => Error,
  failures: number,
): Store & { armed: boolean } {
  const inner = memoryStore();
  let left = failures;
  const store = Object.create(inner) as Store & { armed: boolean };
  store.armed = false;
  store.swap = (key, version, value, options) => {
    if (store.armed && /^task\/[^/]+$/.test(key) && left > 0) {
      left--;
      return Promise.reject(error());
    }
    return inner.swap(key, version, value, options);
  };
  return store;
}

/** A clock whose sleeps return at once, recording each pause. */
function fakeClock(): TaskClock & { pauses: number[] } {
  const pauses: number[] = [];
  return {
    pauses,
    sleep: (ms) => {
      pauses.push(ms);
      return Promise.resolve();
    },
  };
}

async function finishWith(
  store: Store & { armed: boolean },
  clock: TaskClock,
): Promise<Record<string, unknown>> {
  setTaskClock(store, clock);
  const release = gate();
  await using endpoint = serve(store, release.wait);
  const taskId = await startTask(endpoint.url);
  store.armed = true;
  release.open();
  return await waitFor(async () => {
    const answer = await rpc(endpoint.url, "tasks/get", { taskId });
    const task = (answer.message?.result ?? {}) as Record<string, unknown>;
    return (task.status === "completed" || task.status === "failed") && task;
  }, "the task ends");
}

Deno.test({
  name:
    "store double: the outcome is written again after 100, 200, 400, 800, 1600, 3200, 5000 ms pauses while the store is unreachable",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const store = failingRecords(
      () => new StoreUnavailableError("double", "swap", new Error("down")),
      7,
    );
    const clock = fakeClock();
    const task = await finishWith(store, clock);
    assert.equal(task.status, "completed");
    assert.deepEqual(clock.pauses, [100, 200, 400, 800, 1600, 3200, 5000]);
  },
});

Deno.test({
  name:
    "store double: an outcome the store refuses (not an outage) ends the task failed with the pinned reason",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const store = failingRecords(
      () => new TypeError("Value too large (max 65536 bytes)"),
      1,
    );
    const clock = fakeClock();
    const task = await finishWith(store, clock);
    assert.equal(task.status, "failed");
    assert.equal(task.statusMessage, UNRECORDED_TEXT);
    assert.equal(
      UNRECORDED_TEXT,
      "the task ended, but the store refused to keep its outcome; call it again only if running it twice is safe",
    );
    assert.deepEqual(clock.pauses, []);
  },
});

Deno.test("off HTTP (in-memory): a task request during an outage is -32000 with the pinned text, naming no address", async () => {
  const store = failingRecords(() => new Error("unused"), 0);
  let down = false;
  const get = store.get.bind(store);
  store.get = (key) =>
    down
      ? Promise.reject(
        new StoreUnavailableError(
          "redis",
          "get",
          new Error("connect ECONNREFUSED 10.1.2.3:6379"),
        ),
      )
      : get(key);
  const server = new Server({ name: "tasks", version: "1" });
  exportTools(
    server,
    rawTool({
      name: "quick",
      description: "Q.",
      taskSupport: "optional",
      run: () => "done",
    }),
  );
  serveTasks(server, { store });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "host", version: "1" });
  await client.connect(clientSide);
  try {
    const { task } = await client.request(
      {
        method: "tools/call",
        params: { name: "quick", arguments: {}, task: {} },
      },
      CreateTaskResultSchema,
    );
    down = true;
    const error = await client.experimental.tasks.getTask(task.taskId).then(
      () => assert.fail("answered"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32000);
    assert.equal(
      error.message,
      "MCP error -32000: Service Unavailable: the task store is unreachable, so nothing was done; retry later",
    );
    assert.equal(
      new TaskStoreUnavailableError(new Error("x")).message,
      "Service Unavailable: the task store is unreachable, so nothing was done; retry later",
    );
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test({
  name:
    "2026-07-28 callers: a task call and tasks/get during an outage answer the pinned 503 too (the direct route leaves task calls to the SDK's path)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const store = failingRecords(() => new Error("unused"), 0);
    let down = false;
    const get = store.get.bind(store);
    store.get = (key) =>
      down
        ? Promise.reject(
          new StoreUnavailableError(
            "redis",
            "get",
            new Error("connect ECONNREFUSED 10.1.2.3:6379"),
          ),
        )
        : get(key);
    const release = gate();
    await using endpoint = serve(store, release.wait);
    const meta = {
      [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
      [META.clientCapabilities]: {
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
      [META.clientInfo]: { name: "modern", version: "1" },
    };
    let id = 100;
    const send = async (
      method: string,
      params: Record<string, unknown>,
      name?: string,
    ) => {
      const response = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          ...HEADERS,
          "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
          "mcp-method": method,
          ...(name === undefined ? {} : { "mcp-name": name }),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method,
          params: { ...params, _meta: meta },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      return {
        id,
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        text: await response.text(),
      };
    };
    try {
      const created = await send(
        "tools/call",
        { name: "hold", arguments: {} },
        "hold",
      );
      const taskId = /"taskId":"([^"]+)"/.exec(created.text)?.[1];
      assert.ok(taskId !== undefined, created.text);
      down = true;
      for (
        const [method, params, name] of [
          ["tasks/get", { taskId }, undefined],
          ["tools/call", { name: "hold", arguments: {} }, "hold"],
        ] as const
      ) {
        const answer = await send(method, params, name);
        assert.equal(answer.status, 503, `${method}: ${answer.text}`);
        assert.equal(answer.retryAfter, "5");
        assert.equal(answer.text, unavailable(answer.id));
      }
    } finally {
      release.open();
    }
  },
});
