/**
 * `denoKvStore`: the contract over Deno KV — the zero-setup default. On
 * Deno Deploy every isolate shares the database; elsewhere a KV file is
 * shared by the processes of one machine only.
 *
 * @module
 */

import { ownMethods } from "./_own_methods.ts";
import type {
  Store,
  StoreAppendOptions,
  StoreEntry,
  StoreLogEntry,
  StoreSetOptions,
  StoreSubscribeOptions,
  StoreSubscription,
} from "./contract.ts";
import { checkKey, checkTtl, subscription } from "./_subscription.ts";
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
  return ownMethods(new DenoKvStore(kv, options));
}

/** A value as kept: its JSON and its deadline (`null`: kept until deleted). */
function kept(value: unknown, ttl: number | undefined): Kept {
  return {
    j: JSON.stringify(value ?? null),
    u: ttl === undefined ? null : Date.now() + ttl,
  };
}

/** KV's `expireIn` of a TTL, or none. */
function expireIn(ttl: number | undefined): { expireIn?: number } {
  return ttl === undefined ? {} : { expireIn: ttl };
}

/** A channel's messages: a log outside the key space of `append`'s. */
function busStream(channel: string): string {
  return `\u0000bus/${channel}`;
}

/**
 * An atomic write, tried again when the commit throws (SQLite busy when
 * two handles write at once): the checks keep it correct. Resolves to the
 * commit's result.
 */
async function commitRetrying(
  build: () => DenoKvAtomicLike,
): Promise<{ ok: boolean; versionstamp?: string }> {
  for (let attempt = 0;; attempt++) {
    try {
      return await build().commit() as { ok: boolean; versionstamp?: string };
    } catch (error) {
      if (attempt >= 8) throw error;
      await new Promise((r) => setTimeout(r, 5 + 15 * attempt));
    }
  }
}

/** The contract over Deno KV: what {@link denoKvStore} returns. */
class DenoKvStore implements Store {
  readonly kind = "deno-kv";
  readonly #kv: DenoKvLike;
  readonly #prefix: Key;
  readonly #pollInterval: number;
  readonly #messageTtl: number;
  readonly #open = new Set<StoreSubscription>();

  constructor(kv: DenoKvLike, options: DenoKvStoreOptions) {
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["weft"];
    this.#pollInterval = options.pollInterval ?? 100;
    this.#messageTtl = options.messageTtlMs ?? 60_000;
  }

  #valueKey(key: string): Key {
    return [...this.#prefix, "v", key];
  }
  #claimKey(key: string): Key {
    return [...this.#prefix, "c", key];
  }
  #headKey(stream: string): Key {
    return [...this.#prefix, "l", stream, "n"];
  }
  #eventKey(stream: string, n: number): Key {
    return [...this.#prefix, "l", stream, "e", n];
  }

