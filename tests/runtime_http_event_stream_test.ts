// The SSE body connectHttp hands the SDK: watched in place through its
// pipeThrough, chunks of whole events handed on as they came, the rest
// rewritten, and the end reported.

import assert from "node:assert/strict";
import {
  type EventStreamWatch,
  watchEventStream,
} from "../src/runtime/client/_event_stream.ts";
import { mayHoldBigNumber } from "../src/runtime/client/_raw_number_codec.ts";
import { waitFor } from "./_helpers/wait.ts";

const encoder = new TextEncoder();

interface Source {
  stream: ReadableStream<Uint8Array>;
  cancelled: unknown[];
}

/** A body that gives `chunks` one per read, then ends (or fails with `error`, or waits forever). */
function source(
  chunks: (string | Uint8Array)[],
  end: { error?: unknown; hang?: boolean } = {},
): Source {
  const cancelled: unknown[] = [];
  const queue = chunks.map((c) =>
    typeof c === "string" ? encoder.encode(c) : c
  );
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next !== undefined) return controller.enqueue(next);
      if (end.hang) return new Promise<void>(() => {});
      if ("error" in end) return controller.error(end.error);
      controller.close();
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  }, { highWaterMark: 0 });
  return { stream, cancelled };
}

interface Seen {
  rewritten: string[];
  observed: string[];
  ended: { broken: boolean; lastEventId: string; cause?: unknown }[];
  finished: number;
}

/** A watch that marks 16-digit runs as `"#digits"` and records what it is told. */
function recorder(
  options: { failsCalls?: boolean; quiet?: boolean } = {},
): { watch: EventStreamWatch; seen: Seen } {
  const seen: Seen = { rewritten: [], observed: [], ended: [], finished: 0 };
  const watch: EventStreamWatch = {
    rewrite: (data) => {
      seen.rewritten.push(data);
      return data.replace(/\d{16,}/g, (digits) => `"#${digits}"`);
    },
    needsRewrite: mayHoldBigNumber,
    observe: (data) => void seen.observed.push(data),
    ended: (broken, lastEventId, cause) => {
      seen.ended.push(
        broken ? { broken, lastEventId, cause } : {
          broken,
          lastEventId,
        },
      );
      return options.failsCalls ?? false;
    },
    quiet: () => options.quiet ?? false,
    finished: () => void seen.finished++,
  };
  return { watch, seen };
}

/** Reads `body` the way the SDK does (`pipeThrough(new TextDecoderStream())`), noting the byte chunks that reach the decoder. */
async function readLikeSdk(
  body: ReadableStream<Uint8Array>,
): Promise<{ text: string; chunks: Uint8Array[] }> {
  const chunks: Uint8Array[] = [];
  const decoder = new TextDecoderStream();
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      chunks.push(chunk);
      controller.enqueue(chunk);
    },
  });
  tap.readable.pipeTo(decoder.writable).catch(() => {});
  let text = "";
  const reader = body.pipeThrough({
    writable: tap.writable,
    readable: decoder.readable,
  }).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return { text, chunks };
}

/** Reads `body` exactly as the SDK does: `pipeThrough(new TextDecoderStream())`, which the watch serves itself. */
async function readDirect(
  body: ReadableStream<Uint8Array>,
): Promise<{ text: string; direct: boolean }> {
  const decoder = new TextDecoderStream();
  const out = body.pipeThrough(decoder);
  const reader = out.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return { text, direct: out !== decoder.readable };
}

/** The two ways the SDK's read reaches the watch: a transform it pumps into, and a plain TextDecoderStream it serves itself. */
const READERS = [
  ["through a transform", readLikeSdk],
  ["into a TextDecoderStream", readDirect],
] as const;

Deno.test("watchEventStream hands whole events that need no rewrite on as the very bytes that came", async () => {
  const first = encoder.encode(
    'event: message\nid: 7\ndata:{"id":1}\n\n',
  );
  const second = encoder.encode("data: a\r\ndata: b\r\n\r\n");
  const body = source([first, second]);
  const { watch, seen } = recorder();
  const watched = watchEventStream(body.stream, watch);
  assert.equal(watched.stream, body.stream, "the body itself, no new stream");
  const { text, chunks } = await readLikeSdk(watched.stream);
  assert.equal(chunks[0], first);
  assert.equal(chunks[1], second);
  assert.equal(
    text,
    'event: message\nid: 7\ndata:{"id":1}\n\ndata: a\r\ndata: b\r\n\r\n',
  );
  assert.deepEqual(seen.observed, ['{"id":1}', "a\nb"]);
  assert.deepEqual(seen.rewritten, []);
  assert.deepEqual(seen.ended, [{ broken: false, lastEventId: "7" }]);
  assert.equal(seen.finished, 1);
});

