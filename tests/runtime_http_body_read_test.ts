/**
 * The handler's body reader (a BYOB reader into buffers of its own, so no
 * 64 KiB buffer stays held by a request that lives on, as a listen stream's
 * does): bodies of every size and shape read whole — with and without a
 * `Content-Length`, in many chunks, past one read's 16 KiB, from a stream
 * that is not a byte stream — and the caps still hold.
 */

import assert from "node:assert/strict";
import { readJsonBody } from "../src/runtime/http/_body.ts";

const LIMITS = { maxBytes: 1024 * 1024, timeout: 10_000, maxDepth: 64 };

/** A JSON body of about `size` bytes. */
function json(size: number): string {
  return JSON.stringify({ text: "x".repeat(size) });
}

function chunked(
  text: string,
  pieces: number,
  bytes = true,
): ReadableStream<Uint8Array> {
  const all = new TextEncoder().encode(text);
  const step = Math.ceil(all.length / pieces);
  let at = 0;
  const pull = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (at >= all.length) return controller.close();
    controller.enqueue(all.slice(at, at += step));
  };
  return bytes
    ? new ReadableStream({
      type: "bytes",
      pull: (c) =>
        pull(c as unknown as ReadableStreamDefaultController<Uint8Array>),
    })
    : new ReadableStream({ pull });
}

Deno.test("body read: with a Content-Length, small and past one read", async () => {
  for (const size of [0, 10, 16 * 1024 - 12, 16 * 1024, 100_000]) {
    const text = json(size);
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body: text,
    });
    assert.equal(
      req.headers.get("content-length"),
      null,
      "a string body declares none",
    );
    const declared = new Request("http://localhost/mcp", {
      method: "POST",
      body: text,
      headers: {
        "content-length": String(new TextEncoder().encode(text).length),
      },
    });
    for (const r of [req, declared]) {
      const read = await readJsonBody(r, LIMITS);
      assert.equal(read.kind, "json");
      assert.equal(
        (read as { value: { text: string } }).value.text.length,
        size,
      );
    }
  }
});

Deno.test("body read: streamed in many chunks, as a byte stream and as a plain stream", async () => {
  for (const bytes of [true, false]) {
    const text = json(70_000);
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body: chunked(text, 37, bytes),
      duplex: "half",
    } as RequestInit);
    const read = await readJsonBody(req, LIMITS);
    assert.equal(read.kind, "json", `bytes: ${bytes}`);
    assert.equal(
      (read as { value: { text: string } }).value.text.length,
      70_000,
    );
  }
});

Deno.test("body read: a declared length streamed in many chunks from a byte source is read to its length", async () => {
  const text = json(70_000);
  const req = new Request("http://localhost/mcp", {
    method: "POST",
    body: chunked(text, 37, true),
    headers: {
      "content-length": String(new TextEncoder().encode(text).length),
    },
    duplex: "half",
  } as RequestInit);
  const read = await readJsonBody(req, LIMITS);
  assert.equal(read.kind, "json");
  assert.equal((read as { value: { text: string } }).value.text.length, 70_000);
});

Deno.test("body read: a streamed body past maxBytes is refused, read or not as a byte stream", async () => {
  for (const bytes of [true, false]) {
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body: chunked(json(50_000), 10, bytes),
      duplex: "half",
    } as RequestInit);
    const read = await readJsonBody(req, { ...LIMITS, maxBytes: 20_000 });
    assert.equal(read.kind, "tooLarge");
  }
});

Deno.test("body read: a declared length bounds the read — a byte stream still open after it, or longer than it, is read to that length, never to its end", async () => {
  const text = json(40_000);
  const all = new TextEncoder().encode(text);
  // Deno's request bodies are byte streams; these two never end on their
  // own: one stays open after the declared bytes, one goes on past them.
  let pulledPast = 0;
  const open = new ReadableStream({
    type: "bytes",
    start: (c) => c.enqueue(all.slice()),
  });
  const longer = new ReadableStream({
    type: "bytes",
    start: (c) => c.enqueue(all.slice()),
    pull: (c) => {
      pulledPast++;
      c.enqueue(new TextEncoder().encode("garbage that is not the body"));
    },
  });
  for (const [name, body] of [["open", open], ["longer", longer]] as const) {
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body,
      headers: { "content-length": String(all.length) },
      duplex: "half",
    } as RequestInit);
    // Waiting for the end would run into this deadline: "timeout".
    const read = await readJsonBody(req, { ...LIMITS, timeout: 5_000 });
    assert.equal(read.kind, "json", name);
    assert.equal(
      (read as { value: { text: string } }).value.text.length,
      40_000,
      name,
    );
  }
  assert.equal(pulledPast, 0, "nothing past the declared length was asked for");
});

Deno.test("body read: a Content-Length over maxBytes is refused before any of the body is read", async () => {
  let pulled = 0;
  const body = new ReadableStream({
    type: "bytes",
    pull: (c) => {
      pulled++;
      c.enqueue(new Uint8Array(1024).fill(0x20));
    },
  });
  const req = new Request("http://localhost/mcp", {
    method: "POST",
    body,
    headers: { "content-length": String(1024 * 1024 * 1024) },
    duplex: "half",
  } as RequestInit);
  const read = await readJsonBody(req, { ...LIMITS, maxBytes: 4096 });
  assert.equal(read.kind, "tooLarge");
  assert.equal(pulled, 0);
});
