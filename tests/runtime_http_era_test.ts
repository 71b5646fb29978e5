/**
 * `httpHandler` serving the modern era (2026-07-28) next to the legacy one:
 * the header checks and their errors (-32020, -32022, -32602), the shape
 * of `server/discover`, the stamping of results (resultType, serverInfo,
 * cache hints), -32021 for a missing client capability, modern requests
 * stateless in session mode, `subscriptions/listen`, and cancellation by
 * closing a modern request's stream.
 */

import assert from "node:assert/strict";
import { httpHandler, Server } from "../mod.ts";
import { kvStore } from "../runtime.ts";
import {
  encodeHeaderValue,
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { eraServer } from "./fixtures/era_server.ts";
import { memoryStore, redisStore, type Store } from "../store.ts";
import { startRedis } from "./_helpers/store_servers.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListRootsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { pokeUntil, quietFor, waitFor } from "./_helpers/wait.ts";

const ENVELOPE = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "era-test", version: "1" },
};

type Message = Record<string, unknown> & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

function modern(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 7,
): Message {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } },
  };
}

/** The headers the v2 client sends with `body`. */
function headersOf(body: Message): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": body.method!,
  };
  const name = body.params?.name;
  if (body.method === "tools/call" && typeof name === "string") {
    headers["mcp-name"] = encodeHeaderValue(name);
  }
  return headers;
}

function post(
  handler: (req: Request) => Promise<Response>,
  body: Message,
  headers: Record<string, string | undefined> = headersOf(body),
  signal?: AbortSignal,
): Promise<Response> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined) clean[k] = v;
  }
  return handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: clean,
      body: JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(10_000),
    }),
  );
}

/** The JSON-RPC messages of a response (JSON, or SSE read to its end). */
async function messages(res: Response): Promise<Message[]> {
  const text = await res.text();
  if (res.headers.get("content-type")?.includes("application/json")) {
    return [JSON.parse(text)];
  }
  return text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));
}

async function answer(res: Response): Promise<Message> {
  const all = await messages(res);
  const found = all.find((m) => "result" in m || "error" in m);
  assert.ok(found, `no answer in ${JSON.stringify(all)}`);
  return found;
}

const SERVER_INFO = { name: "era-fixture", version: "1.2.3" };

Deno.test("modern: server/discover answers versions, capabilities, instructions, serverInfo and cache hints", async () => {
  await using handler = httpHandler(() => eraServer());
  const res = await post(handler, modern("server/discover"));
  assert.equal(res.status, 200);
  const { id, result } = await answer(res);
  assert.equal(id, 7);
  assert.deepEqual(result, {
    supportedVersions: [
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
      "2024-10-07",
    ],
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions: "Echoes text.",
    resultType: "complete",
    _meta: { [META.serverInfo]: SERVER_INFO },
    ttlMs: 0,
    cacheScope: "private",
  });
});

Deno.test("legacy: a server/discover probe without the envelope still gets 400 -32601 (ADR 0046)", async () => {
  await using handler = httpHandler(() => eraServer());
  const res = await post(handler, {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {},
  }, {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    jsonrpc: "2.0",
    error: { code: -32601, message: "Method not found" },
    id: 1,
  });
});

Deno.test("modern: tools/list and tools/call are stamped; lists carry the cache hints given", async () => {
  await using handler = httpHandler(() => eraServer(), {
    cacheHints: { ttlMs: 60_000, scope: "public" },
  });
  const listed = await answer(await post(handler, modern("tools/list")));
  const result = listed.result!;
  assert.deepEqual(
    (result.tools as { name: string }[]).map((t) => t.name),
    ["echo", "roots", "wait", "grow"],
  );
  assert.equal(result.resultType, "complete");
  assert.equal(result.ttlMs, 60_000);
  assert.equal(result.cacheScope, "public");
  assert.deepEqual(result._meta, { [META.serverInfo]: SERVER_INFO });
  const called = await answer(
    await post(
      handler,
      modern("tools/call", { name: "echo", arguments: { text: "hi" } }),
    ),
  );
  assert.deepEqual(called.result, {
    content: [{ type: "text", text: "echo: hi" }],
    resultType: "complete",
    _meta: { [META.serverInfo]: SERVER_INFO },
  });
});

Deno.test("modern: cacheScope is what the options say, however the factory is written", async () => {
  for (const scope of ["public", "private"] as const) {
    await using handler = httpHandler((_req: Request) => eraServer(), {
      cacheHints: { ttlMs: 5, scope },
    });
    const { result } = await answer(await post(handler, modern("tools/list")));
    assert.equal(result!.cacheScope, scope);
    assert.equal(result!.ttlMs, 5);
  }
  await using plain = httpHandler((_req: Request) => eraServer());
  const { result } = await answer(await post(plain, modern("tools/list")));
  assert.equal(result!.cacheScope, "private");
});

