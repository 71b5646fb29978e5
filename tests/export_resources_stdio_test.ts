/**
 * Resources and prompts on `serveStdio` in a real child process
 * (tests/fixtures/surface_server.ts), spoken to line by line, one
 * connection serving both eras: the legacy client's requests and a modern
 * client's take the SDK's path (the stdio fast path answers tools only),
 * and a tool's `notifyUpdated` reaches the legacy subscription and the
 * modern listen that named the URI.
 */

import assert from "node:assert/strict";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { BYTES } from "./fixtures/surface_server.ts";

const FIXTURE = new URL("./fixtures/surface_server.ts", import.meta.url)
  .pathname;

type Message = Record<string, unknown> & {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

function child() {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FIXTURE],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = process.stdin.getWriter();
  const lines = process.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  const inbox: Message[] = [];
  let buffer = "";
  const deadline = AbortSignal.timeout(20_000);
  /** The next message `pick` accepts (earlier ones stay in the inbox). */
  const next = async (pick: (m: Message) => boolean): Promise<Message> => {
    for (;;) {
      const i = inbox.findIndex(pick);
      if (i >= 0) return inbox.splice(i, 1)[0];
      deadline.throwIfAborted();
      const { value, done } = await lines.read();
      if (done) throw new Error(`stdout ended; inbox ${JSON.stringify(inbox)}`);
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        inbox.push(JSON.parse(buffer.slice(0, at)));
        buffer = buffer.slice(at + 1);
      }
    }
  };
  const send = (message: Record<string, unknown>) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const ask = async (message: Record<string, unknown>): Promise<Message> => {
    await send(message);
    return next((m) => m.id === message.id && !("method" in m));
  };
  const close = async () => {
    await writer.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await process.status;
  };
  return { ask, send, next, close };
}

const envelope = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "line-client", version: "1" },
};

function decode(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

Deno.test("serveStdio, legacy: resources and prompts answer, and a tool's update reaches the subscription", async () => {
  const { ask, send, next, close } = child();
  try {
    const init = await ask({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "line-client", version: "1" },
      },
    });
    assert.deepEqual(init.result?.capabilities, {
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      tools: { listChanged: true },
      logging: {},
    });
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const read = await ask({
      jsonrpc: "2.0",
      id: 2,
      method: "resources/read",
      params: { uri: "test://blob" },
    });
    const [item] = read.result?.contents as { blob: string }[];
    assert.deepEqual(decode(item.blob), BYTES);
    const got = await ask({
      jsonrpc: "2.0",
      id: 3,
      method: "prompts/get",
      params: { name: "review", arguments: { language: "go", code: "x" } },
    });
    assert.equal(got.result?.description, "A go review");
    await ask({
      jsonrpc: "2.0",
      id: 4,
      method: "resources/subscribe",
      params: { uri: "test://counter" },
    });
    const touched = await ask({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "touch", arguments: {} },
    });
    assert.deepEqual(touched.result?.content, [{
      type: "text",
      text: "touched",
    }]);
    const updated = await next((m) =>
      m.method === "notifications/resources/updated"
    );
    assert.deepEqual(updated.params, { uri: "test://counter" });
  } finally {
    await close();
  }
});

Deno.test("serveStdio, modern: reads stamped with cache hints, and a listen hears its URI's update", async () => {
  const { ask, send, next, close } = child();
  try {
    const read = await ask({
      jsonrpc: "2.0",
      id: 1,
      method: "resources/read",
      params: { uri: "files://docs/a.md", _meta: envelope },
    });
    assert.deepEqual(read.result?.contents, [{
      uri: "files://docs/a.md",
      mimeType: "application/json",
      text: '{"dir":"docs","name":"a.md"}',
    }]);
    assert.equal(read.result?.resultType, "complete");
    assert.equal(read.result?.ttlMs, 0);
    await send({
      jsonrpc: "2.0",
      id: "listen",
      method: "subscriptions/listen",
      params: {
        notifications: { resourceSubscriptions: ["test://counter"] },
        _meta: envelope,
      },
    });
    const ack = await next((m) =>
      m.method === "notifications/subscriptions/acknowledged"
    );
    assert.deepEqual(ack.params?.notifications, {
      resourceSubscriptions: ["test://counter"],
    });
    await ask({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "touch", arguments: {}, _meta: envelope },
    });
    const updated = await next((m) =>
      m.method === "notifications/resources/updated"
    );
    assert.deepEqual(updated.params, {
      uri: "test://counter",
      _meta: { [META.subscriptionId]: "listen" },
    });
  } finally {
    await close();
  }
});
