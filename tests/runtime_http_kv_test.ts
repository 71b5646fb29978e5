// Sessions shared through Deno KV with the deprecated `kvStore(kv)`, a view
// over the one session backend on `denoKvStore(kv)`: two server processes on
// one KV file are two instances of one server — a session opened on one is
// served by the other, a stream started on one resumes on the other, a
// DELETE on one ends the session on both, a forged id is refused by both; a
// session outlives its handler on the same KV file; `kvStore(kv)` and the
// `Deno.Kv` itself are the same sessions. Asserted through the handlers and
// the contract store, never KV's raw keys.

import assert from "node:assert/strict";
import { movableClock } from "./_helpers/clock.ts";
import { quietFor, waitFor } from "./_helpers/wait.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { kvStore } from "../src/runtime/http/kv_store.ts";
import { denoKvStore, STORE_NAMESPACES } from "../store.ts";
import {
  events,
  openSession,
  post,
  startInstance,
} from "./_helpers/http_instances.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { POST_HEADERS } from "./fixtures/http_test_server.ts";

const FIXTURE = new URL("./fixtures/kv_http_server.ts", import.meta.url)
  .pathname;
const MODERN = "2025-11-25";

const startKvInstance = (kvPath: string) => startInstance(FIXTURE, [kvPath]);

Deno.test("KV sessions: two processes on one KV file serve one session", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/sessions.kv`;
  const a = await startKvInstance(kvPath);
  const b = await startKvInstance(kvPath);
  try {
    // A session opened on A.
    const session = await openSession(a.url, MODERN, "kv-test");

    // tools/call with that session id on B.
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

    // A call's stream starts on A, the client loses it, and resumes on B.
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
    assert.deepEqual(replayed.at(-1), {
      result: { content: [{ type: "text", text: "waited" }] },
      jsonrpc: "2.0",
      id: 2,
    });

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
    assert.equal(
      await after.text(),
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}',
    );

    // A forged id is refused by both.
    for (const url of [a.url, b.url]) {
      const forged = await post(url, {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/list",
      }, { ...session, "mcp-session-id": crypto.randomUUID() });
      assert.equal(forged.status, 404);
      await forged.body?.cancel();
    }
  } finally {
    await a.stop();
    await b.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A POST of `body` to an in-process handler, with `headers` added. */
function request(headers: Record<string, string>, body: unknown): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: MODERN,
    capabilities: {},
    clientInfo: { name: "kv-test", version: "1" },
  },
};

Deno.test("KV sessions: the session cap and expiry hold across instances", async () => {
  // Expiry by moving the clock past the idle timeout, not by sleeping past
  // a short one (the steps before it could outlast it on a loaded machine).
  using clock = movableClock();
  const kv = await Deno.openKv(":memory:");
  const store = kvStore(kv);
  const options = {
    sessions: true,
    store,
    maxSessions: 1,
    sessionIdleTimeout: 60_000,
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
    clock.advance(61_000);
    const expired = await b(request(session, list));
    assert.equal(expired.status, 404, "expired on every instance");
    await expired.text();
    const again = await b(request({}, INIT));
    assert.equal(again.status, 200, "room again once it expired");
    await again.text();
  } finally {
    await a.close();
    await b.close();
    kv.close();
  }
});

Deno.test("KV sessions: an answer sent whole is written to KV only when its delivery fails, then resumes on another instance", async () => {
  const kv = await Deno.openKv(":memory:");
  const options = { sessions: true, store: kvStore(kv), onerror: () => {} };
  const a = httpHandler(() => buildToolServer(), options);
  const b = httpHandler(() => buildToolServer(), options);
  // The session's kept events, read through the contract store the
  // sessions live in (the same `Deno.Kv`, the same default prefix).
  const view = denoKvStore(kv);
  let sid = "";
  const storedEvents = async () =>
    (await view.readAfter(`${STORE_NAMESPACES.events}${sid}`, undefined))
      .length;
  try {
    const first = await a(request({}, INIT), { completed: Promise.resolve() });
    sid = first.headers.get("mcp-session-id")!;
    await first.text();
    const session = { "mcp-session-id": sid, "mcp-protocol-version": MODERN };
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };

    // Delivered: nothing written for it.
    const delivered = await a(request(session, list), {
      completed: Promise.resolve(),
    });
    assert.match(await delivered.text(), /"tools"/);
    await quietFor(20, "an answer delivered whole is not written to KV");
    assert.equal(await storedEvents(), 0);

    // Lost on the way: written, and B resumes it from the priming event.
    const lost = Promise.withResolvers<void>();
    const dropped = await a(request(session, { ...list, id: 2 }), {
      completed: lost.promise,
    });
    const text = await dropped.text();
    const priming = /^id: (.*)$/m.exec(text)![1];
    lost.reject(new Error("connection reset"));
    await waitFor(
      async () => await storedEvents() > 0,
      "the answer lost on the way is written to KV",
    );
    assert.equal(await storedEvents(), 1, "only the lost answer");
    const resumed = await b(
      new Request("http://localhost/mcp", {
        method: "GET",
        headers: {
          accept: "text/event-stream",
          ...session,
          "last-event-id": priming,
        },
      }),
    );
    assert.equal(resumed.status, 200);
    const replay = events(await resumed.text());
    assert.equal(replay.length, 1);
    assert.equal(JSON.parse(replay[0].data).id, 2);
    assert.equal(replay[0].id, events(text)[0].id, "the id it was sent with");
  } finally {
    await a.close();
    await b.close();
    await view.close();
    kv.close();
  }
});

/** A tools/list on `handler` in session `sid`: its status. */
async function listStatus(
  handler: (req: Request) => Promise<Response>,
  sid: string,
): Promise<number> {
  const res = await handler(request(
    { "mcp-session-id": sid, "mcp-protocol-version": MODERN },
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
  ));
  await res.body?.cancel();
  return res.status;
}

Deno.test("KV sessions: a session outlives its handler on the same KV file, and kvStore(kv) and the Deno.Kv itself are the same sessions", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/sessions.kv`;
  try {
    // Opened by a handler on kvStore(kv); that handler and its KV handle go.
    let sid: string;
    {
      const kv = await Deno.openKv(path);
      const a = httpHandler(() => buildToolServer(), {
        sessions: true,
        store: kvStore(kv),
      });
      const opened = await a(request({}, INIT));
      assert.equal(opened.status, 200);
      sid = opened.headers.get("mcp-session-id")!;
      await opened.text();
      await a.close();
      kv.close();
    }
    // A new handler on a new handle of the same file serves it, whether it
    // is given kvStore(kv) or the Deno.Kv.
    const kv = await Deno.openKv(path);
    const b = httpHandler(() => buildToolServer(), {
      sessions: true,
      store: kvStore(kv),
    });
    const c = httpHandler(() => buildToolServer(), {
      sessions: true,
      store: kv,
    });
    try {
      assert.equal(await listStatus(b, sid), 200, "restored after a restart");
      assert.equal(await listStatus(c, sid), 200, "the Deno.Kv: same session");
      const forged = await listStatus(c, crypto.randomUUID());
      assert.equal(forged, 404);
      // Ended through the Deno.Kv handler: gone for the kvStore one too.
      const deleted = await c(
        new Request("http://localhost/mcp", {
          method: "DELETE",
          headers: { "mcp-session-id": sid, "mcp-protocol-version": MODERN },
        }),
      );
      assert.equal(deleted.status, 200);
      await deleted.body?.cancel();
      assert.equal(await listStatus(b, sid), 404);
    } finally {
      await b.close();
      await c.close();
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
