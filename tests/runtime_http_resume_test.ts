// Session-mode resumability (SEP-1699): the per-session event store,
// priming events, closeStreamsAfter, and resuming with Last-Event-ID —
// over a real listener, raw and through connectHttp.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { ConnectionLostError } from "../src/runtime/errors.ts";
import {
  DEFAULT_SESSION_EVENTS,
  SessionEventStore,
} from "../src/runtime/http/event_store.ts";
import {
  httpHandler,
  type HttpHandlerOptions,
} from "../src/runtime/http/handler.ts";
import {
  listen,
  type Listening,
  post,
  REQUEST_DEADLINE,
  serveWith,
} from "./fixtures/http_test_server.ts";
import { latch, waitFor, within } from "./_helpers/wait.ts";
import { passOn } from "./_helpers/pass_on.ts";

/** One parsed SSE event. */
interface SseEvent {
  id?: string;
  retry?: string;
  data: string;
}

/** Reads SSE events off a response body, one at a time. */
class Events {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #text = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event, or `undefined` when the stream ended first. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#text.indexOf("\n\n");
      if (end !== -1) {
        const block = this.#text.slice(0, end);
        this.#text = this.#text.slice(end + 2);
        if (block.split("\n").every((line) => line.startsWith(":"))) continue;
        return parseEvent(block);
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#text += value;
    }
  }

  /** Cancels the stream (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parseEvent(block: string): SseEvent {
  const event: SseEvent = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "id") event.id = value;
    if (name === "retry") event.retry = value;
    if (name === "data") data.push(value);
  }
  event.data = data.join("\n");
  return event;
}

const MODERN = "2025-11-25";

/** Sends a log notification (the fixture declares logging) carrying `text`. */
function log(
  server: Listening["servers"][number],
  text: string,
): Promise<void> {
  return server.sendLoggingMessage({ level: "info", data: text });
}

/** The `data` of a log notification event. */
function logged(event: SseEvent | undefined): unknown {
  assert.ok(event !== undefined, "stream ended");
  return (JSON.parse(event.data) as { params: { data: unknown } }).params.data;
}

function initialize(version: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
}

/** Opens a session negotiated at `version`; resolves to its id (initialized). */
async function openSession(
  listening: Listening,
  version = MODERN,
): Promise<string> {
  const init = await post(listening.url, initialize(version));
  assert.equal(init.status, 200);
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid !== null);
  await init.body?.cancel();
  const done = await post(
    listening.url,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    { "mcp-session-id": sid, "mcp-protocol-version": version },
  );
  assert.equal(done.status, 202);
  return sid;
}

function getStream(
  listening: Listening,
  sid: string,
  lastEventId?: string,
): Promise<Response> {
  return fetch(listening.url, {
    headers: {
      accept: "text/event-stream",
      "mcp-session-id": sid,
      "mcp-protocol-version": MODERN,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
    signal: AbortSignal.timeout(REQUEST_DEADLINE),
  });
}

/**
 * Resumes with Last-Event-ID as a client does after the retry interval: a
 * 409 (the server has not yet seen the old stream go) is tried again.
 */
async function resume(
  listening: Listening,
  sid: string,
  lastEventId: string,
): Promise<Response> {
  return await waitFor(
    async () => {
      const res = await getStream(listening, sid, lastEventId);
      if (res.status !== 409) return res;
      await res.body?.cancel();
      return undefined;
    },
    "a resumption the server takes (not 409)",
    { everyMs: 20 },
  );
}

function callWait(ms: number, id = 7): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "wait", arguments: { ms } },
  });
}

async function withListener(
  options: HttpHandlerOptions,
  body: (listening: Listening) => Promise<void>,
): Promise<void> {
  const listening = listen({ sessions: true, ...options });
  try {
    await body(listening);
  } finally {
    await listening.close();
  }
}

