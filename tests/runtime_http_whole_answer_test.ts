/**
 * A `tools/call` whose answer is ready in the POST's first event-loop turn
 * goes out as one whole SSE text (`_post.ts`'s `firstTurn`): over a real
 * listener the response carries a `Content-Length` and its whole body, the
 * answer included, where an answer still pending goes out as a stream
 * (chunked, no length) whose headers come before the answer. An
 * in-process `Response` does not show the difference; the wire does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { httpHandler } from "../mod.ts";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const VERSION = "2025-11-25";

/** A server with `quick` (answers at once) and `held` (answers when `release` is called). */
function toolServer(held: Promise<void>): Server {
  const server = new Server({ name: "whole", version: "1" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ["quick", "held"].map((name) => ({
      name,
      inputSchema: { type: "object" as const },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === "held") await held;
    return { content: [{ type: "text", text: request.params.name }] };
  });
  return server;
}

/** The session-mode handler (the transports' path, `_post.ts`) on 127.0.0.1. */
async function listening(held: Promise<void>) {
  const handler = httpHandler(() => toolServer(held), {
    sessions: true,
    onerror: () => {},
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const headers = (session?: string) => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    ...(session === undefined ? {} : { "mcp-session-id": session }),
  });
  const post = (body: unknown, session?: string) =>
    fetch(url, {
      method: "POST",
      headers: headers(session),
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: VERSION,
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  const session = init.headers.get("mcp-session-id");
  await init.body?.cancel();
  assert.ok(session, "a session was opened");
  const initialized = await post(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  await initialized.body?.cancel();
  assert.equal(initialized.status, 202);
  return {
    call: (id: number, name: string) =>
      post({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: {} },
      }, session),
    async [Symbol.asyncDispose]() {
      await handler.close();
      await server.shutdown();
    },
  };
}

/** The body's chunks as they came off the wire, decoded. */
async function chunks(response: Response): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) {
    out.push(decoder.decode(chunk, { stream: true }));
  }
  return out;
}

Deno.test("HTTP sessions: a tools/call answered in the first turn is sent whole over the wire (Content-Length, the answer in the body)", async () => {
  await using rig = await listening(Promise.resolve());
  const response = await rig.call(1, "quick");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const body = (await chunks(response)).join("");
  // Sent whole: its length told up front, never chunked.
  assert.equal(
    response.headers.get("content-length"),
    String(new TextEncoder().encode(body).length),
  );
  assert.equal(response.headers.get("transfer-encoding"), null);
  // The priming event (sessions resume), then the answer: all of it.
  const answer = JSON.stringify({
    result: { content: [{ type: "text", text: "quick" }] },
    jsonrpc: "2.0",
    id: 1,
  });
  assert.match(
    body,
    /^id: [^\n]+\nretry: \d+\ndata: \n\nevent: message\nid: [^\n]+\ndata: [^\n]+\n\n$/,
  );
  assert.ok(body.endsWith(`data: ${answer}\n\n`), body);
});

Deno.test("HTTP sessions: a tools/call still pending after the first turn is streamed (headers first, no Content-Length)", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await using rig = await listening(held);
  // The headers arrive while the tool still waits: a stream, not a whole text.
  const response = await rig.call(2, "held");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  assert.equal(response.headers.get("content-length"), null);
  release();
  const body = (await chunks(response)).join("");
  assert.ok(body.includes('"text":"held"'), body);
});
