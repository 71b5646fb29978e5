// A call's SSE response stream that BREAKS (reading it fails: the connection
// dropped) after an event id is lost at once: the call fails with a
// ConnectionLostError carrying the break as its cause, before any resumption
// is tried. One the server ENDED cleanly after an event id is left to the
// SDK's resumption (SEP-1699) and answered there. Over a raw HTTP/1.1
// listener on 127.0.0.1 whose resumption (GET with Last-Event-ID) answers the
// call: a transport that took the break for a clean end would resume the
// call and hand it that answer. Both ways of reading a body: the transport's
// own reader and the SDK's reading, watched.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LosslessHttpTransport } from "../src/runtime/client/_http_transport.ts";
import { STREAM_LOST_MESSAGE } from "../src/runtime/client/_http_calls.ts";
import { ConnectionLostError } from "../src/runtime/errors.ts";
import { resetSeamReport, setSeamWarn } from "../src/seam/sdk_internals.ts";
import { REQUEST_DEADLINE } from "./fixtures/http_test_server.ts";

const encoder = new TextEncoder();

const CALL: JSONRPCMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "wait", arguments: {} },
};

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';

/** What happened, in order: the server's resumption GETs and the client's messages for call 1. */
type Timeline = string[];

/** A listener on 127.0.0.1 and how to stop it. */
interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A raw HTTP/1.1 server on 127.0.0.1 whose answer to the call's POST is an
 * SSE stream primed with the event id `e1` (and `retry: 0`, so the SDK
 * resumes at once), then — when `breaks` — broken: the connection is closed
 * in the middle of the chunked body; else ended cleanly. A GET resuming
 * after `e1` gets the call's answer.
 */
function primedServer(timeline: Timeline, breaks: boolean): Listening {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn): Promise<void> => {
    conns.add(conn);
    try {
      const { method, headers } = await readRequest(conn);
      if (method === "GET") {
        const lastEventId = headers.get("last-event-id");
        timeline.push(`server: GET Last-Event-ID ${lastEventId}`);
        const body = lastEventId === "e1" ? `id: e2\ndata: ${ANSWER}\n\n` : "";
        await write(
          conn,
          `HTTP/1.1 ${lastEventId === "e1" ? "200 OK" : "405 No"}\r\n` +
            "content-type: text/event-stream\r\nconnection: close\r\n" +
            `content-length: ${encoder.encode(body).length}\r\n\r\n${body}`,
        );
        return;
      }
      const event = "id: e1\nretry: 0\ndata: \n\n";
      await write(
        conn,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
          "transfer-encoding: chunked\r\n\r\n" +
          `${encoder.encode(event).length.toString(16)}\r\n${event}\r\n` +
          // Broken: the connection drops before the last chunk.
          (breaks ? "" : "0\r\n\r\n"),
      );
    } finally {
      // Unless the server's close closed it already.
      if (conns.delete(conn)) conn.close();
    }
  };
  const served = new Set<Promise<void>>();
  const accepting = (async () => {
    for await (const conn of listener) {
      const done = serve(conn).catch(() => {
        // A connection the client cut: the timeline tells what matters.
      });
      served.add(done);
      void done.finally(() => served.delete(done));
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      listener.close();
      await accepting.catch(() => {
        // The listener closed under the loop: it is done either way.
      });
      for (const conn of conns) conn.close();
      conns.clear();
      await Promise.all(served);
    },
  };
}

/** Reads one request's head and its body (by `content-length`) off `conn`. */
async function readRequest(
  conn: Deno.Conn,
): Promise<{ method: string; headers: Headers }> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const [first, ...lines] = text.slice(0, end).split("\r\n");
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get("content-length") ?? 0);
      // The body is read whole, so that closing the connection does not
      // reset it before the client reads the answer.
      while (encoder.encode(text.slice(end + 4)).length < length) {
        const n = await conn.read(buffer);
        if (n === null) break;
        text += decoder.decode(buffer.subarray(0, n), { stream: true });
      }
      return { method: first.split(" ")[0], headers };
    }
    const n = await conn.read(buffer);
    if (n === null) throw new Error("the client closed before its request");
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
}

