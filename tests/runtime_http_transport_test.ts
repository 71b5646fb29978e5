// weft's Streamable HTTP transport against the SDK's own
// WebStandardStreamableHTTPServerTransport: the same requests, side by side,
// get the same status, headers that matter and bytes (SSE event ids aside,
// which are each store's own); the message shape check agrees with the SDK's
// message schema; an answer ready at once is sent whole, a slow one streamed.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  JSONRPCMessageSchema,
  LoggingMessageNotificationSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { HttpServerTransport } from "../src/runtime/http/_transport.ts";
import { isJsonRpcMessage } from "../src/runtime/http/_messages.ts";
import { SessionEventStore } from "../src/runtime/http/event_store.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { REQUEST_DEADLINE } from "./fixtures/http_test_server.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";

const SID = "session-1";

function newServer(): Server {
  const server = new Server({ name: "t", version: "1" }, {
    capabilities: { logging: {} },
  });
  exportTools(
    server,
    tool({
      name: "echo",
      description: "Echo.",
      input: {
        jsonSchema: {
          type: "object",
          properties: { text: { type: "string" } },
        },
      },
      run: (args: unknown) => "heard: " + (args as { text: string }).text,
    }),
  );
  return server;
}

/** One side: a request in, a response out. */
type Side = (req: Request) => Promise<Response>;

async function sdkSide(sessions: boolean): Promise<Side> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: sessions ? () => SID : undefined,
    eventStore: sessions ? new SessionEventStore() : undefined,
    retryInterval: sessions ? 1000 : undefined,
  });
  await newServer().connect(transport);
  return async (req) => {
    const json = isJson(req);
    return await transport.handleRequest(
      req,
      json ? { parsedBody: await req.json() } : undefined,
    );
  };
}

async function weftSide(sessions: boolean): Promise<Side> {
  const transport = new HttpServerTransport({
    sessionId: sessions ? SID : undefined,
    events: sessions ? new SessionEventStore() : undefined,
    retry: sessions ? 1000 : undefined,
    maxUnread: Infinity,
  });
  await newServer().connect(transport);
  return async (req) => {
    const body = isJson(req) ? await req.json() : undefined;
    return await transport.handle(req, body, undefined, () => {});
  };
}

function isJson(req: Request): boolean {
  return req.method === "POST" &&
    (req.headers.get("content-type") ?? "").startsWith("application/json");
}

const BOTH = "application/json, text/event-stream";
const VERSION = "2025-11-25";

interface Step {
  label: string;
  method?: string;
  body?: unknown;
  /** Raw body text (instead of `body`). */
  text?: string;
  headers?: Record<string, string>;
}

function request(step: Step): Request {
  const method = step.method ?? "POST";
  const headers: Record<string, string> = {
    accept: BOTH,
    "content-type": "application/json",
    "mcp-session-id": SID,
    "mcp-protocol-version": VERSION,
  };
  Object.assign(headers, step.headers);
  for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
  const body = method === "POST"
    ? step.text ?? JSON.stringify(step.body)
    : undefined;
  return new Request("http://localhost/mcp", { method, headers, body });
}

/** What must agree: status, content type, session header, and the body with event ids blanked. */
async function observe(res: Response) {
  const type = res.headers.get("content-type");
  let body = await res.text();
  if (type === "text/event-stream") {
    body = body.replace(/^id: .*$/gm, "id: <id>");
  }
  return {
    status: res.status,
    type,
    session: res.headers.get("mcp-session-id"),
    allow: res.headers.get("allow"),
    body,
  };
}

