// A resumed stream never delivers an event twice. The session transport
// takes any event store; with one whose writes are slow to confirm (a
// database, Redis), an event stored while the client was away is in the
// replay of its resumption, and the send that stored it ends only after the
// resumed stream took over: the event reaches the client once, by the
// replay. Over the client's own resumption (connectHttp: the SDK reconnects
// with Last-Event-ID).

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/streamableHttp";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { HttpServerTransport } from "../src/runtime/http/_transport.ts";
import { SessionEventStore } from "../src/runtime/http/event_store.ts";
import { waitUntil } from "./fixtures/runtime_server_helpers.ts";

/**
 * A `SessionEventStore` whose next armed write of a notification is kept at
 * once but confirmed only on `release()`.
 */
class SlowStore implements EventStore {
  readonly #inner = new SessionEventStore();
  #armed = false;
  #release: () => void = () => {};
  #onHeld: () => void = () => {};
  /** Resolves when the armed write is kept and waiting to be confirmed. */
  readonly held: Promise<void> = new Promise((resolve) => {
    this.#onHeld = resolve;
  });

  arm(): void {
    this.#armed = true;
  }

  release(): void {
    this.#release();
  }

  async storeEvent(
    streamId: StreamId,
    message: JSONRPCMessage,
  ): Promise<EventId> {
    const id = await this.#inner.storeEvent(streamId, message);
    if (this.#armed && "method" in message) {
      this.#armed = false;
      const confirmed = new Promise<void>((resolve) => {
        this.#release = resolve;
      });
      this.#onHeld();
      await confirmed;
    }
    return id;
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#inner.getStreamIdForEventId(eventId);
  }

  replayEventsAfter(
    lastEventId: EventId,
    options: {
      send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<StreamId> {
    return this.#inner.replayEventsAfter(lastEventId, options);
  }
}

function within<T>(promise: Promise<T>, deadline: AbortSignal): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      deadline.throwIfAborted();
      deadline.addEventListener("abort", () => reject(deadline.reason));
    }),
  ]);
}

Deno.test("an event stored while the client was away reaches it once, by the replay, though its send ends after the resume", async () => {
  const deadline = AbortSignal.timeout(15_000);
  const store = new SlowStore();
  const transport = new HttpServerTransport({
    sessionId: "session-1",
    events: store,
    retry: 50,
    maxUnread: Infinity,
  });
  const server = new Server({ name: "t", version: "1" }, {
    capabilities: { logging: {} },
  });
  await server.connect(transport);
  const opened = Promise.withResolvers<void>();
  const resumed = Promise.withResolvers<void>();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req, info) => {
      const body = req.method === "POST" ? await req.json() : undefined;
      const response = await transport.handle(req, body, info, () => {});
      if (req.method === "GET" && req.headers.has("last-event-id")) {
        // The resumption is served, its replay in the response: only now
        // is the held write confirmed.
        resumed.resolve();
        store.release();
      } else if (req.method === "GET") {
        opened.resolve();
      }
      return response;
    },
  );
  const logged: unknown[] = [];
  try {
    await using client = await connectHttp(
      `http://127.0.0.1:${listener.addr.port}/mcp`,
      { signal: deadline },
    );
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logged.push(notification.params.data),
    );
    // The client's GET stream: a first event arrives on it (and gives the
    // client an id to resume from).
    await within(opened.promise, deadline);
    await server.sendLoggingMessage({ level: "info", data: "first" });
    assert.ok(
      await waitUntil(() => logged.length === 1, 10_000),
      "no GET stream",
    );
    // "once" is kept, its write not yet confirmed; the stream closes; the
    // client resumes and the replay carries "once".
    store.arm();
    const sent = server.sendLoggingMessage({ level: "info", data: "once" });
    await within(store.held, deadline);
    transport.closeStandaloneSSEStream();
    await within(resumed.promise, deadline);
    await within(sent, deadline); // ends after the resumed stream took over
    // Anything that send wrote again would come before this, on the same stream.
    await server.sendLoggingMessage({ level: "info", data: "last" });
    assert.ok(
      await waitUntil(() => logged.includes("last"), 10_000),
      `got ${JSON.stringify(logged)}`,
    );
    assert.deepEqual(logged, ["first", "once", "last"]);
  } finally {
    store.release();
    await server.close();
    await listener.shutdown();
  }
});

Deno.test("a call's notification stored while its stream was away reaches the client once, by the replay, though its send ends after the resume", async () => {
  const deadline = AbortSignal.timeout(15_000);
  const store = new SlowStore();
  const transport = new HttpServerTransport({
    sessionId: "session-1",
    events: store,
    retry: 50,
    maxUnread: Infinity,
  });
  const server = new Server({ name: "t", version: "1" }, {
    capabilities: { logging: {}, tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  const sent = Promise.withResolvers<void>();
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    // The note is kept, its write not yet confirmed; the call's stream
    // closes (the client resumes it), then the send ends.
    store.arm();
    const note = extra.sendNotification({
      method: "notifications/message",
      params: { level: "info", data: "once" },
    });
    await store.held;
    transport.closeSSEStream(extra.requestId);
    await note;
    sent.resolve();
    return { content: [{ type: "text", text: "done" }] };
  });
  await server.connect(transport);
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req, info) => {
      const body = req.method === "POST" ? await req.json() : undefined;
      const response = await transport.handle(req, body, info, () => {});
      // The resumption is served, its replay in the response: only now is
      // the held write confirmed.
      if (req.method === "GET" && req.headers.has("last-event-id")) {
        store.release();
      }
      return response;
    },
  );
  const logged: unknown[] = [];
  try {
    await using client = await connectHttp(
      `http://127.0.0.1:${listener.addr.port}/mcp`,
      { signal: deadline },
    );
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logged.push(notification.params.data),
    );
    const result = await client.request(
      { method: "tools/call", params: { name: "note", arguments: {} } },
      CallToolResultSchema,
      { signal: deadline },
    );
    await within(sent.promise, deadline);
    assert.deepEqual(result.content, [{ type: "text", text: "done" }]);
    // The note came before the answer on the one resumed stream.
    assert.deepEqual(logged, ["once"]);
  } finally {
    store.release();
    await server.close();
    await listener.shutdown();
  }
});
