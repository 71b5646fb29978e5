// Every option that keeps state takes the same stores the same way: a
// contract store, or a raw Deno.Kv taken as denoKvStore(kv) — really used,
// its records read back from the Kv — and anything else ({}, a string, a
// Map) is a TypeError at the call naming the option, before any I/O.

import assert from "node:assert/strict";
import {
  connectHttp,
  connectServers,
  connectStdio,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  Server,
  setRequestStateKey,
} from "../mod.ts";
import { serveTasks } from "../tasks.ts";
import { oauthClient } from "../auth.ts";
import { appHost } from "../apps.ts";
import { importSkills } from "../skills.ts";
import { isStore, memoryStore } from "../store.ts";
import { acceptStore } from "../src/store/accept.ts";
import { listedServer } from "./_helpers/mcp_servers.ts";

/** What a row is given: the value under test, and a live HTTP MCP server. */
interface Given {
  readonly url: string;
}

/** One stateful option: how to pass it a value, and the name it is refused under. */
interface Row {
  readonly option: string;
  /** Passes `value` to the option; resolves once the option has used it. */
  readonly pass: (value: unknown, given: Given) => unknown;
  /** Whether passing a Deno.Kv writes to it (false: acceptance only, see the row). */
  readonly writes: boolean;
}

const SECRET = "a shared secret of at least 32 bytes!";
const deadline = () => AbortSignal.timeout(10_000);
const newServer = () => {
  const server = new Server({ name: "shop", version: "1.0.0" });
  exportTools(
    server,
    rawTool({ name: "lookup", description: "Looks up.", run: () => "ok" }),
  );
  return server;
};

const ROWS: readonly Row[] = [
  {
    option: "httpHandler: options.store",
    writes: true,
    async pass(store) {
      const handler = httpHandler(newServer, {
        sessions: true,
        store: store as never,
      });
      try {
        const response = await handler(
          new Request("http://127.0.0.1/mcp", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-06-18",
                capabilities: {},
                clientInfo: { name: "t", version: "0" },
              },
            }),
          }),
        );
        await response.body?.cancel();
        assert.equal(response.status, 200);
      } finally {
        await handler.close();
      }
    },
  },
  {
    option: "serveTasks: options.store",
    writes: false, // a record is written by a task call, held by tasks_serve_test.ts
    pass: (store) => serveTasks(newServer(), { store: store as never }),
  },
  {
    option: "oauthClient: options.store",
    writes: true,
    async pass(store) {
      const auth = oauthClient({
        clientId: "agent",
        clientSecret: "s3cret",
        store: store as never,
      });
      // The view a connection binds (connectHttp does this with `auth`).
      const bound = (auth as unknown as {
        forServer(url: string): typeof auth;
      }).forServer("https://mcp.example.com/mcp");
      await bound.saveCodeVerifier("verifier");
    },
  },
  {
    option: "connectHttp: options.eraStore",
    writes: true,
    async pass(store, { url }) {
      await using _client = await connectHttp(url, {
        eraStore: store as never,
        signal: deadline(),
      });
    },
  },
  {
    option: "connectStdio: options.eraStore",
    writes: false, // the same door as connectHttp's; no child process here
    pass: (store) =>
      connectStdio("definitely-not-a-command-weft", {
        eraStore: store as never,
        signal: deadline(),
      }).then(
        () => assert.fail("connected to a missing command"),
        (error) => {
          // Past the store check: the spawn itself failed.
          if (error instanceof TypeError) throw error;
        },
      ),
  },
  {
    option: "connectServers: options.eraStore",
    writes: true,
    async pass(store, { url }) {
      await using servers = await connectServers({ shop: { url } }, {
        eraStore: store as never,
        signal: deadline(),
      });
      assert.equal(servers.error, undefined, servers.error?.message);
    },
  },
  {
    option: "connectServers: options.catalog",
    writes: true,
    async pass(store, { url }) {
      await using servers = await connectServers({ shop: { url } }, {
        catalog: store as never,
        signal: deadline(),
      });
      assert.equal(servers.error, undefined, servers.error?.message);
    },
  },
  {
    option: "connectServers: options.catalog.store",
    writes: true,
    async pass(store, { url }) {
      await using servers = await connectServers({ shop: { url } }, {
        catalog: { store: store as never, ttlMs: 60_000 },
        signal: deadline(),
      });
      assert.equal(servers.error, undefined, servers.error?.message);
    },
  },
  {
    option: "connectServers: options.pins.store",
    writes: true,
    async pass(store, { url }) {
      await using servers = await connectServers({ shop: { url } }, {
        pins: { store: store as never },
        signal: deadline(),
      });
      assert.equal(servers.error, undefined, servers.error?.message);
    },
  },
  {
    option: "importTools: pins.store",
    writes: true,
    async pass(store) {
      await using peer = await listedServer({
        tools: [{ name: "lookup", inputSchema: { type: "object" } }],
      });
      await importTools(peer.client, {
        pins: { store: store as never, server: "shop" },
      });
    },
  },
  {
    option: "appHost: options.pins",
    writes: false, // a view is pinned when read: apps_host_test.ts
    pass: (pins) =>
      appHost({ servers: () => [] } as never, {
        agent: {} as never,
        hostOrigin: "http://127.0.0.1:1",
        sandboxOrigin: "http://127.0.0.2:1",
        pins: pins as never,
      }),
  },
  {
    option: "importSkills: options.store",
    writes: false, // approvals are written by an approve: skills_import_test.ts
    pass: (store) => importSkills({}, { store: store as never }),
  },
  {
    option: "setRequestStateKey(server, secret, { store }): the store",
    writes: false, // a claim is written by a retry: export_request_state_test.ts
    pass: (store) =>
      setRequestStateKey(newServer(), SECRET, { store: store as never }),
  },
];