  // An operation against KV: its failure read by the one classifier.
  async #run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw storeFailure("deno-kv", operation, error);
    }
  }

  async #lastId(stream: string): Promise<number> {
    return (await this.#kv.get<Head>(this.#headKey(stream))).value?.n ?? 0;
  }

  async #readAfter<T>(
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
      const entry of this.#kv.list<Kept>({
        prefix: [...this.#prefix, "l", stream, "e"],
        start: this.#eventKey(stream, after + 1),
      }, limit === undefined ? {} : { limit })
    ) {
      if (!live(entry.value)) continue;
      const id = entry.key[entry.key.length - 1] as number;
      events.push({ id: String(id), value: JSON.parse(entry.value.j) as T });
    }
    return events;
  }

  async #append(
    stream: string,
    value: unknown,
    ttl: number | undefined,
  ): Promise<string> {
    checkTtl(ttl, "denoKvStore.append");
    const head = this.#headKey(stream);
    for (;;) {
      const current = await this.#kv.get<Head>(head);
      const n = (current.value?.n ?? 0) + 1;
      const { ok } = await commitRetrying(() =>
        this.#kv.atomic()
          .check({ key: head, versionstamp: current.versionstamp })
          .set(head, { n } satisfies Head, expireIn(ttl))
          .set(this.#eventKey(stream, n), kept(value, ttl), expireIn(ttl))
      );
      if (ok) return String(n);
    }
  }

  // Resolves after `ms`, sooner when `key` changes where `watch` sees it
  // or `signal` aborts; lets go of its timer and watch stream either way.
  #nap(key: Key, ms: number, signal: AbortSignal): Promise<void> {
    const kv = this.#kv;
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

  async get<T>(name: string): Promise<StoreEntry<T> | undefined> {
    checkKey(name, "get");
    return await this.#run("get", async () => {
      const key = await part(name);
      const entry = await this.#kv.get<Kept>(this.#valueKey(key));
      if (!live(entry.value) || entry.versionstamp === null) return undefined;
      return {
        value: JSON.parse(entry.value.j) as T,
        version: entry.versionstamp,
      };
    });
  }

  async set(
    name: string,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<string> {
    checkKey(name, "set");
    checkTtl(options?.ttlMs, "denoKvStore.set");
    return await this.#run("set", async () => {
      const key = this.#valueKey(await part(name));
      // A plain write, resolving to the versionstamp it got (Deno KV's
      // commit result carries it).
      for (;;) {
        const result = await commitRetrying(() =>
          this.#kv.atomic().set(
            key,
            kept(value, options?.ttlMs),
            expireIn(options?.ttlMs),
          )
        );
        if (result.ok) return result.versionstamp ?? "";
      }
    });
  }

  async delete(name: string): Promise<void> {
    checkKey(name, "delete");
    await this.#run(
      "delete",
      async () => this.#kv.delete(this.#valueKey(await part(name))),
    );
  }

  async swap(
    name: string,
    version: string | undefined,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<boolean> {
    checkKey(name, "swap");
    checkTtl(options?.ttlMs, "denoKvStore.swap");
    return await this.#run("swap", async () => {
      const key = this.#valueKey(await part(name));
      const entry = await this.#kv.get<Kept>(key);
      const current = live(entry.value)
        ? entry.versionstamp ?? undefined
        : undefined;
      if (current !== version) return false;
      const { ok } = await commitRetrying(() =>
        this.#kv.atomic()
          .check({ key, versionstamp: entry.versionstamp })
          .set(key, kept(value, options?.ttlMs), expireIn(options?.ttlMs))
      );
      return ok;
    });
  }

  async claimOnce(name: string, ttlMs: number): Promise<boolean> {
    checkKey(name, "claimOnce");
    checkTtl(ttlMs, "denoKvStore.claimOnce");
    return await this.#run("claimOnce", async () => {
      const key = this.#claimKey(await part(name));
      for (;;) {
        const entry = await this.#kv.get<Kept>(key);
        if (live(entry.value)) return false;
        const { ok } = await commitRetrying(() =>
          this.#kv.atomic()
            .check({ key, versionstamp: entry.versionstamp })
            .set(key, kept(true, ttlMs), { expireIn: ttlMs })
        );
        if (ok) return true;
      }
    });
  }

  async append(
    stream: string,
    value: unknown,
    options?: StoreAppendOptions,
  ): Promise<string> {
    checkKey(stream, "append");
    return await this.#run(
      "append",
      async () => this.#append(await part(stream), value, options?.ttlMs),
    );
  }

  async readAfter<T>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]> {
    checkKey(stream, "readAfter");
    return await this.#run(
      "readAfter",
      async () => this.#readAfter<T>(await part(stream), afterId, limit),
    );
  }

  async dropLog(name: string): Promise<void> {
    checkKey(name, "dropLog");
    await this.#run("dropLog", async () => {
      const stream = await part(name);
      for await (
        const entry of this.#kv.list({ prefix: [...this.#prefix, "l", stream] })
      ) {
        await this.#kv.delete(entry.key as Key);
      }
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    checkKey(channel, "publish");
    await this.#run("publish", async () => {
      await this.#append(
        await part(busStream(channel)),
        message,
        this.#messageTtl,
      );
    });
  }

  async subscribe(
    channel: string,
    onMessage: (message: string) => void,
    options?: StoreSubscribeOptions,
  ): Promise<StoreSubscription> {
    checkKey(channel, "subscribe");
    return await this.#run("subscribe", async () => {
      const stream = await part(busStream(channel));
      let last = String(await this.#lastId(stream));
      const stop = new AbortController();
      const loop = (async () => {
        while (!stop.signal.aborted) {
          await this.#nap(
            this.#headKey(stream),
            this.#pollInterval,
            stop.signal,
          );
          if (stop.signal.aborted) return;
          try {
            for (const event of await this.#readAfter<string>(stream, last)) {
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
        this.#open.delete(sub);
      }, options?.signal);
      this.#open.add(sub);
      if (options?.signal?.aborted) await sub.unsubscribe();
      return sub;
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#open].map((sub) => sub.unsubscribe()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