Deno.test("watchEventStream reads fields handed on as they came the way an EventSource parser does", async () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const lines = [
      "id: 1",
      "identity: 2", // not an id
      "datum: no", // not data
      "data",
      "data:x",
      "data:  y",
      ": comment",
      "",
      "id",
      "data: z",
      "",
      "",
    ];
    // A lone CR at the very end waits for a possible LF: end on LF there.
    const text = lines.join(eol) + (eol === "\r" ? "\n" : eol);
    const body = source([text]);
    const { watch, seen } = recorder();
    const { text: read } = await readLikeSdk(
      watchEventStream(body.stream, watch).stream,
    );
    assert.equal(read, text);
    assert.deepEqual(seen.observed, ["\nx\n y", "z"], JSON.stringify(eol));
    assert.deepEqual(seen.ended, [{ broken: false, lastEventId: "" }]);
  }
});

Deno.test("watchEventStream rewrites a chunk that may hold a big number or ends inside an event; whole chunks after it go on as they came", async () => {
  const plain = encoder.encode('data: {"m":1}\n\n');
  const last = encoder.encode('id: 9\ndata: {"z":3}\n\n');
  const body = source([
    'data: {"n":12345678901234567890}\n\n',
    plain,
    'data: {"k":',
    "2}\n\n",
    last,
  ]);
  const { watch, seen } = recorder();
  const { text, chunks } = await readLikeSdk(
    watchEventStream(body.stream, watch).stream,
  );
  assert.equal(
    text,
    'data: {"n":"#12345678901234567890"}\n\ndata: {"m":1}\n\n' +
      'data: {"k":2}\n\nid: 9\ndata: {"z":3}\n\n',
  );
  assert.ok(chunks.includes(plain) && chunks.includes(last));
  assert.deepEqual(seen.rewritten, ['{"n":12345678901234567890}', '{"k":2}']);
  assert.deepEqual(seen.observed, ['{"m":1}', '{"z":3}']);
  assert.deepEqual(seen.ended, [{ broken: false, lastEventId: "9" }]);
});

Deno.test("watchEventStream: a character split across chunks after a rewritten chunk reaches the reader whole", async () => {
  const bytes = encoder.encode(
    'data: 12345678901234567890\n\né: x\n\ndata: "é"\n\n',
  );
  // Inside the first é, which starts a line: the text before it ends at an
  // event boundary, the decoder holds its first byte.
  const split = bytes.indexOf(0xc3) + 1;
  const body = source([bytes.slice(0, split), bytes.slice(split)]);
  const { watch, seen } = recorder();
  const { text } = await readLikeSdk(
    watchEventStream(body.stream, watch).stream,
  );
  assert.equal(
    text,
    'data: "#12345678901234567890"\n\né: x\n\ndata: "é"\n\n',
  );
  assert.deepEqual(seen.rewritten, ["12345678901234567890", '"é"']);
});

for (const [path, readBody] of READERS) {
  Deno.test(`watchEventStream: a broken body is reported; the reader sees a clean end when calls were failed for it, else the error (${path})`, async () => {
    const failure = new Error("connection reset");
    for (const failsCalls of [true, false]) {
      const body = source(["id: 3\ndata: x\n\n"], { error: failure });
      const { watch, seen } = recorder({ failsCalls });
      const reading = readBody(watchEventStream(body.stream, watch).stream);
      if (failsCalls) {
        assert.equal((await reading).text, "id: 3\ndata: x\n\n");
      } else await assert.rejects(reading, (e) => e === failure);
      assert.deepEqual(seen.ended, [{
        broken: true,
        lastEventId: "3",
        cause: failure,
      }]);
      assert.equal(seen.finished, 1);
    }
  });
}