/** Runs `body` with a live HTTP MCP server on 127.0.0.1. */
async function withServer(body: (url: string) => Promise<void>): Promise<void> {
  const handler = httpHandler(newServer);
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  try {
    await body(`http://127.0.0.1:${listener.addr.port}/mcp`);
  } finally {
    await handler.close();
    await listener.shutdown();
  }
}

/** The keys the contract store wrote in `kv` (under its `["weft"]` prefix). */
async function written(kv: Deno.Kv): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: ["weft"] })) count++;
  return count;
}

for (const row of ROWS) {
  Deno.test(`store options: ${row.option} takes a raw Deno.Kv as denoKvStore(kv)`, async () => {
    const dir = await Deno.makeTempDir();
    const kv = await Deno.openKv(`${dir}/state.sqlite3`);
    try {
      await withServer(async (url) => {
        await row.pass(kv, { url });
      });
      if (row.writes) {
        assert.ok(
          await written(kv) > 0,
          `${row.option} wrote nothing in the Kv`,
        );
      }
      // The Kv stays its owner's: still open after the option is done.
      await kv.set(["owner"], 1);
    } finally {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  });

  Deno.test(`store options: ${row.option} refuses {}, a string and a Map with a TypeError at the call`, async () => {
    for (const wrong of [{}, "kv", new Map()]) {
      let outcome: unknown;
      try {
        // A synchronous throw, or a promise rejected before any I/O.
        outcome = row.pass(wrong, { url: "http://127.0.0.1:9/mcp" });
        await outcome;
        assert.fail(`${row.option} took ${String(wrong)}`);
      } catch (error) {
        assert.ok(error instanceof TypeError, `${row.option}: ${error}`);
        assert.ok(
          error.message.startsWith(`${row.option} must be a store`),
          error.message,
        );
        assert.match(error.message, /denoKvStore\(kv\)/);
      }
    }
  });
}

Deno.test("store options: one Deno.Kv is one store wherever it is given, and stays open", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const first = acceptStore(kv, "a");
    assert.ok(isStore(first));
    assert.equal(acceptStore(kv, "b"), first);
    await first.set("k", 1);
    await first[Symbol.asyncDispose]();
    // Disposing the view leaves the user's Kv open.
    assert.equal(
      (await kv.get(["weft", "v", "k"])).versionstamp !== null,
      true,
    );
    // A contract store passes as it is; a legacy shape only where allowed.
    await using memory = memoryStore();
    assert.equal(acceptStore(memory, "c"), memory);
    const legacy = { claimOnce: () => Promise.resolve(true) };
    assert.throws(() => acceptStore(legacy, "d"), TypeError);
  } finally {
    kv.close();
  }
});
