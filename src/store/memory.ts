/**
 * `memoryStore`: the contract in this process's memory — for tests, and
 * for a single instance that keeps nothing across restarts.
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

interface Kept {
  readonly json: string;
  readonly version: string;
  readonly until: number;
}

interface Log {
  next: number;
  until: number;
  readonly events: { id: number; json: string }[];
}

/**
 * A {@link Store} in this process's memory: every handle on it is the same
 * object, so it shares nothing with other processes. Expired records are
 * dropped when next touched.
 *
 * @example Publish and subscribe in one process
 * ```ts
 * import { memoryStore } from "@weft/mcp/store";
 * import assert from "node:assert/strict";
 * await using store = memoryStore();
 * const got: string[] = [];
 * await using _sub = await store.subscribe("tools", (m) => got.push(m));
 * await store.publish("tools", "changed");
 * assert.deepEqual(got, ["changed"]);
 * ```
 */
export function memoryStore(): Store {
  return ownMethods(new MemoryStore());
}

/** The contract in memory: what {@link memoryStore} returns. */
class MemoryStore implements Store {
  readonly kind = "memory";
  readonly #values = new Map<string, Kept>();
  readonly #claims = new Map<string, number>();
  readonly #logs = new Map<string, Log>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #open = new Set<StoreSubscription>();
  #version = 0;

  #read(key: string): Kept | undefined {
    const kept = this.#values.get(key);
    if (kept !== undefined && kept.until <= Date.now()) {
      this.#values.delete(key);
      return undefined;
    }
    return kept;
  }

  #write(key: string, value: unknown, options?: StoreSetOptions): string {
    checkTtl(options?.ttlMs, "memoryStore.set");
    const kept = {
      json: JSON.stringify(value ?? null),
      version: String(++this.#version),
      until: until(options?.ttlMs),
    };
    this.#values.set(key, kept);
    return kept.version;
  }

  #log(stream: string): Log | undefined {
    const found = this.#logs.get(stream);
    if (found !== undefined && found.until <= Date.now()) {
      this.#logs.delete(stream);
      return undefined;
    }
    return found;
  }

  // deno-lint-ignore require-await -- async: a bad argument rejects, as the contract's methods fail
  async get<T>(key: string): Promise<StoreEntry<T> | undefined> {
    checkKey(key, "get");
    const kept = this.#read(key);
    return kept === undefined
      ? undefined
      : { value: JSON.parse(kept.json) as T, version: kept.version };
  }

  // deno-lint-ignore require-await -- as get
  async set(
    key: string,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<string> {
    checkKey(key, "set");
    return this.#write(key, value, options);
  }

  // deno-lint-ignore require-await -- as get
  async delete(key: string): Promise<void> {
    checkKey(key, "delete");
    this.#values.delete(key);
  }

  // deno-lint-ignore require-await -- as get
  async swap(
    key: string,
    expected: string | undefined,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<boolean> {
    checkKey(key, "swap");
    if (this.#read(key)?.version !== expected) return false;
    this.#write(key, value, options);
    return true;
  }

  // deno-lint-ignore require-await -- as get
  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    checkKey(key, "claimOnce");
    checkTtl(ttlMs, "memoryStore.claimOnce");
    const held = this.#claims.get(key);
    if (held !== undefined && held > Date.now()) return false;
    this.#claims.set(key, Date.now() + ttlMs);
    return true;
  }

  // deno-lint-ignore require-await -- as get
  async append(
    stream: string,
    value: unknown,
    options?: StoreAppendOptions,
  ): Promise<string> {
    checkKey(stream, "append");
    checkTtl(options?.ttlMs, "memoryStore.append");
    let found = this.#log(stream);
    if (found === undefined) {
      found = { next: 1, until: Infinity, events: [] };
      this.#logs.set(stream, found);
    }
    const id = found.next++;
    found.events.push({ id, json: JSON.stringify(value ?? null) });
    found.until = until(options?.ttlMs);
    return String(id);
  }

  // deno-lint-ignore require-await -- as get
  async readAfter<T>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]> {
    checkKey(stream, "readAfter");
    const after = afterId === undefined ? 0 : Number(afterId);
    return (this.#log(stream)?.events ?? [])
      .filter((event) => event.id > after)
      .slice(0, limit ?? Infinity)
      .map((event) => ({
        id: String(event.id),
        value: JSON.parse(event.json) as T,
      }));
  }

  // deno-lint-ignore require-await -- as get
  async dropLog(stream: string): Promise<void> {
    checkKey(stream, "dropLog");
    this.#logs.delete(stream);
  }

  // deno-lint-ignore require-await -- as get
  async publish(channel: string, message: string): Promise<void> {
    checkKey(channel, "publish");
    for (const listener of [...this.#channels.get(channel) ?? []]) {
      listener(message);
    }
  }

  // deno-lint-ignore require-await -- as get
  async subscribe(
    channel: string,
    onMessage: (message: string) => void,
    options?: StoreSubscribeOptions,
  ): Promise<StoreSubscription> {
    checkKey(channel, "subscribe");
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
    }
    const deliver = (message: string) => {
      if (sub.active()) onMessage(message);
    };
    listeners.add(deliver);
    const sub = subscription(() => {
      listeners.delete(deliver);
      if (listeners.size === 0) this.#channels.delete(channel);
      this.#open.delete(sub);
      return Promise.resolve();
    }, options?.signal);
    this.#open.add(sub);
    if (options?.signal?.aborted) void sub.unsubscribe();
    return sub;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#open].map((sub) => sub.unsubscribe()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The deadline of a record written now to live `ttl` ms (`Infinity`: kept). */
function until(ttl: number | undefined): number {
  return ttl === undefined ? Infinity : Date.now() + ttl;
}
