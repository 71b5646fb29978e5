/**
 * One contract, four stores: the same cases (tests/_helpers/store_contract.ts)
 * against memory, Deno KV, Redis and Postgres — the last two real servers
 * started here on 127.0.0.1 (tests/_helpers/store_servers.ts). A server that
 * cannot start fails its test with one line saying so.
 */

import assert from "node:assert/strict";
import {
  denoKvStore,
  memoryStore,
  postgresStore,
  redisStore,
  type Store,
  StoreUnavailableError,
} from "../store.ts";
import { contractSuite } from "./_helpers/store_contract.ts";
import { startPostgres, startRedis } from "./_helpers/store_servers.ts";

Deno.test("store contract: memory", async (t) => {
  const store = memoryStore();
  await contractSuite(t, { open: () => store });
});

Deno.test("store contract: Deno KV (two handles on one file, a second process)", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "weft-kv-" });
  const path = `${dir}/store.sqlite3`;
  const kvs: Deno.Kv[] = [];
  try {
    // Opened before the suite: `open()` is synchronous.
    for (let i = 0; i < 2; i++) kvs.push(await Deno.openKv(path));
    let next = 0;
    await contractSuite(t, {
      open: () => denoKvStore(kvs[next++], { prefix: ["t"] }),
      child: { kind: "deno-kv", target: path, prefix: "t" },
    });
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("store contract: Redis (a real redis-server, two connections, a second process)", async (t) => {
  const server = await startRedis();
  const probe = redisStore(server.url);
  try {
    await contractSuite(t, {
      open: () => redisStore(server.url, { prefix: "t:" }),
      child: { kind: "redis", target: server.url, prefix: "t:" },
      // The server's own count of subscribers of the channel.
      async listeners(channel) {
        const { Redis } = await import("ioredis");
        const raw = new Redis(server.url);
        try {
          const [, count] = await raw.call(
            "PUBSUB",
            "NUMSUB",
            `t:b:${channel}`,
          ) as [string, number];
          return count;
        } finally {
          raw.disconnect();
        }
      },
    });
  } finally {
    await probe.close();
    await server.stop();
  }
});

Deno.test("store contract: Postgres (a real server, two pools, a second process)", async (t) => {
  const server = await startPostgres();
  try {
    await contractSuite(t, {
      open: () => postgresStore(server.url, { prefix: "t" }),
      child: { kind: "postgres", target: server.url, prefix: "t" },
      // Sessions whose last statement LISTENed on the channel's Postgres
      // channel (the adapter's last subscriber UNLISTENs it).
      async listeners(channel) {
        const { default: postgres } = await import("postgres");
        const sql = postgres(server.url, { onnotice: () => {} });
        try {
          const rows = await sql.unsafe(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE 'listen %' AND query LIKE '%' || $1 || '%'",
            [pgChannel("t_bus", channel)],
          );
          return rows[0].n as number;
        } finally {
          await sql.end();
        }
      },
    });
  } finally {
    await server.stop();
  }
});

/** The adapter's Postgres channel name of `channel` (FNV-1a, two ways). */
function pgChannel(bus: string, channel: string): string {
  let a = 0x811c9dc5, b = 0x01000193;
  for (const byte of new TextEncoder().encode(channel)) {
    a = Math.imul(a ^ byte, 0x01000193) >>> 0;
    b = Math.imul(b ^ byte, 0x811c9dc5) >>> 0;
  }
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  return `${bus}_${hex(a)}${hex(b)}`;
}

async function refused(store: Store): Promise<void> {
  try {
    const error = await store.get("k").then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(
      error instanceof StoreUnavailableError,
      `expected StoreUnavailableError, got ${error}`,
    );
    assert.equal(error.operation, "get");
    assert.match(error.message, /unreachable/);
  } finally {
    await store.close();
  }
}

Deno.test("a store whose server is down rejects with StoreUnavailableError", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await refused(redisStore(`redis://127.0.0.1:${port}`, { timeoutMs: 2_000 }));
  await refused(
    postgresStore(`postgres://weft@127.0.0.1:${port}/postgres`, {
      connectTimeout: 2,
    }),
  );
});
