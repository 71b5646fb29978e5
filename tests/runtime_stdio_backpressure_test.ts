/**
 * The stdio transport under `serveStdio` and `connectStdio`: a peer that
 * never reads our output stops our input at the high-water mark (memory
 * bounded, no hang) and the input resumes once the output drains; the
 * lines of one read chunk are decoded at once and still read exactly as
 * one by one (CRLF, blank lines, a byte order mark, a line that is not
 * UTF-8, an over-long line, all in one chunk); the write buffer reused
 * from write to write never shows a reader of a stream bytes of a later
 * write.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport } from "../src/runtime/process/_line_transport.ts";
import type {
  ByteSink,
  ByteSource,
} from "../src/runtime/process/_byte_pipe.ts";
import { stdioTransport } from "../mod.ts";
import {
  LineTooLongError,
  MalformedMessageError,
} from "../src/runtime/errors.ts";
import { nextTurn } from "./_helpers/wait.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Waits for `condition`, at most `turns` turns of the event loop. */
async function until(condition: () => boolean, turns = 500): Promise<void> {
  for (let i = 0; i < turns && !condition(); i++) await nextTurn();
  assert.ok(condition(), "the condition never held");
}

function requestLines(from: number, count: number): Uint8Array {
  let text = "";
  for (let id = from; id < from + count; id++) {
    text += JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(100) } },
    }) + "\n";
  }
  return encoder.encode(text);
}

Deno.test("a peer that never reads our output pauses our input at the high-water mark; it resumes when the output drains", async () => {
  const CHUNKS = 400;
  const PER_CHUNK = 10;
  const HIGH_WATER = 8 * 1024;
  let reads = 0;
  const source: ByteSource = {
    read: () => {
      if (reads === CHUNKS) return Promise.resolve(null);
      const chunk = requestLines(reads * PER_CHUNK, PER_CHUNK);
      reads++;
      return Promise.resolve(chunk);
    },
    cancel: () => Promise.resolve(),
  };
  // Writes hang (the peer does not read) until `drain` lets them through.
  let draining = false;
  const stuck: (() => void)[] = [];
  let written = 0;
  const sink: ByteSink = {
    write: (bytes) => {
      written += bytes.length;
      if (draining) return Promise.resolve();
      return new Promise((resolve) => stuck.push(resolve));
    },
    close: () => Promise.resolve(),
    consumes: true,
  };
  const drain = () => {
    draining = true;
    for (const resolve of stuck.splice(0)) resolve();
  };
  const transport = new LineTransport(() => ({ source, sink }), {
    maxLineBytes: 1 << 20,
    highWater: HIGH_WATER,
  });
  const answered = new Set<number>();
  let closed = false;
  transport.onclose = () => closed = true;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (!("method" in message) || !("id" in message)) return;
    const id = message.id as number;
    void transport.send({
      jsonrpc: "2.0",
      id,
      result: { content: [{ type: "text", text: "y".repeat(100) }] },
    }).then(() => answered.add(id));
  };
  await transport.start();
  await until(() => transport.paused);
  const readsAtPause = reads;
  // Paused it stays, reading nothing more, while nothing drains.
  for (let i = 0; i < 20; i++) await nextTurn();
  assert.equal(transport.paused, true);
  assert.equal(reads, readsAtPause);
  assert.ok(
    readsAtPause < CHUNKS / 4,
    `${readsAtPause} of ${CHUNKS} chunks read`,
  );
  // Unsent output: the mark, plus at most the answers to one chunk.
  const answer = 200;
  assert.ok(
    transport.unsent < HIGH_WATER + PER_CHUNK * answer,
    `${transport.unsent} characters unsent`,
  );
  assert.equal(answered.size, 0);
  // The peer reads again: the rest of the input is read and answered.
  drain();
  await until(() => closed && answered.size === CHUNKS * PER_CHUNK);
  assert.equal(reads, CHUNKS);
  assert.equal(transport.paused, false);
  assert.equal(transport.unsent, 0);
  assert.ok(written > CHUNKS * PER_CHUNK * 100);
});