/** `promise`, or a failure naming `label` when it takes over 5 s (a hang). */
async function within<T>(promise: Promise<T>, label: string): Promise<T> {
  let timer!: ReturnType<typeof setTimeout>;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no complete answer within 5 s: ${label}`)),
      5000,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: VERSION,
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const CALL = {
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

const SESSION_STEPS: Step[] = [
  {
    label: "POST accepting JSON only",
    body: LIST,
    headers: { accept: "application/json" },
  },
  { label: "POST with no Accept", body: LIST, headers: { accept: "" } },
  {
    label: "POST of text/plain",
    text: "hello",
    headers: { "content-type": "text/plain" },
  },
  { label: "a request before initialize", body: LIST },
  { label: "initialize", body: INIT, headers: { "mcp-session-id": "" } },
  { label: "initialize again", body: INIT, headers: { "mcp-session-id": "" } },
  { label: "the initialized notification", body: INITIALIZED },
  { label: "no session header", body: LIST, headers: { "mcp-session-id": "" } },
  {
    label: "an unknown session",
    body: LIST,
    headers: { "mcp-session-id": "other" },
  },
  {
    label: "an unsupported protocol version",
    body: LIST,
    headers: { "mcp-protocol-version": "1999-01-01" },
  },
  {
    label: "no protocol version header",
    body: LIST,
    headers: { "mcp-protocol-version": "" },
  },
  {
    label: "an older protocol version",
    body: CALL,
    headers: { "mcp-protocol-version": "2025-03-26" },
  },
  { label: "tools/list", body: LIST },
  { label: "tools/call", body: CALL },
  {
    label: "a batch of a request and a notification",
    body: [LIST, INITIALIZED],
  },
  { label: "a batch of two requests", body: [LIST, { ...CALL, id: 9 }] },
  { label: "an empty batch", body: [] },
  {
    label: "a batch over 100",
    body: Array.from({ length: 101 }, () => INITIALIZED),
  },
  { label: "version 1.0", body: { ...LIST, jsonrpc: "1.0" } },
  { label: "a request with a null id", body: { ...LIST, id: null } },
  { label: "a request with a fractional id", body: { ...LIST, id: 1.5 } },
  { label: "a request with an extra member", body: { ...LIST, extra: 1 } },
  { label: "params an array", body: { ...LIST, params: [1] } },
  {
    label: "a bad progress token",
    body: { ...LIST, params: { _meta: { progressToken: true } } },
  },
  { label: "not a message", body: { hello: "world" } },
  {
    label: "a client's result for no request",
    body: { jsonrpc: "2.0", id: 77, result: {} },
  },
  {
    label: "GET without text/event-stream",
    method: "GET",
    headers: { accept: "application/json" },
  },
  {
    label: "GET with an unknown session",
    method: "GET",
    headers: { "mcp-session-id": "other" },
  },
  {
    label: "GET with an unknown event id",
    method: "GET",
    headers: { "last-event-id": "nope" },
  },
  { label: "PUT", method: "PUT" },
  {
    label: "DELETE with an unknown session",
    method: "DELETE",
    headers: { "mcp-session-id": "other" },
  },
  { label: "DELETE", method: "DELETE" },
  { label: "a request after DELETE", body: LIST },
];

const STATELESS_STEPS: Step[] = [
  { label: "initialize", body: INIT },
  { label: "tools/call", body: CALL },
  { label: "a notification", body: INITIALIZED },
  { label: "DELETE", method: "DELETE" },
  { label: "version 1.0", body: { ...LIST, jsonrpc: "1.0" } },
];

for (
  const [mode, steps] of [["session", SESSION_STEPS], [
    "stateless",
    STATELESS_STEPS,
  ]] as const
) {
  Deno.test(`transport (${mode} mode): every request answered as the SDK's transport answers it`, async () => {
    const sessions = mode === "session";
    const ours = await weftSide(sessions);
    const theirs = await sdkSide(sessions);
    for (const step of steps) {
      // The stateless SDK transport serves one request per transport.
      const sdk = sessions ? theirs : await sdkSide(false);
      const weft = sessions ? ours : await weftSide(false);
      const expected = await within(
        sdk(request(step)).then(observe),
        `SDK: ${step.label}`,
      );
      const actual = await within(
        weft(request(step)).then(observe),
        `weft: ${step.label}`,
      );
      assert.deepEqual(actual, expected, step.label);
    }
  });
}

Deno.test("transport: the message shape check agrees with the SDK's message schema", () => {
  const cases: unknown[] = [
    LIST,
    CALL,
    INITIALIZED,
    { jsonrpc: "2.0", id: "x", result: {} },
    { jsonrpc: "2.0", id: 1, result: { _meta: {} } },
    { jsonrpc: "2.0", id: 1, result: { _meta: 1 } },
    { jsonrpc: "2.0", id: 1, result: [] },
    { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } },
    { jsonrpc: "2.0", error: { code: 1, message: "m" } },
    { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } },
    { jsonrpc: "2.0", id: 1, error: { code: 1 } },
    { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m", data: [1] } },
    { jsonrpc: "2.0", id: 1, error: "no" },
    { jsonrpc: "2.0", id: 1, result: {}, extra: 1 },
    { jsonrpc: "2.0", method: "m", params: { _meta: { progressToken: "t" } } },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "m",
      params: { _meta: { progressToken: 1.5 } },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "m",
      params: {
        _meta: { "io.modelcontextprotocol/related-task": { taskId: 1 } },
      },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "m",
      params: {
        _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } },
      },
    },
    { jsonrpc: "2.0", id: 1, method: 3 },
    { jsonrpc: "2.0", method: "m", params: null },
    { jsonrpc: "2.0", id: true, method: "m" },
    { jsonrpc: "2.0", id: 2 ** 60, method: "m" },
    { jsonrpc: "2.0" },
    null,
    [],
    "text",
    { id: 1, method: "m" },
  ];
  for (const m of cases) {
    assert.equal(
      isJsonRpcMessage(m),
      JSONRPCMessageSchema.safeParse(m).success,
      JSON.stringify(m),
    );
  }
});

