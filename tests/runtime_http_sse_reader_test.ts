// connectHttp's transport reads an SSE body in the SDK's place (one reader
// and a hand-written parser, no streams between): side by side with the SDK's
// own StreamableHTTPClientTransport over the same bytes, cut into chunks every
// which way, the messages, errors and resumption tokens must be the same.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LosslessHttpTransport } from "../src/runtime/client/_http_transport.ts";
import { ConnectionLostError } from "../src/runtime/errors.ts";
import { isRawJson } from "../src/core/json.ts";
import { SseParser } from "../src/runtime/client/_sse_parser.ts";
import { resetSeamReport, setSeamWarn } from "../src/seam/sdk_internals.ts";
import { nextTurn } from "./_helpers/wait.ts";

const URL_ = new URL("http://127.0.0.1:9/mcp");
const REQUEST: JSONRPCMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: {} },
};

interface Seen {
  messages: string[];
  errors: string[];
  tokens: string[];
  /** A GET resumption the transport went for, with its Last-Event-ID. */
  resumed: string[];
}

/**
 * A fetch answering the POST with `chunks` as an SSE body (a byte stream,
 * as a fetch body is, when `bytes`); `drained` when read to its end.
 */
function sseFetch(chunks: Uint8Array[], seen: Seen, bytes = false) {
  let next = 0;
  let done!: () => void;
  const drained = new Promise<void>((resolve) => done = resolve);
  const fetch = (_input: string | URL, init?: RequestInit) => {
    if (init?.method === "GET") {
      seen.resumed.push(new Headers(init.headers).get("last-event-id") ?? "");
      return Promise.resolve(new Response(null, { status: 405 }));
    }
    const pull = (controller: {
      enqueue(chunk: Uint8Array): void;
      close(): void;
      byobRequest?: ReadableStreamBYOBRequest | null;
    }) => {
      // A copy: a byte stream takes the buffer it is given.
      if (next < chunks.length) controller.enqueue(chunks[next++].slice());
      else {
        controller.close();
        // A read into a buffer waits until it is answered (as a fetch body does).
        controller.byobRequest?.respond(0);
        done();
      }
    };
    const body = bytes
      ? new ReadableStream({ type: "bytes", pull }, { highWaterMark: 0 })
      : new ReadableStream<Uint8Array>({ pull }, { highWaterMark: 0 });
    return Promise.resolve(
      new Response(body, {
        headers: { "content-type": "text/event-stream" },
      }),
    );
  };
  return { fetch, drained };
}

/** A few turns for the transport to hand on what the drained body held. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await nextTurn();
}

async function readWith(
  side: "sdk" | "weft",
  chunks: Uint8Array[],
  bytes = false,
): Promise<Seen> {
  const seen: Seen = { messages: [], errors: [], tokens: [], resumed: [] };
  const { fetch, drained } = sseFetch(chunks, seen, bytes);
  const transport = side === "sdk"
    ? new StreamableHTTPClientTransport(URL_, { fetch })
    // A byte stream here answers a read into a buffer, as a fetch body does.
    : new LosslessHttpTransport(URL_, { fetch, runtimeBodies: bytes });
  transport.onmessage = (message) => {
    const m = message as { error?: { data?: unknown } };
    // The weft transport's own report of a call its stream lost.
    if (m.error?.data instanceof ConnectionLostError) return;
    seen.messages.push(JSON.stringify(message));
  };
  transport.onerror = (error) =>
    seen.errors.push(`${error.constructor.name}: ${error.message}`);
  await transport.start();
  await transport.send(REQUEST, {
    onresumptiontoken: (token) => seen.tokens.push(token),
  });
  await drained;
  await settle();
  await transport.close();
  return seen;
}

const encoder = new TextEncoder();

const LINE_END = [10, 13];

/**
 * `text` as one chunk; cut in two at and around every line end, inside
 * the first bytes and every fifth byte; and byte by byte.
 */
function chunkings(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[][] = [[bytes]];
  for (let at = 1; at < bytes.length; at++) {
    const near = LINE_END.includes(bytes[at]) ||
      LINE_END.includes(bytes[at - 1]) || LINE_END.includes(bytes[at + 1]);
    if (near || at < 8 || at % 5 === 0) {
      out.push([bytes.slice(0, at), bytes.slice(at)]);
    }
  }
  out.push([...bytes].map((b) => Uint8Array.of(b)));
  return out;
}

const result = (id: number, result: unknown, first = "result") =>
  first === "result"
    ? `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${id}}`
    : `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result)}}`;

