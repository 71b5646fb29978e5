// httpHandler's limits: each one pinned, over a real listener — the session
// cap (503), the event byte budget, the unread-stream cap, the body deadline
// (408), the nesting limit, a junk Host (400), and a session flood that
// leaves nothing behind once its sessions expire.

import assert from "node:assert/strict";
import {
  DEFAULT_MAX_BODY_BYTES,
  HttpRefusalError,
  UnreadLimitError,
} from "../src/runtime/errors.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { DEFAULT_MAX_BODY_DEPTH } from "../src/runtime/http/limits.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { SessionEventStore } from "../src/runtime/http/event_store.ts";
import {
  INITIALIZE,
  listen,
  type Listening,
  post,
  rawHttp,
} from "./fixtures/http_test_server.ts";
import { waitUntil } from "./fixtures/runtime_server_helpers.ts";
import { nextTurn } from "./_helpers/wait.ts";
import { movableClock } from "./_helpers/clock.ts";

const MODERN = "2025-11-25";

function initialize(version = MODERN): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
}

async function openSession(listening: Listening): Promise<string> {
  const res = await post(listening.url, initialize());
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const sid = res.headers.get("mcp-session-id");
  assert.ok(sid !== null);
  const done = await post(
    listening.url,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    { "mcp-session-id": sid, "mcp-protocol-version": MODERN },
  );
  assert.equal(done.status, 202);
  return sid;
}

const LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';

Deno.test("limits: past maxSessions initialize answers 503 with Retry-After; existing sessions are untouched; logged once", async () => {
  const warned: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warned.push(args.join(" "));
  const listening = listen({ sessions: true, maxSessions: 2 });
  try {
    const a = await openSession(listening);
    await openSession(listening);
    for (let i = 0; i < 2; i++) {
      const refused = await post(listening.url, initialize());
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), "600");
      assert.equal(
        await refused.text(),
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the server holds its maximum of 2 sessions (maxSessions); retry after 600 s"},"id":1}',
      );
    }
    assert.deepEqual(warned, [
      "httpHandler: HTTP request refused (503): the handler holds its maximum of 2 sessions (maxSessions); initialize answers 503 until sessions end or expire (logged once)",
    ]);
    const listed = await post(listening.url, LIST, {
      "mcp-session-id": a,
      "mcp-protocol-version": MODERN,
    });
    assert.equal(listed.status, 200, "an existing session still works");
    await listed.body?.cancel();
    // A session ends: there is room again.
    const gone = await fetch(listening.url, {
      method: "DELETE",
      headers: { "mcp-session-id": a, "mcp-protocol-version": MODERN },
    });
    assert.equal(gone.status, 200);
    await openSession(listening);
  } finally {
    console.warn = warn;
    await listening.close();
  }
});

Deno.test("limits: a session flood is refused at the cap and leaves nothing once its sessions expire", async () => {
  const listening = listen({
    sessions: true,
    maxSessions: 150,
    // Long enough that no session of the flood expires before the flood
    // ends, on a loaded machine too (the counts below assume none did).
    sessionIdleTimeout: 6000,
    onerror: () => {},
  });
  try {
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const res = await post(listening.url, INITIALIZE);
        await res.body?.cancel();
        return res.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 150);
    assert.equal(statuses.filter((s) => s === 503).length, 50);
    assert.equal(listening.handler!.stats().sessions, 150);
    assert.ok(
      await waitUntil(() => listening.handler!.stats().sessions === 0, 30_000),
      "every idle session expired",
    );
    assert.deepEqual(listening.handler!.stats(), {
      sessions: 0,
      keptEvents: 0,
      keptBytes: 0,
      listens: 0,
    });
    // Every server the flood made was closed.
    let open = 0;
    for (const server of listening.servers) {
      if (server.transport !== undefined) open++;
    }
    assert.equal(open, 0);
    const again = await post(listening.url, INITIALIZE);
    assert.equal(again.status, 200, "room again after expiry");
    await again.body?.cancel();
  } finally {
    await listening.close();
  }
});

