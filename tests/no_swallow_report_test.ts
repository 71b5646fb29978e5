/**
 * Where a failure could lose something, it goes to the channel its host
 * already has instead of an empty catch: a store write the shared sessions
 * failed (httpHandler's `onerror`), a server connection whose close failed
 * (connectServers' `onError`), a final answer the era transport could not
 * send (the transport's `onerror`).
 */

import assert from "node:assert/strict";
import { connectServers, InMemoryTransport } from "../mod.ts";
import { McpClient } from "../runtime.ts";
import { memoryStore, type Store } from "../store.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { EraTransport } from "../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../src/runtime/era/cache_hints.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { POST_HEADERS } from "./fixtures/http_test_server.ts";
import { eraServer } from "./fixtures/era_server.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

/** The first error `pick` accepts, or a failure after 10 s. */
function latch(pick: (error: Error) => boolean): {
  report: (error: Error) => void;
  reported: Promise<Error>;
} {
  let resolve!: (error: Error) => void;
  const reported = new Promise<Error>((r) => (resolve = r));
  const deadline = AbortSignal.timeout(10_000);
  const timedOut = new Promise<never>((_, reject) =>
    deadline.addEventListener(
      "abort",
      () => reject(new Error("the failure was never reported")),
      { once: true },
    )
  );
  return {
    report: (error) => {
      if (pick(error)) resolve(error);
    },
    reported: Promise.race([reported, timedOut]),
  };
}

function request(headers: Record<string, string>, body: unknown): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

Deno.test("sessions: a store that fails to mark a delivered stream is reported to onerror", async () => {
  await using inner = memoryStore();
  const refused = new Error("disk full");
  // The store writes everything but the delivered-stream mark.
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "set") {
        return (k: string, value: unknown, options?: { ttlMs?: number }) =>
          k.includes("/dropped/")
            ? Promise.reject(refused)
            : target.set(k, value, options);
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Store;
  const { report, reported } = latch((e) => e.cause === refused);
  await using handler = httpHandler(() => buildToolServer(), {
    sessions: true,
    store,
    onerror: report,
  });
  const init = await handler(request({}, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "swallow-test", version: "1" },
    },
  }));
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const call = await handler(request({
    "mcp-session-id": sid,
    "mcp-protocol-version": "2025-11-25",
  }, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "wait", arguments: { ms: 10 } },
  }));
  const text = await call.text();
  assert.match(text, /"id":1/);
  const error = await reported;
  assert.match(
    error.message,
    /^httpHandler: the shared store did not drop delivered stream .+ of session .+; its events stay until the session expires$/,
  );
  assert.equal(error.cause, refused);
});

Deno.test("connectServers: a server connection whose close fails is reported to onError", async () => {
  const refused = new Error("the process group could not be signalled");
  const { report, reported } = latch((e) => e.cause === refused);
  const close = McpClient.prototype.close;
  // The real close runs (the child ends), then fails as a kill that was refused would.
  McpClient.prototype.close = async function (this: McpClient) {
    await close.call(this);
    throw refused;
  };
  try {
    const servers = await connectServers({
      g: {
        command: Deno.execPath(),
        args: [
          "run",
          "-A",
          "--quiet",
          new URL("./fixtures/growing_server.ts", import.meta.url).pathname,
        ],
        env: childEnv(),
      },
    }, { onError: report });
    assert.equal(servers.error, undefined);
    await servers.close();
    const error = await reported;
    assert.equal(
      error.message,
      'server "g": closing its connection failed; its process may still run',
    );
  } finally {
    McpClient.prototype.close = close;
  }
});

Deno.test("EraTransport: a listen's final answer that cannot be sent is reported to onerror", async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const refused = new Error("the connection is gone");
  const send = serverSide.send.bind(serverSide);
  // Every message goes out except the listen's final answer.
  serverSide.send = (message, options) =>
    (message as { id?: unknown }).id === "L" && "result" in message
      ? Promise.reject(refused)
      : send(message, options);
  const acknowledged = Promise.withResolvers<void>();
  clientSide.onmessage = (message) => {
    const m = message as { method?: string };
    if (m.method === "notifications/subscriptions/acknowledged") {
      acknowledged.resolve();
    }
  };
  await clientSide.start();
  const server = eraServer();
  const era = new EraTransport(serverSide, {
    cacheHints: resolveCacheHints(undefined, "test"),
  });
  await server.connect(era);
  const { report, reported } = latch((e) => e === refused);
  server.onerror = report;
  try {
    await clientSide.send({
      jsonrpc: "2.0",
      id: "L",
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
          [META.clientCapabilities]: {},
        },
      },
    });
    await acknowledged.promise;
    await era.endListens();
    assert.equal(await reported, refused);
  } finally {
    await server.close();
  }
});
