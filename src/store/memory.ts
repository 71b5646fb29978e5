/**
 * `memoryStore`: the contract in this process's memory — for tests, and
 * for a single instance that keeps nothing across restarts.
 *
 * @module
 */

import type {
  Store,
  StoreAppendOptions,
  StoreEntry,
  StoreLogEntry,
  StoreSetOptions,
  StoreSubscribeOptions,
  StoreSubscription,
} from "./contract.ts";
import { checkTtl, rejecting, subscription } from "./_subscription.ts";

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
  const values = new Map<string, Kept>();
  const claims = new Map<string, number>();
  const logs = new Map<string, Log>();
  const channels = new Map<string, Set<(message: string) => void>>();
  const open = new Set<StoreSubscription>();
  let version = 0;

  const until = (ttl: number | undefined) =>
    ttl === undefined ? Infinity : Date.now() + ttl;
  const read = (key: string): Kept | undefined => {
    const kept = values.get(key);
    if (kept !== undefined && kept.until <= Date.now()) {
      values.delete(key);
      return undefined;
    }
    return kept;
  };
  const write = (key: string, value: unknown, options?: StoreSetOptions) => {
    checkTtl(options?.ttlMs, "memoryStore.set");
    const kept = {
      json: JSON.stringify(value ?? null),
      version: String(++version),
      until: until(options?.ttlMs),
    };
    values.set(key, kept);
    return kept.version;
  };
  const log = (stream: string): Log | undefined => {
    const found = logs.get(stream);
    if (found !== undefined && found.until <= Date.now()) {
      logs.delete(stream);
      return undefined;
    }
    return found;
  };

  const store: Store = {
    kind: "memory",
    get<T>(key: string): Promise<StoreEntry<T> | undefined> {
      const kept = read(key);
      return Promise.resolve(
        kept === undefined
          ? undefined
          : { value: JSON.parse(kept.json) as T, version: kept.version },
      );
    },
    set(key, value, options) {
      return Promise.resolve(write(key, value, options));
    },
    delete(key) {
      values.delete(key);
      return Promise.resolve();
    },
    swap(key, expected, value, options) {
      if (read(key)?.version !== expected) return Promise.resolve(false);
      write(key, value, options);
      return Promise.resolve(true);
    },
    claimOnce(key, ttlMs) {
      checkTtl(ttlMs, "memoryStore.claimOnce");
      const held = claims.get(key);
      if (held !== undefined && held > Date.now()) {
        return Promise.resolve(false);
      }
      claims.set(key, Date.now() + ttlMs);
      return Promise.resolve(true);
    },
    append(stream, value, options?: StoreAppendOptions) {
      checkTtl(options?.ttlMs, "memoryStore.append");
      let found = log(stream);
      if (found === undefined) {
        found = { next: 1, until: Infinity, events: [] };
        logs.set(stream, found);
      }
      const id = found.next++;
      found.events.push({ id, json: JSON.stringify(value ?? null) });
      found.until = until(options?.ttlMs);
      return Promise.resolve(String(id));
    },
    readAfter<T>(
      stream: string,
      afterId: string | undefined,
      limit?: number,
    ): Promise<StoreLogEntry<T>[]> {
      const after = afterId === undefined ? 0 : Number(afterId);
      const events = (log(stream)?.events ?? [])
        .filter((event) => event.id > after)
        .slice(0, limit ?? Infinity)
        .map((event) => ({
          id: String(event.id),
          value: JSON.parse(event.json) as T,
        }));
      return Promise.resolve(events);
    },
    dropLog(stream) {
      logs.delete(stream);
      return Promise.resolve();
    },
    publish(channel, message) {
      for (const listener of [...channels.get(channel) ?? []]) {
        listener(message);
      }
      return Promise.resolve();
    },
    subscribe(
      channel: string,
      onMessage: (message: string) => void,
      options?: StoreSubscribeOptions,
    ): Promise<StoreSubscription> {
      let listeners = channels.get(channel);
      if (listeners === undefined) {
        listeners = new Set();
        channels.set(channel, listeners);
      }
      const deliver = (message: string) => {
        if (sub.active()) onMessage(message);
      };
      listeners.add(deliver);
      const sub = subscription(() => {
        listeners.delete(deliver);
        if (listeners.size === 0) channels.delete(channel);
        open.delete(sub);
        return Promise.resolve();
      }, options?.signal);
      open.add(sub);
      if (options?.signal?.aborted) void sub.unsubscribe();
      return Promise.resolve(sub);
    },
    async close() {
      await Promise.all([...open].map((sub) => sub.unsubscribe()));
    },
    [Symbol.asyncDispose]() {
      return store.close();
    },
  };
  return rejecting(store);
}
