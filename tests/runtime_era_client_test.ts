// The client's era negotiation (src/runtime/era/era_client.ts) offline: the
// classifier on every kind of answer, the verdict kept per server, pins,
// and a stdio server that stays silent or answers late. The real modern
// counterparts (SDK v2, Mastra) are in tests/interop/era_client_test.ts.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  connectHttp,
  connectStdio,
  memoryEraStore,
  ProtocolNegotiationError,
  ServerConnectError,
} from "../runtime.ts";
import {
  classifyProbe,
  type ProbeOutcome,
} from "../src/runtime/era/era_client.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { memoryStore } from "../store.ts";
import { passOn } from "./_helpers/pass_on.ts";

const DISCOVER = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "m", version: "1" } },
};

Deno.test("classifyProbe: modern only on a discover result naming 2026-07-28; any other answer is legacy; what tells nothing is an error", () => {
  const cases: [ProbeOutcome, "http" | "stdio", string][] = [
    [{ kind: "result", result: DISCOVER }, "http", "modern"],
    [
      { kind: "result", result: { supportedVersions: ["2099-01-01"] } },
      "http",
      "legacy",
    ],
    [{ kind: "result", result: {} }, "stdio", "legacy"],
    [
      { kind: "rpc-error", code: -32601, message: "Method not found" },
      "stdio",
      "legacy",
    ],
    [
      { kind: "rpc-error", code: -32600, message: "not initialized" },
      "stdio",
      "legacy",
    ],
    [
      {
        kind: "rpc-error",
        code: -32022,
        message: "",
        data: { supported: ["2026-07-28"] },
      },
      "http",
      "modern",
    ],
    [
      {
        kind: "rpc-error",
        code: -32022,
        message: "",
        data: { supported: ["2025-06-18"] },
      },
      "http",
      "legacy",
    ],
    [
      {
        kind: "http-error",
        status: 400,
        body:
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}',
      },
      "http",
      "legacy",
    ],
    [
      {
        kind: "http-error",
        status: 400,
        body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}',
      },
      "http",
      "legacy",
    ],
    [{ kind: "http-error", status: 404, body: "Not Found" }, "http", "legacy"],
    [{ kind: "http-error", status: 405, body: "" }, "http", "legacy"],
    [{ kind: "timeout", ms: 1500 }, "stdio", "legacy"],
    [{ kind: "http-error", status: 401, body: "" }, "http", "error:refused"],
    [{ kind: "http-error", status: 403, body: "" }, "http", "error:refused"],
    [
      { kind: "http-error", status: 502, body: "" },
      "http",
      "error:server-error",
    ],
    [
      { kind: "network-error", error: new TypeError("refused") },
      "http",
      "error:unreachable",
    ],
    [{ kind: "timeout", ms: 1500 }, "http", "error:unreachable"],
    [{ kind: "closed" }, "stdio", "error:closed"],
  ];
  for (const [outcome, transport, expected] of cases) {
    const verdict = classifyProbe(outcome, transport);
    const seen = verdict.kind === "error"
      ? `error:${(verdict.error as ProtocolNegotiationError).reason}`
      : verdict.kind;
    assert.equal(seen, expected, JSON.stringify(outcome));
  }
});

/** A legacy (v1 SDK, sessions) server on 127.0.0.1 counting each method posted. */
function legacyServer() {
  const methods: string[] = [];
  const transports = new Map<
    string,
    WebStandardStreamableHTTPServerTransport
  >();
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (received, info) => {
      const { text, request } = await passOn(received, info);
      if (request.method === "POST") {
        const body = JSON.parse(text);
        if (typeof body.method === "string") methods.push(body.method);
      }
      const id = request.headers.get("mcp-session-id");
      let transport = id === null ? undefined : transports.get(id);
      if (transport === undefined) {
        transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, transport!),
        });
        const server = new Server(
          { name: "legacy", version: "1" },
          { capabilities: { tools: {} } },
        );
        await server.connect(transport);
      }
      return transport.handleRequest(request);
    },
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    methods,
    probes: () => methods.filter((m) => m === "server/discover").length,
    async [Symbol.asyncDispose]() {
      for (const t of transports.values()) await t.close();
      await http.shutdown();
    },
  };
}