Deno.test("closing a transport paused on its output stops its input; what was sent goes out first", async () => {
  let reads = 0;
  const source: ByteSource = {
    read: () => {
      reads++;
      return Promise.resolve(requestLines(reads * 50, 50));
    },
    cancel: () => Promise.resolve(),
  };
  let open = false;
  let gate: (() => void) | undefined;
  let written = "";
  const sink: ByteSink = {
    write: (bytes) => {
      written += decoder.decode(bytes);
      return open ? Promise.resolve() : new Promise((r) => gate = r);
    },
    close: () => Promise.resolve(),
    consumes: true,
  };
  const transport = new LineTransport(() => ({ source, sink }), {
    maxLineBytes: 1 << 20,
    highWater: 1024,
  });
  let sends = 0;
  transport.onmessage = (message) => {
    if (!("id" in message)) return;
    sends++;
    void transport.send({ jsonrpc: "2.0", id: message.id!, result: {} })
      .catch(() => {});
  };
  await transport.start();
  await until(() => transport.paused);
  const closing = transport.close();
  assert.equal(transport.paused, false);
  open = true;
  gate?.();
  await closing;
  assert.equal(reads, 1);
  // Every answer sent before the close was written.
  assert.equal(written.split("\n").length - 1, sends);
});

Deno.test("the lines of one chunk read as one by one: CRLF, blank lines, a BOM, bad UTF-8, an over-long line", async () => {
  const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
  const bytes = [
    encoder.encode(`${ping(1)}\r\n\n   \n${ping(2)}\n`),
    // A BOM at a line's start is dropped by a line's decode.
    Uint8Array.of(0xef, 0xbb, 0xbf),
    encoder.encode(`${ping(3)}\n{"long":"${"z".repeat(200)}"}\n`),
    encoder.encode('{"jsonrpc":"2.0","id":4,"method":"'),
    Uint8Array.of(0xff),
    encoder.encode(`"}\n${ping(5)}\n${ping(6)}\r\r\n`),
    encoder.encode(`${ping(7)}`),
  ];
  const chunk = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    chunk.set(b, at);
    at += b.length;
  }
  const run = async (chunks: Uint8Array[]) => {
    const output: string[] = [];
    const messages: unknown[] = [];
    const errors: Error[] = [];
    const transport = stdioTransport(
      ReadableStream.from(chunks),
      new WritableStream({ write: (c) => void output.push(decoder.decode(c)) }),
      { maxLineBytes: 100 },
    );
    transport.onmessage = (m) => messages.push(m);
    transport.onerror = (e) => errors.push(e);
    const closed = new Promise<void>((r) => transport.onclose = r);
    await transport.start();
    await closed;
    return {
      output: output.join(""),
      messages: JSON.stringify(messages),
      errors: errors.map((e) => [e.constructor.name, e.message]),
    };
  };
  const whole = await run([chunk]);
  const byteByByte = await run(Array.from(chunk, (b) => Uint8Array.of(b)));
  assert.deepEqual(whole, byteByByte);
  assert.deepEqual(
    JSON.parse(whole.messages).map((m: { id: number }) => m.id),
    [1, 2, 3, 5, 6, 7],
  );
  assert.deepEqual(whole.errors.map(([name]) => name), [
    LineTooLongError.name,
    MalformedMessageError.name,
  ]);
  assert.equal(
    whole.output,
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message exceeds 100 bytes"}}\n' +
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n',
  );
});

Deno.test("a stream reader sees each write's own bytes, however many writes follow", async () => {
  // Room for ten chunks unread: five writes complete before any is read.
  const wire = new TransformStream<Uint8Array, Uint8Array>(
    {},
    { highWaterMark: 10 },
    { highWaterMark: 10 },
  );
  // An input that never ends: the transport stays open.
  const transport = stdioTransport(new ReadableStream(), wire.writable);
  await transport.start();
  for (let i = 0; i < 5; i++) {
    await transport.send({
      jsonrpc: "2.0",
      id: i,
      method: "ping".repeat(i + 1),
    });
  }
  const closing = transport.close();
  const chunks: string[] = [];
  for await (const chunk of wire.readable) chunks.push(decoder.decode(chunk));
  await closing;
  assert.deepEqual(
    chunks,
    Array.from(
      { length: 5 },
      (_, i) =>
        `{"jsonrpc":"2.0","id":${i},"method":"${"ping".repeat(i + 1)}"}\n`,
    ),
  );
});

Deno.test("close waits for the write under way, even on a sink whose close does not", async () => {
  let release: (() => void) | undefined;
  const sink: ByteSink = {
    write: () => new Promise((resolve) => release = resolve),
    close: () => Promise.resolve(),
    consumes: true,
  };
  const source: ByteSource = {
    read: () => new Promise(() => {}),
    cancel: () => Promise.resolve(),
  };
  const transport = new LineTransport(() => ({ source, sink }), {
    maxLineBytes: 1024,
  });
  await transport.start();
  const sent = transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await until(() => release !== undefined);
  let closed = false;
  const closing = transport.close().then(() => closed = true);
  for (let i = 0; i < 10; i++) await nextTurn();
  assert.equal(closed, false, "closed with a write under way");
  release!();
  await sent;
  await closing;
  assert.equal(closed, true);
});