Deno.test("modern: cacheHints are checked when the handler is made", () => {
  assert.throws(
    () => httpHandler(() => eraServer(), { cacheHints: { ttlMs: -1 } }),
    {
      name: "TypeError",
      message:
        "httpHandler: cacheHints.ttlMs must be a non-negative integer of milliseconds, got -1",
    },
  );
});

Deno.test("modern: a resultType the server set is kept", async () => {
  await using handler = httpHandler(() => {
    const server = new Server({ name: "raw", version: "1" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler(
      CallToolRequestSchema,
      () => ({ content: [], resultType: "input_required" }),
    );
    return server;
  });
  const { result } = await answer(
    await post(handler, modern("tools/call", { name: "any", arguments: {} })),
  );
  assert.equal(result!.resultType, "input_required");
  assert.deepEqual(result!._meta, {
    [META.serverInfo]: { name: "raw", version: "1" },
  });
});

Deno.test("modern: headers that disagree with the body are refused with -32020", async () => {
  await using handler = httpHandler(() => eraServer());
  const call = modern("tools/call", { name: "echo", arguments: { text: "x" } });
  const cases: [string, Record<string, string | undefined>][] = [
    ["no MCP-Protocol-Version", {
      ...headersOf(call),
      "mcp-protocol-version": undefined,
    }],
    ["another MCP-Protocol-Version", {
      ...headersOf(call),
      "mcp-protocol-version": "2025-11-25",
    }],
    ["no Mcp-Method", { ...headersOf(call), "mcp-method": undefined }],
    ["another Mcp-Method", { ...headersOf(call), "mcp-method": "tools/list" }],
    ["no Mcp-Name", { ...headersOf(call), "mcp-name": undefined }],
    ["another Mcp-Name", { ...headersOf(call), "mcp-name": "roots" }],
    ["a malformed base64 Mcp-Name", {
      ...headersOf(call),
      "mcp-name": "=?base64?***?=",
    }],
  ];
  for (const [what, headers] of cases) {
    const res = await post(handler, call, headers);
    assert.equal(res.status, 400, what);
    const body = await res.json();
    assert.equal(body.error.code, -32020, what);
    assert.equal(body.id, 7, what);
    assert.match(body.error.message, /^Header mismatch: /, what);
  }
});

Deno.test("modern: a header mismatch names the first header that disagrees — version, method, name — byte for byte", async () => {
  await using handler = httpHandler(() => eraServer());
  const call = modern("tools/call", { name: "echo", arguments: { text: "x" } });
  const right = headersOf(call);
  const version = `the envelope names protocol version ${MODERN}`;
  const cases: [Record<string, string | undefined>, string][] = [
    [{
      "mcp-protocol-version": "2025-11-25",
      "mcp-method": "tools/list",
      "mcp-name": "roots",
    }, `${version} but MCP-Protocol-Version says 2025-11-25`],
    [
      { "mcp-protocol-version": undefined, "mcp-method": undefined },
      `${version} but the MCP-Protocol-Version header is absent`,
    ],
    [
      { "mcp-method": undefined, "mcp-name": "roots" },
      "the body's method is tools/call but the Mcp-Method header is absent",
    ],
    [
      { "mcp-method": "tools/list", "mcp-name": undefined },
      "the body's method is tools/call but Mcp-Method says tools/list",
    ],
    [
      { "mcp-name": undefined },
      'the body\'s params.name is "echo" but the Mcp-Name header is absent',
    ],
    [
      { "mcp-name": "roots" },
      'the body\'s params.name is "echo" but Mcp-Name says "roots"',
    ],
    [
      { "mcp-name": "=?base64?***?=" },
      "the Mcp-Name header's base64 form is malformed",
    ],
  ];
  for (const [wrong, message] of cases) {
    const res = await post(handler, call, { ...right, ...wrong });
    assert.equal(res.status, 400, message);
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32020, message: `Header mismatch: ${message}` },
    });
  }
});

Deno.test("modern: an Mcp-Name in its base64 form matches a non-ASCII name", async () => {
  await using handler = httpHandler(() => eraServer());
  const call = modern("tools/call", { name: "échö", arguments: {} });
  const headers = headersOf(call);
  assert.match(headers["mcp-name"], /^=\?base64\?/);
  const res = await post(handler, call, headers);
  assert.equal(res.status, 200);
  const { error } = await answer(res);
  // Past the header checks: the tool is unknown to the server.
  assert.equal(error?.code, -32602);
});