const CASES: Record<string, string> = {
  "the SDK server's answer": `event: message\ndata: ${
    result(1, { content: [{ type: "text", text: "héllo ✓" }] })
  }\n\n`,
  "a progress notification, then the answer": `event: message\ndata: ${
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: 1, progress: 1 },
    })
  }\n\nevent: message\ndata: ${result(1, { content: [] }, "jsonrpc")}\n\n`,
  "CRLF and CR line ends, comments, a BOM-less retry, data lines joined":
    `: hello\r\nretry: 5\r\ndata: {"jsonrpc":"2.0",\rdata: "id":1,"result":{}}\r\n\r\n`,
  "an id (priming event), then the answer with _meta after its keys":
    `id: e1\ndata:\n\nid: e2\ndata: ${
      result(1, { content: [], _meta: { a: 1 } })
    }\n\n`,
  "_meta first, a progress token in _meta, a __proto__ key": `data: ${
    result(1, { _meta: { a: 1 }, content: [] })
  }\n\ndata: {"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":3}}}\n\ndata: {"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1}}}\n\n`,
  "other events skipped, empty data skipped, an unknown field":
    `event: ping\ndata: {}\n\nevent: message\ndata:\n\nfoo: bar\ndata: ${
      result(1, {})
    }\n\n`,
  "invalid JSON, an invalid message, an error response":
    `data: {nope\n\ndata: {"jsonrpc":"2.0","id":1}\n\ndata: {"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}\n\n`,
  "extra keys on the message, a float id, a result that is an array":
    `data: {"jsonrpc":"2.0","id":1,"result":{},"x":1}\n\ndata: {"jsonrpc":"2.0","id":1.5,"result":{}}\n\ndata: {"jsonrpc":"2.0","id":1,"result":[]}\n\n`,
  "an id with NUL ignored, an event cut off by the end": `id: a\u0000b\ndata: ${
    result(1, {})
  }\n\ndata: ${result(1, {})}\n`,
  "a primed stream that ends before its answer is resumed":
    `id: 7\nretry: 0\ndata: \n\n`,
  "blocks without a data line (an id, an event type, a retry, a comment) dispatch nothing":
    `id: e1\nevent: message\n\nid: e2\n\nretry: 5\n\n: c\n\ndata: ${
      result(1, {})
    }\n\n`,
  "a latin-1 decoded BOM at the start is dropped": `\u00ef\u00bb\u00bfdata: ${
    result(1, {})
  }\n\n`,
};

for (const [name, text] of Object.entries(CASES)) {
  Deno.test(`the SSE reader reads as the SDK does: ${name}`, async () => {
    const cuts = chunkings(text);
    const whole = await readWith("sdk", cuts[0]);
    assert.ok(
      whole.messages.length + whole.errors.length + whole.resumed.length > 0,
    );
    for (const [i, chunks] of cuts.entries()) {
      // Every other cut as a byte stream (read into the transport's buffer).
      const bytes = i % 2 === 1;
      const sdk = await readWith("sdk", chunks, bytes);
      const weft = await readWith("weft", chunks, bytes);
      assert.deepEqual(
        weft,
        sdk,
        `cut into ${chunks.map((c) => c.length).join("+")} bytes${
          bytes ? ", a byte stream" : ""
        }`,
      );
    }
  });
}

Deno.test("the SSE reader keeps integers beyond 2^53 exact", async () => {
  const weft = new LosslessHttpTransport(URL_, {
    fetch: sseFetch(
      [encoder.encode(
        `data: {"jsonrpc":"2.0","id":1,"result":{"n":12345678901234567890123}}\n\n`,
      )],
      { messages: [], errors: [], tokens: [], resumed: [] },
    ).fetch,
  });
  const got = Promise.withResolvers<JSONRPCMessage>();
  weft.onmessage = (message) => got.resolve(message);
  await weft.start();
  await weft.send(REQUEST);
  const message = await got.promise as { result: { n: unknown } };
  assert.ok(isRawJson(message.result.n));
  assert.equal(JSON.stringify(message.result), '{"n":12345678901234567890123}');
  await weft.close();
});

Deno.test("SseParser dispatches each event as it completes, not at the stream's end", () => {
  const events: string[] = [];
  const parser = new SseParser({
    event: (id, type, data) => events.push(`${id}|${type}|${data}`),
    retry: (ms) => events.push(`retry ${ms}`),
  });
  parser.feed("id: 1\nevent: a\ndata: x\n");
  assert.deepEqual(events, []);
  parser.feed("\nretry: 10\nretry: x\ndata: y\r");
  assert.deepEqual(events, ["1|a|x", "retry 10"]);
  parser.feed("\n\r");
  assert.deepEqual(events, ["1|a|x", "retry 10"], "a CR at the end waits");
  parser.feed("data: z\n\n");
  assert.deepEqual(events, [
    "1|a|x",
    "retry 10",
    "undefined|undefined|y",
    "undefined|undefined|z",
  ]);
});

