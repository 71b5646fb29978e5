// httpHandler and connectHttp over a real listener on 127.0.0.1.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../src/core/json.ts";
import { connectHttp } from "../src/runtime/connect_http.ts";
import type { McpClient } from "../src/runtime/disposable_client.ts";
import { HttpRefusalError } from "../src/runtime/errors.ts";
import { httpHandler } from "../src/runtime/http_handler.ts";
import { BIG_DIGITS, buildToolServer } from "./fixtures/tool_server.ts";
import { INITIALIZE, listen, post, rawHttp } from "./fixtures/http_test_server.ts";
import { sleep } from "./fixtures/runtime_server_helpers.ts";

const BIG_ARGS = '{"n":12345678901234567890123,"list":[9007199254740993,-98765432109876543210]}';

async function echoBig(client: McpClient | Client): Promise<{ text: string; structured: string }> {
  const result = await client.request(
    { method: "tools/call", params: { name: "echo", arguments: parseLossless(BIG_ARGS) as Record<string, unknown> } },
    CallToolResultSchema,
  );
  const first = result.content[0];
  return {
    text: first?.type === "text" ? first.text : "",
    structured: JSON.stringify(result.structuredContent),
  };
}

/** The JSON of each `data:` line of an SSE body. */
function sseMessages(body: string): unknown[] {
  return body.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
}

for (const sessions of [false, true]) {
  const mode = sessions ? "session mode" : "stateless mode";

  Deno.test(`connectHttp keeps integers beyond 2^53 exact in both directions (${mode})`, async () => {
    const listening = listen({ sessions });
    try {
      await using client = await connectHttp(listening.url);
      const { text, structured } = await echoBig(client);
      assert.equal(text, BIG_ARGS, "the server received every digit");
      assert.equal(structured, BIG_ARGS, "the client received every digit");
      const big = await client.callTool({ name: "big", arguments: {} });
      const n = (big.structuredContent as Record<string, unknown>).n;
      assert.ok(isRawJson(n));
      assert.equal(JSON.stringify(n), BIG_DIGITS);
      assert.equal(client.transport?.sessionId !== undefined, sessions);
    } finally {
      await listening.close();
    }
  });

  Deno.test(`server/discover gets HTTP 400 with -32601 and initialize still works (${mode})`, async () => {
    const listening = listen({ sessions });
    try {
      const discover = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      });
      const variants: Record<string, string>[] = [{}, { "mcp-protocol-version": "2026-07-28" }];
      for (const headers of variants) {
        const res = await post(listening.url, discover, headers);
        assert.equal(res.status, 400);
        assert.equal(res.headers.get("content-type"), "application/json");
        assert.equal(
          await res.text(),
          '{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}',
        );
      }
      assert.equal(listening.servers.length, 0, "no server was made for the probe");
      const init = await post(listening.url, INITIALIZE);
      assert.equal(init.status, 200);
      const [answer] = sseMessages(await init.text()) as { id: number; result: { protocolVersion: string } }[];
      assert.equal(answer.id, 1);
      assert.equal(answer.result.protocolVersion, "2025-06-18");
      assert.equal(init.headers.get("mcp-session-id") !== null, sessions);
    } finally {
      await listening.close();
    }
  });

  Deno.test(`a body over maxBodyBytes is refused with 413, declared or streamed (${mode})`, async () => {
    const refusals: Error[] = [];
    const listening = listen({ sessions, maxBodyBytes: 1024, onerror: (e) => refusals.push(e) });
    try {
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(2000) } });
      const declared = await post(listening.url, big);
      assert.equal(declared.status, 413);
      const expected = '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Payload Too Large: request body exceeds 1024 bytes"}}';
      assert.equal(await declared.text(), expected);
      const chunks = [new TextEncoder().encode(big.slice(0, 600)), new TextEncoder().encode(big.slice(600))];
      const streamed = await fetch(listening.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: ReadableStream.from(chunks),
      });
      assert.equal(streamed.status, 413);
      assert.equal(await streamed.text(), expected);
      assert.equal(refusals.length, 2);
      assert.ok(refusals.every((e) => e instanceof HttpRefusalError && e.status === 413));
      assert.equal(listening.servers.length, 0);
    } finally {
      await listening.close();
    }
  });
}

Deno.test("the SDK's own HTTP client rounds big integers (what connectHttp fixes)", async () => {
  const listening = listen();
  try {
    const client = new Client({ name: "plain", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.url)));
    const { text, structured } = await echoBig(client);
    assert.equal(text, BIG_ARGS, "client to server is exact (JSON.stringify writes rawJSON)");
    assert.notEqual(structured, BIG_ARGS, "server to client is rounded by JSON.parse");
    await client.close();
  } finally {
    await listening.close();
  }
});

Deno.test("the handler writes raw digits on the wire and parses them losslessly", async () => {
  const listening = listen();
  try {
    const call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":${BIG_ARGS}}}`;
    const res = await post(listening.url, call);
    const body = await res.text();
    assert.ok(body.includes(`"structuredContent":${BIG_ARGS}`), body);
  } finally {
    await listening.close();
  }
});

