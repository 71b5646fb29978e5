// httpHandler's session mode over a real listener: GET stream, DELETE, expiry.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { INITIALIZE, listen, post } from "./fixtures/http_test_server.ts";
import { waitUntil } from "./fixtures/runtime_server_helpers.ts";
import { pokeUntil } from "./_helpers/wait.ts";

/** The JSON of each `data:` line of an SSE body. */
function sseMessages(body: string): unknown[] {
  return body.split("\n").filter((l) => l.startsWith("data: ")).map((l) =>
    JSON.parse(l.slice(6))
  );
}

Deno.test("session mode: a GET stream carries server notifications", async () => {
  const listening = listen({ sessions: true });
  try {
    const init = await post(listening.url, INITIALIZE);
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    assert.ok(sessionId !== null);
    const stream = await fetch(listening.url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
      },
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    const reader = stream.body!.pipeThrough(new TextDecoderStream())
      .getReader();
    await listening.servers[0].sendToolListChanged();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    assert.deepEqual(sseMessages(text), [{
      method: "notifications/tools/list_changed",
      jsonrpc: "2.0",
    }]);
    await reader.cancel();
  } finally {
    await listening.close();
  }
});

Deno.test("session mode: the client's notifications stream, DELETE on close, unknown and missing ids", async () => {
  const listening = listen({ sessions: true });
  try {
    // Sessions are the 2025 era's: the 2026-07-28 era never opens one.
    const client = await connectHttp(listening.url, { protocol: "legacy" });
    const sessionId = client.transport?.sessionId;
    assert.ok(sessionId !== undefined);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(
        ToolListChangedNotificationSchema,
        () => resolve(),
      );
    });
    // The SDK opens its GET stream after the handshake: a change sent
    // before it is lost, so it is sent until one arrives.
    await pokeUntil(
      () => listening.servers[0].sendToolListChanged(),
      changed,
      "a tools/list_changed on the client's GET stream",
      { everyMs: 50 },
    );
    await client.close(); // sends DELETE
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    const after = await post(listening.url, list, {
      "mcp-session-id": sessionId,
    });
    assert.equal(after.status, 404);
    assert.equal(
      await after.text(),
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}',
    );
    const missing = await post(listening.url, list);
    assert.equal(missing.status, 400);
    assert.equal(
      await missing.text(),
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}',
    );
  } finally {
    await listening.close();
  }
});

Deno.test("session mode: an idle session expires and its server is closed", async () => {
  // Long enough for the request below to land inside it on a loaded machine.
  const listening = listen({ sessions: true, sessionIdleTimeout: 2000 });
  try {
    const init = await post(listening.url, INITIALIZE);
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    assert.ok(sessionId !== null);
    let closed = false;
    listening.servers[0].onclose = () => (closed = true);
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    const early = await post(listening.url, list, {
      "mcp-session-id": sessionId,
    });
    assert.equal(early.status, 200);
    await early.text();
    assert.ok(
      await waitUntil(() => closed, 20_000),
      "the sweep closed the idle session's server",
    );
    const late = await post(listening.url, list, {
      "mcp-session-id": sessionId,
    });
    assert.equal(late.status, 404);
    await late.text();
  } finally {
    await listening.close();
  }
});
