/**
 * The memory a request body holds is bounded by the bytes that came, not by
 * the `Content-Length` it declares: over real listeners on 127.0.0.1, raw
 * TCP connections declare 4 MiB (the default cap) and send 60 bytes. The
 * reader's buffers are counted through its `onBuffer` seam; end to end,
 * through `httpHandler` with default options, the process's RSS is read
 * with 64 such connections waiting.
 */

import assert from "node:assert/strict";
import { readJsonBody } from "../src/runtime/http/_body.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../src/runtime/errors.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";

const SIXTY = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}  ';
const encoder = new TextEncoder();

function head(port: number, length: number): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Content-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\n` +
    `Content-Length: ${length}\r\n\r\n`;
}

function closeQuietly(conn: Deno.TcpConn): void {
  try {
    conn.close();
  } catch {
    // already closed by the server: nothing left to release
  }
}

/**
 * A listener whose handler reads each body with `readJsonBody` (as
 * `Deno.serve`'s, framed) and records the buffers each read sets aside.
 */
function readerListener(): {
  port: number;
  reads: { buffers: number[]; kind: Promise<string> }[];
  arrived: (count: number) => Promise<void>;
  close: () => Promise<void>;
} {
  const reads: { buffers: number[]; kind: Promise<string> }[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const buffered = () => {
    const count = reads.filter((r) => r.buffers.length > 0).length;
    for (const w of waiting) if (count >= w.count) w.resolve();
  };
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    async (req, info) => {
      const buffers: number[] = [];
      let reported!: (kind: string) => void;
      const kind = new Promise<string>((resolve) => (reported = resolve));
      reads.push({ buffers, kind });
      const read = await readJsonBody(req, {
        maxBytes: DEFAULT_MAX_BODY_BYTES,
        timeout: 10_000,
        maxDepth: 64,
        onBuffer: (bytes) => {
          buffers.push(bytes);
          buffered();
        },
      }, info.completed !== undefined);
      reported(read.kind);
      return new Response(await kind);
    },
  );
  return {
    port: server.addr.port,
    reads,
    arrived: (count) =>
      new Promise<void>((resolve) => {
        waiting.push({ count, resolve });
        buffered();
      }),
    close: async () => {
      stop.abort();
      await server.finished;
    },
  };
}

Deno.test("body memory: a body declaring 4 MiB and sending 60 bytes sets aside about what came, not what it declared", async () => {
  const listening = readerListener();
  const conns: Deno.TcpConn[] = [];
  try {
    for (let i = 0; i < 8; i++) {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: listening.port,
      });
      conns.push(conn);
      await conn.write(
        encoder.encode(head(listening.port, DEFAULT_MAX_BODY_BYTES) + SIXTY),
      );
    }
    await listening.arrived(8);
    for (const conn of conns) closeQuietly(conn);
    for (const read of listening.reads) {
      assert.equal(await read.kind, "disconnected");
      const total = read.buffers.reduce((a, b) => a + b, 0);
      assert.ok(
        total <= 4096,
        `a read set aside ${total} bytes for 60 (${read.buffers})`,
      );
    }
  } finally {
    for (const conn of conns) closeQuietly(conn);
    await listening.close();
  }
});

Deno.test("body memory: a large body sent in pieces is read whole, its buffer growing to its length (never past it)", async () => {
  const listening = readerListener();
  const text = JSON.stringify({ text: "x".repeat(300_000) });
  const bytes = encoder.encode(text);
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: listening.port,
  });
  try {
    await conn.write(encoder.encode(head(listening.port, bytes.length)));
    for (let at = 0; at < bytes.length; at += 50_000) {
      await conn.write(bytes.subarray(at, at + 50_000));
    }
    await listening.arrived(1);
    const [read] = listening.reads;
    assert.equal(await read.kind, "json");
    assert.ok(Math.max(...read.buffers) <= bytes.length, `${read.buffers}`);
    // Doubling: the copies sum to less than three times the body.
    const total = read.buffers.reduce((a, b) => a + b, 0);
    assert.ok(total < 3 * bytes.length, `${read.buffers}`);
  } finally {
    closeQuietly(conn);
    await listening.close();
  }
});

Deno.test("body memory: a small declared body is still read whole in one read (the declared length, once)", async () => {
  const listening = readerListener();
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: listening.port,
  });
  try {
    await conn.write(
      encoder.encode(head(listening.port, SIXTY.length) + SIXTY),
    );
    await listening.arrived(1);
    const [read] = listening.reads;
    assert.equal(await read.kind, "json");
    assert.deepEqual(read.buffers, [SIXTY.length]);
  } finally {
    closeQuietly(conn);
    await listening.close();
  }
});

Deno.test("body memory: through httpHandler (default options), 64 connections declaring 4 MiB and sending 60 bytes hold far less than 4 MiB each", async () => {
  const handler = httpHandler(() => buildToolServer(), { onerror: () => {} });
  const count = 64;
  let entered = 0;
  let allEntered!: () => void;
  const entering = new Promise<void>((resolve) => (allEntered = resolve));
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    (req, info) => {
      if (
        req.headers.get("content-length") === String(DEFAULT_MAX_BODY_BYTES)
      ) {
        if (++entered === count) allEntered();
      }
      return handler(req, info);
    },
  );
  const port = server.addr.port;
  const conns: Deno.TcpConn[] = [];
  try {
    // One request first: what a served request costs is not counted.
    const first = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: SIXTY,
    });
    await first.body?.cancel();
    const before = Deno.memoryUsage().rss;
    for (let i = 0; i < count; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(conn);
      await conn.write(
        encoder.encode(head(port, DEFAULT_MAX_BODY_BYTES) + SIXTY),
      );
    }
    await entering;
    // A request answered after them: the server has turned its loop over
    // with every read under way.
    const after = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: SIXTY,
    });
    await after.body?.cancel();
    const grown = Deno.memoryUsage().rss - before;
    // 4 MiB each would be 256 MiB; what came is 60 bytes each (the
    // runtime's own read buffers are about 200 KiB a connection).
    assert.ok(
      grown < 64 * 1024 * 1024,
      `RSS grew ${
        (grown / 1024 / 1024).toFixed(1)
      } MiB for ${count} connections`,
    );
  } finally {
    for (const conn of conns) closeQuietly(conn);
    stop.abort();
    await server.finished;
    await handler.close();
  }
});