Deno.test("DNS rebinding: a local request naming another Host is refused with 403", async () => {
  const refusals: Error[] = [];
  const listening = listen({ onerror: (e) => refusals.push(e) });
  try {
    const request = (host: string, extra = "") =>
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\n${extra}Content-Length: ${INITIALIZE.length}\r\n` +
      `Connection: close\r\n\r\n${INITIALIZE}`;
    const evil = await rawHttp(listening.port, request("evil.example:80"));
    assert.ok(evil.startsWith("HTTP/1.1 403"), evil);
    assert.ok(
      evil.endsWith('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: Host header not allowed"}}'),
      evil,
    );
    for (const host of [`localhost:${listening.port}`, `127.0.0.1:${listening.port}`, `[::1]:${listening.port}`]) {
      const ok = await rawHttp(listening.port, request(host));
      assert.ok(ok.startsWith("HTTP/1.1 200"), `${host}: ${ok}`);
    }
    assert.equal(refusals.length, 1);
    assert.ok(refusals[0] instanceof HttpRefusalError && refusals[0].status === 403);
  } finally {
    await listening.close();
  }
});

Deno.test("DNS rebinding: a foreign Origin is refused; allowedOrigins and allowedHosts widen the rule", async () => {
  const listening = listen();
  try {
    const res = await post(listening.url, INITIALIZE, { origin: "http://evil.example" });
    assert.equal(res.status, 403);
    assert.equal(
      await res.text(),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: Origin header not allowed"}}',
    );
    const local = await post(listening.url, INITIALIZE, { origin: `http://localhost:${listening.port}` });
    assert.equal(local.status, 200);
    await local.body?.cancel();
  } finally {
    await listening.close();
  }
  const handler = httpHandler(() => buildToolServer(), {
    allowedHosts: ["mcp.example.com"],
    allowedOrigins: ["https://app.example.com"],
  });
  const init = { method: "POST", body: INITIALIZE };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const allowed = await handler(
    new Request("https://mcp.example.com/mcp", { ...init, headers: { ...headers, origin: "https://app.example.com" } }),
  );
  assert.equal(allowed.status, 200);
  await allowed.body?.cancel();
  const otherHost = await handler(new Request("https://other.example.com/mcp", { ...init, headers }));
  assert.equal(otherHost.status, 403);
  const remote = httpHandler(() => buildToolServer());
  const fromPublic = await remote(new Request("https://mcp.example.com/mcp", { ...init, headers }), {
    remoteAddr: { transport: "tcp", hostname: "203.0.113.9" },
  });
  assert.equal(fromPublic.status, 200, "a public peer on a public name passes (Deploy)");
  await fromPublic.body?.cancel();
  const noInfo = await remote(new Request("https://mcp.example.com/mcp", { ...init, headers }));
  assert.equal(noInfo.status, 403, "unknown peer: treated as local");
});

Deno.test("failures answer a generic JSON-RPC error, never a stack trace", async () => {
  const logged: Error[] = [];
  const handler = httpHandler(() => {
    throw new Error("secret internal detail");
  }, { onerror: (e) => logged.push(e) });
  const res = await handler(new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: INITIALIZE,
  }));
  assert.equal(res.status, 500);
  assert.equal(await res.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}');
  assert.equal(logged[0].message, "secret internal detail");

  const listening = listen();
  try {
    await using client = await connectHttp(listening.url);
    const error = await client.callTool({ name: "fail", arguments: {} }).then(
      (r) => JSON.stringify(r),
      (e: unknown) => String(e instanceof Error ? e.message : e),
    );
    assert.ok(error.includes("tool failed on purpose"), error);
    assert.ok(!/\bat .*\.(ts|js):\d+/.test(error), `stack leaked: ${error}`);
    const bad = await post(listening.url, "{not json");
    assert.equal(bad.status, 400);
    assert.equal(await bad.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  } finally {
    await listening.close();
  }
});

Deno.test("methods other than POST are refused with 405 in stateless mode", async () => {
  const handler = httpHandler(() => buildToolServer());
  for (const method of ["GET", "DELETE", "PUT"]) {
    const res = await handler(new Request("http://localhost/mcp", { method }));
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "GET, POST, DELETE");
    assert.equal(await res.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method not allowed."}}');
  }
});

Deno.test("session mode: a GET stream carries server notifications", async () => {
  const listening = listen({ sessions: true });
  try {
    const init = await post(listening.url, INITIALIZE);
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    assert.ok(sessionId !== null);
    const stream = await fetch(listening.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    await listening.servers[0].sendToolListChanged();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    assert.deepEqual(sseMessages(text), [{ method: "notifications/tools/list_changed", jsonrpc: "2.0" }]);
    await reader.cancel();
  } finally {
    await listening.close();
  }
});

Deno.test("session mode: the client's notifications stream, DELETE on close, unknown and missing ids", async () => {
  const listening = listen({ sessions: true });
  try {
    const client = await connectHttp(listening.url);
    const sessionId = client.transport?.sessionId;
    assert.ok(sessionId !== undefined);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    await sleep(100); // the SDK opens its GET stream after the handshake
    await listening.servers[0].sendToolListChanged();
    await changed;
    await client.close(); // sends DELETE
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    const after = await post(listening.url, list, { "mcp-session-id": sessionId });
    assert.equal(after.status, 404);
    assert.equal(await after.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
    const missing = await post(listening.url, list);
    assert.equal(missing.status, 400);
    assert.equal(
      await missing.text(),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}',
    );
  } finally {
    await listening.close();
  }
});

Deno.test("session mode: an idle session expires and its server is closed", async () => {
  const listening = listen({ sessions: true, sessionIdleTimeout: 150 });
  try {
    const init = await post(listening.url, INITIALIZE);
    const sessionId = init.headers.get("mcp-session-id");
    await init.text();
    assert.ok(sessionId !== null);
    let closed = false;
    listening.servers[0].onclose = () => (closed = true);
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    const early = await post(listening.url, list, { "mcp-session-id": sessionId });
    assert.equal(early.status, 200);
    await early.text();
    await sleep(450);
    assert.ok(closed, "the sweep closed the idle session's server");
    const late = await post(listening.url, list, { "mcp-session-id": sessionId });
    assert.equal(late.status, 404);
    await late.text();
  } finally {
    await listening.close();
  }
});
