/**
 * A tool's `scopes` hold on every path it runs, not only on a direct
 * `tools/call`: a served agent's run calling the tool, and a resumed call.
 * The tool never runs; the model reads the pinned `INSUFFICIENT_SCOPE` text.
 * Over a real listener on 127.0.0.1, both eras, stateless and sessions. The
 * resource metadata's `scopes_supported` names every scope a tool names.
 */

import assert from "node:assert/strict";
import {
  Agent,
  exportTools,
  httpHandler,
  type HttpHandlerOptions,
  rawTool,
  serveAgent,
  Server,
} from "../mod.ts";
import type { AuthInfo } from "../auth.ts";
import { callTools, say, script, type ScriptModel } from "../testing.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import type { ToolResultPart } from "../src/core/messages.ts";

const DEADLINE = 10_000;

/** The text the model reads when its caller lacks `orders:write`: pinned. */
const REFUSED =
  `INSUFFICIENT_SCOPE: tool "place_order" needs the scope orders:write, which the caller's token lacks; the tool did not run`;

/** Tokens are the scopes they grant, space-separated. */
const auth = {
  resource: "http://127.0.0.1/mcp",
  authorizationServers: ["http://127.0.0.1:9/issuer"],
  verify: (token: string): AuthInfo => ({
    token,
    clientId: "app",
    scopes: token.split("+"),
    extra: { sub: "alice" },
  }),
};

interface Served {
  readonly url: string;
  /** What `place_order` ran for, by the scopes of the token. */
  readonly placed: string[];
  /** Every agent model made, in order. */
  readonly models: ScriptModel[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** A served agent whose run calls `place_order` (scopes: orders:write), on a real listener. */
function serveOrders(options: HttpHandlerOptions = {}): Served {
  const placed: string[] = [];
  const models: ScriptModel[] = [];
  const placeOrder = rawTool({
    name: "place_order",
    description: "Places an order.",
    scopes: ["orders:write"],
    run: (_args, ctx) => {
      placed.push(ctx.auth?.scopes.join(" ") ?? "none");
      return "placed";
    },
  });
  const handler = httpHandler((_req, _auth) => {
    // A fresh scripted agent per server: a script plays once.
    const model = script(
      callTools({ name: "place_order", args: {} }),
      say("done"),
    );
    models.push(model);
    const agent = new Agent(model, { name: "orders", tools: [placeOrder] });
    const server = new Server({ name: "orders", version: "1" });
    serveAgent(server, agent, "Handles orders.");
    return server;
  }, { onerror: () => {}, auth, ...options });
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    placed,
    models,
    async [Symbol.asyncDispose]() {
      await handler.close();
      stop.abort();
      await listener.finished;
    },
  };
}

type Json = Record<string, unknown>;

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(DEADLINE),
  });
}

/** The JSON-RPC answer in a JSON or SSE response. */
async function answer(res: Response): Promise<Json> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const messages = res.headers.get("content-type")?.includes("json")
    ? [JSON.parse(text)]
    : text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
  const found = messages.find((m: Json) => "result" in m || "error" in m);
  assert.ok(found, `no answer in ${text}`);
  return found;
}

const ASK_AGENT = { name: "orders", arguments: { prompt: "Order 7." } };

/** Calls the agent tool in `era`, with a session when `sessions`; its result. */
async function callAgent(
  served: Served,
  token: string,
  era: "legacy" | "modern",
  sessions: boolean,
): Promise<Json> {
  const bearer = { authorization: `Bearer ${token}` };
  if (era === "modern") {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        ...ASK_AGENT,
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "scopes-test", version: "1" },
        },
      },
    };
    return await answer(
      await post(served.url, body, {
        ...bearer,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "orders",
      }),
    );
  }
  const call = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: ASK_AGENT,
  };
  if (!sessions) {
    return await answer(
      await post(served.url, call, {
        ...bearer,
        "mcp-protocol-version": "2025-11-25",
      }),
    );
  }
  const init = await post(served.url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "scopes-test", version: "1" },
    },
  }, bearer);
  await answer(init);
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid, "a session was opened");
  const session = {
    ...bearer,
    "mcp-session-id": sid,
    "mcp-protocol-version": "2025-11-25",
  };
  const done = await post(
    served.url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  assert.equal(done.status, 202);
  await done.body?.cancel();
  return await answer(await post(served.url, call, session));
}