function listenOn(handler: (req: Request) => Promise<Response>) {
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    // Cut, not drained: a stream left open must not hold the test.
    [Symbol.asyncDispose]: () => (stop.abort(), server.finished),
  };
}

Deno.test("transport: an answer ready at once goes whole (a length); a slow one is streamed", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handler = httpHandler(() => {
    const server = newServer();
    exportTools(
      server,
      tool({
        name: "slow",
        description: "Waits for the gate.",
        input: { jsonSchema: { type: "object" } },
        run: async () => {
          await gate;
          return "opened";
        },
      }),
    );
    return server;
  });
  await using listening = listenOn(handler);
  const headers = {
    accept: BOTH,
    "content-type": "application/json",
    "mcp-protocol-version": VERSION,
  };
  const fast = await fetch(listening.url, {
    method: "POST",
    headers,
    body: JSON.stringify(CALL),
    signal: AbortSignal.timeout(REQUEST_DEADLINE),
  });
  assert.equal(fast.headers.get("content-type"), "text/event-stream");
  const fastText = await fast.text();
  assert.equal(
    fast.headers.get("content-length"),
    String(new TextEncoder().encode(fastText).byteLength),
  );
  assert.match(fastText, /"heard: hi"/);

  const slow = await fetch(listening.url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "slow", arguments: {} },
    }),
    signal: AbortSignal.timeout(REQUEST_DEADLINE),
  });
  assert.equal(slow.headers.get("content-length"), null, "streamed");
  release();
  assert.match(await slow.text(), /"opened"/);
  await handler.close();
});

Deno.test("transport: a notification sent during a call precedes its answer on the call's stream", async () => {
  const transport = new HttpServerTransport({ maxUnread: Infinity });
  const server = newServer();
  server.setRequestHandler(
    // A raw handler that logs on the request's stream before answering.
    PingRequestSchema,
    async (_req, extra) => {
      await extra.sendNotification({
        method: "notifications/message",
        params: { level: "info", data: "pong soon" },
      });
      return {};
    },
  );
  await server.connect(transport);
  const res = await transport.handle(
    request({
      label: "ping",
      body: { jsonrpc: "2.0", id: 5, method: "ping" },
      headers: { "mcp-session-id": "" },
    }),
    { jsonrpc: "2.0", id: 5, method: "ping" },
    undefined,
    () => {},
  );
  const text = await res.text();
  const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) =>
    JSON.parse(m[1])
  );
  assert.equal(data.length, 2);
  assert.ok(LoggingMessageNotificationSchema.safeParse(data[0]).success);
  assert.deepEqual(data[1], { jsonrpc: "2.0", id: 5, result: {} });
  await server.close();
});

Deno.test("transport: a dropped call is cancelled, and what its handler still sends goes nowhere without failing", async () => {
  const transport = new HttpServerTransport({ maxUnread: Infinity });
  const server = newServer();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const seen = Promise.withResolvers<{ aborted: boolean; sent: string }>();
  server.setRequestHandler(PingRequestSchema, async (_req, extra) => {
    await gate;
    const sent = await extra.sendNotification({
      method: "notifications/message",
      params: { level: "info", data: "too late" },
    }).then(() => "sent", (error) => `failed: ${error}`);
    seen.resolve({ aborted: extra.signal.aborted, sent });
    return {};
  });
  await server.connect(transport);
  const drop = new AbortController();
  const ping = { jsonrpc: "2.0", id: 6, method: "ping" };
  const ends: string[] = [];
  const res = await transport.handle(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { accept: BOTH, "content-type": "application/json" },
      signal: drop.signal,
    }),
    ping,
    undefined,
    (end) => ends.push(end),
  );
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  drop.abort();
  await res.body?.cancel().catch(() => {});
  release();
  assert.deepEqual(await seen.promise, { aborted: true, sent: "sent" });
  assert.deepEqual(ends, ["dropped"]);
  await server.close();
});
