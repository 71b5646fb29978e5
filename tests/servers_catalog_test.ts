// connectServers' catalog: a cold start with a warm catalog builds the
// tools without a connection (no HTTP request sent, no process spawned) and
// connects on the first call; a server that changed a tool since is listed
// again before the call, and the changed tool is never called as cached.

import assert from "node:assert/strict";
import { Agent, connectServers, type ToolDef } from "../mod.ts";
import {
  ReconnectLimitError,
  type ServersConfig,
  StaleToolError,
} from "../servers.ts";
import { ServerConnectError } from "../runtime.ts";
import { denoKvStore, memoryStore, type Store } from "../store.ts";
import { McpTransportError } from "../bridge.ts";
import type { Model, ModelEvent, ModelRequest } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";

/** What the HTTP server lists and has run; changed between starts by a test. */
interface Remote {
  /** The `lookup` tool's input schema. */
  schema: Record<string, unknown>;
  /** Whether `remove` is listed. */
  withRemove: boolean;
  /** HTTP requests received. */
  requests: number;
  /** Tool calls run, by name. */
  calls: string[];
  /** Every request answered 503 (the server down). */
  down: boolean;
}

async function withServer(
  run: (url: string, remote: Remote) => Promise<void>,
): Promise<void> {
  const remote: Remote = {
    schema: { type: "object", properties: { q: { type: "string" } } },
    withRemove: true,
    requests: 0,
    calls: [],
    down: false,
  };
  const build = (): Server => {
    const server = new Server({ name: "shop", version: "1.0.0" }, {
      capabilities: { tools: {} },
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: "lookup",
          description: "Looks a product up.",
          inputSchema: remote.schema as { type: "object" },
        },
        ...(remote.withRemove
          ? [{
            name: "remove",
            description: "Removes a product.",
            inputSchema: { type: "object" as const },
          }]
          : []),
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      remote.calls.push(request.params.name);
      return {
        content: [{ type: "text" as const, text: `${request.params.name} ok` }],
      };
    });
    return server;
  };
  const handler = httpHandler(build);
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request, info) => {
      remote.requests++;
      if (remote.down) return new Response("down", { status: 503 });
      return handler(request, info);
    },
  );
  try {
    await run(`http://127.0.0.1:${listener.addr.port}/mcp`, remote);
  } finally {
    await handler.close();
    await listener.shutdown();
  }
}

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

const deadline = () => AbortSignal.timeout(10_000);

/** Fills `store` with the server's catalog: one connected start. */
async function warm(config: ServersConfig, store: Store): Promise<void> {
  await using servers = await connectServers(config, {
    catalog: store,
    signal: deadline(),
  });
  assert.equal(servers.error, undefined, servers.error?.message);
}

Deno.test("catalog: a cold start with a warm catalog sends no HTTP request until a tool is called, and the run's first model request goes out before any", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    const config = { shop: { url } };
    await warm(config, store);
    assert.ok(remote.requests > 0);
    const warmSchema = JSON.stringify(remote.schema);

    remote.requests = 0;
    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
    });
    assert.equal(remote.requests, 0, "the cold start sent a request");
    assert.equal(servers.error, undefined);
    assert.deepEqual(servers.servers().map((s) => s.state), ["cached"]);
    assert.deepEqual(servers.tools.map((t) => t.name), [
      "shop_lookup",
      "shop_remove",
    ]);
    assert.equal(
      JSON.stringify(byName(servers.tools, "shop_lookup").inputSchema.raw),
      warmSchema,
    );

    const seen: number[] = [];
    const scripted = script(
      callTools({ name: "shop_lookup", args: { q: "denim" } }),
      say("found"),
    );
    const model: Model = {
      stream(request: ModelRequest, options): AsyncIterable<ModelEvent> {
        seen.push(remote.requests);
        return scripted.stream(request, options);
      },
    };
    const result = await new Agent(model, { toolSource: servers.toolSource })
      .generate("find denim");
    assert.equal(result.text, "found");
    assert.equal(seen[0], 0, "a request went out before the first model call");
    assert.equal(result.steps[0].results[0].content, "lookup ok");
    assert.deepEqual(remote.calls, ["lookup"]);
    assert.ok(remote.requests > 0);
    assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
  });
});