/** The tool results the agent's model read on its second turn. */
function resultsRead(model: ScriptModel): ToolResultPart[] {
  const second = model.requests()[1];
  assert.ok(second, "the model was asked again after the call");
  return second.messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

for (const era of ["legacy", "modern"] as const) {
  for (const sessions of [false, true]) {
    const mode = sessions ? "sessions" : "stateless";
    Deno.test(`serveAgent (${era}, ${mode}): an orders:read token — the run's orders:write tool does not run, the model reads why`, async () => {
      await using served = serveOrders({ sessions });
      const refused = await callAgent(served, "orders:read", era, sessions);
      assert.deepEqual(
        (refused.result as { content: unknown }).content,
        [{ type: "text", text: "done" }],
      );
      assert.deepEqual(served.placed, [], "place_order never ran");
      const model = served.models.find((m) => m.requests().length > 0)!;
      assert.deepEqual(resultsRead(model), [{
        type: "tool_result",
        callId: "call_1",
        name: "place_order",
        content: REFUSED,
        isError: true,
      }]);
      // Granted, it runs.
      await callAgent(served, "orders:read+orders:write", era, sessions);
      assert.deepEqual(served.placed, ["orders:read orders:write"]);
    });
  }
}

Deno.test("a resumed call: approving a parked call for a caller without the scope does not run it", async () => {
  let ran = 0;
  const refund = rawTool({
    name: "place_order",
    description: "Places an order.",
    scopes: ["orders:write"],
    requireApproval: true,
    run: () => {
      ran++;
      return "placed";
    },
  });
  const reader: AuthInfo = {
    token: "t",
    clientId: "app",
    scopes: ["orders:read"],
  };
  const writer: AuthInfo = { ...reader, scopes: ["orders:write"] };
  const callers: [AuthInfo, boolean][] = [[reader, false], [writer, true]];
  for (const [who, granted] of callers) {
    const model = script(
      callTools({ name: "place_order", args: {} }),
      say("parked"),
      say("resumed"),
    );
    const agent = new Agent(model, { tools: [refund] });
    const first = await agent.generate("order", { auth: who });
    assert.equal(first.pending.length, 1);
    const resumed = await agent.generate(first.messages, {
      auth: who,
      decisions: [{ type: "approve", id: first.pending[0].id }],
    });
    const results = resumed.messages.flatMap((m) =>
      m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
    );
    assert.deepEqual(
      results.map((r) => [r.content, r.isError]),
      [granted ? ["placed", false] : [REFUSED, true]],
    );
  }
  assert.equal(ran, 1, "only the granted caller's call ran");
});

Deno.test("scopes_supported lists the endpoint's scopes and every scope a served tool names, before any request", async () => {
  const audit = rawTool({
    name: "audit",
    description: "Audits.",
    scopes: ["audit:read", "orders:read"],
    run: () => "ok",
  });
  const agentTool = rawTool({
    name: "refund",
    description: "Refunds.",
    scopes: ["orders:write"],
    run: () => "ok",
  });
  const agent = new Agent(script(), { name: "orders", tools: [agentTool] });
  await using handler = httpHandler((_req, _auth) => {
    const server = new Server({ name: "scoped", version: "1" });
    exportTools(server, audit);
    serveAgent(server, agent, "Handles orders.");
    return server;
  }, { onerror: () => {}, auth: { ...auth, scopes: ["mcp"] } });
  const res = await handler(
    new Request("http://localhost/.well-known/oauth-protected-resource/mcp"),
  );
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.deepEqual(doc.scopes_supported, [
    "mcp",
    "audit:read",
    "orders:read",
    "orders:write",
  ]);
});

Deno.test("scopes_supported: a factory that fails without a caller is reported, the document still served", async () => {
  const errors: Error[] = [];
  await using handler = httpHandler((_req, caller) => {
    if (caller === undefined) throw new Error("no caller");
    return new Server({ name: "x", version: "1" });
  }, { onerror: (e) => errors.push(e), auth: { ...auth, scopes: ["mcp"] } });
  const res = await handler(
    new Request("http://localhost/.well-known/oauth-protected-resource"),
  );
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).scopes_supported, ["mcp"]);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /scopes_supported/);
  assert.equal((errors[0].cause as Error).message, "no caller");
});
