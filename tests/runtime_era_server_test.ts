/**
 * `EraTransport` (src/runtime/era/era_server.ts), the message-level adapter
 * `serveStdio` and the HTTP handler share, on the SDK's in-memory
 * transports: modern requests served without `initialize`, `-32022` for a
 * version not served, a legacy client's traffic untouched, and a
 * `subscriptions/listen` ended by `notifications/cancelled`.
 */

import assert from "node:assert/strict";
import { InMemoryTransport } from "../mod.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { EraTransport } from "../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../src/runtime/era/cache_hints.ts";
import { type EraHooks, eraServer } from "./fixtures/era_server.ts";
import { latch, quietFor } from "./_helpers/wait.ts";

type Message = Record<string, unknown> & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

const SERVER_INFO = { name: "era-fixture", version: "1.2.3" };

/** A fixture server behind an `EraTransport`, and the client's side of it. */
async function connected(
  hints = resolveCacheHints(undefined, "test"),
  hooks: EraHooks = {},
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const inbox: Message[] = [];
  const waiters: (() => void)[] = [];
  clientSide.onmessage = (message) => {
    inbox.push(message as Message);
    for (const wake of waiters.splice(0)) wake();
  };
  await clientSide.start();
  const server = eraServer(hooks);
  const era = new EraTransport(serverSide, { cacheHints: hints });
  await server.connect(era);
  const send = (message: Message) => clientSide.send(message as never);
  /** The next message matching `pick`, within 5 s. */
  const next = async (pick: (m: Message) => boolean): Promise<Message> => {
    const deadline = AbortSignal.timeout(5000);
    for (;;) {
      const i = inbox.findIndex(pick);
      if (i >= 0) return inbox.splice(i, 1)[0];
      if (deadline.aborted) {
        throw new Error(`no such message in ${JSON.stringify(inbox)}`);
      }
      // Woken by the next message, or by the deadline.
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        deadline.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  };
  return { server, era, send, next, inbox };
}

function modern(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 1,
): Message {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META.protocolVersion]: MODERN,
        [META.clientCapabilities]: {},
        ...(params._meta as object),
      },
    },
  };
}

const answerTo = (id: string | number) => (m: Message) =>
  m.id === id && ("result" in m || "error" in m);

Deno.test("EraTransport: a modern client lists, calls and discovers with no initialize", async () => {
  const { server, send, next, inbox } = await connected(
    resolveCacheHints({ ttlMs: 1000, scope: "public" }, "test"),
  );
  try {
    await send(modern("tools/list", {}, 1));
    const listed = await next(answerTo(1));
    assert.equal(listed.result!.ttlMs, 1000);
    assert.equal(listed.result!.cacheScope, "public");
    assert.equal(listed.result!.resultType, "complete");
    assert.deepEqual(listed.result!._meta, { [META.serverInfo]: SERVER_INFO });
    await send(
      modern("tools/call", { name: "echo", arguments: { text: "a" } }, 2),
    );
    const called = await next(answerTo(2));
    assert.deepEqual(called.result!.content, [
      { type: "text", text: "echo: a" },
    ]);
    assert.equal("ttlMs" in called.result!, false);
    await send(modern("server/discover", {}, 3));
    const discovered = await next(answerTo(3));
    assert.equal(discovered.result!.supportedVersions instanceof Array, true);
    assert.deepEqual(discovered.result!.capabilities, {
      tools: { listChanged: true },
      logging: {},
    });
    // The internal initialize never reached the client.
    assert.equal(inbox.length, 0, JSON.stringify(inbox));
  } finally {
    await server.close();
  }
});

Deno.test("EraTransport: a version not served gets -32022 with the supported list", async () => {
  const { server, send, next } = await connected();
  try {
    await send(
      modern("tools/list", {
        _meta: { [META.protocolVersion]: "2030-01-01" },
      }, 9),
    );
    const { error } = await next(answerTo(9));
    assert.equal(error?.code, -32022);
    assert.equal(error?.data?.requested, "2030-01-01");
    assert.ok((error?.data?.supported as string[]).includes(MODERN));
  } finally {
    await server.close();
  }
});