Deno.test("HTTP, a legacy server: one probe, then initialize; a reconnect with the same store sends none", async () => {
  await using server = legacyServer();
  const store = memoryEraStore();
  const first = await connectHttp(server.url, { eraStore: store });
  assert.deepEqual(first.getProtocolEra(), {
    era: "legacy",
    version: "2025-11-25",
    cached: false,
  });
  await first.close();
  assert.deepEqual(server.methods.slice(0, 3), [
    "server/discover",
    "initialize",
    "notifications/initialized",
  ]);
  const second = await connectHttp(server.url, { eraStore: store });
  assert.equal(second.getProtocolEra()?.cached, true);
  await second.ping();
  await second.close();
  assert.equal(server.probes(), 1);
});

Deno.test("HTTP, a contract store as eraStore: the verdict is kept under era/ and spares the second probe", async () => {
  await using server = legacyServer();
  await using store = memoryStore();
  const first = await connectHttp(server.url, { eraStore: store });
  await first.close();
  const key = `era/weft-mcp/protocol-era/${encodeURIComponent(server.url)}`;
  assert.deepEqual((await store.get(key))?.value, { era: "legacy" });
  const second = await connectHttp(server.url, { eraStore: store });
  assert.equal(second.getProtocolEra()?.cached, true);
  await second.close();
  assert.equal(server.probes(), 1);
});

Deno.test("HTTP, pins: legacy sends no probe; modern against a legacy server fails the connect, named", async () => {
  await using server = legacyServer();
  const legacy = await connectHttp(server.url, {
    protocol: "legacy",
    eraStore: memoryEraStore(),
  });
  assert.equal(legacy.getProtocolEra()?.era, "legacy");
  await legacy.close();
  assert.equal(server.probes(), 0);
  await assert.rejects(
    connectHttp(server.url, {
      protocol: "modern",
      eraStore: memoryEraStore(),
      name: "old",
    }),
    (error: unknown) => {
      assert.ok(error instanceof ServerConnectError);
      assert.equal(error.phase, "initialize");
      assert.ok(error.cause instanceof ProtocolNegotiationError);
      assert.equal(error.cause.reason, "not-modern");
      assert.equal(
        error.cause.message,
        'protocol negotiation failed: the server does not speak 2026-07-28 (protocol is pinned to "modern")',
      );
      return true;
    },
  );
});

Deno.test("HTTP, nothing listening: the probe's failure is a ServerConnectError, not a legacy verdict", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await assert.rejects(
    connectHttp(`http://127.0.0.1:${port}/mcp`, { eraStore: memoryEraStore() }),
    (error: unknown) =>
      error instanceof ServerConnectError &&
      error.cause instanceof ProtocolNegotiationError &&
      error.cause.reason === "unreachable",
  );
});

const PEER = new URL("./fixtures/era_stdio_peer.ts", import.meta.url).pathname;

function peer(
  mode: string[],
  probeTimeout: number,
  lines: string[],
  protocol?: "modern",
) {
  return connectStdio(Deno.execPath(), {
    args: ["run", "--quiet", PEER, ...mode],
    env: childEnv(),
    stderr: (line) => void lines.push(line),
    eraStore: memoryEraStore(),
    probeTimeout,
    signal: AbortSignal.timeout(15_000),
    protocol,
  });
}

Deno.test("stdio, a server silent to server/discover: legacy after probeTimeout, no longer", async () => {
  const lines: string[] = [];
  const start = performance.now();
  await using client = await peer(["mute-legacy"], 400, lines);
  const elapsed = performance.now() - start;
  assert.equal(client.getProtocolEra()?.era, "legacy");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["ping"]);
  assert.deepEqual(lines.slice(0, 2), [
    "got server/discover",
    "got initialize",
  ]);
  // The wait is the probe's 400 ms plus the child's start; the upper bound
  // only catches a hang, below the connect's 15 s signal (a loaded machine
  // starts a child slowly).
  assert.ok(elapsed >= 400, `${elapsed}`);
  assert.ok(elapsed < 12_000, `${elapsed}`);
});

Deno.test("stdio, a modern answer after the wait still wins over the initialize it overtook", async () => {
  const lines: string[] = [];
  await using client = await peer(["late-modern", "600"], 200, lines);
  assert.deepEqual(client.getProtocolEra(), {
    era: "modern",
    version: "2026-07-28",
    cached: false,
  });
  assert.equal(client.getServerVersion()?.name, "late");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["ping"]);
});

