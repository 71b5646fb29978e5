/**
 * The store contract's cases, run against every adapter by
 * tests/store_contract_test.ts: the same steps for memory, Deno KV, Redis
 * and Postgres.
 */

import assert from "node:assert/strict";
import { isStore, type Store } from "../../store.ts";
import { latch, waitFor } from "./wait.ts";

/** How an adapter is reached by the suite. */
export interface Subject {
  /** A new handle on the shared state (memory: the same store). */
  open(): Store;
  /** The racer child's argument, when a second process can share it. */
  child?: { kind: string; target: string; prefix: string };
  /** The engine's own count of live subscriptions on `channel`, where it can tell. */
  listeners?(channel: string): Promise<number>;
}

/** What one racer won: per key, whether its claim and its lease went through; its appends. */
export interface RaceResult {
  readonly claims: boolean[];
  readonly leases: boolean[];
  readonly appended: string[];
}

/**
 * One side of a race: claims `race/<run>/c<i>`, takes the lease
 * `race/<run>/l<i>` (a swap on an absent key) for each `i < n`, and appends
 * `n` events to `race/<run>/log`, all at once.
 */
export async function racers(
  store: Store,
  run: string,
  n: number,
  me: string,
): Promise<RaceResult> {
  const indexes = [...Array(n).keys()];
  const [claims, leases, appended] = await Promise.all([
    Promise.all(
      indexes.map((i) => store.claimOnce(`race/${run}/c${i}`, 60_000)),
    ),
    Promise.all(
      indexes.map((i) =>
        store.swap(`race/${run}/l${i}`, undefined, me, { ttlMs: 60_000 })
      ),
    ),
    (async () => {
      const ids: string[] = [];
      for (const i of indexes) {
        ids.push(await store.append(`race/${run}/log`, `${me}-${i}`));
      }
      return ids;
    })(),
  ]);
  return { claims, leases, appended };
}