Deno.test("modern: a version not served is refused with -32022 and the supported list", async () => {
  await using handler = httpHandler(() => eraServer());
  const body = modern("tools/list", {
    _meta: { [META.protocolVersion]: "2099-01-01" },
  });
  const res = await post(handler, body, {
    ...headersOf(body),
    "mcp-protocol-version": "2099-01-01",
  });
  assert.equal(res.status, 400);
  const json = await res.json();
  assert.equal(json.id, 7);
  assert.equal(json.error.code, -32022);
  assert.equal(json.error.data.requested, "2099-01-01");
  assert.deepEqual(json.error.data.supported.slice(0, 2), [
    "2026-07-28",
    "2025-11-25",
  ]);
});

Deno.test("modern: a modern MCP-Protocol-Version on a request without the envelope is refused with -32602", async () => {
  await using handler = httpHandler(() => eraServer());
  const res = await post(handler, {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/list",
  }, {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/list",
  });
  assert.equal(res.status, 400);
  const json = await res.json();
  assert.equal(json.error.code, -32602);
  assert.equal(json.id, 3);
});

Deno.test("modern: a request needing a client capability the envelope lacks gets -32021", async () => {
  // The handler asks for the roots in its call's context (the request
  // names the call it serves).
  await using handler = httpHandler(() => {
    const server = new Server({ name: "raw", version: "1" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
      const { roots } = await extra.sendRequest(
        { method: "roots/list" },
        ListRootsResultSchema,
      );
      return { content: [{ type: "text", text: `${roots.length} roots` }] };
    });
    return server;
  });
  const res = await post(
    handler,
    modern("tools/call", { name: "roots", arguments: {} }),
  );
  const { error, id } = await answer(res);
  assert.equal(id, 7);
  assert.equal(error?.code, -32021);
  assert.equal(
    error?.message,
    'Missing required client capability: serving "tools/call" needs roots/list, which the request\'s clientCapabilities do not declare',
  );
  assert.deepEqual(error?.data, { requiredCapabilities: { roots: {} } });
});

Deno.test("modern: requests need no session in session mode, and open none", async () => {
  await using handler = httpHandler(() => eraServer(), { sessions: true });
  const res = await post(handler, modern("tools/list"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("mcp-session-id"), null);
  const { result } = await answer(res);
  assert.equal((result!.tools as unknown[]).length, 4);
  assert.equal(handler.stats().sessions, 0);
});

Deno.test("modern: closing a call's stream cancels the call", async () => {
  let aborted: (reason: unknown) => void = () => {};
  const seen = new Promise<unknown>((resolve) => aborted = resolve);
  await using handler = httpHandler(() => eraServer({ onAbort: aborted }));
  const ac = new AbortController();
  const res = await post(
    handler,
    modern("tools/call", { name: "wait", arguments: {} }),
    undefined,
    ac.signal,
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  await res.body!.cancel();
  const reason = await Promise.race([
    seen,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error("the tool was not cancelled")), 5000)
    ),
  ]);
  assert.ok(reason !== undefined);
});

Deno.test("modern: subscriptions/listen acknowledges, then delivers tools list changes stamped with its id", async () => {
  await using handler = httpHandler(() => eraServer());
  const res = await post(
    handler,
    modern("subscriptions/listen", {
      notifications: { toolsListChanged: true, promptsListChanged: true },
    }, "sub-1"),
  );
  assert.equal(res.status, 200);
  const { next, reader } = sseReader(res);
  assert.deepEqual(await next(), {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    // Prompts are not served: only tools is honored.
    params: {
      notifications: { toolsListChanged: true },
      _meta: { [META.subscriptionId]: "sub-1" },
    },
  });
  await handler.listChanged("tools");
  await handler.listChanged("prompts");
  assert.deepEqual(await next(), {
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { [META.subscriptionId]: "sub-1" } },
  });
  await reader.cancel();
});

/** Reads a response's SSE events one by one. */
function sseReader(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Message[] = [];
  let buffer = "";
  const next = async (): Promise<Message> => {
    while (events.length === 0) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
      const parts = buffer.split("\n\n");
      buffer = parts.pop()!;
      for (const part of parts) {
        const data = part.split("\n").find((l) => l.startsWith("data: "));
        if (data !== undefined && data.length > 6) {
          events.push(JSON.parse(data.slice(6)));
        }
      }
    }
    return events.shift()!;
  };
  return { next, reader };
}

