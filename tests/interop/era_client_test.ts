/**
 * Interop: weft's client (`connectHttp`, `connectStdio`, `connectServers`)
 * against servers of both protocol eras, offline: the SDK v2 server
 * (`@modelcontextprotocol/server` 2.4.0: `createMcpHandler` dual and
 * `legacy: "reject"`, `serveStdio` in a child process), a modern-only
 * `@mastra/mcp` 2.0.0 `MCPServer` (HTTP and stdio), and the legacy
 * reference server `server-memory`. The user never says which era.
 */

import assert from "node:assert/strict";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import * as z from "zod";
import {
  connectHttp,
  connectServers,
  connectStdio,
  importTools,
  type McpClient,
} from "../../mod.ts";
import { memoryEraStore } from "../../runtime.ts";
import { npmServer } from "../fixtures/npm_servers.ts";
import { passOn } from "../_helpers/pass_on.ts";
import { listenMastra } from "./fixtures/mastra_server.ts";
import { waitFor } from "../_helpers/wait.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const INTEROP_CONFIG = `${ROOT}/tests/interop/deno.json`;

/** A stdio entry running a fixture of tests/interop under this Deno. */
function interopProgram(file: string): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--config",
      INTEROP_CONFIG,
      "--cached-only",
      "--quiet",
      "-A",
      `${ROOT}/tests/interop/fixtures/${file}`,
    ],
  };
}

/** What the v2 server saw of one HTTP request. */
interface Seen {
  method: string;
  headers: Record<string, string | null>;
  body: Record<string, unknown> | undefined;
}

interface V2Options {
  legacy: "stateless" | "reject";
  ttlMs?: number;
  /** Called when a call of `wait` sees its request aborted. */
  onAbort?: () => void;
  /** v2's response shaping; `"sse"` streams every answer (its cancellation watches the stream). */
  responseMode?: "auto" | "sse" | "json";
}

/** What `run` writes with console.warn, kept off the test's output. */
function warnings(run: () => unknown): string[] {
  const seen: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void seen.push(args.join(" "));
  try {
    run();
  } finally {
    console.warn = warn;
  }
  return seen;
}

/** The v2 server on 127.0.0.1, every request recorded. */
function listenV2(options: V2Options) {
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: "v2-http", version: "2.4.0" },
      {
        capabilities: { tools: { listChanged: true } },
        ...(options.ttlMs === undefined ? {} : {
          cacheHints: {
            "tools/list": { ttlMs: options.ttlMs, cacheScope: "private" },
          },
        }),
      },
    );
    server.registerTool(
      "echo",
      { description: "Echoes.", inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: "text", text }] }),
    );
    // The SDK warns of a name beyond its advised characters on the console,
    // at each registration (a server per request): expected, held here.
    const warned = warnings(() =>
      server.registerTool(
        "café",
        { description: "A name beyond ASCII.", inputSchema: z.object({}) },
        () => ({ content: [{ type: "text", text: "☕" }] }),
      )
    );
    assert.equal(warned[0], 'Tool name validation warning for "café":');
    server.registerTool(
      "wait",
      { description: "Waits until cancelled.", inputSchema: z.object({}) },
      (_args, ctx) =>
        new Promise((resolve) => {
          const signal = ctx.mcpReq.signal;
          signal.addEventListener("abort", () => {
            options.onAbort?.();
            resolve({ content: [{ type: "text", text: "aborted" }] });
          });
        }),
    );
    return server;
  }, {
    legacy: options.legacy,
    keepAliveMs: 0,
    responseMode: options.responseMode,
  });
  const seen: Seen[] = [];
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (received, info) => {
      const { text, request } = await passOn(received, info);
      seen.push({
        method: request.method,
        headers: {
          "mcp-method": request.headers.get("mcp-method"),
          "mcp-name": request.headers.get("mcp-name"),
          "mcp-protocol-version": request.headers.get("mcp-protocol-version"),
        },
        body: text === "" ? undefined : JSON.parse(text),
      });
      return handler.fetch(request);
    },
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    seen,
    handler,
    methods: () => seen.map((s) => s.body?.method),
    async [Symbol.asyncDispose]() {
      await handler.close?.();
      await http.shutdown();
    },
  };
}

