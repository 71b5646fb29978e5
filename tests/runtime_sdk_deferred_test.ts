/**
 * `@weft/mcp`'s `Server` makes its handler maps' entries (the SDK
 * constructor's `ping`, `initialize`, `logging/setLevel` and notification
 * handlers, and `exportTools`' `tools/list` and `tools/call`) when the maps
 * are first read, not when it is made. Every scenario here runs on it and
 * on the SDK's own `Server` alike, and what a caller sees must be the same:
 * results, errors, the handler maps' keys in order, the client's
 * capabilities, cancellation, list_changed, the fast path's view.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory"
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { Server as WeftServer } from "../src/runtime/sdk.ts";
import { rawTool, type ToolDef } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { servedToolsOf } from "../src/core/served_tools.ts";
import { waitFor } from "./_helpers/wait.ts";

type AnyServer = SdkServer;
type Make = (options?: ConstructorParameters<typeof SdkServer>[1]) => AnyServer;

const KINDS: ReadonlyArray<readonly [string, Make]> = [
  ["sdk", (options) => new SdkServer({ name: "s", version: "1" }, options)],
  ["weft", (options) => new WeftServer({ name: "s", version: "1" }, options)],
];

const TOOLS: readonly ToolDef[] = [
  rawTool({ name: "a", description: "A.", run: () => "from a" }),
  rawTool({
    name: "b",
    description: "B.",
    scopes: ["b:run"],
    run: () => "from b",
  }),
];

/** Runs `scenario` on both kinds of server and asserts the same outcome. */
async function same(
  scenario: (make: Make) => Promise<unknown> | unknown,
): Promise<unknown> {
  const outcomes: unknown[] = [];
  for (const [, make] of KINDS) {
    try {
      outcomes.push({ value: await scenario(make) });
    } catch (err) {
      outcomes.push({
        threw: (err as Error).constructor.name,
        message: (err as Error).message,
      });
    }
  }
  assert.deepEqual(outcomes[1], outcomes[0]);
  return outcomes[0];
}

function maps(server: AnyServer): { requests: string[]; notes: string[] } {
  const s = server as unknown as {
    _requestHandlers: Map<string, unknown>;
    _notificationHandlers: Map<string, unknown>;
  };
  return {
    requests: [...s._requestHandlers.keys()],
    notes: [...s._notificationHandlers.keys()],
  };
}

async function connect(server: AnyServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "c", version: "2" },
    { capabilities: { elicitation: {} } },
  );
  await client.connect(clientSide);
  return client;
}

Deno.test("the handler maps hold the same keys in the same order", async () => {
  const plain = await same((make) => maps(make()));
  assert.deepEqual(plain, {
    value: {
      requests: ["ping", "initialize"],
      notes: [
        "notifications/cancelled",
        "notifications/progress",
        "notifications/initialized",
      ],
    },
  });
  await same((make) => {
    const server = make();
    exportTools(server, ...TOOLS);
    return maps(server);
  });
  await same((make) => maps(make({ capabilities: { logging: {} } })));
  await same((make) => {
    const server = make({ taskStore: new InMemoryTaskStore() });
    return maps(server);
  });
  await same(async (make) => {
    const server = make();
    exportTools(server, ...TOOLS);
    const client = await connect(server);
    await client.close();
    return maps(server);
  });
});

Deno.test("assertCanSetRequestHandler throws the SDK's error for the deferred handlers", async () => {
  for (const method of ["ping", "initialize", "tools/list", "tools/call"]) {
    const outcome = await same((make) => {
      const server = make();
      exportTools(server, ...TOOLS);
      server.assertCanSetRequestHandler(method);
    });
    assert.deepEqual(outcome, {
      threw: "Error",
      message:
        `A request handler for ${method} already exists, which would be overridden`,
    });
  }
  await same((make) => make().assertCanSetRequestHandler("tools/list"));
  await same((make) =>
    make({ capabilities: { logging: {} } }).assertCanSetRequestHandler(
      "logging/setLevel",
    )
  );
});

