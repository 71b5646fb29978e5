/**
 * The task lease as a state machine (src/tasks/_lease.ts): acquire, renew
 * (the heartbeat), lose, release, take over — on a fake clock that moves
 * the heartbeat's timers and `memoryStore`'s TTLs together, so nothing
 * sleeps; the compare-and-set races on real Redis and Postgres too
 * (tests/_helpers/store_servers.ts), where expiry is the server's and the
 * test waits for it by polling the store.
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
import { Lease, leaseHeld, type LeaseRecord } from "../src/tasks/_lease.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";
import { waitFor } from "./_helpers/wait.ts";
import { startPostgres, startRedis } from "./_helpers/store_servers.ts";

const TTL = 1_000;
const KEY = "task/00000000-0000-4000-8000-000000000000/lease";

function lease(store: Store, instance: string, clock?: FakeClock): Lease {
  return new Lease(store, KEY, { instance, ttlMs: TTL, clock });
}

/** A store whose every operation fails as an outage while `down`. */
function flaky(store: Store): Store & { down: boolean } {
  const wrapped = Object.create(store) as Store & { down: boolean };
  wrapped.down = false;
  for (const name of ["get", "set", "swap", "delete"] as const) {
    // deno-lint-ignore no-explicit-any
    const real = (store[name] as (...args: any[]) => Promise<unknown>).bind(
      store,
    );
    Object.defineProperty(wrapped, name, {
      // deno-lint-ignore no-explicit-any
      value: (...args: any[]) =>
        wrapped.down
          ? Promise.reject(
            new StoreUnavailableError("memory", name, "down for the test"),
          )
          : real(...args),
    });
  }
  return wrapped;
}

/** Resolves at the `n`th call of the returned `hit`. */
function latch(): { hit: () => void; reached: (n: number) => Promise<void> } {
  let count = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  return {
    hit() {
      count++;
      for (const w of waiting.filter((w) => w.n <= count)) w.resolve();
    },
    reached: (n) =>
      n <= count ? Promise.resolve() : new Promise((resolve) => {
        waiting.push({ n, resolve });
      }),
  };
}

Deno.test("lease: acquire on a free record; a second instance is refused while it is held", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  const a = lease(store, "a", clock), b = lease(store, "b", clock);
  assert.equal(a.state, "idle");
  assert.equal(await a.acquire(), true);
  assert.equal(a.state, "held");
  assert.equal(a.until, clock.now() + TTL);
  assert.deepEqual((await store.get<LeaseRecord>(KEY))?.value, {
    instance: "a",
  });
  assert.equal(await b.acquire(), false);
  assert.equal(b.state, "idle");
  assert.equal(await leaseHeld(store, KEY), true);
});

Deno.test("lease: renew extends it past its first TTL; take over after expiry only", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  const a = lease(store, "a", clock), b = lease(store, "b", clock);
  await a.acquire();
  clock.advance(TTL - 100);
  assert.equal(await a.renew(), "renewed");
  assert.equal(a.until, clock.now() + TTL);
  clock.advance(TTL - 1); // 1,899 ms after the acquire: kept by the renewal
  assert.equal(await b.acquire(), false, "taken over before it expired");
  assert.equal((await store.get<LeaseRecord>(KEY))?.value.instance, "a");
  clock.advance(1); // the renewal's TTL is over
  assert.equal(await leaseHeld(store, KEY), false);
  assert.equal(await b.acquire(), true, "the lapsed lease is taken over");
  assert.equal((await store.get<LeaseRecord>(KEY))?.value.instance, "b");
});

Deno.test("lease: the heartbeat runs every third of the TTL and keeps the lease across many TTLs", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  const a = lease(store, "a", clock), b = lease(store, "b", clock);
  await a.acquire();
  const beats = latch(), renewed = latch();
  a.heartbeat({
    onLost: () => assert.fail("lost"),
    onError: (error) => assert.fail(String(error)),
    afterBeat: () => Promise.resolve(renewed.hit()),
    onBeat: beats.hit,
  });
  assert.equal(a.beatMs, 333);
  assert.equal(clock.pending, 1, "the first beat is scheduled");
  for (let n = 1; n <= 12; n++) {
    clock.advance(a.beatMs);
    await beats.reached(n);
    assert.equal(a.until, clock.now() + TTL, `beat ${n} renewed it`);
  }
  await renewed.reached(12);
  // 12 beats: four TTLs later the lease is still a's.
  assert.equal(await b.acquire(), false);
  a.stop();
  assert.equal(clock.pending, 0, "stopped: no beat scheduled");
  clock.advance(TTL);
  assert.equal(await b.acquire(), true, "unrenewed, it lapses");
});

