/**
 * A shared store that cannot be reached: a request on a shared session
 * answers 503 with `Retry-After` and a JSON-RPC error saying so (never a
 * 500, never a silently dropped event), and an open `subscriptions/listen`
 * stream whose bus fails ends with an error event. Against a store double
 * (switched off) and against real Redis and Postgres servers stopped
 * mid-test.
 */

import assert from "node:assert/strict";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { kvStore } from "../src/runtime/http/kv_store.ts";
import {
  memoryStore,
  postgresStore,
  redisStore,
  type Store,
  StoreUnavailableError,
} from "../store.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { POST_HEADERS } from "./fixtures/http_test_server.ts";
import { eraServer } from "./fixtures/era_server.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import {
  type RunningServer,
  startPostgres,
  startRedis,
} from "./_helpers/store_servers.ts";
import { waitFor } from "./_helpers/wait.ts";

const LEGACY = "2025-11-25";
const DEADLINE = 15_000;

/** The 503 body, byte for byte, for a request with id `id`. */
const unavailable = (id: string) =>
  `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the shared session store is unreachable, so nothing was done; retry after 5 s"},"id":${id}}`;

/** The error a listen stream ends with, byte for byte, for request `id`. */
const busDown = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"Service Unavailable: the shared store is unreachable, so list changes can no longer reach this stream; listen again after 5 s"}}`;

/** A memory store that, once `down` is set, fails every operation as an unreachable engine does. */
function switchable(): Store & { down: boolean } {
  const inner = memoryStore();
  const state = { down: false };
  const gate = (operation: string) => {
    if (state.down) {
      throw new StoreUnavailableError(
        "double",
        operation,
        new Error("connect ECONNREFUSED 127.0.0.1:6379"),
      );
    }
  };
  const double: Store & { down: boolean } = {
    kind: "double",
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    async get(key) {
      gate("get");
      return await inner.get(key);
    },
    async set(key, value, options) {
      gate("set");
      return await inner.set(key, value, options);
    },
    async delete(key) {
      gate("delete");
      await inner.delete(key);
    },
    async swap(key, version, value, options) {
      gate("swap");
      return await inner.swap(key, version, value, options);
    },
    async claimOnce(key, ttl) {
      gate("claimOnce");
      return await inner.claimOnce(key, ttl);
    },
    async append(stream, value, options) {
      gate("append");
      return await inner.append(stream, value, options);
    },
    async readAfter(stream, after, limit) {
      gate("readAfter");
      return await inner.readAfter(stream, after, limit);
    },
    async dropLog(stream) {
      gate("dropLog");
      await inner.dropLog(stream);
    },
    async publish(channel, message) {
      gate("publish");
      await inner.publish(channel, message);
    },
    async subscribe(channel, onMessage, options) {
      gate("subscribe");
      // A bus that is down delivers nothing.
      return await inner.subscribe(channel, (message) => {
        if (!state.down) onMessage(message);
      }, options);
    },
    close: () => inner.close(),
    [Symbol.asyncDispose]: () => inner.close(),
  };
  return double;
}

function request(
  body: unknown,
  headers: Record<string, string> = {},
  method = "POST",
): Request {
  return new Request("http://localhost/mcp", {
    method,
    headers: { ...POST_HEADERS, ...headers },
    body: method === "POST" ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(DEADLINE),
  });
}

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: "store-down-test", version: "1" },
  },
};

/** Opens a legacy session on `handler`; its headers. */
async function openSession(
  handler: (req: Request) => Promise<Response>,
): Promise<Record<string, string>> {
  const init = await handler(request(INIT));
  assert.equal(init.status, 200);
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const session = { "mcp-session-id": sid, "mcp-protocol-version": LEGACY };
  const done = await handler(
    request({ jsonrpc: "2.0", method: "notifications/initialized" }, session),
  );
  assert.equal(done.status, 202);
  return session;
}

/** Asserts the pinned 503 (status, `Retry-After`, body). */
async function assert503(res: Response, id: string, what: string) {
  assert.equal(res.status, 503, `${what}: 503`);
  assert.equal(res.headers.get("retry-after"), "5", `${what}: Retry-After`);
  assert.equal(await res.text(), unavailable(id), `${what}: the body`);
}

/** What every request answers once the store is gone: the 503. */
async function refusedWhileDown(
  handler: (req: Request) => Promise<Response>,
  session: Record<string, string>,
) {
  await assert503(
    await handler(
      request({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
    ),
    "1",
    "a request on the session",
  );
  await assert503(await handler(request(INIT)), "0", "an initialize");
  await assert503(
    await handler(
      request(undefined, {
        ...session,
        accept: "text/event-stream",
        "last-event-id": "_GET_stream/000000000000001.000000.abcdefgh",
      }, "GET"),
    ),
    "null",
    "a resumption",
  );
  await assert503(
    await handler(request(undefined, session, "DELETE")),
    "null",
    "a DELETE",
  );
}

Deno.test("store down (double): every request on shared sessions answers the pinned 503 with Retry-After, onerror sees a StoreUnavailableError; back up, served again", async () => {
  await using store = switchable();
  const seen: Error[] = [];
  await using handler = httpHandler(() => buildToolServer(), {
    sessions: true,
    store,
    onerror: (error) => seen.push(error),
  });
  const session = await openSession(handler);
  store.down = true;
  await refusedWhileDown(handler, session);
  assert.ok(seen.length >= 4);
  for (const error of seen) {
    assert.ok(error instanceof StoreUnavailableError, String(error));
    assert.equal(error.store, "double");
  }
  store.down = false;
  const back = await handler(
    request({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session),
  );
  assert.equal(back.status, 200, "the same session, served again");
  await back.text();
});

Deno.test("store down (kvStore on Deno KV, closed mid-test): requests on its sessions answer the pinned 503, onerror sees a StoreUnavailableError naming deno-kv, not a 500", async () => {
  // A KV that stops answering (closed here; on Deno Deploy, KV unreachable).
  const kv = await Deno.openKv(":memory:"); // needs --unstable-kv or "unstable": ["kv"]
  let open = true;
  try {
    const seen: Error[] = [];
    await using handler = httpHandler(() => buildToolServer(), {
      sessions: true,
      store: kvStore(kv),
      onerror: (error) => seen.push(error),
    });
    const session = await openSession(handler);
    kv.close();
    open = false;
    await refusedWhileDown(handler, session);
    assert.ok(seen.length >= 4, `onerror saw ${seen.length}`);
    for (const error of seen) {
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.equal(error.store, "deno-kv");
    }
  } finally {
    if (open) kv.close();
  }
});

Deno.test("store down (kvStore shared by two handlers): each handler's onerror hears the events it could not store, and the kvStore object is not changed", async () => {
  const kv = await Deno.openKv(":memory:"); // needs --unstable-kv or "unstable": ["kv"]
  let open = true;
  try {
    const shared = kvStore(kv);
    const before = { ...shared };
    const first: Error[] = [];
    const second: Error[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => started = resolve);
    // Built first over the same object: it must not hear the other's errors.
    await using _one = httpHandler(() => buildToolServer(), {
      sessions: true,
      store: shared,
      onerror: (error) => first.push(error),
    });
    await using two = httpHandler(() => buildToolServer({ started }), {
      sessions: true,
      store: shared,
      onerror: (error) => second.push(error),
    });
    // The caller's object stays as built: no hook of either handler on it.
    assert.deepEqual({ ...shared }, before);
    const session = await openSession(two);
    const res = await two(request({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "wait", arguments: { ms: 100 } },
    }, session));
    assert.equal(res.status, 200);
    await running;
    kv.close(); // while the call runs: its answer cannot be stored
    open = false;
    const text = await res.text();
    assert.match(text, /"id":7/, "the answer reached the open stream");
    const lost = (errors: Error[]) =>
      errors.filter((error) =>
        error.message.startsWith("httpHandler: an event could not be stored")
      );
    assert.equal(lost(second).length, 1, "the handler that served it is told");
    assert.deepEqual(lost(first), [], "the other handler is not");
    assert.ok(
      lost(second)[0].cause instanceof StoreUnavailableError,
      String(lost(second)[0].cause),
    );
  } finally {
    if (open) kv.close();
  }
});

Deno.test("store down (double): an event the store cannot keep still reaches its open stream, and onerror is told it will not resume", async () => {
  await using store = switchable();
  const seen: Error[] = [];
  await using handler = httpHandler(() => buildToolServer(), {
    sessions: true,
    store,
    onerror: (error) => seen.push(error),
  });
  const session = await openSession(handler);
  const res = await handler(request({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "wait", arguments: { ms: 300 } },
  }, session));
  assert.equal(res.status, 200);
  store.down = true; // while the call runs: its answer cannot be stored
  const text = await res.text();
  assert.match(text, /"id":5/, "the answer reached the open stream");
  assert.match(text, /waited/);
  const lost = seen.find((error) =>
    error.message.startsWith("httpHandler: an event could not be stored")
  );
  assert.ok(lost !== undefined, "onerror is told");
  assert.equal(
    lost.message,
    "httpHandler: an event could not be stored in the shared store: the open stream still carried it, a resumption will miss it",
  );
  assert.ok(lost.cause instanceof StoreUnavailableError);
});

/** Opens a modern listen stream on `handler`; reads up to its acknowledgement. */
async function listen(
  handler: (req: Request) => Promise<Response>,
  id: number,
) {
  const res = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        ...POST_HEADERS,
        "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
            [META.clientCapabilities]: {},
            [META.clientInfo]: { name: "store-down-test", version: "1" },
          },
        },
      }),
      signal: AbortSignal.timeout(DEADLINE),
    }),
  );
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("notifications/subscriptions/acknowledged")) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before its acknowledgement: ${text}`);
    text += value;
  }
  return {
    /** The data lines that follow, to the stream's end. */
    async rest(): Promise<string[]> {
      // What came with the acknowledgement, after it.
      let rest = text.slice(
        text.indexOf("\n\n", text.indexOf("subscriptions/acknowledged")),
      );
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += value;
      }
      return rest.split("\n").filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6));
    },
  };
}