Deno.test("EraTransport: a legacy client's traffic is untouched, its list changes too", async () => {
  const { server, send, next } = await connected();
  try {
    await send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "legacy", version: "1" },
      },
    });
    const init = await next(answerTo(0));
    assert.equal(init.result!.protocolVersion, "2025-11-25");
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const listed = await next(answerTo(1));
    assert.deepEqual(Object.keys(listed.result!), ["tools"]);
    await send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "grow", arguments: {} },
    });
    await next(answerTo(2));
    const changed = await next((m) =>
      m.method === "notifications/tools/list_changed"
    );
    assert.equal(changed.params, undefined);
  } finally {
    await server.close();
  }
});

Deno.test("EraTransport: a listen gets list changes until notifications/cancelled ends it", async () => {
  const { server, send, next, inbox } = await connected();
  try {
    await send(
      modern("subscriptions/listen", {
        notifications: { toolsListChanged: true },
      }, "L"),
    );
    const ack = await next((m) =>
      m.method === "notifications/subscriptions/acknowledged"
    );
    assert.deepEqual(ack.params, {
      notifications: { toolsListChanged: true },
      _meta: { [META.subscriptionId]: "L" },
    });
    await send(modern("tools/call", { name: "grow", arguments: {} }, 5));
    await next(answerTo(5));
    const changed = await next((m) =>
      m.method === "notifications/tools/list_changed"
    );
    assert.deepEqual(changed.params, { _meta: { [META.subscriptionId]: "L" } });
    await send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "L" },
    });
    await send(modern("tools/call", { name: "grow", arguments: {} }, 6));
    await next(answerTo(6));
    await quietFor(50, "no list change reaches a cancelled listen");
    assert.equal(
      inbox.filter((m) => m.method === "notifications/tools/list_changed")
        .length,
      0,
    );
  } finally {
    await server.close();
  }
});

Deno.test("EraTransport: a listen the server can honor nothing of ends at once, gracefully", async () => {
  const { server, send, next } = await connected();
  try {
    await send(
      modern("subscriptions/listen", {
        notifications: { promptsListChanged: true },
      }, 4),
    );
    const ack = await next((m) =>
      m.method === "notifications/subscriptions/acknowledged"
    );
    assert.deepEqual(ack.params?.notifications, {});
    const done = await next(answerTo(4));
    assert.deepEqual(done.result, {
      resultType: "complete",
      _meta: {
        [META.subscriptionId]: 4,
        [META.serverInfo]: SERVER_INFO,
      },
    });
  } finally {
    await server.close();
  }
});

Deno.test("resolveCacheHints: safe defaults, the scope as given, bad values refused", () => {
  assert.deepEqual(resolveCacheHints(undefined, "x"), {
    ttlMs: 0,
    scope: "private",
  });
  assert.deepEqual(resolveCacheHints({ scope: "public" }, "x"), {
    ttlMs: 0,
    scope: "public",
  });
  assert.throws(
    () => resolveCacheHints({ scope: "shared" as "public" }, "serveStdio"),
    {
      name: "TypeError",
      message:
        'serveStdio: cacheHints.scope must be "public" or "private", got "shared"',
    },
  );
});

Deno.test("EraTransport: notifications/cancelled stops a modern call (stdio's way to cancel)", async () => {
  let aborted: (reason: unknown) => void = () => {};
  const seen = new Promise<unknown>((resolve) => aborted = resolve);
  const started = latch();
  const { server, send } = await connected(undefined, {
    onAbort: aborted,
    onStart: () => started.open(),
  });
  try {
    await send(modern("tools/call", { name: "wait", arguments: {} }, 11));
    await started.promise;
    await send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 11, reason: "the user gave up" },
    });
    const reason = await Promise.race([
      seen,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the call was not cancelled")), 5000)
      ),
    ]);
    assert.equal(reason, "the user gave up");
  } finally {
    await server.close();
  }
});

Deno.test("EraTransport: endListens ends each open listen with its empty result", async () => {
  const { server, era, send, next } = await connected();
  try {
    await send(
      modern("subscriptions/listen", {
        notifications: { toolsListChanged: true },
      }, "S"),
    );
    await next((m) => m.method === "notifications/subscriptions/acknowledged");
    assert.equal(era.listening, true);
    await era.endListens();
    const done = await next(answerTo("S"));
    assert.deepEqual(done.result, {
      resultType: "complete",
      _meta: {
        [META.subscriptionId]: "S",
        [META.serverInfo]: SERVER_INFO,
      },
    });
    assert.equal(era.listening, false);
  } finally {
    await server.close();
  }
});