Deno.test("stdio, pinned modern: a server slow to answer server/discover is waited for, not taken for legacy", async () => {
  const lines: string[] = [];
  // It answers 600 ms after the 200 ms a silent server would get.
  await using client = await peer(["late-modern", "800"], 200, lines, "modern");
  assert.equal(client.getProtocolEra()?.era, "modern");
  // No initialize was sent: the pin never falls back.
  assert.deepEqual(lines, ["got server/discover"]);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["ping"]);
});

Deno.test("stdio, auto: a modern-only server that lost the probe while starting, then refused initialize, is asked again and spoken to in 2026-07-28", async () => {
  const lines: string[] = [];
  await using client = await peer(["deaf-modern"], 200, lines);
  assert.equal(client.getProtocolEra()?.era, "modern");
  assert.deepEqual(lines.slice(0, 3), [
    "got server/discover",
    "got initialize",
    "got server/discover",
  ]);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["ping"]);
});

Deno.test("HTTP, a kept modern verdict the server refutes: the first request fails, the verdict is forgotten, the next connect probes and speaks legacy", async () => {
  await using server = legacyServer();
  const store = memoryEraStore();
  await store.set(["weft-mcp", "protocol-era", new URL(server.url).href], {
    era: "modern",
    version: "2026-07-28",
    discover: { supportedVersions: ["2026-07-28"], capabilities: {} },
  });
  const stale = await connectHttp(server.url, { eraStore: store });
  assert.deepEqual(stale.getProtocolEra(), {
    era: "modern",
    version: "2026-07-28",
    cached: true,
  });
  await assert.rejects(stale.ping());
  await stale.close();
  assert.equal(server.probes(), 0);
  const fresh = await connectHttp(server.url, { eraStore: store });
  assert.deepEqual(fresh.getProtocolEra(), {
    era: "legacy",
    version: "2025-11-25",
    cached: false,
  });
  await fresh.ping();
  await fresh.close();
  assert.equal(server.probes(), 1);
});

const DAY = 24 * 3_600_000;

/** Runs `body` with `Date.now` read `shift()` ms ahead of the real clock. */
async function shiftedClock(
  shift: () => number,
  body: () => Promise<void>,
): Promise<void> {
  const realNow = Date.now;
  Date.now = () => realNow() + shift();
  try {
    await body();
  } finally {
    Date.now = realNow;
  }
}

Deno.test("HTTP, the verdict kept in memory lasts 7 days: a reconnect within them sends no probe, one after them probes again", async () => {
  await using server = legacyServer();
  const store = memoryEraStore();
  let ahead = 0;
  await shiftedClock(() => ahead, async () => {
    const connect = async () => {
      const client = await connectHttp(server.url, { eraStore: store });
      const cached = client.getProtocolEra()?.cached;
      await client.ping();
      await client.close();
      return cached;
    };
    assert.equal(await connect(), false);
    ahead = 7 * DAY - 60_000;
    assert.equal(await connect(), true, "a minute before 7 days: kept");
    assert.equal(server.probes(), 1);
    ahead = 7 * DAY + 60_000;
    assert.equal(await connect(), false, "a minute after 7 days: gone");
    assert.equal(server.probes(), 2);
  });
});

Deno.test("HTTP, a Deno KV era store is asked to expire each verdict after 7 days, a forgotten one too", async () => {
  await using server = legacyServer();
  const kv = await Deno.openKv(":memory:");
  try {
    const sets: [unknown, number | undefined][] = [];
    // The KV itself, with each set's value and expiry observed on the way.
    const observed = {
      get: (key: Deno.KvKey) => kv.get(key),
      set: (
        key: Deno.KvKey,
        value: unknown,
        options?: { expireIn?: number },
      ) => {
        sets.push([value, options?.expireIn]);
        return kv.set(key, value, options);
      },
    };
    const key = ["weft-mcp", "protocol-era", new URL(server.url).href];
    await kv.set(key, {
      era: "modern",
      version: "2026-07-28",
      discover: { supportedVersions: ["2026-07-28"], capabilities: {} },
    });
    // A kept modern verdict the legacy server refutes: forgotten, then the
    // next connect probes and keeps its legacy verdict.
    const stale = await connectHttp(server.url, { eraStore: observed });
    await assert.rejects(stale.ping());
    await stale.close();
    const fresh = await connectHttp(server.url, { eraStore: observed });
    await fresh.close();
    assert.deepEqual(sets, [
      [null, 7 * DAY],
      [{ era: "legacy" }, 7 * DAY],
    ]);
    assert.deepEqual((await kv.get(key)).value, { era: "legacy" });
  } finally {
    kv.close();
  }
});