function envelopeOf(body: Record<string, unknown> | undefined): unknown {
  const params = body?.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  return meta?.["io.modelcontextprotocol/protocolVersion"];
}

const deadline = () => AbortSignal.timeout(20_000);

for (const legacy of ["stateless", "reject"] as const) {
  Deno.test(`connectHttp against v2 createMcpHandler (legacy: ${legacy}): modern, envelope and headers on every request`, async () => {
    await using server = listenV2({ legacy });
    await using client = await connectHttp(server.url, {
      signal: deadline(),
      eraStore: memoryEraStore(),
    });
    assert.deepEqual(client.getProtocolEra(), {
      era: "modern",
      version: "2026-07-28",
      cached: false,
    });
    assert.equal(client.getServerVersion()?.name, "v2-http");
    const { tools } = await importTools(client);
    assert.deepEqual(tools.map((t) => t.name), ["echo", "café", "wait"]);
    // The v2 server checks Mcp-Name against the body (-32020 otherwise).
    const cafe = tools.find((t) => t.name === "café")!;
    assert.equal(await cafe.invoke("{}"), "☕");
    const echo = tools.find((t) => t.name === "echo")!;
    assert.equal(await echo.invoke('{"text":"héllo"}'), "héllo");
    const result = await client.callTool({
      name: "echo",
      arguments: { text: "x" },
    });
    // The result keeps the modern fields (resultType reaches the caller).
    assert.equal((result as Record<string, unknown>).resultType, "complete");
    // No initialize, no GET stream: discover, listen, list, two calls.
    assert.deepEqual(server.methods(), [
      "server/discover",
      "subscriptions/listen",
      "tools/list",
      "tools/call",
      "tools/call",
      "tools/call",
    ]);
    for (const seen of server.seen) {
      assert.equal(seen.method, "POST");
      assert.equal(envelopeOf(seen.body), "2026-07-28");
      assert.equal(seen.headers["mcp-protocol-version"], "2026-07-28");
      assert.equal(seen.headers["mcp-method"], seen.body?.method);
    }
    const calls = server.seen.filter((s) => s.body?.method === "tools/call");
    assert.deepEqual(calls.map((c) => c.headers["mcp-name"]), [
      "=?base64?Y2Fmw6k=?=",
      "echo",
      "echo",
    ]);
  });
}

Deno.test("connectHttp pinned to legacy against a modern-only endpoint fails; auto and modern reach it", async () => {
  await using server = listenV2({ legacy: "reject" });
  await assert.rejects(
    connectHttp(server.url, { protocol: "legacy", signal: deadline() }),
  );
  assert.ok(!server.methods().includes("server/discover"));
  await using pinned = await connectHttp(server.url, {
    protocol: "modern",
    signal: deadline(),
    eraStore: memoryEraStore(),
  });
  assert.equal(pinned.getProtocolEra()?.era, "modern");
});

Deno.test("a kept legacy verdict a modern-only server refutes: initialize fails, the probe runs, modern it is", async () => {
  await using server = listenV2({ legacy: "reject" });
  const store = memoryEraStore();
  await store.set(["weft-mcp", "protocol-era", new URL(server.url).href], {
    era: "legacy",
  });
  await using client = await connectHttp(server.url, {
    signal: deadline(),
    eraStore: store,
  });
  assert.equal(client.getProtocolEra()?.era, "modern");
  assert.deepEqual(server.methods().slice(0, 2), [
    "initialize",
    "server/discover",
  ]);
  assert.equal((await importTools(client)).tools.length, 3);
});

Deno.test("ttlMs on tools/list: a re-read within the TTL costs no request; list_changed on the listen stream invalidates it", async () => {
  await using server = listenV2({ legacy: "reject", ttlMs: 60_000 });
  await using client = await connectHttp(server.url, {
    signal: deadline(),
    eraStore: memoryEraStore(),
  });
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler(
    ToolListChangedNotificationSchema,
    () => changed.resolve(),
  );
  const lists = () => server.methods().filter((m) => m === "tools/list").length;
  await importTools(client);
  await importTools(client);
  await importTools(client);
  assert.equal(lists(), 1);
  server.handler.notify.toolsChanged();
  const timer = setTimeout(
    () => changed.reject(new Error("no tools/list_changed in 5 s")),
    5_000,
  );
  await changed.promise.finally(() => clearTimeout(timer));
  await importTools(client);
  assert.equal(lists(), 2);
});