Deno.test("resumability: a GET stream resumed with Last-Event-ID replays what was missed, in order", async () => {
  await withListener({}, async (listening) => {
    const sid = await openSession(listening);
    const server = listening.servers[0];
    const first = await getStream(listening, sid);
    assert.equal(first.status, 200);
    const events = new Events(first.body!);
    await log(server, "one");
    const seen = await events.next();
    assert.ok(seen?.id !== undefined, "every event carries an id");
    assert.equal(logged(seen), "one");
    await events.cancel();
    // While nobody listens, two more notifications are kept.
    await log(server, "two");
    await log(server, "three");
    const resumed = await resume(listening, sid, seen.id);
    assert.equal(resumed.status, 200);
    const replay = new Events(resumed.body!);
    const a = await replay.next();
    const b = await replay.next();
    assert.deepEqual([logged(a), logged(b)], ["two", "three"]);
    assert.ok(a!.id !== seen.id && b!.id !== a!.id);
    // The resumed stream is live: a new notification arrives on it.
    await log(server, "four");
    assert.equal(logged(await replay.next()), "four");
    await replay.cancel();

    const unknown = await getStream(listening, sid, "no-such-event");
    assert.equal(unknown.status, 400);
    assert.equal(
      await unknown.text(),
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Invalid event ID format"},"id":null}',
    );
  });
});

Deno.test("resumability: a call's stream is primed, closed mid-call by closeStreamsAfter, and its answer comes on resume", async () => {
  await withListener({ closeStreamsAfter: 50 }, async (listening) => {
    const sid = await openSession(listening);
    // An older version header: priming follows the negotiated version.
    const res = await post(listening.url, callWait(300), {
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-03-26",
    });
    assert.equal(res.status, 200);
    const events = new Events(res.body!);
    const priming = await events.next();
    assert.ok(priming?.id !== undefined);
    assert.equal(priming.retry, "1000");
    assert.equal(priming.data, "");
    assert.equal(await events.next(), undefined, "closed before the answer");
    const resumed = await getStream(listening, sid, priming.id);
    assert.equal(resumed.status, 200);
    const replay = new Events(resumed.body!);
    const answer = await replay.next();
    assert.deepEqual(JSON.parse(answer!.data), {
      result: { content: [{ type: "text", text: "waited" }] },
      jsonrpc: "2.0",
      id: 7,
    });
    assert.equal(listening.wasAborted(), false, "a close is no cancellation");
    await replay.cancel();
  });
});

Deno.test("resumability: an answer sent while the client was away is replayed", async () => {
  await withListener({ closeStreamsAfter: 20 }, async (listening) => {
    const sid = await openSession(listening);
    const res = await post(listening.url, callWait(60), {
      "mcp-session-id": sid,
      "mcp-protocol-version": MODERN,
    });
    const events = new Events(res.body!);
    const priming = await events.next();
    assert.equal(await events.next(), undefined);
    await listening.finished; // the tool has answered
    const replay = new Events(
      (await getStream(listening, sid, priming!.id)).body!,
    );
    assert.equal(JSON.parse((await replay.next())!.data).id, 7);
    await replay.cancel();
  });
});

Deno.test("resumability: connectHttp rides a server-closed stream to its answer", async () => {
  await withListener({ closeStreamsAfter: 50 }, async (listening) => {
    // Resumable streams are the 2025 era's (a 2026-07-28 call's stream is
    // its whole life: closing it cancels the call).
    await using client = await connectHttp(listening.url, {
      protocol: "legacy",
    });
    const started = Date.now();
    const result = await client.request(
      {
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 200 } },
      },
      CallToolResultSchema,
    );
    assert.deepEqual(result.content, [{ type: "text", text: "waited" }]);
    // The SDK reconnects after the stream's retry interval (1 s).
    assert.ok(Date.now() - started >= 900, `took ${Date.now() - started} ms`);
  });
});