Deno.test("store down (double): an open listen stream whose bus fails ends with the pinned error event", async () => {
  await using store = switchable();
  const seen: Error[] = [];
  await using handler = httpHandler(() => eraServer(), {
    sessions: true,
    store,
    onerror: (error) => seen.push(error),
  });
  const stream = await listen(handler, 31);
  store.down = true;
  assert.deepEqual(await stream.rest(), [busDown("31")]);
  assert.ok(
    seen.some((error) => storeCause(error) instanceof StoreUnavailableError),
    "onerror sees the bus failure",
  );
  assert.equal(handler.stats().listens, 0);
});

Deno.test("store down (double): a listen stream opened while the bus is down ends with the pinned error event after its acknowledgement", async () => {
  await using store = switchable();
  await using handler = httpHandler(() => eraServer(), {
    sessions: true,
    store,
    onerror: () => {},
  });
  store.down = true;
  const stream = await listen(handler, 33);
  assert.deepEqual(await stream.rest(), [busDown("33")]);
});

function storeCause(error: unknown): unknown {
  while (error instanceof Error && !(error instanceof StoreUnavailableError)) {
    error = error.cause;
  }
  return error;
}

/** A real server stopped mid-test: requests 503, a listen stream ends with the error. */
async function realServerStopped(
  server: RunningServer,
  open: (url: string) => Store,
): Promise<void> {
  let stopped = false;
  try {
    await using store = open(server.url);
    const seen: Error[] = [];
    await using handler = httpHandler(() => eraServer(), {
      sessions: true,
      store,
      onerror: (error) => seen.push(error),
    });
    const session = await openSession(handler);
    const listed = await handler(
      request({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
    );
    assert.equal(listed.status, 200);
    await listed.text();
    const stream = await listen(handler, 32);
    await server.stop();
    stopped = true;
    await refusedWhileDown(handler, session);
    assert.deepEqual(await stream.rest(), [busDown("32")]);
    const causes = seen.map(storeCause);
    assert.ok(causes.every((cause) => cause instanceof StoreUnavailableError));
    assert.ok(
      causes.some((cause) =>
        (cause as StoreUnavailableError).store === store.kind
      ),
    );
  } finally {
    if (!stopped) await server.stop();
  }
}

Deno.test("store down (Redis stopped mid-test): requests answer the pinned 503, the listen stream ends with the error event", async () => {
  await realServerStopped(
    await startRedis(),
    (url) => redisStore(url, { timeoutMs: 2_000 }),
  );
});

Deno.test("store down (Postgres stopped mid-test): requests answer the pinned 503, the listen stream ends with the error event", async () => {
  await realServerStopped(
    await startPostgres(),
    (url) => postgresStore(url, { connectTimeout: 2 }),
  );
});

Deno.test("bus gap (Redis pub/sub connection cut, back at once): an open listen stream ends with the pinned error event, since changes in between are lost", async () => {
  const server = await startRedis();
  try {
    await using store = redisStore(server.url, { timeoutMs: 2_000 });
    const seen: Error[] = [];
    await using handler = httpHandler(() => eraServer(), {
      sessions: true,
      store,
      onerror: (error) => seen.push(error),
    });
    const stream = await listen(handler, 34);
    const { Redis } = await import("ioredis");
    const admin = new Redis(server.url);
    try {
      // The stream's bus subscription may follow its acknowledgement by a
      // moment: cut once there is one to cut.
      await waitFor(
        async () =>
          Number(await admin.call("CLIENT", "KILL", "TYPE", "pubsub")) >= 1,
        "a pub/sub connection to cut",
        { signal: AbortSignal.timeout(DEADLINE), everyMs: 20 },
      );
    } finally {
      admin.disconnect();
    }
    // Redis answered all along: only the gap tells the stream it missed
    // changes.
    assert.deepEqual(await stream.rest(), [busDown("34")]);
    assert.ok(
      seen.some((error) => storeCause(error) instanceof StoreUnavailableError),
      "onerror sees the gap as the bus failing",
    );
    assert.equal(handler.stats().listens, 0);
  } finally {
    await server.stop();
  }
});