Deno.test("ttlMs 0 (the v2 default): every tools/list is a request", async () => {
  await using server = listenV2({ legacy: "reject" });
  await using client = await connectHttp(server.url, {
    signal: deadline(),
    eraStore: memoryEraStore(),
  });
  await importTools(client);
  await importTools(client);
  assert.equal(server.methods().filter((m) => m === "tools/list").length, 2);
});

Deno.test("a cancelled call closes its request's stream: the v2 tool sees its abort", async () => {
  const aborted = Promise.withResolvers<void>();
  await using server = listenV2({
    legacy: "reject",
    responseMode: "sse",
    onAbort: () => aborted.resolve(),
  });
  await using client = await connectHttp(server.url, {
    signal: deadline(),
    eraStore: memoryEraStore(),
  });
  const cancel = new AbortController();
  const call = client.callTool({ name: "wait", arguments: {} }, undefined, {
    signal: cancel.signal,
  });
  await waitFor(
    () => server.methods().includes("tools/call"),
    "the call reaches the server",
    { everyMs: 10 },
  );
  const reason = new Error("stop");
  cancel.abort(reason);
  await assert.rejects(call, (error) => error === reason);
  await aborted.promise;
  // Nothing else was posted: the stream's end is the cancellation.
  assert.ok(!server.methods().includes("notifications/cancelled"));
});