Deno.test("a tools/list handler set before connect answers; exportTools then refuses", async () => {
  await same(async (make) => {
    const server = make({ capabilities: { tools: {} } });
    server.setRequestHandler(
      ListToolsRequestSchema,
      () => ({ tools: [{ name: "own", inputSchema: { type: "object" } }] }),
    );
    let refused: string | undefined;
    try {
      exportTools(server, ...TOOLS);
    } catch (err) {
      refused = (err as Error).message;
    }
    const client = await connect(server);
    const listed = await client.listTools();
    await client.close();
    return { refused, listed, maps: maps(server) };
  });
});

Deno.test("a handler set after exportTools replaces the bridge's; the fast path steps aside", async () => {
  const outcome = await same(async (make) => {
    const server = make();
    exportTools(server, ...TOOLS);
    const before = servedToolsOf(server)?.list();
    server.setRequestHandler(
      ListToolsRequestSchema,
      () => ({ tools: [{ name: "own", inputSchema: { type: "object" } }] }),
    );
    const after = servedToolsOf(server);
    const client = await connect(server);
    const listed = await client.listTools();
    const called = await client.callTool({ name: "a" });
    await client.close();
    return { before, after, listed, called };
  }) as { value: Record<string, unknown> };
  assert.deepEqual(
    (outcome.value.before as { tools: { name: string }[] }).tools.map((t) =>
      t.name
    ),
    ["a", "b"],
  );
  assert.equal(outcome.value.after, undefined);
  assert.deepEqual(outcome.value.listed, {
    tools: [{ name: "own", inputSchema: { type: "object" } }],
  });
});

Deno.test("removeRequestHandler before connect removes the SDK's own handler", async () => {
  const outcome = await same(async (make) => {
    const server = make();
    exportTools(server, ...TOOLS);
    server.removeRequestHandler("ping");
    const client = await connect(server);
    try {
      await client.ping();
      return "pinged";
    } finally {
      await client.close();
    }
  });
  assert.deepEqual(outcome, {
    threw: "McpError",
    message: "MCP error -32601: Method not found",
  });
});

Deno.test("initialize, the client's capabilities, oninitialized, ping, tools over the Protocol", async () => {
  const outcome = await same(async (make) => {
    const server = make({ instructions: "Use a." });
    let initialized = 0;
    server.oninitialized = () => initialized++;
    exportTools(server, ...TOOLS);
    const before = server.getClientCapabilities();
    const client = await connect(server);
    const ping = await client.ping();
    const listed = await client.listTools();
    const called = await client.callTool({ name: "b" });
    const unknown = await client.callTool({ name: "zzz" }).catch((err) =>
      (err as Error).message
    );
    const result = {
      before,
      capabilities: server.getClientCapabilities(),
      version: server.getClientVersion(),
      serverCapabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      initialized,
      ping,
      listed,
      called,
      unknown,
    };
    await client.close();
    return result;
  }) as { value: Record<string, unknown> };
  assert.equal(outcome.value.initialized, 1);
  assert.deepEqual(outcome.value.capabilities, { elicitation: { form: {} } });
  assert.deepEqual(outcome.value.called, {
    content: [{ type: "text", text: "from b" }],
  });
});

Deno.test("a cancelled call aborts the tool (the deferred notifications/cancelled handler)", async () => {
  const outcome = await same(async (make) => {
    const server = make();
    let aborted: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => started = resolve);
    exportTools(
      server,
      rawTool({
        name: "slow",
        description: "Slow.",
        run: (_args, ctx) =>
          new Promise<string>((_resolve, reject) => {
            ctx.signal?.addEventListener("abort", () => {
              aborted = String(ctx.signal?.reason);
              reject(ctx.signal?.reason);
            });
            started();
          }),
      }),
    );
    const client = await connect(server);
    const controller = new AbortController();
    const call = client.callTool(
      { name: "slow" },
      CallToolResultSchema,
      { signal: controller.signal },
    ).catch((err) => (err as Error).name);
    await running;
    controller.abort("stop");
    const outcome = await call;
    // The cancellation notification is handled a turn later.
    await waitFor(() => aborted !== undefined, "the tool sees the abort");
    await client.close();
    return { outcome, aborted: aborted !== undefined };
  });
  assert.deepEqual(outcome, {
    value: { outcome: "McpError", aborted: true },
  });
});

