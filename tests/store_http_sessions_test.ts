/**
 * `httpHandler(newServer, { sessions: true, store })` with a contract
 * store: two server processes on one Redis (and on one Postgres) are two
 * instances of one server — a session opened on one is served by the
 * other, a stream dropped on one resumes on the other with
 * `Last-Event-ID`, a DELETE on one ends the session on both; and the
 * session cap and expiry hold across instances.
 */

import assert from "node:assert/strict";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { movableClock } from "./_helpers/clock.ts";
import { waitFor } from "./_helpers/wait.ts";
import { memoryStore, redisStore, type Store } from "../store.ts";
import {
  events,
  openSession,
  post,
  startInstance,
} from "./_helpers/http_instances.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { POST_HEADERS } from "./fixtures/http_test_server.ts";
import {
  type RunningServer,
  startPostgres,
  startRedis,
} from "./_helpers/store_servers.ts";

const FIXTURE = new URL("./fixtures/store_http_server.ts", import.meta.url)
  .pathname;
const MODERN = "2025-11-25";

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: MODERN,
    capabilities: {},
    clientInfo: { name: "store-test", version: "1" },
  },
};

async function twoInstances(kind: string, server: RunningServer) {
  const a = await startInstance(FIXTURE, [kind, server.url]);
  const b = await startInstance(FIXTURE, [kind, server.url]);
  try {
    const session = await openSession(a.url, MODERN, "store-test");

    // The session opened on A is served by B.
    const call = await post(b.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { on: "b" } },
    }, session);
    assert.equal(call.status, 200);
    const answered = events(await call.text()).map((e) => JSON.parse(e.data))
      .find((m) => m.id === 1);
    assert.deepEqual(answered.result.structuredContent, { on: "b" });

    // A stream started on A, dropped, resumed on B with Last-Event-ID.
    const drop = new AbortController();
    const started = await post(
      a.url,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 400 } },
      },
      session,
      drop.signal,
    );
    assert.equal(started.status, 200);
    const reader = started.body!.pipeThrough(new TextDecoderStream())
      .getReader();
    let head = "";
    while (!head.includes("\n\n")) head += (await reader.read()).value ?? "";
    const priming = /^id: (.*)$/m.exec(head)?.[1];
    assert.ok(priming !== undefined, "the stream is primed");
    drop.abort();
    await reader.cancel().catch(() => {});
    const resumed = await fetch(b.url, {
      headers: {
        accept: "text/event-stream",
        ...session,
        "last-event-id": priming,
      },
    });
    assert.equal(resumed.status, 200);
    const replayed = events(await resumed.text()).map((e) =>
      JSON.parse(e.data)
    );
    assert.deepEqual(replayed.filter((m) => m.id === 2), [{
      result: { content: [{ type: "text", text: "waited" }] },
      jsonrpc: "2.0",
      id: 2,
    }], "the answer once, not lost, not doubled");

    // DELETE on B; A refuses the session afterwards.
    const deleted = await fetch(b.url, { method: "DELETE", headers: session });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    const after = await post(a.url, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
    }, session);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  } finally {
    await a.stop();
    await b.stop();
  }
}

Deno.test("store sessions: two processes on one Redis serve one session, resume its stream, end it", async () => {
  const server = await startRedis();
  try {
    await twoInstances("redis", server);
  } finally {
    await server.stop();
  }
});

Deno.test("store sessions: two processes on one Postgres serve one session, resume its stream, end it", async () => {
  const server = await startPostgres();
  try {
    await twoInstances("postgres", server);
  } finally {
    await server.stop();
  }
});

function request(headers: Record<string, string>, body: unknown): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * The cap and the idle expiry across two handlers on `store`; `elapse`
 * moves past the idle time (a fake clock where the store reads the
 * process's, nothing where the engine keeps its own).
 */
async function capAndExpiry(
  store: Store,
  elapse: () => void = () => {},
): Promise<void> {
  const options = {
    sessions: true,
    store,
    maxSessions: 1,
    sessionIdleTimeout: 1_500,
    onerror: () => {},
  };
  const a = httpHandler(() => buildToolServer(), options);
  const b = httpHandler(() => buildToolServer(), options);
  try {
    const first = await a(request({}, INIT));
    assert.equal(first.status, 200);
    const sid = first.headers.get("mcp-session-id")!;
    await first.text();
    const full = await b(request({}, INIT));
    assert.equal(full.status, 503, "the cap counts A's session on B");
    await full.text();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const session = { "mcp-session-id": sid, "mcp-protocol-version": MODERN };
    const onB = await b(request(session, list));
    assert.equal(onB.status, 200);
    await onB.text();
    // Expired: read from the store, which a read does not touch.
    elapse();
    await waitFor(
      async () => await store.get(`session/id/${sid}`) === undefined,
      "the session record expires",
      { everyMs: 50 },
    );
    const expired = await b(request(session, list));
    assert.equal(expired.status, 404, "expired on every instance");
    await expired.text();
    const again = await b(request({}, INIT));
    assert.equal(again.status, 200, "room again once it expired");
    await again.text();
  } finally {
    await a.close();
    await b.close();
  }
}

Deno.test("store sessions: the cap and expiry hold across two handlers on one store (memory, Redis)", async () => {
  {
    // The memory store's TTLs run on `Date.now`: moved past the idle time.
    using clock = movableClock();
    await using memory = memoryStore();
    await capAndExpiry(memory, () => clock.advance(1_600));
  }
  const server = await startRedis();
  try {
    await using redis = redisStore(server.url);
    await capAndExpiry(redis);
  } finally {
    await server.stop();
  }
});

Deno.test("store sessions: a delivered stream's mark lives as long as its events could (the idle time), not a day", async () => {
  using clock = movableClock();
  await using store = memoryStore();
  await using handler = httpHandler(() => buildToolServer(), {
    sessions: true,
    store,
    sessionIdleTimeout: 1_000,
    onerror: () => {},
  });
  const init = await handler(request({}, INIT));
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const session = { "mcp-session-id": sid, "mcp-protocol-version": MODERN };
  const call = await handler(request(session, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "wait", arguments: { ms: 50 } },
  }));
  const text = await call.text();
  const streamId = /^id: ([^/\n]+)\//m.exec(text)?.[1];
  assert.ok(streamId !== undefined, `a resumable stream: ${text}`);
  const mark = `events/${sid}/dropped/${streamId}`;
  await waitFor(
    async () => await store.get(mark) !== undefined,
    "the delivered stream is marked",
  );
  // The memory store's TTLs run on `Date.now`: moved, not slept through.
  clock.advance(900);
  assert.notEqual(await store.get(mark), undefined, "kept the idle time");
  clock.advance(200);
  assert.equal(await store.get(mark), undefined, "gone with the events");
});
