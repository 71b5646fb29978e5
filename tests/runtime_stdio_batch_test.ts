/**
 * The stdio transport keeps many messages in flight: what is sent while a
 * write is under way goes out in the next write, whole lines in send
 * order, each `send` resolving once its write is done; a flood of sends
 * costs a few writes, not one each; what was sent before `close()` is
 * written before the stream closes. Lines read from one chunk are each
 * delivered, in order.
 */

import assert from "node:assert/strict";
import { stdioTransport } from "../mod.ts";
import { pace } from "./_helpers/wait.ts";

const decoder = new TextDecoder();

/** A writable whose writes take a timer turn each (sends pile up behind one), recording every chunk. */
function slowSink(): {
  writable: WritableStream<Uint8Array>;
  chunks: string[];
} {
  const chunks: string[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      chunks.push(decoder.decode(chunk));
      await pace(1, "a slow writer: sends pile up while it writes");
    },
  });
  return { writable, chunks };
}

Deno.test("stdio transport: 500 sends in flight go out in a few writes, whole lines in order", async () => {
  const { writable, chunks } = slowSink();
  const transport = stdioTransport(ReadableStream.from([]), writable);
  await transport.start();
  const sent = Array.from(
    { length: 500 },
    (_, i) => transport.send({ jsonrpc: "2.0", id: i, method: "ping" }),
  );
  await Promise.all(sent);
  const lines = chunks.join("").split("\n");
  assert.equal(lines.pop(), "");
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).id),
    Array.from({ length: 500 }, (_, i) => i),
  );
  assert.ok(chunks.length <= 3, `${chunks.length} writes for 500 messages`);
  assert.ok(chunks.every((c) => c.endsWith("\n")));
  await transport.close();
});

Deno.test("stdio transport: a send before close() is written before the stream closes", async () => {
  const { writable, chunks } = slowSink();
  const transport = stdioTransport(ReadableStream.from([]), writable);
  await transport.start();
  const first = transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  const second = transport.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  await transport.close();
  await Promise.all([first, second]);
  assert.equal(
    chunks.join(""),
    '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
  );
  await assert.rejects(
    transport.send({ jsonrpc: "2.0", id: 3, method: "ping" }),
  );
});

Deno.test("stdio transport: the lines of one chunk each reach onmessage, in order, CRLF too", async () => {
  const text = Array.from(
    { length: 50 },
    (_, i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }),
  ).join("\r\n") + "\n";
  const transport = stdioTransport(
    ReadableStream.from([new TextEncoder().encode(text)]),
    new WritableStream(),
  );
  const ids: unknown[] = [];
  const closed = new Promise<void>((r) => transport.onclose = r);
  transport.onmessage = (m) => void ids.push((m as { id: unknown }).id);
  await transport.start();
  await closed;
  assert.deepEqual(ids, Array.from({ length: 50 }, (_, i) => i));
});
