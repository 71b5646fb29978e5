// A gap in a store's push connection: Redis pub/sub and Postgres LISTEN
// keep nothing while their connection is down, so a subscriber is told
// (`onGap`) once it is back, and still receives what is published after.
// The connections are cut from the server side (CLIENT KILL,
// pg_terminate_backend), as a network blip or a failover cuts them.

import assert from "node:assert/strict";
import { Redis } from "ioredis";
import postgres from "postgres";
import { postgresStore, redisStore, type Store } from "../store.ts";
import { startPostgres, startRedis } from "./_helpers/store_servers.ts";
import { waitFor } from "./_helpers/wait.ts";

const DEADLINE = 15_000;

/** Resolves once `check()` holds; fails after the deadline, saying `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, `${what} within ${DEADLINE} ms`, {
    signal: AbortSignal.timeout(DEADLINE),
    everyMs: 20,
  });
}

async function gapTold(store: Store, cut: () => Promise<void>): Promise<void> {
  const got: string[] = [];
  const quietGot: string[] = [];
  let gaps = 0;
  await using sub = await store.subscribe("news", (m) => got.push(m), {
    onGap: () => gaps++,
  });
  // A subscriber without onGap on the same channel just goes on.
  await using quiet = await store.subscribe("news", (m) => quietGot.push(m));
  await store.publish("news", "before");
  await until(() => got.includes("before"), "the first message arrives");
  assert.equal(gaps, 0, "no gap before the cut");

  await cut();
  await until(() => gaps > 0, "the subscriber is told of the gap");
  assert.equal(gaps, 1, "one gap, told once");

  // Subscribed again: what is published now arrives.
  await until(() => {
    void store.publish("news", "after").catch(() => {});
    return got.includes("after") && quietGot.includes("after");
  }, "a message published after the gap arrives, at both subscribers");
  await sub.unsubscribe();
  await quiet.unsubscribe();
}

Deno.test("store gap: Redis tells a subscriber when its pub/sub connection was cut and is back, and delivers again", async () => {
  const server = await startRedis();
  try {
    await using store = redisStore(server.url, { timeoutMs: 2_000 });
    const admin = new Redis(server.url);
    try {
      await gapTold(store, async () => {
        const killed = await admin.call("CLIENT", "KILL", "TYPE", "pubsub");
        assert.ok(Number(killed) >= 1, "a pub/sub connection was cut");
      });
    } finally {
      admin.disconnect();
    }
  } finally {
    await server.stop();
  }
});

Deno.test("store gap: Postgres tells a subscriber when its LISTEN connection was cut and is back, and delivers again", async () => {
  const server = await startPostgres();
  try {
    await using store = postgresStore(server.url, { connectTimeout: 2 });
    const admin = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      await gapTold(store, async () => {
        const cut = await admin`
          select pg_terminate_backend(pid) as done from pg_stat_activity
          where query ilike 'listen%' and pid <> pg_backend_pid()`;
        assert.ok(cut.length >= 1, "a listening connection was cut");
      });
    } finally {
      await admin.end({ timeout: 1 });
    }
  } finally {
    await server.stop();
  }
});