Deno.test("the verdict is kept in Deno KV: a second cold start sends no probe (modern and legacy)", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  try {
    await using modern = listenV2({ legacy: "reject" });
    let discovers = 0;
    const legacyHttp = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (received, info) => {
        const { text: body, request } = await passOn(received, info);
        if (body.includes('"server/discover"')) discovers++;
        return legacyHandler(request);
      },
    );
    // A 2025-only server: the v1 SDK's own transport, a server per request.
    const legacyHandler = async (request: Request) => {
      const server = new Server({ name: "sdk-legacy", version: "1" }, {
        capabilities: { tools: {} },
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
      });
      await server.connect(transport);
      return transport.handleRequest(request);
    };
    const legacyUrl = `http://127.0.0.1:${legacyHttp.addr.port}/mcp`;
    try {
      for (const round of [1, 2]) {
        // Each round is a cold start: a fresh handle on the KV file.
        const kv = await Deno.openKv(path);
        try {
          const a = await connectHttp(modern.url, { eraStore: kv });
          const b = await connectHttp(legacyUrl, { eraStore: kv });
          assert.equal(a.getProtocolEra()?.era, "modern");
          assert.equal(b.getProtocolEra()?.era, "legacy");
          assert.equal(a.getProtocolEra()?.cached, round === 2);
          assert.equal(b.getProtocolEra()?.cached, round === 2);
          await importTools(a);
          await a.close();
          await b.close();
        } finally {
          kv.close();
        }
      }
      const probes = modern.methods().filter((m) => m === "server/discover");
      assert.equal(probes.length, 1);
      assert.equal(discovers, 1);
    } finally {
      await legacyHttp.shutdown();
    }
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("a modern-only Mastra MCPServer over HTTP: listed and called", async () => {
  const methods: (string | undefined)[] = [];
  await using mastra = await listenMastra((m) => methods.push(m));
  await using client = await connectHttp(mastra.url, {
    signal: deadline(),
    eraStore: memoryEraStore(),
  });
  assert.equal(client.getProtocolEra()?.era, "modern");
  assert.equal(client.getServerVersion()?.name, "mastra-modern");
  const { tools } = await importTools(client);
  assert.deepEqual(tools.map((t) => t.name), ["add"]);
  assert.equal(await tools[0].invoke('{"a":2,"b":40}'), '{"sum":42}');
  assert.deepEqual(methods.slice(0, 1), ["server/discover"]);
});

async function stdioClient(
  program: {
    command: string;
    args?: string[];
    env?: Record<string, string>;
    cwd?: string;
  },
  store = memoryEraStore(),
): Promise<{ client: McpClient; ms: number }> {
  const start = performance.now();
  const client = await connectStdio(program.command, {
    args: program.args,
    env: program.env,
    cwd: program.cwd,
    stderr: "ignore",
    signal: deadline(),
    eraStore: store,
    // Every server here answers the probe (a legacy one with an error, a
    // verdict that is kept): a loaded machine starting an npm server must
    // not turn a slow answer into silence (legacy by timeout, not kept).
    probeTimeout: 15_000,
  });
  return { client, ms: performance.now() - start };
}

Deno.test("connectStdio: v2 serveStdio is modern, Mastra's stdio (modern-only) is modern, server-memory is legacy", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = memoryEraStore();
    const v2 = await stdioClient(interopProgram("v2_stdio_server.ts"), store);
    const mastra = await stdioClient(interopProgram("mastra_server.ts"), store);
    const memory = await stdioClient(
      npmServer("server-memory", [], { MEMORY_FILE_PATH: `${dir}/m.jsonl` }),
      store,
    );
    try {
      assert.equal(v2.client.getProtocolEra()?.era, "modern");
      assert.equal(mastra.client.getProtocolEra()?.era, "modern");
      assert.equal(memory.client.getProtocolEra()?.era, "legacy");
      const shout = (await importTools(v2.client)).tools[0];
      assert.equal(await shout.invoke('{"text":"hi"}'), "HI");
      const add = (await importTools(mastra.client)).tools[0];
      assert.equal(await add.invoke('{"a":1,"b":2}'), '{"sum":3}');
      const { tools } = await importTools(memory.client);
      assert.ok(tools.some((t) => t.name === "read_graph"));
    } finally {
      await v2.client.close();
      await mastra.client.close();
      await memory.client.close();
    }
    // Second start of each: the verdict is kept, no probe.
    const again = await stdioClient(
      npmServer("server-memory", [], { MEMORY_FILE_PATH: `${dir}/m.jsonl` }),
      store,
    );
    assert.deepEqual(again.client.getProtocolEra(), {
      era: "legacy",
      version: "2025-11-25",
      cached: true,
    });
    await again.client.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("connectStdio to v2 serveStdio: a tool-list change arrives through subscriptions/listen on the shared channel", async () => {
  const { client } = await stdioClient(interopProgram("v2_stdio_server.ts"));
  try {
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler(
      ToolListChangedNotificationSchema,
      () => changed.resolve(),
    );
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), [
      "shout",
      "grow",
    ]);
    await client.callTool({ name: "grow", arguments: {} });
    const timer = setTimeout(
      () => changed.reject(new Error("no tools/list_changed in 5 s")),
      5_000,
    );
    await changed.promise.finally(() => clearTimeout(timer));
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), [
      "shout",
      "grow",
      "extra",
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("mcpServers mixing a modern-only HTTP server, a dual stdio server and a legacy stdio server: all imported and called, nothing in error", async () => {
  const dir = await Deno.makeTempDir();
  await using mastra = await listenMastra();
  try {
    await using servers = await connectServers({
      mcpServers: {
        mastra: { url: mastra.url },
        v2: interopProgram("v2_stdio_server.ts"),
        memory: npmServer("server-memory", [], {
          MEMORY_FILE_PATH: `${dir}/memory.jsonl`,
        }),
      },
    }, { signal: deadline(), stderr: "ignore", eraStore: memoryEraStore() });
    assert.equal(servers.error, undefined);
    assert.deepEqual(
      servers.servers().map((s) => [s.name, s.state, s.protocol]),
      [
        ["mastra", "connected", "modern"],
        ["v2", "connected", "modern"],
        ["memory", "connected", "legacy"],
      ],
    );
    const tool = (name: string) => servers.tools.find((t) => t.name === name)!;
    assert.equal(
      await tool("mastra_add").invoke('{"a":20,"b":22}'),
      '{"sum":42}',
    );
    assert.equal(await tool("v2_shout").invoke('{"text":"era"}'), "ERA");
    const graph = await tool("memory_read_graph").invoke("{}");
    assert.match(graph, /entities/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
