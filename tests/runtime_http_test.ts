// httpHandler and connectHttp over a real listener on 127.0.0.1.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../src/core/json.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import type { McpClient } from "../src/runtime/client/disposable_client.ts";
import { HttpRefusalError } from "../src/runtime/errors.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { BIG_DIGITS, buildToolServer } from "./fixtures/tool_server.ts";
import { INITIALIZE, listen, post } from "./fixtures/http_test_server.ts";

const BIG_ARGS =
  '{"n":12345678901234567890123,"list":[9007199254740993,-98765432109876543210]}';

async function echoBig(
  client: McpClient | Client,
): Promise<{ text: string; structured: string }> {
  const result = await client.request(
    {
      method: "tools/call",
      params: {
        name: "echo",
        arguments: parseLossless(BIG_ARGS) as Record<string, unknown>,
      },
    },
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
  return body.split("\n").filter((l) => l.startsWith("data: ")).map((l) =>
    JSON.parse(l.slice(6))
  );
}

for (const sessions of [false, true]) {
  const mode = sessions ? "session mode" : "stateless mode";

  for (const protocol of ["legacy", "modern"] as const) {
    Deno.test(`connectHttp keeps integers beyond 2^53 exact in both directions (${mode}, ${protocol})`, async () => {
      const listening = listen({ sessions });
      try {
        await using client = await connectHttp(listening.url, { protocol });
        const { text, structured } = await echoBig(client);
        assert.equal(text, BIG_ARGS, "the server received every digit");
        assert.equal(structured, BIG_ARGS, "the client received every digit");
        const big = await client.callTool({ name: "big", arguments: {} });
        const n = (big.structuredContent as Record<string, unknown>).n;
        assert.ok(isRawJson(n));
        assert.equal(JSON.stringify(n), BIG_DIGITS);
        assert.equal(client.getProtocolEra()?.era, protocol);
        // Only a 2025 client opens a session, and only when they are on.
        assert.equal(
          client.transport?.sessionId !== undefined,
          sessions && protocol === "legacy",
        );
      } finally {
        await listening.close();
      }
    });
  }

  // A probe without the modern envelope (ADR 0046). Since issue 18 a probe
  // carrying it (`_meta` naming 2026-07-28) is a modern request, answered
  // by the modern era (tests/runtime_http_era_test.ts): checked here too.
  Deno.test(`server/discover gets HTTP 400 with -32601 and initialize still works (${mode})`, async () => {
    const listening = listen({ sessions });
    try {
      const discover = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: {},
      });
      const variants: Record<string, string>[] = [{}, {
        "mcp-protocol-version": "2025-11-25",
      }];
      for (const headers of variants) {
        const res = await post(listening.url, discover, headers);
        assert.equal(res.status, 400);
        assert.equal(res.headers.get("content-type"), "application/json");
        assert.equal(
          await res.text(),
          '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":7}',
        );
      }
      assert.equal(
        listening.servers.length,
        0,
        "no server was made for the probe",
      );
      const modern = await post(
        listening.url,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 8,
          method: "server/discover",
          params: {
            _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
          },
        }),
        {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "server/discover",
        },
      );
      assert.equal(modern.status, 200);
      const [discovered] = sseMessages(await modern.text()) as {
        id: number;
        result: { supportedVersions: string[] };
      }[];
      assert.equal(discovered.id, 8);
      assert.equal(discovered.result.supportedVersions[0], "2026-07-28");
      const init = await post(listening.url, INITIALIZE);
      assert.equal(init.status, 200);
      const [answer] = sseMessages(await init.text()) as {
        id: number;
        result: { protocolVersion: string };
      }[];
      assert.equal(answer.id, 1);
      assert.equal(answer.result.protocolVersion, "2025-06-18");
      assert.equal(init.headers.get("mcp-session-id") !== null, sessions);
    } finally {
      await listening.close();
    }
  });

  Deno.test(`a body over maxBodyBytes is refused with 413, declared or streamed (${mode})`, async () => {
    const refusals: Error[] = [];
    const listening = listen({
      sessions,
      maxBodyBytes: 1024,
      onerror: (e) => refusals.push(e),
    });
    try {
      const big = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "ping",
        params: { pad: "x".repeat(2000) },
      });
      const declared = await post(listening.url, big);
      assert.equal(declared.status, 413);
      const expected =
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Payload Too Large: request body exceeds 1024 bytes"},"id":null}';
      assert.equal(await declared.text(), expected);
      const chunks = [
        new TextEncoder().encode(big.slice(0, 600)),
        new TextEncoder().encode(big.slice(600)),
      ];
      const streamed = await fetch(listening.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: ReadableStream.from(chunks),
      });
      assert.equal(streamed.status, 413);
      assert.equal(await streamed.text(), expected);
      assert.equal(refusals.length, 2);
      assert.ok(
        refusals.every((e) =>
          e instanceof HttpRefusalError && e.status === 413
        ),
      );
      assert.equal(
        refusals[0].message,
        "HTTP request refused (413): body over 1024 bytes",
      );
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
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listening.url)),
    );
    const { text, structured } = await echoBig(client);
    assert.equal(
      text,
      BIG_ARGS,
      "client to server is exact (JSON.stringify writes rawJSON)",
    );
    assert.notEqual(
      structured,
      BIG_ARGS,
      "server to client is rounded by JSON.parse",
    );
    await client.close();
  } finally {
    await listening.close();
  }
});

Deno.test("the handler writes raw digits on the wire and parses them losslessly", async () => {
  const listening = listen();
  try {
    const call =
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":${BIG_ARGS}}}`;
    const res = await post(listening.url, call);
    const body = await res.text();
    assert.ok(body.includes(`"structuredContent":${BIG_ARGS}`), body);
  } finally {
    await listening.close();
  }
});

Deno.test("failures answer a generic JSON-RPC error, never a stack trace", async () => {
  const logged: Error[] = [];
  const handler = httpHandler(() => {
    throw new Error("secret internal detail");
  }, { onerror: (e) => logged.push(e) });
  const res = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
    }),
  );
  assert.equal(res.status, 500);
  assert.equal(
    await res.text(),
    '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}',
  );
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
    assert.equal(
      await bad.text(),
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}',
    );
  } finally {
    await listening.close();
  }
});

Deno.test("methods other than POST are refused with 405 in stateless mode", async () => {
  const handler = httpHandler(() => buildToolServer());
  for (const method of ["GET", "DELETE", "PUT"]) {
    const res = await handler(new Request("http://localhost/mcp", { method }));
    assert.equal(res.status, 405, method);
    // Stateless mode serves POST alone: the header says so.
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal(
      await res.text(),
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}',
    );
  }
});

Deno.test("session mode refuses other methods with 405 naming GET, POST and DELETE", async () => {
  await using handler = httpHandler(() => buildToolServer(), {
    sessions: true,
  });
  const res = await handler(
    new Request("http://localhost/mcp", { method: "PUT" }),
  );
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, POST, DELETE");
  assert.equal(
    await res.text(),
    '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}',
  );
});