for (const [path, readBody] of READERS) {
  Deno.test(`watchEventStream: a quiet failure (dropped call, closed transport) ends the reader's stream without a report (${path})`, async () => {
    const body = source(["data: x\n\n"], { error: new Error("aborted") });
    const { watch, seen } = recorder({ quiet: true });
    const { text } = await readBody(
      watchEventStream(body.stream, watch).stream,
    );
    assert.equal(text, "data: x\n\n");
    assert.deepEqual(seen.ended, []);
    assert.equal(seen.finished, 1);
  });
}

for (const [path, readBody] of READERS) {
  Deno.test(`watchEventStream: cancelling from outside cancels the body and ends the reader's stream, before or while it is read (${path})`, async () => {
    const reason = new Error("request cancelled");
    // Before the SDK pipes it.
    const early = source(["data: x\n\n"], { hang: true });
    const first = recorder();
    const watchedEarly = watchEventStream(early.stream, first.watch);
    watchedEarly.cancel(reason);
    assert.deepEqual(early.cancelled, [reason]);
    assert.equal((await readBody(watchedEarly.stream)).text, "");
    assert.deepEqual(first.seen.ended, [{ broken: false, lastEventId: "" }]);
    assert.equal(first.seen.finished, 1);
    // While the SDK waits for the next chunk.
    const late = source(["id: 1\ndata: x\n\n"], { hang: true });
    const second = recorder();
    const watchedLate = watchEventStream(late.stream, second.watch);
    const reading = readBody(watchedLate.stream);
    await waitFor(
      () => second.seen.observed.length > 0,
      "the reader saw the first event",
    );
    watchedLate.cancel(reason);
    assert.equal((await reading).text, "id: 1\ndata: x\n\n");
    assert.deepEqual(late.cancelled, [reason]);
    assert.deepEqual(second.seen.ended, [{ broken: false, lastEventId: "1" }]);
    assert.equal(second.seen.finished, 1);
  });
}

Deno.test("watchEventStream: a reader that cancels cancels the body, even while it waits for a chunk", async () => {
  const body = source(["data: x\n\n"], { hang: true });
  const { watch, seen } = recorder();
  const reader = watchEventStream(body.stream, watch).stream
    .pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value, "data: x\n\n");
  const reason = new Error("reader gone");
  await reader.cancel(reason);
  await waitFor(() => body.cancelled.length > 0, "the body is cancelled");
  assert.deepEqual(body.cancelled, [reason]);
  assert.equal(seen.finished, 1);
});

Deno.test("watchEventStream piped into a plain TextDecoderStream decodes itself: the same text, rewrites, split characters and end reports", async () => {
  // Rewrites, whole chunks, an event split over chunks.
  const body = source([
    'data: {"n":12345678901234567890}\n\n',
    'data: {"m":1}\n\n',
    'data: {"k":',
    "2}\n\n",
    'id: 9\ndata: {"z":3}\n\n',
  ]);
  const { watch, seen } = recorder();
  const read = await readDirect(watchEventStream(body.stream, watch).stream);
  assert.equal(read.direct, true, "served here, not through the transform");
  assert.equal(
    read.text,
    'data: {"n":"#12345678901234567890"}\n\ndata: {"m":1}\n\n' +
      'data: {"k":2}\n\nid: 9\ndata: {"z":3}\n\n',
  );
  assert.deepEqual(seen.rewritten, ['{"n":12345678901234567890}', '{"k":2}']);
  assert.deepEqual(seen.observed, ['{"m":1}', '{"z":3}']);
  assert.deepEqual(seen.ended, [{ broken: false, lastEventId: "9" }]);
  assert.equal(seen.finished, 1);

  // A character split across chunks, plain and after a rewrite.
  const bytes = encoder.encode(
    'data: 12345678901234567890\n\né: x\n\ndata: "é"\n\n',
  );
  const split = bytes.indexOf(0xc3) + 1;
  const splitBody = source([bytes.slice(0, split), bytes.slice(split)]);
  const splitRead = await readDirect(
    watchEventStream(splitBody.stream, recorder().watch).stream,
  );
  assert.equal(
    splitRead.text,
    'data: "#12345678901234567890"\n\né: x\n\ndata: "é"\n\n',
  );
  const plainBytes = encoder.encode('data: "é"\n\n');
  const at = plainBytes.indexOf(0xc3) + 1;
  const plainRead = await readDirect(
    watchEventStream(
      source([plainBytes.slice(0, at), plainBytes.slice(at)]).stream,
      recorder().watch,
    ).stream,
  );
  assert.equal(plainRead.text, 'data: "é"\n\n');
});