Deno.test("catalog: a server that changed a tool since is listed again before the call, which does not run; the next step has the new definition", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    const config = { shop: { url } };
    await warm(config, store);
    remote.schema = {
      type: "object",
      properties: { sku: { type: "string" } },
      required: ["sku"],
    };
    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
    });
    assert.equal(remote.requests > 0, true); // the warm start's
    const model = script(
      callTools({ name: "shop_lookup", args: { q: "denim" } }),
      callTools({ name: "shop_lookup", args: { sku: "A1" } }),
      say("done"),
    );
    const result = await new Agent(model, { toolSource: servers.toolSource })
      .generate("find denim");
    // Pinned: what the model reads of a call to a changed tool.
    assert.equal(
      result.steps[0].results[0].content,
      'mcp: server "shop" changed the tool "lookup" since its definition was cached; the call did not run. Its new definition is available from your next step: call it again with that',
    );
    assert.equal(result.steps[0].results[0].isError, true);
    assert.deepEqual(
      model.requests()[1].tools.find((t) => t.name === "shop_lookup")
        ?.inputSchema.raw,
      remote.schema,
    );
    assert.deepEqual(remote.calls, ["lookup"]); // the second call only
    assert.equal(result.steps[1].results[0].content, "lookup ok");

    // The catalog now holds the new listing: the next cold start reads it.
    await using again = await connectServers(config, {
      catalog: store,
      signal: deadline(),
    });
    assert.deepEqual(
      byName(again.tools, "shop_lookup").inputSchema.raw,
      remote.schema,
    );
  });
});

Deno.test("catalog: a tool the server no longer lists fails typed, without running anything", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    const config = { shop: { url } };
    await warm(config, store);
    remote.withRemove = false;
    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
    });
    const remove = byName(servers.tools, "shop_remove");
    const thrown = await remove.invoke("{}").catch((e: unknown) => e);
    assert.ok(thrown instanceof McpTransportError, String(thrown));
    const error = thrown.cause;
    assert.ok(error instanceof StaleToolError, String(error));
    assert.equal(error.server, "shop");
    assert.equal(error.tool, "remove");
    assert.equal(error.change, "removed");
    assert.equal(
      error.message,
      'server "shop" no longer offers the tool "remove"; the call did not run',
    );
    assert.deepEqual(remote.calls, []);
    assert.deepEqual(servers.tools.map((t) => t.name), ["shop_lookup"]);
  });
});

Deno.test("catalog: a cached server whose first connection keeps failing is tried again after the backoff and given up after maxAttempts, not started anew on every call", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    const config = { shop: { url } };
    await warm(config, store);
    remote.down = true;
    const reported: Error[] = [];
    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
      reconnect: { maxAttempts: 3, initialDelay: 1, maxDelay: 4 },
      onError: (error) => reported.push(error),
    });
    assert.deepEqual(servers.servers().map((s) => s.state), ["cached"]);
    const lookup = byName(servers.tools, "shop_lookup");
    const reached: boolean[] = [];
    const failures: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      remote.requests = 0;
      failures.push(await lookup.invoke("{}").catch((e: unknown) => e));
      reached.push(remote.requests > 0);
    }
    assert.deepEqual(
      reached,
      [true, true, true, false, false],
      "three tries reached the server, then none",
    );
    for (const thrown of failures) {
      assert.ok(thrown instanceof McpTransportError, String(thrown));
    }
    assert.deepEqual(servers.servers().map((s) => s.state), ["failed"]);
    const failure = servers.servers()[0].error;
    assert.ok(failure instanceof ServerConnectError, String(failure));
    assert.ok(
      failure.cause instanceof ReconnectLimitError,
      String(failure.cause),
    );
    assert.deepEqual(remote.calls, []);
    assert.deepEqual(reported, [failure], "the give-up reported once");
  });
});

Deno.test("catalog: with reconnect: false, a cached server whose first connection fails is given up at once", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    const config = { shop: { url } };
    await warm(config, store);
    remote.down = true;
    const reported: Error[] = [];
    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
      reconnect: false,
      onError: (error) => reported.push(error),
    });
    const lookup = byName(servers.tools, "shop_lookup");
    await lookup.invoke("{}").catch(() => {});
    remote.requests = 0;
    const again = await lookup.invoke("{}").catch((e: unknown) => e);
    assert.ok(again instanceof McpTransportError, String(again));
    assert.equal(remote.requests, 0, "the second call started nothing");
    assert.deepEqual(servers.servers().map((s) => s.state), ["failed"]);
    assert.equal(reported.length, 1, reported.join("\n"));
    assert.ok(reported[0] instanceof ServerConnectError, String(reported[0]));
  });
});

