/**
 * `denoKvStore`: the contract over Deno KV — the zero-setup default. On
 * Deno Deploy every isolate shares the database; elsewhere a KV file is
 * shared by the processes of one machine only.
 *
 * @module
 */

import type {
  Store,
  StoreEntry,
  StoreLogEntry,
  StoreSubscribeOptions,
  StoreSubscription,
} from "./contract.ts";
import { checkTtl, rejecting, subscription } from "./_subscription.ts";
import { storeFailure } from "./outage.ts";

/** A Deno KV key part, as this adapter writes them. */
type KeyPart = string | number;
/** A Deno KV key, as this adapter writes them. */
type Key = readonly KeyPart[];

/** The atomic operation of a Deno KV, structurally: the members used here. */
export interface DenoKvAtomicLike {
  /** Fails the commit unless each key still has the given version. */
  check(
    ...checks: {
      key: readonly (string | number)[];
      versionstamp: string | null;
    }[]
  ): DenoKvAtomicLike;
  /** Sets a key. */
  set(
    key: readonly (string | number)[],
    value: unknown,
    options?: { expireIn?: number },
  ): this;
  /** Deletes a key. */
  delete(key: readonly (string | number)[]): this;
  /** Commits; `ok` is false when a check failed. */
  commit(): Promise<{ readonly ok: boolean }>;
}

/**
 * A Deno KV, structurally: `Deno.Kv` (from `Deno.openKv()`, which needs
 * `--unstable-kv` or `"unstable": ["kv"]` in `deno.json`) is one. Taking
 * it by shape keeps this module free of the unstable `Deno.Kv` types.
 */
export interface DenoKvLike {
  /** Reads one key. */
  get<T = unknown>(
    key: readonly (string | number)[],
  ): Promise<
    { readonly value: T | null; readonly versionstamp: string | null }
  >;
  /** Lists keys by prefix, or from `start` (inclusive). */
  list<T = unknown>(
    selector: { prefix: readonly (string | number)[] } | {
      prefix: readonly (string | number)[];
      start: readonly (string | number)[];
    },
    options?: { limit?: number },
  ): AsyncIterable<{ readonly key: readonly unknown[]; readonly value: T }>;
  /** Deletes a key. */
  delete(key: readonly (string | number)[]): Promise<void>;
  /** Starts an atomic operation. */
  atomic(): DenoKvAtomicLike;
  /** Watches keys; optional (polling alone without it). */
  watch?(
    keys: readonly (readonly (string | number)[])[],
  ): ReadableStream<unknown>;
}

/** Options of {@link denoKvStore}. */
export interface DenoKvStoreOptions {
  /** The key prefix of everything stored. Default `["weft"]`. */
  readonly prefix?: readonly string[];
  /**
   * How often a subscriber looks for new messages, in ms (Deno KV has no
   * push across processes; `watch` wakes it sooner where it works).
   * Default 100.
   */
  readonly pollInterval?: number;
  /** How long a published message stays readable, in ms. Default 60,000. */
  readonly messageTtlMs?: number;
}

/** A key-value or claim as kept: its JSON and when it expires. */
interface Kept {
  readonly j: string;
  readonly u: number | null;
}

/** A log's head: the last id given out. */
interface Head {
  readonly n: number;
}

/**
 * The longest key part written as it is, in UTF-8 bytes: Deno KV refuses a
 * key over 2,048 bytes, so a longer name (a session id sent by a client,
 * say) is written as its SHA-256 instead.
 */
const MAX_PART_BYTES = 512;
/** What a hashed part starts with; a name starting with it is hashed too, so no name can pose as another's hash. */
const HASHED = "\u0001";

/** `name` as a key part: itself, or its hash when too long for KV (or when it starts like a hash). */
async function part(name: string): Promise<string> {
  if (
    !name.startsWith(HASHED) &&
    (name.length * 3 <= MAX_PART_BYTES ||
      new TextEncoder().encode(name).byteLength <= MAX_PART_BYTES)
  ) return name;
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(name),
  );
  return HASHED + Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

const live = (kept: Kept | null): kept is Kept =>
  kept !== null && (kept.u === null || kept.u > Date.now());