Deno.test("exportTools after connect: list_changed on a server that declared tools", async () => {
  const outcome = await same(async (make) => {
    const server = make({ capabilities: { tools: { listChanged: true } } });
    exportTools(server, TOOLS[0]);
    const client = await connect(server);
    let changed = 0;
    client.setNotificationHandler(
      ToolListChangedNotificationSchema,
      () => void changed++,
    );
    await client.listTools();
    exportTools(server, TOOLS[1]);
    const listed = await client.listTools();
    await client.close();
    return { changed, listed };
  }) as { value: { changed: number } };
  assert.equal(outcome.value.changed, 1);
});

Deno.test("servers sharing exported frozen tools keep their own registries", async () => {
  const outcome = await same(async (make) => {
    const one = make();
    const two = make();
    exportTools(one, ...TOOLS);
    exportTools(two, ...TOOLS);
    exportTools(
      one,
      rawTool({ name: "c", description: "C.", run: () => "from c" }),
    );
    exportTools(
      two,
      rawTool({ name: "a", description: "A again.", run: () => "new a" }),
    );
    const lists = [one, two].map((s) => servedToolsOf(s)?.list());
    const clients = [await connect(one), await connect(two)];
    const listed = await Promise.all(clients.map((c) => c.listTools()));
    const called = await Promise.all(
      clients.map((c) => c.callTool({ name: "a" })),
    );
    await Promise.all(clients.map((c) => c.close()));
    return { lists, listed, called };
  }) as { value: { listed: { tools: { name: string }[] }[]; called: unknown } };
  assert.deepEqual(
    outcome.value.listed.map((l) => l.tools.map((t) => t.name)),
    [["a", "b", "c"], ["a", "b"]],
  );
  assert.deepEqual(outcome.value.called, [
    { content: [{ type: "text", text: "from a" }] },
    { content: [{ type: "text", text: "new a" }] },
  ]);
});

Deno.test("a server with a task store registers as the SDK's does", async () => {
  await same((make) => {
    const server = make({
      taskStore: new InMemoryTaskStore(),
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
    });
    exportTools(server, ...TOOLS);
    return [
      maps(server),
      ...["tasks/get", "tasks/result", "tasks/list"].map((m) => {
        try {
          server.assertCanSetRequestHandler(m);
          return "free";
        } catch (err) {
          return (err as Error).message;
        }
      }),
    ];
  });
});

Deno.test("the SDK's other collections read the same, one set per server", async () => {
  const names = [
    "_requestHandlerAbortControllers",
    "_responseHandlers",
    "_progressHandlers",
    "_timeoutInfo",
    "_pendingDebouncedNotifications",
    "_taskProgressTokens",
    "_requestResolvers",
    "_loggingLevels",
    "LOG_LEVEL_SEVERITY",
  ];
  await same((make) => {
    const one = make() as unknown as Record<string, unknown>;
    const two = make() as unknown as Record<string, unknown>;
    return names.map((name) => {
      const value = one[name] as Map<unknown, unknown> | Set<unknown>;
      const kind = value.constructor.name;
      const shared = value === two[name];
      // A change to one server's collection is not another's.
      if (value instanceof Map) value.set("k", 1);
      else value.add("k");
      return [name, kind, shared, [...value], one[name] === value, [
        ...(two[name] as Iterable<unknown>),
      ]];
    });
  });
});

Deno.test("logging levels filter messages as the SDK's (its lazy collections in use)", async () => {
  const outcome = await same(async (make) => {
    const server = make({ capabilities: { logging: {} } });
    exportTools(server, ...TOOLS);
    const client = await connect(server);
    const seen: string[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (note) => void seen.push(`${note.params.level}:${note.params.data}`),
    );
    await client.setLoggingLevel("warning");
    await server.sendLoggingMessage({ level: "info", data: "quiet" });
    await server.sendLoggingMessage({ level: "error", data: "loud" });
    await client.ping();
    await client.close();
    return seen;
  });
  assert.deepEqual(outcome, { value: ["error:loud"] });
});
