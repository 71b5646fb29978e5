/**
 * The real v2 client (`@modelcontextprotocol/client` 2.4.0) answering a weft
 * tool that asks its caller for input (`ctx.ask`), over `httpHandler` with
 * sessions on a real listener on 127.0.0.1: in the 2026-07-28 era the tool's
 * `input_required` result and its signed `requestState` are fulfilled by the
 * v2 client's own multi-round-trip driver (its `elicitation/create`
 * handler, then a retry); in the 2025 era the same handler answers weft's
 * `elicitation/create`. Either way the tool gets the answer.
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { exportTools, httpHandler, rawTool, Server } from "../../mod.ts";

// Built once, outside the factory: its requestStates are signed with the
// definition's own key, so a retry verifies on whichever server the handler
// makes for it.
const book = rawTool({
  name: "book",
  description: "Books a seat, asking which.",
  inputSchema: { type: "object" },
  run: async (_args, ctx) => {
    const first = await ctx.ask!({
      message: "Which seat?",
      schema: { type: "object", properties: { seat: { type: "string" } } },
    });
    const second = await ctx.ask!({
      message: "A meal?",
      schema: { type: "object", properties: { meal: { type: "string" } } },
    });
    return `${first.content?.seat} with ${second.content?.meal}`;
  },
});

function seatServer(): Server {
  const server = new Server({ name: "airline", version: "1.0.0" });
  exportTools(server, book);
  return server;
}

for (const mode of ["auto", "legacy"] as const) {
  Deno.test(`v2 client (${mode}): its elicitation handler answers a weft tool's ask, and the tool gets the answers`, async () => {
    const stop = new AbortController();
    const handler = httpHandler(seatServer, { sessions: true });
    const listening = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: stop.signal,
      onListen: () => {},
    }, handler);
    const client = new Client({ name: "v2-interop", version: "2.4.0" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode },
    });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      const message = String(request.params.message);
      asked.push(message);
      const content: Record<string, string> = message === "Which seat?"
        ? { seat: "3C" }
        : { meal: "soup" };
      return Promise.resolve({ action: "accept" as const, content });
    });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(`http://127.0.0.1:${listening.addr.port}/mcp`),
        ),
      );
      assert.equal(
        client.getNegotiatedProtocolVersion() === "2026-07-28",
        mode === "auto",
      );
      const result = await client.callTool({ name: "book", arguments: {} }, {
        signal: AbortSignal.timeout(10_000),
      });
      assert.deepEqual(result.content, [{
        type: "text",
        text: "3C with soup",
      }]);
      assert.deepEqual(asked, ["Which seat?", "A meal?"]);
    } finally {
      await client.close();
      await handler.close();
      stop.abort();
      await listening.finished;
    }
  });
}