/**
 * A {@link Store} over Deno KV. Expiry is exact (each record carries its
 * deadline; KV's own `expireIn` deletes it later); `swap`, `claimOnce` and
 * `append` are atomic checks on versionstamps, retried when the database
 * is busy. Publish/subscribe is a short-lived log per channel that
 * subscribers poll every `pollInterval` ms, woken by `watch` where it
 * delivers.
 *
 * Programs using it need KV: `"unstable": ["kv"]` in `deno.json`.
 *
 * @example One KV for everything shared
 * ```ts ignore
 * import { denoKvStore } from "@weft/mcp/store";
 * const store = denoKvStore(await Deno.openKv());
 * await store.set("era/https://example.com/mcp", { era: "modern" }, { ttlMs: 3_600_000 });
 * ```
 */
export function denoKvStore(
  kv: DenoKvLike,
  options: DenoKvStoreOptions = {},
): Store {
  const prefix: Key = options.prefix ?? ["weft"];
  const pollInterval = options.pollInterval ?? 100;
  const messageTtl = options.messageTtlMs ?? 60_000;
  const open = new Set<StoreSubscription>();
  const valueKey = (key: string): Key => [...prefix, "v", key];
  const claimKey = (key: string): Key => [...prefix, "c", key];
  const headKey = (stream: string): Key => [...prefix, "l", stream, "n"];
  const eventKey = (stream: string, n: number): Key => [
    ...prefix,
    "l",
    stream,
    "e",
    n,
  ];
  // A channel's messages: a log outside the key space of `append`'s.
  const busStream = (channel: string) => `\u0000bus/${channel}`;
  const kept = (value: unknown, ttl: number | undefined): Kept => ({
    j: JSON.stringify(value ?? null),
    u: ttl === undefined ? null : Date.now() + ttl,
  });
  const expireIn = (ttl: number | undefined) =>
    ttl === undefined ? {} : { expireIn: ttl };

  // An operation against KV: its failure read by the one classifier.
  async function run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw storeFailure("deno-kv", operation, error);
    }
  }

  // An atomic write, tried again when the commit throws (SQLite busy when
  // two handles write at once): the checks keep it correct.
  async function commit(
    build: () => DenoKvAtomicLike,
  ): Promise<boolean> {
    for (let attempt = 0;; attempt++) {
      try {
        return (await build().commit()).ok;
      } catch (error) {
        if (attempt >= 8) throw error;
        await new Promise((r) => setTimeout(r, 5 + 15 * attempt));
      }
    }
  }

  async function lastId(stream: string): Promise<number> {
    return (await kv.get<Head>(headKey(stream))).value?.n ?? 0;
  }

  async function readAfter<T>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]> {
    const after = afterId === undefined ? 0 : Number(afterId);
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new RangeError(
        `denoKvStore.readAfter: ${afterId} is not an id of this store`,
      );
    }
    const events: StoreLogEntry<T>[] = [];
    for await (
      const entry of kv.list<Kept>({
        prefix: [...prefix, "l", stream, "e"],
        start: eventKey(stream, after + 1),
      }, limit === undefined ? {} : { limit })
    ) {
      if (!live(entry.value)) continue;
      const id = entry.key[entry.key.length - 1] as number;
      events.push({ id: String(id), value: JSON.parse(entry.value.j) as T });
    }
    return events;
  }

  async function append(
    stream: string,
    value: unknown,
    ttl: number | undefined,
  ): Promise<string> {
    checkTtl(ttl, "denoKvStore.append");
    for (;;) {
      const head = await kv.get<Head>(headKey(stream));
      const n = (head.value?.n ?? 0) + 1;
      const ok = await commit(() =>
        kv.atomic()
          .check({ key: headKey(stream), versionstamp: head.versionstamp })
          .set(headKey(stream), { n } satisfies Head, expireIn(ttl))
          .set(eventKey(stream, n), kept(value, ttl), expireIn(ttl))
      );
      if (ok) return String(n);
    }
  }

  // Resolves after `ms`, sooner when `key` changes where `watch` sees it
  // or `signal` aborts; lets go of its timer and watch stream either way.
  function nap(key: Key, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let stream: ReadableStream<unknown> | undefined;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        stream?.cancel().catch(() => {
          // Nothing lost: the watch is over; a cancel that fails leaves nothing to read.
        });
        stream = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      if (signal.aborted) return done();
      if (typeof kv.watch !== "function") return;
      try {
        stream = kv.watch([key]);
        const reader = stream.getReader();
        (async () => {
          let first = true;
          for (;;) {
            const { done: end } = await reader.read();
            if (end) return;
            if (first) first = false; // the current value
            else return done();
          }
        })().catch(() => {
          // Nothing lost: a failed watch only wakes the waiter by its timer instead.
        });
      } catch {
        // no watch here: polling alone
      }
    });
  }

  const store: Store = {
    kind: "deno-kv",
    get<T>(name: string): Promise<StoreEntry<T> | undefined> {
      return run("get", async () => {
        const key = await part(name);
        const entry = await kv.get<Kept>(valueKey(key));
        if (!live(entry.value) || entry.versionstamp === null) return undefined;
        return {
          value: JSON.parse(entry.value.j) as T,
          version: entry.versionstamp,
        };
      });
    },
    set(name, value, options) {
      checkTtl(options?.ttlMs, "denoKvStore.set");
      return run("set", async () => {
        const key = await part(name);
        for (;;) {
          const result = await commitWithStamp(() =>
            kv.atomic().set(
              valueKey(key),
              kept(value, options?.ttlMs),
              expireIn(options?.ttlMs),
            )
          );
          if (result !== undefined) return result;
        }
      });
    },
    delete(name) {
      return run("delete", async () => kv.delete(valueKey(await part(name))));
    },
    swap(name, version, value, options) {
      checkTtl(options?.ttlMs, "denoKvStore.swap");
      return run("swap", async () => {
        const key = await part(name);
        const entry = await kv.get<Kept>(valueKey(key));
        const current = live(entry.value)
          ? entry.versionstamp ?? undefined
          : undefined;
        if (current !== version) return false;
        return await commit(() =>
          kv.atomic()
            .check({ key: valueKey(key), versionstamp: entry.versionstamp })
            .set(
              valueKey(key),
              kept(value, options?.ttlMs),
              expireIn(options?.ttlMs),
            )
        );
      });
    },
    claimOnce(name, ttlMs) {
      checkTtl(ttlMs, "denoKvStore.claimOnce");
      return run("claimOnce", async () => {
        const key = await part(name);
        for (;;) {
          const entry = await kv.get<Kept>(claimKey(key));
          if (live(entry.value)) return false;
          const ok = await commit(() =>
            kv.atomic()
              .check({ key: claimKey(key), versionstamp: entry.versionstamp })
              .set(claimKey(key), kept(true, ttlMs), { expireIn: ttlMs })
          );
          if (ok) return true;
        }
      });
    },
    append(stream, value, options) {
      return run(
        "append",
        async () => append(await part(stream), value, options?.ttlMs),
      );
    },
    readAfter<T>(stream: string, afterId: string | undefined, limit?: number) {
      return run(
        "readAfter",
        async () => readAfter<T>(await part(stream), afterId, limit),
      );
    },
    dropLog(name) {
      return run("dropLog", async () => {
        const stream = await part(name);
        for await (
          const entry of kv.list({ prefix: [...prefix, "l", stream] })
        ) {
          await kv.delete(entry.key as Key);
        }
      });
    },
    publish(channel, message) {
      return run("publish", async () => {
        await append(await part(busStream(channel)), message, messageTtl);
      });
    },
    subscribe(
      channel: string,
      onMessage: (message: string) => void,
      options?: StoreSubscribeOptions,
    ): Promise<StoreSubscription> {
      return run("subscribe", async () => {
        const stream = await part(busStream(channel));
        let last = String(await lastId(stream));
        const stop = new AbortController();
        const loop = (async () => {
          while (!stop.signal.aborted) {
            await nap(headKey(stream), pollInterval, stop.signal);
            if (stop.signal.aborted) return;
            try {
              for (const event of await readAfter<string>(stream, last)) {
                last = event.id;
                if (!stop.signal.aborted) onMessage(event.value);
              }
            } catch {
              // KV unreachable for a moment: the next round reads again
              // from the last id delivered, so nothing is lost.
            }
          }
        })();
        const sub = subscription(async () => {
          stop.abort();
          await loop;
          open.delete(sub);
        }, options?.signal);
        open.add(sub);
        if (options?.signal?.aborted) await sub.unsubscribe();
        return sub;
      });
    },
    async close() {
      await Promise.all([...open].map((sub) => sub.unsubscribe()));
    },
    [Symbol.asyncDispose]() {
      return store.close();
    },
  };

  // A plain write, resolving to the versionstamp it got (Deno KV's
  // commit result carries it).
  async function commitWithStamp(
    build: () => DenoKvAtomicLike,
  ): Promise<string | undefined> {
    for (let attempt = 0;; attempt++) {
      try {
        const result = await build().commit() as {
          ok: boolean;
          versionstamp?: string;
        };
        return result.ok ? result.versionstamp ?? "" : undefined;
      } catch (error) {
        if (attempt >= 8) throw error;
        await new Promise((r) => setTimeout(r, 5 + 15 * attempt));
      }
    }
  }
  return rejecting(store);
}