/** Starts the racer child; resolves once it is connected and waiting. */
async function startChild(
  subject: Subject,
  run: string,
  n: number,
): Promise<{ go(): Promise<RaceResult> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../fixtures/store_racer.ts", import.meta.url).pathname,
      JSON.stringify({ ...subject.child, run, n }),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const timer = setTimeout(() => child.kill(), 60_000);
  try {
    while (!out.includes("ready\n")) {
      const { value, done } = await lines.read();
      if (done) {
        const err = await new Response(child.stderr).text();
        assert.fail(`the racer child ended before it was ready: ${err}`);
      }
      out += value;
    }
  } catch (error) {
    clearTimeout(timer);
    throw error;
  }
  const writer = child.stdin.getWriter();
  return {
    async go() {
      try {
        await writer.write(new TextEncoder().encode("go\n"));
        await writer.close();
        for (;;) {
          const { value, done } = await lines.read();
          if (done) break;
          out += value;
        }
        const [status, err] = await Promise.all([
          child.status,
          new Response(child.stderr).text(),
        ]);
        assert.ok(status.success, `the racer child failed: ${err}`);
        return JSON.parse(out.slice(out.indexOf("ready\n") + 6)) as RaceResult;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs every case of the contract as steps of `t`. */
export async function contractSuite(
  t: Deno.TestContext,
  subject: Subject,
): Promise<void> {
  const store = subject.open();
  const other = subject.open();
  const run = crypto.randomUUID().slice(0, 8);
  try {
    await t.step(
      "key-values: set, get from another handle, delete",
      async () => {
        const version = await store.set(`kv/${run}/a`, { n: 1, s: "é" });
        const read = await other.get<{ n: number; s: string }>(`kv/${run}/a`);
        assert.deepEqual(read, { value: { n: 1, s: "é" }, version });
        assert.equal(await other.get(`kv/${run}/absent`), undefined);
        await other.delete(`kv/${run}/a`);
        assert.equal(await store.get(`kv/${run}/a`), undefined);
        // U+0000 is refused everywhere (Postgres text cannot hold it), by
        // every method that takes a key, stream or channel, as a rejected
        // promise (never a synchronous throw).
        const bad = "a\u0000b";
        const keyed: [string, () => Promise<unknown>][] = [
          ["get", () => store.get(bad)],
          ["set", () => store.set(bad, 1)],
          ["delete", () => store.delete(bad)],
          ["swap", () => store.swap(bad, undefined, 1)],
          ["claimOnce", () => store.claimOnce(bad, 1_000)],
          ["append", () => store.append(bad, 1)],
          ["readAfter", () => store.readAfter(bad, undefined)],
          ["dropLog", () => store.dropLog(bad)],
          ["publish", () => store.publish(bad, "m")],
          ["subscribe", () => store.subscribe(bad, () => {})],
        ];
        for (const [name, call] of keyed) {
          let promise: Promise<unknown> | undefined;
          assert.doesNotThrow(() => void (promise = call()), name);
          await assert.rejects(promise!, RangeError, name);
        }
      },
    );

    await t.step(
      "composed: a store spread into a plain object or delegated to by Object.create still works, and is still a store",
      async () => {
        // A user wrapping one method: the adapters' methods are their own
        // bound properties, so neither copy loses its private state.
        const spread: Store = { ...store, get: (key) => store.get(key) };
        const delegated = Object.create(store) as Store;
        assert.ok(isStore(spread) && isStore(delegated));
        const version = await spread.set(`kv/${run}/composed`, 1);
        assert.deepEqual(await delegated.get(`kv/${run}/composed`), {
          value: 1,
          version,
        });
        assert.equal(
          await delegated.swap(`kv/${run}/composed`, version, 2),
          true,
        );
        await spread.delete(`kv/${run}/composed`);
        assert.equal(await store.get(`kv/${run}/composed`), undefined);
      },
    );

    await t.step(
      "TTL: a value and a claim expire, a longer one stays",
      async () => {
        await store.set(`ttl/${run}/short`, "s", { ttlMs: 150 });
        await store.set(`ttl/${run}/long`, "l", { ttlMs: 3_600_000 });
        assert.equal(await store.claimOnce(`ttl/${run}/claim`, 150), true);
        await waitFor(
          async () => (await other.get(`ttl/${run}/short`)) === undefined,
          "the 150 ms value expires",
        );
        await waitFor(
          () => other.claimOnce(`ttl/${run}/claim`, 60_000),
          "the 150 ms claim expires and can be claimed again",
        );
        assert.equal(await store.claimOnce(`ttl/${run}/claim`, 60_000), false);
        assert.equal((await other.get(`ttl/${run}/long`))?.value, "l");
        await assert.rejects(
          () => store.set(`ttl/${run}/bad`, 1, { ttlMs: 0 }),
          RangeError,
        );
      },
    );

    await t.step(
      "swap: compare-and-set on the version, a stale one loses",
      async () => {
        const key = `swap/${run}/token`;
        assert.equal(await store.swap(key, undefined, "r1"), true);
        assert.equal(await other.swap(key, undefined, "r1'"), false);
        const seen = await other.get<string>(key);
        assert.equal(seen?.value, "r1");
        assert.equal(await store.swap(key, seen!.version, "r2"), true);
        assert.equal(await other.swap(key, seen!.version, "r2'"), false);
        assert.equal((await other.get(key))?.value, "r2");
        // An expired value counts as absent: a swap at its last version
        // loses, one on an absent key wins. Its expiry is read on a probe
        // written after it with the same TTL, never on the key itself (a
        // read may drop an expired key and hide a swap that would not).
        const old = `${key}-old`, probe = `${key}-probe`;
        const stale = await store.set(old, "x", { ttlMs: 100 });
        await store.set(probe, "p", { ttlMs: 100 });
        await waitFor(
          async () => (await other.get(probe)) === undefined,
          "the probe written after it expires",
        );
        assert.equal(
          await other.swap(old, stale, "resurrected"),
          false,
          "a swap at an expired value's version loses",
        );
        assert.equal(
          await other.swap(old, undefined, "fresh"),
          true,
          "a swap on an expired value as on an absent one",
        );
        assert.equal((await store.get(old))?.value, "fresh");
      },
    );

    await t.step(
      "claimOnce: twice → one true; 20 concurrent racers on two handles → one winner",
      async () => {
        assert.equal(await store.claimOnce(`claim/${run}/state`, 60_000), true);
        assert.equal(
          await other.claimOnce(`claim/${run}/state`, 60_000),
          false,
        );
        assert.equal(
          await store.claimOnce(`claim/${run}/state`, 60_000),
          false,
        );
        // A claim and a key-value do not share a key space.
        assert.equal(await store.get(`claim/${run}/state`), undefined);
        const wins = await Promise.all(
          [...Array(20).keys()].map((i) =>
            (i % 2 ? store : other).claimOnce(`claim/${run}/raced`, 60_000)
          ),
        );
        assert.equal(wins.filter(Boolean).length, 1);
      },
    );

    await t.step("log: replay after an id, in order, limit, drop", async () => {
      const stream = `log/${run}/s`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(await store.append(stream, { i }));
      }
      assert.equal(new Set(ids).size, 5);
      const all = await other.readAfter<{ i: number }>(stream, undefined);
      assert.deepEqual(all.map((e) => e.id), ids);
      assert.deepEqual(all.map((e) => e.value.i), [0, 1, 2, 3, 4]);
      const rest = await other.readAfter<{ i: number }>(stream, ids[2]);
      assert.deepEqual(rest.map((e) => e.value.i), [3, 4]);
      const page = await other.readAfter<{ i: number }>(stream, ids[0], 2);
      assert.deepEqual(page.map((e) => e.value.i), [1, 2]);
      assert.deepEqual(await other.readAfter(stream, ids[4]), []);
      assert.deepEqual(await other.readAfter(`log/${run}/none`, undefined), []);
      await other.dropLog(stream);
      assert.deepEqual(await store.readAfter(stream, undefined), []);
    });

    await t.step(
      "log: a reader resuming after its last id while two handles append gets everything once",
      async () => {
        const stream = `log/${run}/busy`;
        const got: string[] = [];
        let done = false;
        // Opened by each append (and by the writers' end): the reader
        // reads again once something was appended, not on a timer.
        let appended = latch();
        const bump = () => {
          const opened = appended;
          appended = latch();
          opened.open();
        };
        const reader = (async () => {
          let last: string | undefined;
          for (;;) {
            const finished = done; // read once more after the writers end
            const next = appended.promise;
            for (
              const event of await other.readAfter<string>(stream, last, 7)
            ) {
              got.push(event.value);
              last = event.id;
            }
            if (finished) {
              const tail = await other.readAfter<string>(stream, last);
              got.push(...tail.map((e) => e.value));
              return;
            }
            await next;
          }
        })();
        const written: string[] = [];
        await Promise.all(["a", "b"].map(async (who) => {
          const handle = who === "a" ? store : other;
          for (let i = 0; i < 40; i++) {
            written.push(`${who}${i}`);
            await handle.append(stream, `${who}${i}`, { ttlMs: 60_000 });
            bump();
          }
        }));
        done = true;
        bump();
        await reader;
        assert.equal(
          got.length,
          written.length,
          "nothing lost, nothing doubled",
        );
        assert.deepEqual([...got].sort(), [...written].sort());
        for (const who of ["a", "b"]) {
          const mine = got.filter((v) => v.startsWith(who));
          assert.deepEqual(mine, written.filter((v) => v.startsWith(who)));
        }
      },
    );

    await t.step(
      "log: a stream expires its TTL after its last append",
      async () => {
        const stream = `log/${run}/short`;
        await store.append(stream, 1, { ttlMs: 150 });
        await waitFor(
          async () => (await other.readAfter(stream, undefined)).length === 0,
          "the 150 ms stream expires",
        );
      },
    );

    await t.step(
      "publish reaches a subscriber on another handle; unsubscribed, no more",
      async () => {
        const channel = `bus-${run}`;
        // Another channel's subscription keeps the engine's connection open:
        // what is released must be this channel's own subscription.
        const keeper = await other.subscribe(`${channel}-keep`, () => {});
        const first: string[] = [];
        const second: string[] = [];
        const sub = await other.subscribe(channel, (m) => first.push(m));
        const stop = new AbortController();
        await other.subscribe(channel, (m) => second.push(m), {
          signal: stop.signal,
        });
        if (subject.listeners !== undefined) {
          assert.equal(await subject.listeners(channel), 1);
        }
        await store.publish(channel, "one");
        await waitFor(
          () => first.includes("one") && second.includes("one"),
          "both subscribers get the message",
        );
        await sub.unsubscribe();
        await store.publish(channel, "two");
        await waitFor(() => second.includes("two"), "the second gets `two`");
        assert.deepEqual(first, ["one"], "nothing after unsubscribe");
        stop.abort();
        await waitFor(
          async () =>
            subject.listeners === undefined ||
            await subject.listeners(channel) === 0,
          "the engine holds no subscription after the last ends",
        );
        await store.publish(channel, "three");
        await store.publish(`${channel}-sentinel`, "x");
        assert.deepEqual(second, ["one", "two"]);
        assert.deepEqual(first, ["one"]);
        // `await using` ends a subscription too.
        {
          const got: string[] = [];
          await using _sub = await store.subscribe(channel, (m) => got.push(m));
          await other.publish(channel, "four");
          await waitFor(
            () => got.includes("four"),
            "the disposable subscriber gets `four`",
          );
        }
        if (subject.listeners !== undefined) {
          await waitFor(
            async () => await subject.listeners!(channel) === 0,
            "disposed: the engine holds no subscription",
          );
        }
        await keeper.unsubscribe();
      },
    );

    if (subject.child !== undefined) {
      await t.step(
        "two processes race for 30 claims, 30 leases and one log: one winner each, no event lost",
        async () => {
          const n = 30;
          const raceRun = `${run}-p`;
          const child = await startChild(subject, raceRun, n);
          const [theirs, mine] = await Promise.all([
            child.go(),
            racers(store, raceRun, n, "parent"),
          ]);
          for (let i = 0; i < n; i++) {
            assert.equal(
              Number(theirs.claims[i]) + Number(mine.claims[i]),
              1,
              `claim ${i}: exactly one process wins`,
            );
            assert.equal(
              Number(theirs.leases[i]) + Number(mine.leases[i]),
              1,
              `lease ${i}: exactly one process wins`,
            );
            const holder = await other.get(`race/${raceRun}/l${i}`);
            assert.equal(holder?.value, theirs.leases[i] ? "child" : "parent");
          }
          const log = await other.readAfter<string>(
            `race/${raceRun}/log`,
            undefined,
          );
          assert.equal(log.length, 2 * n);
          assert.equal(new Set(log.map((e) => e.id)).size, 2 * n);
          for (const who of ["parent", "child"]) {
            assert.deepEqual(
              log.filter((e) => e.value.startsWith(`${who}-`)).map((e) =>
                e.value
              ),
              [...Array(n).keys()].map((i) => `${who}-${i}`),
            );
          }
          assert.deepEqual(
            log.filter((e) => e.value.startsWith("child-")).map((e) => e.id),
            theirs.appended,
          );
        },
      );
    }
  } finally {
    await store.close();
    await other.close();
  }
}