Deno.test("limits: the event store keeps at most sessionEventBytes, oldest out, and drops a delivered stream's events", async () => {
  const store = new SessionEventStore(100, 300);
  const message = (n: number) => ({
    jsonrpc: "2.0" as const,
    method: "m",
    params: { n, pad: "x".repeat(60) },
  });
  const size = JSON.stringify(message(0)).length;
  const ids: string[] = [];
  for (let n = 0; n < 6; n++) ids.push(await store.storeEvent("s", message(n)));
  assert.equal(store.size, Math.floor(300 / size));
  assert.ok(store.bytes <= 300);
  const sent: number[] = [];
  await store.replayEventsAfter(ids[0], {
    send: (_id, m) =>
      Promise.resolve(
        void sent.push((m as unknown as { params: { n: number } }).params.n),
      ),
  });
  assert.deepEqual(sent, [2, 3, 4, 5].slice(4 - store.size));
  // An answer delivered to its end takes its stream's events with it.
  await store.storeEvent("call", { jsonrpc: "2.0", id: 9, result: {} });
  const before = store.size;
  store.dropAnswered([9]);
  assert.equal(store.size, before - 1);

  // Over HTTP: a call read to its end leaves no event behind.
  const listening = listen({ sessions: true });
  try {
    const sid = await openSession(listening);
    const res = await post(
      listening.url,
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}',
      { "mcp-session-id": sid, "mcp-protocol-version": MODERN },
    );
    assert.match(await res.text(), /"id":3/);
    assert.ok(
      await waitUntil(() => listening.handler!.stats().keptEvents === 0),
      "the delivered stream's events were dropped",
    );
  } finally {
    await listening.close();
  }
});

Deno.test("limits: a stream its client does not read is closed past maxUnreadBytes", async () => {
  const errors: Error[] = [];
  const listening = listen({
    sessions: true,
    maxUnreadBytes: 64 * 1024,
    sessionEventBytes: 1024 * 1024,
    onerror: (e) => errors.push(e),
  });
  try {
    const sid = await openSession(listening);
    const stream = await fetch(listening.url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": sid,
        "mcp-protocol-version": MODERN,
      },
    });
    assert.equal(stream.status, 200);
    // The client never reads; the server writes 32 MiB at it, a message a
    // turn (the socket's writes and the limit's check run in between).
    const chunk = "y".repeat(256 * 1024);
    for (let i = 0; i < 128 && errors.length === 0; i++) {
      await listening.servers[0].sendLoggingMessage({
        level: "info",
        data: chunk,
      });
      await nextTurn();
    }
    assert.ok(await waitUntil(() => errors.length > 0, 10_000));
    assert.ok(errors[0] instanceof UnreadLimitError);
    assert.equal(
      errors[0].message,
      "closed a response stream: its client left more than 65536 bytes unread (maxUnreadBytes)",
    );
    await stream.body?.cancel().catch(() => {});
    // The session lives on: a new GET stream may open.
    const next = await fetch(listening.url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": sid,
        "mcp-protocol-version": MODERN,
      },
    });
    assert.equal(next.status, 200);
    await next.body?.cancel();
  } finally {
    await listening.close();
  }
});

