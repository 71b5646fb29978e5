/**
 * The handler's body reader (one default reader for every body, a declared
 * length bounding the read): bodies of every size and shape read whole —
 * with and without a `Content-Length`, in many chunks, past 16 KiB, from a
 * stream that is not a byte stream — and the caps still hold; the shared
 * deadline timer left idle between reads still cuts off a slow body, at
 * its own deadline (on a fake clock: nothing sleeps).
 */

import assert from "node:assert/strict";
import { Deadlines, readJsonBody } from "../src/runtime/http/_body.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";
import { quietFor } from "./_helpers/wait.ts";

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

Deno.test("body read: a declared length bounds the read of a plain stream too, and a chunk running past it is cut there", async () => {
  const text = json(30_000);
  const all = new TextEncoder().encode(text);
  const tail = new TextEncoder().encode("garbage that is not the body");
  for (const bytes of [true, false]) {
    let pulledPast = 0;
    let sent = false;
    // One chunk holding the body and more; then, if asked, more again.
    const pull = (c: ReadableStreamDefaultController<Uint8Array>) => {
      if (sent) {
        pulledPast++;
        c.enqueue(tail.slice());
        return;
      }
      sent = true;
      const first = new Uint8Array(all.length + tail.length);
      first.set(all);
      first.set(tail, all.length);
      c.enqueue(first);
    };
    const body = bytes
      ? new ReadableStream({
        type: "bytes",
        pull: (c) =>
          pull(c as unknown as ReadableStreamDefaultController<Uint8Array>),
      })
      : new ReadableStream({ pull }, { highWaterMark: 0 });
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body,
      headers: { "content-length": String(all.length) },
      duplex: "half",
    } as RequestInit);
    const read = await readJsonBody(req, { ...LIMITS, timeout: 5_000 });
    assert.equal(read.kind, "json", `bytes: ${bytes}`);
    assert.equal(
      (read as { value: { text: string } }).value.text.length,
      30_000,
    );
    assert.equal(pulledPast, 0, `bytes: ${bytes}: nothing asked past it`);
  }
});

Deno.test("body read: a chunk past a declared length is not counted against maxBytes", async () => {
  const text = json(1_000);
  const all = new TextEncoder().encode(text);
  const first = new Uint8Array(all.length + 10_000).fill(0x20);
  first.set(all);
  const req = new Request("http://localhost/mcp", {
    method: "POST",
    body: new ReadableStream({ start: (c) => c.enqueue(first) }),
    headers: { "content-length": String(all.length) },
    duplex: "half",
  } as RequestInit);
  const read = await readJsonBody(req, { ...LIMITS, maxBytes: 2_000 });
  assert.equal(read.kind, "json");
});

/**
 * A fake clock whose timers can be unreferenced, as the process's can: it
 * counts the timers armed and tells whether the armed one is held.
 */
class HoldingClock extends FakeClock {
  armed = 0;
  readonly #unheld = new Set<unknown>();

  constructor() {
    super({ dates: false });
  }
  override setTimeout(run: () => void, ms: number): unknown {
    this.armed++;
    return super.setTimeout(run, ms);
  }
  hold(handle: unknown, held: boolean): boolean {
    if (held) this.#unheld.delete(handle);
    else this.#unheld.add(handle);
    return true;
  }
  /** Whether every timer pending is unreferenced. */
  get idle(): boolean {
    return this.pending === this.#unheld.size;
  }
}

/** A body whose first bytes come and whose end never does. */
function slowBody(onCancel?: () => void): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    body: new ReadableStream({
      start: (c) => c.enqueue(new TextEncoder().encode('{"a":')),
      cancel: onCancel,
    }),
    duplex: "half",
  } as RequestInit);
}

/** What a read came to so far: its kind, or "pending" after a turn of the loop. */
async function outcome(read: Promise<{ kind: string }>): Promise<string> {
  const pending = quietFor(
    0,
    "a read whose deadline has not passed is still waiting",
  );
  return await Promise.race([
    read.then((r) => r.kind),
    pending.then(() => "pending"),
  ]);
}