Deno.test("resumability: connectHttp fails a call whose resumption is refused, at the first try", async () => {
  // The server's end of the call's SSE body, seen as it leaves the handler.
  const callStreamClosed = latch();
  const listening = serveWith((newServer) => {
    const inner = httpHandler(newServer, {
      sessions: true,
      closeStreamsAfter: 50,
    });
    const watching = async (
      received: Request,
      info?: Deno.ServeHandlerInfo,
    ): Promise<Response> => {
      const { text, request } = await passOn(received, info);
      const res = await inner(request, info);
      const method = text === "" ? undefined : JSON.parse(text).method;
      if (method !== "tools/call" || res.body === null) return res;
      const body = res.body.pipeThrough(
        new TransformStream({ flush: () => callStreamClosed.open() }),
      );
      return new Response(body, res);
    };
    return Object.assign(watching, { close: () => inner.close() });
  });
  try {
    // Resumable streams are the 2025 era's (a 2026-07-28 call's stream is
    // its whole life).
    await using client = await connectHttp(listening.url, {
      protocol: "legacy",
      onerror: () => {},
    });
    const call = client.request(
      {
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 60_000 } },
      },
      CallToolResultSchema,
    );
    await listening.started;
    await within(
      callStreamClosed.promise,
      "closeStreamsAfter closed the call's stream",
    );
    await listening.handler!.close(); // the session is gone: resuming gets 404
    const closedAt = Date.now();
    const error = await call.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ConnectionLostError, String(error));
    assert.equal(
      error.message,
      "the HTTP response stream ended before the response",
    );
    // One retry interval (1 s), not the SDK's 60-second timeout: the bound
    // only tells the two apart, generously (a loaded machine is slow).
    assert.ok(
      Date.now() - closedAt < 30_000,
      `took ${Date.now() - closedAt} ms`,
    );
  } finally {
    await listening.close();
  }
});

Deno.test("resumability: off with sessionEvents 0, and never for clients below 2025-11-25", async (t) => {
  await t.step(
    "sessionEvents: 0 writes no ids and closes nothing",
    async () => {
      await withListener(
        { sessionEvents: 0, closeStreamsAfter: 20 },
        async (listening) => {
          const sid = await openSession(listening);
          const res = await post(listening.url, callWait(100), {
            "mcp-session-id": sid,
            "mcp-protocol-version": MODERN,
          });
          const event = await new Events(res.body!).next();
          assert.equal(event?.id, undefined);
          assert.equal(JSON.parse(event!.data).id, 7);
        },
      );
    },
  );
  await t.step(
    "a 2025-06-18 session gets no priming event and keeps its stream",
    async () => {
      await withListener({ closeStreamsAfter: 20 }, async (listening) => {
        const sid = await openSession(listening, "2025-06-18");
        const res = await post(listening.url, callWait(100), {
          "mcp-session-id": sid,
          "mcp-protocol-version": "2025-06-18",
        });
        const event = await new Events(res.body!).next();
        assert.equal(JSON.parse(event!.data).id, 7, "the answer, first");
        assert.ok(event?.id !== undefined, "still stored: it has an id");
      });
    },
  );
});

