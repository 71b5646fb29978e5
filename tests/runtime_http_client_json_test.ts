// connectHttp against a server that answers with application/json (the SDK's
// `enableJsonResponse`) instead of an SSE stream: the other answer path.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isRawJson, parseLossless } from "../src/core/json.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { serveWith } from "./fixtures/http_test_server.ts";
import { passOn } from "./_helpers/pass_on.ts";
import { BIG_DIGITS } from "./fixtures/tool_server.ts";

Deno.test("connectHttp keeps integers beyond 2^53 exact with a server answering application/json", async () => {
  const posted: string[] = [];
  const types = new Set<string>();
  const listening = serveWith((newServer) => async (received) => {
    const { text, request: req } = await passOn(received);
    if (req.method === "POST") posted.push(text);
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(req);
    if (req.method === "POST") {
      types.add(response.headers.get("content-type") ?? "");
    }
    return response;
  });
  try {
    await using client = await connectHttp(listening.url);
    const big = await client.callTool({ name: "big", arguments: {} });
    const n = (big.structuredContent as Record<string, unknown>).n;
    assert.ok(isRawJson(n), "the answer kept its digits");
    assert.equal(JSON.stringify(n), BIG_DIGITS);
    const args = '{"k":12345678901234567890123}';
    await client.callTool({
      name: "echo",
      arguments: parseLossless(args) as Record<string, unknown>,
    });
    assert.ok(
      posted.some((body) => body.includes(`"arguments":${args}`)),
      "the request went out with every digit",
    );
    // Answers without big numbers come through as they are.
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "echo"));
    // Every answer to a POST was JSON (a notification's 202 has no type).
    assert.deepEqual([...types].sort(), ["", "application/json"]);
  } finally {
    await listening.close();
  }
});