Deno.test("body read: shared deadlines — reads one after another reuse one unreferenced timer, and a slow body after them times out at its own deadline", async () => {
  using clock = new HoldingClock();
  const deadlines = new Deadlines(150, clock);
  const limits = { ...LIMITS, timeout: 150, deadlines };
  for (let i = 0; i < 20; i++) {
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body: json(10),
    });
    assert.equal((await readJsonBody(req, limits)).kind, "json");
  }
  assert.equal(clock.armed, 1, "twenty reads, one timer");
  assert.ok(clock.idle, "between reads the timer holds nothing open");
  // Half the idle timer's time later, a body that never ends.
  clock.advance(75);
  let cancelled = false;
  const slow = readJsonBody(slowBody(() => cancelled = true), limits);
  assert.ok(!clock.idle, "a read under way holds its timer");
  // The idle timer falls due at 150: the slow body's deadline is 225.
  clock.advance(149);
  assert.equal(await outcome(slow), "pending", "not cut off by the idle timer");
  assert.ok(!cancelled);
  clock.advance(1);
  assert.equal(await slow.then((r) => r.kind), "timeout");
  assert.ok(cancelled, "the slow body was cancelled");
  assert.equal(clock.pending, 0, "no read under way, no timer");
  // Two slow bodies, one started while the other waits: each times out at
  // its own deadline.
  const first = readJsonBody(slowBody(), limits);
  clock.advance(50);
  const second = readJsonBody(slowBody(), limits);
  clock.advance(99);
  assert.deepEqual([await outcome(first), await outcome(second)], [
    "pending",
    "pending",
  ]);
  clock.advance(1);
  assert.deepEqual([await outcome(first), await outcome(second)], [
    "timeout",
    "pending",
  ]);
  clock.advance(49);
  assert.equal(await outcome(second), "pending");
  clock.advance(1);
  assert.equal(await outcome(second), "timeout");
  deadlines.clear();
  assert.equal(clock.pending, 0);
});

Deno.test("body read: shared deadlines on a clock that cannot unreference timers — the idle timer is cleared, each read arms one", async () => {
  using clock = new FakeClock({ dates: false });
  const deadlines = new Deadlines(150, clock);
  const limits = { ...LIMITS, timeout: 150, deadlines };
  for (let i = 0; i < 3; i++) {
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      body: json(10),
    });
    assert.equal((await readJsonBody(req, limits)).kind, "json");
    assert.equal(clock.pending, 0, "nothing left armed between reads");
  }
  const slow = readJsonBody(slowBody(), limits);
  clock.advance(149);
  assert.equal(await outcome(slow), "pending");
  clock.advance(1);
  assert.equal(await outcome(slow), "timeout");
});

Deno.test("body read: a framed body (Deno.serve's) with a declared length is read whole, under the same deadline and caps", async () => {
  const text = json(20_000);
  const length = String(new TextEncoder().encode(text).length);
  const whole = new Request("http://localhost/mcp", {
    method: "POST",
    body: text,
    headers: { "content-length": length },
  });
  const read = await readJsonBody(whole, LIMITS, true);
  assert.equal(read.kind, "json");
  assert.equal((read as { value: { text: string } }).value.text.length, 20_000);
  // Over the cap by its declared length: refused before any read.
  const over = new Request("http://localhost/mcp", {
    method: "POST",
    body: text,
    headers: { "content-length": length },
  });
  assert.equal(
    (await readJsonBody(over, { ...LIMITS, maxBytes: 100 }, true)).kind,
    "tooLarge",
  );
  // A body that does not arrive: the deadline's answer.
  const slow = new Request("http://localhost/mcp", {
    method: "POST",
    body: new ReadableStream({
      start: (c) => c.enqueue(new TextEncoder().encode('{"a":')),
    }),
    headers: { "content-length": "500" },
    duplex: "half",
  } as RequestInit);
  using clock = new FakeClock({ dates: false });
  const deadlines = new Deadlines(100, clock);
  const slowRead = readJsonBody(
    slow,
    { ...LIMITS, timeout: 100, deadlines },
    true,
  );
  clock.advance(99);
  assert.equal(await outcome(slowRead), "pending");
  clock.advance(1);
  assert.equal(await outcome(slowRead), "timeout");
  // A body that fails mid-way: the client went away.
  const failing = new Request("http://localhost/mcp", {
    method: "POST",
    body: new ReadableStream({
      start: (c) => {
        c.enqueue(new TextEncoder().encode('{"a":'));
        c.error(new Error("reset"));
      },
    }),
    headers: { "content-length": "500" },
    duplex: "half",
  } as RequestInit);
  assert.equal(
    (await readJsonBody(failing, LIMITS, true)).kind,
    "disconnected",
  );
  // No declared length (chunked): read chunk by chunk, capped.
  const chunkedBody = new Request("http://localhost/mcp", {
    method: "POST",
    body: chunked(json(50_000), 10, false),
    duplex: "half",
  } as RequestInit);
  assert.equal(
    (await readJsonBody(chunkedBody, { ...LIMITS, maxBytes: 20_000 }, true))
      .kind,
    "tooLarge",
  );
});