Deno.test("lease: a live runner whose renewal finds the lease taken reports lost and stops beating", async () => {
  using clock = new FakeClock();
  await using inner = memoryStore();
  const store = flaky(inner);
  const a = lease(store, "a", clock), b = lease(store, "b", clock);
  await a.acquire();
  const errors: unknown[] = [], beats = latch(), lost = latch();
  a.heartbeat({
    onLost: lost.hit,
    onError: (error) => errors.push(error),
    onBeat: beats.hit,
  });
  // The store is unreachable for a's beats past the TTL: the lease lapses
  // and b, reaching the store again first, takes it over.
  store.down = true;
  for (let n = 1; n <= 4; n++) {
    clock.advance(a.beatMs);
    await beats.reached(n);
  }
  assert.equal(errors.length, 4);
  assert.ok(errors.every((error) => error instanceof StoreUnavailableError));
  store.down = false;
  assert.equal(await b.acquire(), true);
  const taken = await store.get<LeaseRecord>(KEY);
  clock.advance(a.beatMs);
  await lost.reached(1);
  assert.equal(a.state, "lost");
  assert.equal(clock.pending, 0, "a lost lease is not renewed again");
  assert.deepEqual(
    await store.get<LeaseRecord>(KEY),
    taken,
    "the winner's lease is left as it was",
  );
  assert.equal(await a.renew(), "lost");
});

Deno.test("lease: one that lapsed while nobody took it is renewed", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  const a = lease(store, "a", clock);
  await a.acquire();
  clock.advance(TTL + 1);
  assert.equal(await leaseHeld(store, KEY), false);
  assert.equal(await a.renew(), "renewed");
  assert.equal((await store.get<LeaseRecord>(KEY))?.value.instance, "a");
});

Deno.test("lease: release frees it at once; a release after a takeover leaves the winner's lease alone", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  const a = lease(store, "a", clock), b = lease(store, "b", clock);
  await a.acquire();
  await a.release();
  assert.equal(a.state, "released");
  clock.advance(1); // a released lease lapses at once
  assert.equal(await leaseHeld(store, KEY), false);
  assert.equal(await store.get(KEY), undefined);
  assert.equal(await b.acquire(), true, "taken at once, not after the TTL");
  // b's lease lapses; c takes it over; b, still running, lets go late.
  const c = lease(store, "c", clock);
  clock.advance(TTL);
  assert.equal(await c.acquire(), true);
  const taken = await store.get<LeaseRecord>(KEY);
  await b.release();
  assert.deepEqual(await store.get<LeaseRecord>(KEY), taken);
  assert.equal(await leaseHeld(store, KEY), true);
});

/** `hosts` handles race 10 leases each for one lapsed lease: exactly one wins. */
async function raceLapsed(
  stores: Store[],
  clock?: FakeClock,
): Promise<void> {
  const key = `task/${crypto.randomUUID()}/lease`;
  const first = new Lease(stores[0], key, {
    instance: "first",
    ttlMs: 150,
    clock,
  });
  assert.equal(await first.acquire(), true);
  if (clock === undefined) {
    // The engine's own clock lapses the TTL: polled, with a deadline.
    await waitFor(
      async () => !await leaseHeld(stores[0], key),
      "the first lease lapses on the engine's clock",
      { everyMs: 20 },
    );
  } else {
    clock.advance(150);
  }
  const names = stores.flatMap((_, h) =>
    [...Array(10).keys()].map((i) => `h${h}-${i}`)
  );
  const racers = names.map((name, i) =>
    new Lease(stores[Math.floor(i / 10)], key, {
      instance: name,
      ttlMs: 60_000,
      clock,
    })
  );
  const won = await Promise.all(racers.map((racer) => racer.acquire()));
  assert.equal(won.filter(Boolean).length, 1, `winners: ${won}`);
  const winner = racers[won.indexOf(true)];
  const held = await stores[stores.length - 1].get<LeaseRecord>(key);
  assert.equal(held?.value.instance, names[won.indexOf(true)]);
  // Every loser's renewal reports the lease lost; the winner's keeps it.
  const losers = racers.filter((_, i) => !won[i]);
  assert.equal(losers.every((racer) => racer.state === "idle"), true);
  assert.equal(await winner.renew(), "renewed");
  assert.equal(await first.renew(), "lost");
}

Deno.test("lease: two hosts racing one lapsed lease, memory store: exactly one wins", async () => {
  using clock = new FakeClock();
  await using store = memoryStore();
  await raceLapsed([store, store], clock);
});

Deno.test("lease: two hosts racing one lapsed lease on a real Redis: exactly one wins", async () => {
  const server = await startRedis();
  const a = redisStore(server.url, { prefix: "lease:" });
  const b = redisStore(server.url, { prefix: "lease:" });
  try {
    await raceLapsed([a, b]);
  } finally {
    await a.close();
    await b.close();
    await server.stop();
  }
});

Deno.test("lease: two hosts racing one lapsed lease on a real Postgres: exactly one wins", async () => {
  const server = await startPostgres();
  const a = postgresStore(server.url, { prefix: "lease" });
  const b = postgresStore(server.url, { prefix: "lease" });
  try {
    await raceLapsed([a, b]);
  } finally {
    await a.close();
    await b.close();
    await server.stop();
  }
});

Deno.test("lease: two hosts racing one lapsed lease on Deno KV (two handles on one file): exactly one wins", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-lease-kv-" });
  const kvs = [
    await Deno.openKv(`${dir}/kv.sqlite3`),
    await Deno.openKv(`${dir}/kv.sqlite3`),
  ];
  try {
    await raceLapsed(kvs.map((kv) => denoKvStore(kv, { prefix: ["lease"] })));
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
