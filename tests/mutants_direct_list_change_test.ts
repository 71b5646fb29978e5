// A 2026-07-28 (modern) stateless tools/call on the direct route whose tool
// changes the server's tool list: its answer carries the result alone — a
// modern request's stream never carries a list change, even one sent as
// related to the call (a legacy request's stream does) — and the next
// tools/list of that server (reused) lists the change, stamped with the
// cache hints, never the listing kept from before. Both paths (direct, and
// the SDK's with the fast path off) answer byte for byte alike.

import assert from "node:assert/strict";
import {
  exportTools,
  httpHandler,
  rawTool,
  Server,
  type ToolDef,
} from "../mod.ts";
import { fastPath } from "../src/runtime/fast/fast_tools.ts";
import { DirectCall } from "../src/runtime/http/_direct.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";

const DEADLINE = 10_000;

const ENVELOPE = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "t", version: "1" },
};

function serve() {
  const handler = httpHandler(() => {
    const server = new Server({ name: "grower", version: "1" });
    const echo = (description: string): ToolDef =>
      rawTool({ name: "echo", description, run: () => "echo" });
    exportTools(
      server,
      echo("Echoes."),
      rawTool({
        name: "grow",
        description: "Adds a tool and changes another.",
        run: () => {
          exportTools(
            server,
            rawTool({ name: "grown", description: "New.", run: () => "" }),
            echo("Echoes, changed."),
          );
          return "grew";
        },
      }),
    );
    return server;
  }, {
    reuseServers: true,
    cacheHints: { ttlMs: 60_000, scope: "private" },
    onerror: () => {},
  });
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    async [Symbol.asyncDispose]() {
      await handler.close();
      stop.abort();
      await listener.finished;
    },
  };
}

function modern(id: number, method: string, params: Record<string, unknown>) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  return {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: ENVELOPE },
    }),
    signal: AbortSignal.timeout(DEADLINE),
  };
}

/** The one SSE event's JSON of a body, refusing any other event. */
function only(body: string): Record<string, unknown> {
  const events = body.split("\n\n").filter((e) => e !== "");
  assert.equal(events.length, 1, body);
  return JSON.parse(events[0].replace(/^event: message\ndata: /, ""));
}

async function exchange(): Promise<string[]> {
  await using server = serve();
  const out: string[] = [];
  const requests = [
    modern(1, "tools/list", {}),
    modern(2, "tools/call", { name: "grow", arguments: {} }),
    modern(3, "tools/list", {}),
  ];
  for (const request of requests) {
    const res = await fetch(server.url, request);
    out.push(`${res.status} ${await res.text()}`);
  }
  return out;
}

Deno.test("direct route, 2026-07-28: a call that changes the tool list answers its result alone; the next list shows the change, stamped; as the SDK's path", async () => {
  assert.equal(fastPath.enabled, true);
  const direct = await exchange();
  fastPath.enabled = false;
  let full: string[];
  try {
    full = await exchange();
  } finally {
    fastPath.enabled = true;
  }
  assert.deepEqual(direct, full);
  const [before, call, after] = direct.map((r) => {
    assert.match(r, /^200 /);
    return only(r.slice(4)) as {
      result: {
        tools?: { name: string; description: string }[];
        content?: unknown;
        ttlMs?: number;
        cacheScope?: string;
        resultType?: string;
      };
    };
  });
  assert.deepEqual(before.result.tools?.map((t) => t.name), ["echo", "grow"]);
  assert.deepEqual(call.result.content, [{ type: "text", text: "grew" }]);
  assert.equal(call.result.resultType, "complete");
  assert.equal(call.result.ttlMs, undefined, "a call is not cacheable");
  assert.deepEqual(
    after.result.tools?.map((t) => `${t.name}: ${t.description}`),
    [
      "echo: Echoes, changed.",
      "grow: Adds a tool and changes another.",
      "grown: New.",
    ],
  );
  assert.equal(after.result.ttlMs, 60_000);
  assert.equal(after.result.cacheScope, "private");
});

/** The body a DirectCall answers with when its tool sends a list change related to the call. */
async function relatedListChange(isModern: boolean): Promise<string> {
  const server = new Server({ name: "s", version: "1" });
  const tools = {
    list: () => ({ tools: [] }),
    call: async (_params: Record<string, unknown>, extra: unknown) => {
      await (extra as {
        sendNotification(n: Record<string, unknown>): Promise<void>;
      }).sendNotification({ method: "notifications/tools/list_changed" });
      return { content: [{ type: "text", text: "grew" }] };
    },
  };
  const call = new DirectCall(server, tools, {
    maxUnread: 1 << 20,
    onOverflow: () => {},
    ...(isModern
      ? { modern: { cacheHints: { ttlMs: 0, scope: "private" as const } } }
      : {}),
  });
  const body = {
    id: 7,
    method: "tools/call",
    params: {
      name: "grow",
      arguments: {},
      ...(isModern ? { _meta: ENVELOPE } : {}),
    },
  };
  const res = await call.answer(
    new Request("http://127.0.0.1/mcp", { method: "POST" }),
    body,
    undefined,
    () => {},
  );
  const text = await res.text();
  call.close();
  return text;
}

Deno.test("direct route: a list change sent as related to a modern call never reaches its stream; a legacy call's carries it", async () => {
  const modernText = await relatedListChange(true);
  assert.doesNotMatch(modernText, /list_changed/);
  const answer = only(modernText) as {
    id: number;
    result: { content: unknown };
  };
  assert.equal(answer.id, 7);
  assert.deepEqual(answer.result.content, [{ type: "text", text: "grew" }]);
  const legacy = (await relatedListChange(false)).split("\n\n").filter((e) =>
    e !== ""
  );
  assert.equal(legacy.length, 2);
  assert.match(legacy[0], /"method":"notifications\/tools\/list_changed"/);
  assert.match(legacy[1], /"id":7/);
});