Deno.test("limits: a body that does not arrive within bodyTimeout is answered 408", async () => {
  const errors: Error[] = [];
  const listening = listen({
    bodyTimeout: 200,
    onerror: (e) => errors.push(e),
  });
  try {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: listening.port,
    });
    try {
      await conn.write(new TextEncoder().encode(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{"jsonrpc"`,
      ));
      let text = "";
      const decoder = new TextDecoder();
      for await (const part of conn.readable) {
        text += decoder.decode(part, { stream: true });
        if (text.trimEnd().endsWith("}")) break;
      }
      assert.ok(text.startsWith("HTTP/1.1 408"), text);
      assert.ok(
        text.endsWith(
          '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Request Timeout: the request body did not arrive within 200 ms"},"id":null}',
        ),
        text,
      );
    } finally {
      try {
        conn.close();
      } catch {
        // closed by the server
      }
    }
    assert.ok(
      errors.some((e) => e instanceof HttpRefusalError && e.status === 408),
    );
  } finally {
    await listening.close();
  }
});

Deno.test("limits: a body nested deeper than maxBodyDepth is answered 400 before parsing", async () => {
  const listening = listen({ maxBodyDepth: 32, onerror: () => {} });
  try {
    const nest = (depth: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: {
          name: "echo",
          arguments: { v: JSON.parse("[".repeat(depth) + "]".repeat(depth)) },
        },
      });
    const deep = await post(listening.url, nest(40));
    assert.equal(deep.status, 400);
    assert.equal(
      await deep.text(),
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the body nests deeper than 32 levels"},"id":null}',
    );
    // Brackets inside strings do not count; a body within the limit passes.
    const shallow = await post(
      listening.url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "echo", arguments: { s: "[".repeat(100) } },
      }),
    );
    assert.equal(shallow.status, 200);
    await shallow.body?.cancel();
    const ok = await post(listening.url, nest(20));
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    // A million levels: refused at once, not parsed.
    const huge = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    const flat = await post(listening.url, huge);
    assert.equal(flat.status, 400);
    await flat.body?.cancel();
  } finally {
    await listening.close();
  }
});

Deno.test("limits: a junk Host is answered with a plain 400, no exception text", async () => {
  const listening = listen({ onerror: () => {} });
  try {
    for (const host of ["localhost:99999", "localhost:0", "exa mple", "a/b"]) {
      const reply = await rawHttp(
        listening.port,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\n` +
          `Connection: close\r\n\r\n${INITIALIZE}`,
      );
      assert.ok(reply.startsWith("HTTP/1.1 400"), `${host}: ${reply}`);
      assert.ok(
        reply.endsWith(
          '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: invalid Host header"},"id":null}',
        ),
        `${host}: ${reply}`,
      );
    }
  } finally {
    await listening.close();
  }
});

Deno.test("limits: a handler given no options applies the documented body cap and depth", async () => {
  await using handler = httpHandler(() => buildToolServer());
  const request = (body: string, length?: number) =>
    handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(length === undefined ? {} : { "content-length": String(length) }),
        },
        body,
      }),
    );
  const over = await request("{}", DEFAULT_MAX_BODY_BYTES + 1);
  assert.equal(over.status, 413);
  await over.body?.cancel();
  const nest = (depth: number) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":${
      "[".repeat(depth - 3)
    }${"]".repeat(depth - 3)}}}}`;
  const deepest = await request(nest(DEFAULT_MAX_BODY_DEPTH));
  assert.equal(deepest.status, 200);
  await deepest.body?.cancel();
  const deeper = await request(nest(DEFAULT_MAX_BODY_DEPTH + 1));
  assert.equal(deeper.status, 400);
  await deeper.body?.cancel();
});

Deno.test("limits: the session cap is told once while it holds, and again once expiry made room and it is reached anew", async () => {
  // Expiry by moving the clock past the idle timeout, not by sleeping.
  using clock = movableClock();
  const told: Error[] = [];
  const handler = httpHandler(() => buildToolServer(), {
    sessions: true,
    maxSessions: 1,
    sessionIdleTimeout: 60_000,
    onerror: (error) => told.push(error),
  });
  const open = async () => {
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: initialize(),
      }),
    );
    await res.body?.cancel();
    return res.status;
  };
  const full = () =>
    told.filter((e) => e instanceof HttpRefusalError && e.status === 503)
      .length;
  try {
    assert.equal(await open(), 200);
    assert.equal(await open(), 503);
    assert.equal(await open(), 503);
    assert.equal(full(), 1, "told once while the cap holds");
    clock.advance(61_000);
    assert.equal(await open(), 200, "the idle session expired: room again");
    assert.equal(await open(), 503);
    assert.equal(full(), 2, "the cap reached anew is told anew");
  } finally {
    await handler.close();
  }
});