Deno.test("modern: with sessions in KV, listChanged on one instance reaches a listen stream open on another", async () => {
  const kv = await Deno.openKv(":memory:");
  const errors: Error[] = [];
  try {
    await using a = httpHandler(() => eraServer(), {
      sessions: true,
      store: kvStore(kv, { pollInterval: 20 }),
      onerror: (error) => errors.push(error),
    });
    await using b = httpHandler(() => eraServer(), {
      sessions: true,
      store: kvStore(kv, { pollInterval: 20 }),
      onerror: (error) => errors.push(error),
    });
    const res = await post(
      a,
      modern("subscriptions/listen", {
        notifications: { toolsListChanged: true },
      }, 41),
    );
    const { next, reader } = sseReader(res);
    const ack = await next();
    assert.equal(ack.method, "notifications/subscriptions/acknowledged");
    // The watch reads the current state first (a change before that is
    // its starting point): changed until the stream hears of it.
    const changed = await pokeUntil(
      () => b.listChanged("tools"),
      next(),
      "a list change from the other instance",
      { signal: AbortSignal.timeout(20_000), everyMs: 50 },
    );
    assert.deepEqual(changed, {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: 41 } },
    });
    await reader.cancel();
  } finally {
    kv.close();
  }
  // Closed, the handlers no longer read the store: closing the store after
  // them is no bus failure (a watch still polling would say one within a
  // poll interval).
  await quietFor(60, "no bus failure from a watch polling a closed store");
  assert.deepEqual(errors.map((e) => e.message), []);
});

Deno.test("modern: with sessions in a contract store (memory, Redis), listChanged on one instance reaches a listen stream open on another", async () => {
  const server = await startRedis();
  try {
    const stores: [string, () => Store][] = [
      ["memory", () => shared],
      ["redis", () => redisStore(server.url)],
    ];
    const shared = memoryStore();
    for (const [kind, open] of stores) {
      // Two handles on the store: two instances' connections.
      await using storeA = open();
      await using storeB = open();
      await using a = httpHandler(() => eraServer(), {
        sessions: true,
        store: storeA,
      });
      await using b = httpHandler(() => eraServer(), {
        sessions: true,
        store: storeB,
      });
      const res = await post(
        a,
        modern("subscriptions/listen", {
          notifications: { toolsListChanged: true },
        }, 41),
      );
      const { next, reader } = sseReader(res);
      const ack = await next();
      assert.equal(ack.method, "notifications/subscriptions/acknowledged");
      // The list change is pushed: published until the subscription is in
      // force (a publish before it reaches nobody), then read once.
      const changed = await pokeUntil(
        () => b.listChanged("tools"),
        next(),
        `${kind}: a list change from the other instance`,
        { signal: AbortSignal.timeout(5000), everyMs: 50 },
      );
      assert.deepEqual(changed, {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { [META.subscriptionId]: 41 } },
      }, kind);
      await reader.cancel();
    }
  } finally {
    await server.stop();
  }
});

Deno.test("modern: listChanged refuses a list it does not know", async () => {
  await using handler = httpHandler(() => eraServer());
  await assert.rejects(
    handler.listChanged("widgets" as "tools"),
    {
      name: "TypeError",
      message:
        'httpHandler: listChanged(list): list must be "tools", "prompts" or "resources", got "widgets"',
    },
  );
});

Deno.test("modern: a batch carrying a modern request is refused with -32600", async () => {
  await using handler = httpHandler(() => eraServer());
  const res = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify([
        modern("tools/list", {}, 1),
        modern("ping", {}, 2),
      ]),
    }),
  );
  assert.equal(res.status, 400);
  const json = await res.json();
  assert.equal(json.error.code, -32600);
});

Deno.test("modern: a reused server is initialized again only for another client", async () => {
  let made = 0;
  let initialized = 0;
  let closes = 0;
  await using handler = httpHandler(() => {
    made++;
    const server = eraServer();
    server.oninitialized = () => initialized++;
    server.onclose = () => void closes++;
    return server;
  }, { reuseServers: true });
  for (let i = 0; i < 3; i++) {
    const { result } = await answer(await post(handler, modern("tools/list")));
    assert.equal(result!.resultType, "complete");
    // The pool takes the server back once its answer was delivered (closed).
    await waitFor(() => closes > i, "the server closed after its answer");
  }
  assert.equal(made, 1);
  assert.equal(initialized, 1);
  const other = modern("tools/list", {
    _meta: { [META.clientInfo]: { name: "other", version: "2" } },
  });
  await answer(await post(handler, other));
  assert.equal(initialized, 2);
});
