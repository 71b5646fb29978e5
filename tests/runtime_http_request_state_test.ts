/**
 * An input request over a real listener (127.0.0.1) with the default server
 * per request, the tool built inside the factory: the requestState is
 * signed with the handler's key, so the retry completes on the next
 * request's server; a replay is refused, and a state another handler
 * signed is refused here.
 */

import assert from "node:assert/strict";
import { exportTools, httpHandler, rawTool, Server } from "../mod.ts";

const MODERN = "2026-07-28";
const YES = { ask_0: { action: "accept", content: { ok: true } } };

type Reply = { result?: Record<string, unknown>; error?: unknown };

/**
 * A listener whose factory builds its `pay` tool anew for every server;
 * `paid` counts the payments.
 */
function shop(): {
  call: (params?: Record<string, unknown>) => Promise<Reply>;
  paid: { count: number };
  built: { count: number };
  close: () => Promise<void>;
} {
  const paid = { count: 0 };
  const built = { count: 0 };
  const handler = httpHandler(() => {
    built.count++;
    const server = new Server({ name: "shop", version: "1.0.0" });
    exportTools(
      server,
      rawTool({
        name: "pay",
        description: "Pays after asking.",
        run: async (args, ctx) => {
          const sure = await ctx.ask!({
            message: `Pay ${JSON.stringify(args)}?`,
            schema: {
              type: "object",
              properties: { ok: { type: "boolean" } },
              required: ["ok"],
            },
          });
          if (sure.action !== "accept" || sure.content?.ok !== true) {
            return "not paid";
          }
          return `paid ${++paid.count}`;
        },
      }),
    );
    return server;
  });
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
  const call = async (params: Record<string, unknown> = {}): Promise<Reply> => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "pay",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "pay",
          arguments: { amount: 9 },
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
            "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const line = res.headers.get("content-type")?.includes("application/json")
      ? text
      : text.split("\n").find((l) => l.startsWith("data: {"))!.slice(6);
    return JSON.parse(line) as Reply;
  };
  return {
    call,
    paid,
    built,
    close: async () => {
      stop.abort();
      await listener.finished;
      await handler.close();
    },
  };
}

function textOf(reply: Reply): string {
  const content = reply.result?.content as { text: string }[] | undefined;
  return content?.[0]?.text ?? JSON.stringify(reply);
}

function messageOf(reply: Reply): string {
  return (reply.error as { message?: string } | undefined)?.message ??
    JSON.stringify(reply);
}

Deno.test("requestState over a listener: a tool built in the factory asks, and the retry on the next request's server completes once", async () => {
  const a = shop();
  try {
    const first = (await a.call()).result!;
    assert.equal(first.resultType, "input_required");
    const retry = { requestState: first.requestState, inputResponses: YES };
    assert.equal(textOf(await a.call(retry)), "paid 1");
    // Each request had a server (and a tool) of its own.
    assert.equal(a.built.count, 2);
    // The same state again: refused, the tool does not pay twice.
    assert.equal(
      messageOf(await a.call(retry)),
      "invalid requestState: already used (each requestState is accepted once); call the tool again without it",
    );
    assert.equal(a.paid.count, 1);
  } finally {
    await a.close();
  }
});

Deno.test("requestState over a listener: a state signed by another handler in the process is refused", async () => {
  const a = shop();
  const b = shop();
  try {
    const fromB = (await b.call()).result!;
    assert.equal(fromB.resultType, "input_required");
    const retry = { requestState: fromB.requestState, inputResponses: YES };
    assert.equal(
      messageOf(await a.call(retry)),
      "invalid requestState: not signed by this server (altered, or signed with another key); call the tool again without it",
    );
    assert.equal(a.paid.count, 0);
    // B's own retry still completes.
    assert.equal(textOf(await b.call(retry)), "paid 1");
  } finally {
    await a.close();
    await b.close();
  }
});