Deno.test("catalog: a stale entry, a changed config entry and no entry all connect at start", async () => {
  await withServer(async (url, remote) => {
    await using store = memoryStore();
    await warm({ shop: { url } }, store);

    remote.requests = 0;
    await using changed = await connectServers({
      shop: { url, headers: { "x-tenant": "b" } },
    }, { catalog: store, signal: deadline() });
    assert.ok(remote.requests > 0, "a changed entry read the old catalog");
    assert.deepEqual(changed.servers().map((s) => s.state), ["connected"]);

    // Date.now stands still but for advance: the entry's age is exact.
    using clock = new FakeClock();
    await using short = memoryStore();
    await warm({ shop: { url } }, short);
    // The entry is good for 1 ms: 1 ms later it is stale.
    await warm({ shop: { url } }, short);
    remote.requests = 0;
    clock.advance(1);
    await using stale = await connectServers({ shop: { url } }, {
      catalog: { store: short, ttlMs: 1 },
      signal: deadline(),
    });
    assert.ok(remote.requests > 0, "a stale entry was used");
    assert.deepEqual(stale.servers().map((s) => s.state), ["connected"]);
  });
});

Deno.test("catalog: a store that cannot be read is reported and the server connects as usual", async () => {
  await withServer(async (url, remote) => {
    await using inner = memoryStore();
    const broken: Store = Object.assign(Object.create(inner) as Store, {
      get: () => Promise.reject(new Error("engine down")),
      set: inner.set.bind(inner),
      kind: "memory",
    });
    const reported: Error[] = [];
    await using servers = await connectServers({ shop: { url } }, {
      catalog: broken,
      onError: (e) => reported.push(e),
      signal: deadline(),
    });
    assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
    assert.ok(remote.requests > 0);
    assert.equal(reported.length, 1);
    assert.match(
      reported[0].message,
      /the catalog could not be read: engine down; the server is listed over its connection instead/,
    );
  });
});

Deno.test("catalog: a cold start with a warm catalog spawns no server process until a tool is called", async () => {
  const log = await Deno.makeTempFile();
  try {
    const config = {
      counted: {
        command: Deno.execPath(),
        args: [
          "run",
          "-A",
          "--quiet",
          new URL("./fixtures/catalog_stdio_server.ts", import.meta.url)
            .pathname,
          log,
        ],
        env: childEnv(),
      },
    };
    await using store = memoryStore();
    await warm(config, store);
    const spawns = async () =>
      (await Deno.readTextFile(log)).split("\n").filter((l) => l !== "")
        .length;
    assert.equal(await spawns(), 1);

    await using servers = await connectServers(config, {
      catalog: store,
      signal: deadline(),
    });
    assert.equal(await spawns(), 1, "the cold start spawned the server");
    assert.deepEqual(servers.tools.map((t) => t.name), ["counted_hello"]);
    const text = await servers.tools[0].invoke("{}", { signal: deadline() });
    assert.match(text, /^hello \d+$/);
    assert.equal(await spawns(), 2);
    // A second call reuses the connection.
    await servers.tools[0].invoke("{}", { signal: deadline() });
    assert.equal(await spawns(), 2);
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("catalog: serverOf names the server of a tool, for toolSearch", async () => {
  await withServer(async (url) => {
    await using servers = await connectServers({ shop: { url, prefix: "" } }, {
      signal: deadline(),
    });
    assert.equal(servers.serverOf(byName(servers.tools, "lookup")), "shop");
    const model = script(
      callTools({ name: "search_tools", args: { query: "shop" } }),
      say("ok"),
    );
    const result = await new Agent(model, {
      toolSource: servers.toolSource,
      toolSearch: { serverOf: servers.serverOf },
    }).generate("go");
    assert.equal(
      result.steps[0].results[0].content,
      '2 tools found for "shop"; call them from your next step:\n' +
        "- lookup: Looks a product up.\n- remove: Removes a product.",
    );
  });
});

Deno.test("catalog: in Deno KV, a second process's cold start reads the first one's entry and sends nothing", async () => {
  await withServer(async (url, remote) => {
    const path = await Deno.makeTempFile();
    try {
      const config = { shop: { url } };
      {
        const kv = await Deno.openKv(path);
        await using store = denoKvStore(kv);
        await warm(config, store);
        kv.close();
      }
      remote.requests = 0;
      const kv = await Deno.openKv(path);
      await using store = denoKvStore(kv);
      await using servers = await connectServers(config, {
        catalog: store,
        signal: deadline(),
      });
      assert.equal(remote.requests, 0);
      assert.deepEqual(servers.servers().map((s) => s.state), ["cached"]);
      assert.equal(
        await byName(servers.tools, "shop_lookup").invoke("{}"),
        "lookup ok",
      );
      await servers.close();
      kv.close();
    } finally {
      await Deno.remove(path).catch(() => {});
    }
  });
});