Deno.test("resumability: a session keeps at most sessionEvents events, and none after it ends", async () => {
  await withListener({ sessionEvents: 2 }, async (listening) => {
    const sid = await openSession(listening);
    const server = listening.servers[0];
    const first = await getStream(listening, sid);
    const events = new Events(first.body!);
    await log(server, "one");
    const seen = await events.next();
    await events.cancel();
    await log(server, "two");
    await log(server, "three");
    await log(server, "four");
    const replay = new Events(
      (await resume(listening, sid, seen!.id!)).body!,
    );
    // Three were sent while away; the cap kept the newest two.
    assert.equal(logged(await replay.next()), "three");
    assert.equal(logged(await replay.next()), "four");
    await replay.cancel();

    const gone = await fetch(listening.url, {
      method: "DELETE",
      headers: { "mcp-session-id": sid, "mcp-protocol-version": MODERN },
    });
    assert.equal(gone.status, 200);
    await gone.body?.cancel();
    const after = await getStream(listening, sid, seen!.id);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
});

Deno.test("SessionEventStore: ids name their stream, the ring drops the oldest, clear empties it", async () => {
  assert.equal(DEFAULT_SESSION_EVENTS, 100);
  const store = new SessionEventStore(3);
  const message = (n: number) => ({ jsonrpc: "2.0" as const, method: `m${n}` });
  const primed = await store.storeEvent("post", {} as never);
  const ids: string[] = [];
  for (let n = 0; n < 5; n++) {
    ids.push(await store.storeEvent(n % 2 === 0 ? "a" : "b", message(n)));
  }
  assert.equal(store.size, 3, "priming takes no room; three kept");
  assert.equal(await store.getStreamIdForEventId(primed), "post");
  assert.equal(await store.getStreamIdForEventId(ids[1]), "b");
  assert.equal(await store.getStreamIdForEventId("a/99"), undefined);
  assert.equal(await store.getStreamIdForEventId("nonsense"), undefined);
  const sent: string[] = [];
  const send = (id: string, m: unknown) => {
    sent.push(`${id}=${(m as { method: string }).method}`);
    return Promise.resolve();
  };
  // From stream a's first event: m2 and m4 are after it; m0 itself is gone anyway.
  assert.equal(await store.replayEventsAfter(ids[0], { send }), "a");
  assert.deepEqual(sent, [`${ids[2]}=m2`, `${ids[4]}=m4`]);
  sent.length = 0;
  assert.equal(await store.replayEventsAfter(ids[1], { send }), "b");
  assert.deepEqual(sent, [`${ids[3]}=m3`]);
  await assert.rejects(store.replayEventsAfter("x/1000", { send }));
  store.clear();
  assert.equal(store.size, 0);
  sent.length = 0;
  await store.replayEventsAfter(ids[0], { send });
  assert.deepEqual(sent, []);
});

Deno.test("nothing lost: a dropped resumable stream does not cancel its call; the answer comes on resume", async () => {
  await withListener({}, async (listening) => {
    const sid = await openSession(listening);
    const controller = new AbortController();
    const res = await fetch(listening.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sid,
        "mcp-protocol-version": MODERN,
      },
      body: callWait(300),
      signal: controller.signal,
    });
    const events = new Events(res.body!);
    const priming = await events.next();
    assert.ok(priming?.id !== undefined, "the stream is primed");
    await listening.started;
    controller.abort(); // the client loses the stream mid-call
    await events.cancel();
    await listening.finished; // the tool answers meanwhile
    assert.equal(listening.wasAborted(), false, "a drop is no cancellation");
    const replay = new Events((await resume(listening, sid, priming.id)).body!);
    const answer = await replay.next();
    assert.deepEqual(JSON.parse(answer!.data), {
      result: { content: [{ type: "text", text: "waited" }] },
      jsonrpc: "2.0",
      id: 7,
    });
    await replay.cancel();
  });
});

Deno.test("2026-07-28: closing the handler mid-call ends the call with ConnectionLostError at once (a modern call's stream is its whole life: nothing to resume)", async () => {
  const listening = serveWith((newServer) => httpHandler(newServer));
  try {
    await using client = await connectHttp(listening.url, {
      onerror: () => {},
    });
    const call = client.request(
      {
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 60_000 } },
      },
      CallToolResultSchema,
    );
    await listening.started;
    assert.equal(client.getProtocolEra()?.era, "modern");
    await listening.handler!.close();
    const error = await within(
      call.then(() => undefined, (e: unknown) => e),
      "the call's end after the handler closed",
    );
    assert.ok(error instanceof ConnectionLostError, String(error));
  } finally {
    await listening.close();
  }
});
