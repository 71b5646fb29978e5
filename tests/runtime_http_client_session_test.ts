/**
 * `connectHttp` after `404 Session not found`, over a real listener: the
 * server restarts (a new handler, its sessions gone) between two calls; the
 * next call begins a new session — one `initialize` — and succeeds.
 * Concurrent calls that meet the same 404 share that one `initialize`. A
 * server that forgets the new session at once fails the call with a
 * `SessionNotFoundError` after that one re-initialize (no loop).
 */

import assert from "node:assert/strict";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { SessionNotFoundError } from "../src/runtime/client/session_error.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";

const DEADLINE = () => AbortSignal.timeout(10_000);

/** A listener whose handler can be replaced (a restart) and that counts what it is sent. */
function restartable(options: { forgetAfterInit?: () => boolean } = {}) {
  const make = () => httpHandler(() => buildToolServer({}), { sessions: true });
  let handler = make();
  const handlers = [handler];
  const seen: string[] = [];
  let issued: string | undefined;
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (incoming, info) => {
      let req = incoming;
      if (req.method === "POST") {
        // Read once, handed on as a request of its own (no clone: a clone's
        // signal would follow the listener's).
        const body = await incoming.text();
        req = new Request(incoming.url, {
          method: "POST",
          headers: incoming.headers,
          body,
        });
        const method = (JSON.parse(body) as { method?: string }).method ??
          "response";
        seen.push(method);
        // A server that loses each session at once.
        const session = req.headers.get("mcp-session-id");
        if (
          options.forgetAfterInit?.() && method !== "initialize" &&
          !method.startsWith("notifications/") &&
          session !== null && session === issued
        ) {
          await handler.close();
          handler = make();
          handlers.push(handler);
        }
      }
      const response = await handler(req, info);
      issued = response.headers.get("mcp-session-id") ?? issued;
      return response;
    },
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    seen,
    /** The server restarts: a new handler, every session gone. */
    async restart(): Promise<void> {
      await handler.close();
      handler = make();
      handlers.push(handler);
    },
    async close(): Promise<void> {
      for (const h of handlers) await h.close();
      await listener.shutdown();
    },
  };
}

Deno.test("connectHttp begins a new session after a restart and the call goes through, once re-initialized", async () => {
  const server = restartable();
  const client = await connectHttp(server.url, {
    protocol: "legacy",
    signal: DEADLINE(),
  });
  try {
    const first = client.transport?.sessionId;
    assert.ok(first !== undefined);
    const before = await client.callTool({ name: "echo", arguments: { a: 1 } });
    assert.equal(before.isError, undefined);
    await server.restart();
    server.seen.length = 0;
    const after = await client.callTool({ name: "echo", arguments: { a: 2 } });
    assert.equal(after.isError, undefined);
    assert.match(JSON.stringify(after.content), /\\"a\\":2/);
    assert.notEqual(client.transport?.sessionId, first);
    // The 404'd call, one initialize, the initialized notification, the call again.
    assert.deepEqual(
      server.seen.filter((m) => m !== "response"),
      ["tools/call", "initialize", "notifications/initialized", "tools/call"],
    );
    // Later calls use the new session, with no further initialize.
    server.seen.length = 0;
    await client.listTools();
    assert.deepEqual(server.seen, ["tools/list"]);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("calls that meet the same 404 together share one initialize", async () => {
  const server = restartable();
  const client = await connectHttp(server.url, {
    protocol: "legacy",
    signal: DEADLINE(),
  });
  try {
    await server.restart();
    server.seen.length = 0;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => client.listTools()),
    );
    assert.equal(results.length, 8);
    assert.equal(server.seen.filter((m) => m === "initialize").length, 1);
    assert.equal(server.seen.filter((m) => m === "tools/list").length, 16);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("a second 404 right after the new session fails the call with SessionNotFoundError, no loop", async () => {
  let forgetting = false;
  const server = restartable({ forgetAfterInit: () => forgetting });
  const client = await connectHttp(server.url, {
    protocol: "legacy",
    name: "flaky",
    signal: DEADLINE(),
  });
  try {
    forgetting = true;
    server.seen.length = 0;
    const error = await client.listTools().then(
      () => assert.fail("the call should fail"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof SessionNotFoundError, String(error));
    assert.equal(error.server, "flaky");
    assert.equal(
      error.message,
      `server "flaky" (${server.url}): the session was not found (HTTP 404) again right after a new session began; the request was not sent again — check that the server keeps its sessions (its session store, one instance or shared state behind a load balancer)`,
    );
    assert.deepEqual(
      server.seen.filter((m) => m !== "response"),
      ["tools/list", "initialize", "notifications/initialized", "tools/list"],
    );
    // Once the server keeps its sessions again, the next call recovers.
    forgetting = false;
    server.seen.length = 0;
    await client.listTools();
    assert.deepEqual(
      server.seen.filter((m) => m !== "response"),
      ["tools/list", "initialize", "notifications/initialized", "tools/list"],
    );
  } finally {
    await client.close();
    await server.close();
  }
});
