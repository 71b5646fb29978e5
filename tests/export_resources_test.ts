/**
 * Resources, prompts and completions exported by `exportResources` and
 * `exportPrompts`, over real listeners on 127.0.0.1 in both eras: the SDK
 * client in sessions (2025-11-25) and raw modern requests (2026-07-28),
 * plus stateless legacy requests. Bytes round-trip exactly, an update
 * reaches only the sessions (or listen streams) subscribed to its URI,
 * lists page with a cursor, templates match and read, prompts come back
 * with their images and embedded resources, completions answer.
 */

import assert from "node:assert/strict";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  McpError,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Client,
  httpHandler,
  type HttpHandlerOptions,
  InMemoryTransport,
} from "../mod.ts";
import { EraTransport } from "../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../src/runtime/era/cache_hints.ts";
import {
  encodeHeaderValue,
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import {
  BYTES,
  counterResource,
  otherResource,
  surfaceServer,
} from "./fixtures/surface_server.ts";
import { pokeUntil } from "./_helpers/wait.ts";

async function withListener(
  options: Partial<HttpHandlerOptions>,
  body: (url: URL) => Promise<void>,
  pageSize?: number,
): Promise<void> {
  const ac = new AbortController();
  const handler = httpHandler(() => surfaceServer(pageSize), {
    ...options,
    signal: ac.signal,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    handler,
  );
  try {
    await body(new URL(`http://127.0.0.1:${server.addr.port}/mcp`));
  } finally {
    ac.abort();
    await server.finished;
  }
}

async function legacyClient(url: URL): Promise<Client> {
  const client = new Client({ name: "surface-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

function decode(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

const T = { signal: AbortSignal.timeout(10_000) };

Deno.test("legacy sessions: lists page, bytes round-trip, templates read, prompts and completions answer", async () => {
  await withListener({ sessions: true }, async (url) => {
    const client = await legacyClient(url);
    try {
      assert.deepEqual(client.getServerCapabilities(), {
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        tools: { listChanged: true },
        logging: {},
      });
      // Pages of 3 over 8 resources: 3, 3, 2.
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources({ cursor }, T);
        pages.push(page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      assert.deepEqual(pages, [
        ["test://counter", "test://other", "test://blob"],
        ["test://many/0", "test://many/1", "test://many/2"],
        ["test://many/3", "test://many/4"],
      ]);
      const bad = await client.listResources({ cursor: "nope" }, T).catch((e) =>
        e
      );
      assert.ok(bad instanceof McpError);
      assert.equal(bad.code, -32602);
      assert.equal(
        bad.message,
        "MCP error -32602: invalid cursor for resources/list",
      );

      const listed = (await client.listResources(undefined, T)).resources[2];
      assert.deepEqual(listed, {
        uri: "test://blob",
        name: "blob",
        title: "All the bytes",
        description: "Binary contents.",
        mimeType: "application/octet-stream",
        annotations: { audience: ["user"], priority: 0.5 },
        size: 512,
      });
      const { contents } = await client.readResource({ uri: "test://blob" }, T);
      assert.equal(contents.length, 1);
      assert.equal(contents[0].mimeType, "application/octet-stream");
      assert.deepEqual(decode((contents[0] as { blob: string }).blob), BYTES);

      const templates = await client.listResourceTemplates(undefined, T);
      assert.deepEqual(templates.resourceTemplates, [{
        uriTemplate: "files://{dir}/{name}{?rev}",
        name: "file",
        description: "A file by directory and name.",
        mimeType: "application/json",
      }]);
      const file = await client.readResource(
        { uri: "files://docs/read%20me.md?rev=3" },
        T,
      );
      assert.deepEqual(file.contents, [{
        uri: "files://docs/read%20me.md?rev=3",
        mimeType: "application/json",
        text: '{"dir":"docs","name":"read me.md","rev":"3"}',
      }]);
      const unknown = await client.readResource({ uri: "files://a/b/c" }, T)
        .catch((e) => e);
      assert.equal(unknown.code, -32602);
      assert.equal(
        unknown.message,
        'MCP error -32602: unknown resource "files://a/b/c"',
      );
      assert.deepEqual(unknown.data, { uri: "files://a/b/c" });

      const review = await client.getPrompt({
        name: "review",
        arguments: { language: "ts", code: "let x = 1" },
      }, T);
      assert.deepEqual(review, {
        description: "A ts review",
        messages: [
          {
            role: "user",
            content: { type: "text", text: "Review this ts:\nlet x = 1" },
          },
          { role: "assistant", content: { type: "text", text: "Sure." } },
        ],
      });
      const invalid = await client.getPrompt({
        name: "review",
        arguments: { language: "rust" },
      }, T).catch((e) => e);
      assert.equal(invalid.code, -32602);
      assert.match(
        invalid.message,
        /^MCP error -32602: invalid arguments for prompt "review": language: .+; code: .+$/,
      );
      const picture = await client.getPrompt({ name: "picture" }, T);
      assert.equal(picture.messages[0].content.type, "image");
      assert.deepEqual(
        decode((picture.messages[0].content as { data: string }).data),
        BYTES,
      );
      assert.deepEqual(picture.messages[1].content, {
        type: "resource",
        resource: {
          uri: "test://blob",
          mimeType: "text/plain",
          text: "embedded",
        },
      });
      const { prompts } = await client.listPrompts(undefined, T);
      assert.deepEqual(prompts[0].arguments, [
        { name: "language", description: "The language", required: true },
        { name: "code", description: "The code", required: true },
      ]);

      const language = await client.complete({
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "language", value: "g" },
      }, T);
      assert.deepEqual(language.completion, {
        values: ["go"],
        total: 1,
        hasMore: false,
      });
      const name = await client.complete({
        ref: { type: "ref/resource", uri: "files://{dir}/{name}{?rev}" },
        argument: { name: "name", value: "" },
        context: { arguments: { dir: "docs" } },
      }, T);
      assert.deepEqual(name.completion.values, ["readme.md", "guide.md"]);
      const none = await client.complete({
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "code", value: "x" },
      }, T);
      assert.deepEqual(none.completion.values, []);
      const nowhere = await client.complete({
        ref: { type: "ref/prompt", name: "missing" },
        argument: { name: "a", value: "" },
      }, T).catch((e) => e);
      assert.equal(nowhere.code, -32602);
      assert.equal(
        nowhere.message,
        'MCP error -32602: unknown prompt "missing"',
      );
    } finally {
      await client.close();
    }
  }, 3);
});

/** Resolves with the URIs a client is told changed, in order, until `count`. */
function updatesOf(client: Client): {
  seen: string[];
  until: (uri: string) => Promise<void>;
} {
  const seen: string[] = [];
  const waiters: { uri: string; resolve: () => void }[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(n.params.uri);
    for (const w of waiters.filter((w) => w.uri === n.params.uri)) w.resolve();
  });
  return {
    seen,
    until: (uri) =>
      new Promise<void>((resolve, reject) => {
        if (seen.includes(uri)) return resolve();
        const signal = AbortSignal.timeout(5000);
        signal.onabort = () =>
          reject(new Error(`no update of ${uri}: ${seen}`));
        waiters.push({ uri, resolve });
      }),
  };
}

Deno.test("legacy sessions: an update reaches only the session subscribed to its URI, and none after unsubscribe", async () => {
  await withListener({ sessions: true }, async (url) => {
    const a = await legacyClient(url);
    const b = await legacyClient(url);
    try {
      const seenA = updatesOf(a);
      const seenB = updatesOf(b);
      await a.subscribeResource({ uri: "test://counter" }, T);
      await a.subscribeResource({ uri: "test://other" }, T);
      await b.subscribeResource({ uri: "test://other" }, T);
      const refused = await b.subscribeResource({ uri: "test://none" }, T)
        .catch((e) => e);
      assert.equal(refused.code, -32602);
      // Both GET streams are open once each has heard of `other`.
      // An update sent before a GET stream opens is not kept for it.
      await pokeUntil(
        () => otherResource.notifyUpdated(),
        Promise.all([seenA.until("test://other"), seenB.until("test://other")]),
        "both GET streams hear of `other`",
      );
      seenA.seen.length = seenB.seen.length = 0;
      counterResource.notifyUpdated();
      otherResource.notifyUpdated();
      await seenA.until("test://other");
      await seenB.until("test://other");
      assert.deepEqual(seenA.seen, ["test://counter", "test://other"]);
      // B never subscribed to counter: its stream carried only `other`.
      assert.deepEqual(seenB.seen, ["test://other"]);

      await a.unsubscribeResource({ uri: "test://counter" }, T);
      seenA.seen.length = 0;
      counterResource.notifyUpdated();
      otherResource.notifyUpdated();
      await seenA.until("test://other");
      assert.deepEqual(seenA.seen, ["test://other"]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

Deno.test("legacy stateless: resources and prompts take the SDK's path and answer", async () => {
  await withListener({}, async (url) => {
    const client = await legacyClient(url);
    try {
      const { contents } = await client.readResource({ uri: "test://blob" }, T);
      assert.deepEqual(decode((contents[0] as { blob: string }).blob), BYTES);
      const got = await client.getPrompt({ name: "picture" }, T);
      assert.equal(got.messages.length, 2);
      const listed = await client.listResources(undefined, T);
      assert.equal(listed.resources.length, 8);
      assert.equal(listed.nextCursor, undefined);
    } finally {
      await client.close();
    }
  });
});

type Message = Record<string, unknown> & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

const ENVELOPE = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "surface-test", version: "1" },
};

function modernPost(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  id: string | number = 1,
  signal: AbortSignal = AbortSignal.timeout(10_000),
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  const name = method === "resources/read" ? params.uri : params.name;
  if (
    (method === "resources/read" || method === "prompts/get") &&
    typeof name === "string"
  ) headers["mcp-name"] = encodeHeaderValue(name);
  return fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: ENVELOPE },
    }),
    signal,
  });
}

async function modernCall(
  url: URL,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Message> {
  const res = await modernPost(url, method, params);
  const text = await res.text();
  const all: Message[] = res.headers.get("content-type")?.includes("json")
    ? [JSON.parse(text)]
    : text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
  const found = all.find((m) => "result" in m || "error" in m);
  assert.ok(found, `no answer in ${text}`);
  return found;
}

Deno.test("modern: lists page with cache hints, bytes round-trip, prompts and completions answer", async () => {
  await withListener(
    { cacheHints: { ttlMs: 60_000 } },
    async (url) => {
      const first = await modernCall(url, "resources/list");
      assert.deepEqual(
        (first.result!.resources as { uri: string }[]).map((r) => r.uri),
        ["test://counter", "test://other", "test://blob"],
      );
      assert.equal(first.result!.ttlMs, 60_000);
      assert.equal(first.result!.cacheScope, "private");
      const second = await modernCall(url, "resources/list", {
        cursor: first.result!.nextCursor,
      });
      assert.deepEqual(
        (second.result!.resources as { uri: string }[]).map((r) => r.uri),
        ["test://many/0", "test://many/1", "test://many/2"],
      );
      const read = await modernCall(url, "resources/read", {
        uri: "test://blob",
      });
      const [item] = read.result!.contents as { blob: string }[];
      assert.deepEqual(decode(item.blob), BYTES);
      assert.equal(read.result!.ttlMs, 60_000);
      const templates = await modernCall(url, "resources/templates/list");
      assert.equal(templates.result!.ttlMs, 60_000);
      const file = await modernCall(url, "resources/read", {
        uri: "files://src/a.ts",
      });
      assert.deepEqual(file.result!.contents, [{
        uri: "files://src/a.ts",
        mimeType: "application/json",
        text: '{"dir":"src","name":"a.ts"}',
      }]);
      const got = await modernCall(url, "prompts/get", {
        name: "picture",
      });
      const messages = got.result!.messages as { content: { data?: string } }[];
      assert.deepEqual(decode(messages[0].content.data!), BYTES);
      assert.equal(got.result!.ttlMs, undefined);
      const listed = await modernCall(url, "prompts/list");
      assert.equal(listed.result!.ttlMs, 60_000);
      const invalid = await modernCall(url, "prompts/get", {
        name: "review",
        arguments: { language: "ts" },
      });
      assert.equal(invalid.error!.code, -32602);
      assert.match(
        invalid.error!.message,
        /^invalid arguments for prompt "review": code: /,
      );
      const completed = await modernCall(url, "completion/complete", {
        ref: { type: "ref/resource", uri: "files://{dir}/{name}{?rev}" },
        argument: { name: "dir", value: "d" },
      });
      assert.deepEqual(completed.result!.completion, {
        values: ["docs", "data"],
        total: 2,
        hasMore: false,
      });
    },
    3,
  );
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

Deno.test("modern: a listen's resourceSubscriptions get the updates of their URIs only", async () => {
  await withListener({}, async (url) => {
    const ac = new AbortController();
    try {
      const one = sseReader(
        await modernPost(
          url,
          "subscriptions/listen",
          {
            notifications: {
              resourceSubscriptions: ["test://counter", "test://none"],
            },
          },
          "listen-1",
          ac.signal,
        ),
      );
      const two = sseReader(
        await modernPost(
          url,
          "subscriptions/listen",
          {
            notifications: { resourceSubscriptions: ["test://other"] },
          },
          "listen-2",
          ac.signal,
        ),
      );
      // An unknown URI is not honored.
      assert.deepEqual(await one.next(), {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          notifications: { resourceSubscriptions: ["test://counter"] },
          _meta: { [META.subscriptionId]: "listen-1" },
        },
      });
      assert.deepEqual(
        (await two.next()).params?.notifications,
        { resourceSubscriptions: ["test://other"] },
      );
      counterResource.notifyUpdated();
      otherResource.notifyUpdated();
      assert.deepEqual(await one.next(), {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: {
          uri: "test://counter",
          _meta: { [META.subscriptionId]: "listen-1" },
        },
      });
      // The second stream's first event is `other`: `counter` never reached it.
      assert.deepEqual(await two.next(), {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: {
          uri: "test://other",
          _meta: { [META.subscriptionId]: "listen-2" },
        },
      });
      await one.reader.cancel();
      await two.reader.cancel();
    } finally {
      ac.abort();
    }
  });
});

Deno.test("modern, one connection (serveStdio's shape): two listens on one server each get their own URIs' updates", async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const inbox: Message[] = [];
  let wake: (() => void) | undefined;
  clientSide.onmessage = (message) => {
    inbox.push(message as Message);
    wake?.();
  };
  await clientSide.start();
  const server = surfaceServer();
  await server.connect(
    new EraTransport(serverSide, {
      cacheHints: resolveCacheHints(undefined, "test"),
      oneClient: true,
    }),
  );
  const signal = AbortSignal.timeout(5000);
  const next = async (pick: (m: Message) => boolean): Promise<Message> => {
    for (;;) {
      const i = inbox.findIndex(pick);
      if (i >= 0) return inbox.splice(i, 1)[0];
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  };
  const listen = (id: string, uris: string[]) =>
    clientSide.send({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: {
        notifications: { resourceSubscriptions: uris },
        _meta: ENVELOPE,
      },
    } as never);
  const acked = (id: string) => (m: Message) =>
    m.method === "notifications/subscriptions/acknowledged" &&
    (m.params?._meta as Record<string, unknown>)[META.subscriptionId] === id;
  await listen("l1", ["test://counter"]);
  await next(acked("l1"));
  await listen("l2", ["test://other"]);
  await next(acked("l2"));
  counterResource.notifyUpdated();
  otherResource.notifyUpdated();
  const updated = (m: Message) =>
    m.method === "notifications/resources/updated";
  const first = await next(updated);
  const second = await next(updated);
  assert.deepEqual([first.params, second.params], [
    { uri: "test://counter", _meta: { [META.subscriptionId]: "l1" } },
    { uri: "test://other", _meta: { [META.subscriptionId]: "l2" } },
  ]);
  await server.close();
  assert.deepEqual(inbox.filter(updated), []);
});