async function write(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length;) {
    at += await conn.write(bytes.subarray(at));
  }
}

/**
 * Sends the call over a transport to `url`; resolves once the resumption's
 * answer reached the client (whoever it was for), with the error response
 * the transport gave call 1, if any.
 */
async function callOverPrimedStream(
  url: string,
  timeline: Timeline,
): Promise<{ error?: { message: string; data?: unknown } }> {
  const transport = new LosslessHttpTransport(new URL(url));
  let lost: { message: string; data?: unknown } | undefined;
  const answered = Promise.withResolvers<void>();
  transport.onmessage = (message) => {
    const m = message as { id?: unknown; result?: unknown; error?: never };
    if (m.id !== 1) return;
    if (m.error !== undefined) {
      lost = m.error;
      timeline.push(`client: call 1 failed`);
    } else {
      timeline.push(`client: call 1 answered`);
      answered.resolve();
    }
  };
  // The break reaches the SDK's reading as an error when not quietened.
  transport.onerror = () => {};
  await transport.start();
  try {
    await transport.send(CALL);
    // Fails instead of hanging when the answer never comes.
    const deadline = AbortSignal.timeout(REQUEST_DEADLINE);
    await Promise.race([
      answered.promise,
      new Promise((_, reject) =>
        deadline.addEventListener(
          "abort",
          () => reject(new Error(`no answer: ${timeline.join(" → ")}`)),
        )
      ),
    ]);
  } finally {
    await transport.close();
  }
  return lost === undefined ? {} : { error: lost };
}

/** Runs `body` with the SDK reading SSE bodies itself (watched) when `watched`. */
async function reading(
  watched: boolean,
  body: () => Promise<void>,
): Promise<void> {
  if (!watched) return await body();
  const proto = StreamableHTTPClientTransport.prototype as unknown as {
    _handleSseStream: (...args: unknown[]) => void;
  };
  const original = proto._handleSseStream;
  // Another arity: the transport leaves the SDK's reading in place.
  proto._handleSseStream = function (this: unknown, stream: unknown) {
    return original.apply(this, [stream, ...[...arguments].slice(1)]);
  };
  // The fallback is said once per process: forget it was, and hear it here.
  resetSeamReport();
  const said: string[] = [];
  const restoreWarn = setSeamWarn((message) => void said.push(message));
  try {
    await body();
    assert.match(said.join("\n"), /\[sseReader\]/, "the SDK read the body");
  } finally {
    restoreWarn();
    proto._handleSseStream = original;
  }
}

for (const watched of [false, true]) {
  const path = watched
    ? "the SDK reads the body, watched"
    : "the transport reads the body";

  Deno.test(`a call whose SSE stream breaks after an event id fails at once with ConnectionLostError, not resumed (${path})`, async () => {
    await reading(watched, async () => {
      const timeline: Timeline = [];
      const listening = primedServer(timeline, true);
      try {
        const result = await callOverPrimedStream(listening.url, timeline);
        assert.equal(
          timeline[0],
          "client: call 1 failed",
          `the call fails before its stream is resumed: ${
            timeline.join(" → ")
          }`,
        );
        assert.equal(result.error?.message, STREAM_LOST_MESSAGE);
        const lost = result.error?.data;
        assert.ok(lost instanceof ConnectionLostError, String(lost));
        assert.equal(lost.message, STREAM_LOST_MESSAGE);
        // The cause is the break itself (a clean end has none).
        assert.ok(lost.cause instanceof Error, `cause: ${String(lost.cause)}`);
      } finally {
        await listening.close();
      }
    });
  });

  Deno.test(`a call whose SSE stream ends cleanly after an event id is resumed and answered (${path})`, async () => {
    await reading(watched, async () => {
      const timeline: Timeline = [];
      const listening = primedServer(timeline, false);
      try {
        const result = await callOverPrimedStream(listening.url, timeline);
        assert.deepEqual(timeline, [
          "server: GET Last-Event-ID e1",
          "client: call 1 answered",
        ]);
        assert.deepEqual(result, {});
      } finally {
        await listening.close();
      }
    });
  });
}