Deno.test("the SSE reader delivers a progress notification while the answer is still to come", async () => {
  const progress = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: 1, progress: 1 },
  });
  const seenProgress = Promise.withResolvers<void>();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      controller.enqueue(
        encoder.encode(`event: message\ndata: ${progress}\n\n`),
      );
      // The answer goes only once the notification was delivered.
      await seenProgress.promise;
      controller.enqueue(encoder.encode(`data: ${result(1, {})}\n\n`));
      controller.close();
    },
  }, { highWaterMark: 0 });
  const weft = new LosslessHttpTransport(URL_, {
    fetch: () =>
      Promise.resolve(
        new Response(body, {
          headers: { "content-type": "text/event-stream" },
        }),
      ),
  });
  const answered = Promise.withResolvers<void>();
  const order: string[] = [];
  weft.onmessage = (message) => {
    const m = message as { method?: string };
    order.push(m.method ?? "answer");
    if (m.method !== undefined) seenProgress.resolve();
    else answered.resolve();
  };
  await weft.start();
  await weft.send(REQUEST);
  await answered.promise;
  assert.deepEqual(order, ["notifications/progress", "answer"]);
  await weft.close();
});

Deno.test("when the SDK's internals are not as expected, the SDK reads the body, watched: big integers kept all the same", async () => {
  const proto = StreamableHTTPClientTransport.prototype as unknown as {
    _handleSseStream: (...args: unknown[]) => void;
  };
  const original = proto._handleSseStream;
  // Another arity: the transport leaves the SDK's reading in place.
  let sdkRead = false;
  proto._handleSseStream = function (this: unknown, stream: unknown) {
    sdkRead = true;
    return original.apply(this, [stream, ...[...arguments].slice(1)]);
  };
  // The fallback is said once per process: forget it was, and hear it here.
  resetSeamReport();
  const said: string[] = [];
  const restoreWarn = setSeamWarn((message) => void said.push(message));
  try {
    const seen: Seen = { messages: [], errors: [], tokens: [], resumed: [] };
    const weft = new LosslessHttpTransport(URL_, {
      fetch: sseFetch([encoder.encode(
        `data: {"jsonrpc":"2.0","id":1,"result":{"n":12345678901234567890123}}\n\n`,
      )], seen).fetch,
    });
    const got = Promise.withResolvers<JSONRPCMessage>();
    weft.onmessage = (message) => got.resolve(message);
    await weft.start();
    await weft.send(REQUEST);
    const message = await got.promise as { result: { n: unknown } };
    assert.ok(isRawJson(message.result.n));
    assert.equal(
      JSON.stringify(message.result),
      '{"n":12345678901234567890123}',
    );
    assert.ok(sdkRead, "the SDK read the body");
    assert.deepEqual(said, [
      "@weft/mcp: this copy of the MCP SDK (or zod) does not have the shape expected of StreamableHTTPClientTransport's SSE reading (_handleSseStream); the SDK reads SSE bodies itself, watched [sseReader]",
    ]);
    await weft.close();
  } finally {
    restoreWarn();
    proto._handleSseStream = original;
  }
});

Deno.test("a byte-stream body of a fetch given by the caller is read with a default reader: its end is seen without a read into a buffer being answered", async () => {
  let pulls = 0;
  const body = new ReadableStream({
    type: "bytes",
    // Enqueues, then closes while a read waits, never answering a read
    // into a buffer (which would then wait for ever).
    pull(controller) {
      if (pulls++ === 0) {
        controller.enqueue(encoder.encode(`data: ${result(2, {})}\n\n`));
      } else controller.close();
    },
  }, { highWaterMark: 0 });
  const weft = new LosslessHttpTransport(URL_, {
    fetch: () =>
      Promise.resolve(
        new Response(body, {
          headers: { "content-type": "text/event-stream" },
        }),
      ),
  });
  const lost = Promise.withResolvers<unknown>();
  weft.onmessage = (message) => {
    const m = message as { id?: unknown; error?: { data?: unknown } };
    if (m.id === 1) lost.resolve(m.error?.data);
  };
  await weft.start();
  await weft.send(REQUEST);
  // The stream ended without the answer to request 1: it is lost at once.
  assert.ok(await lost.promise instanceof ConnectionLostError);
  await weft.close();
});
