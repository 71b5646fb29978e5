/**
 * One storage contract for everything instances of a program share —
 * sessions and event replay, the listen bus, single-use and leased records,
 * TTL key-values, task records, pins and catalogs — and its four adapters:
 * memory, Deno KV (the zero-setup default), Redis and Postgres. The Redis
 * and Postgres clients load on first use only.
 *
 * @example One store, whatever the engine
 * ```ts
 * import { memoryStore, type Store } from "@weft/mcp/store";
 * import assert from "node:assert/strict";
 *
 * async function spendOnce(store: Store, state: string): Promise<boolean> {
 *   return await store.claimOnce(`state/${state}`, 600_000);
 * }
 * await using store = memoryStore();
 * assert.equal(await spendOnce(store, "abc"), true);
 * assert.equal(await spendOnce(store, "abc"), false);
 * ```
 *
 * @module
 */

export {
  isStore,
  STORE_NAMESPACES,
  StoreUnavailableError,
} from "./src/store/contract.ts";
export type {
  Store,
  StoreAppendOptions,
  StoreEntry,
  StoreLogEntry,
  StoreSetOptions,
  StoreSubscribeOptions,
  StoreSubscription,
  StoreValue,
} from "./src/store/contract.ts";
export { memoryStore } from "./src/store/memory.ts";
export { denoKvStore } from "./src/store/deno_kv.ts";
export type {
  DenoKvAtomicLike,
  DenoKvLike,
  DenoKvStoreOptions,
} from "./src/store/deno_kv.ts";
export { redisStore } from "./src/store/redis.ts";
export type {
  RedisClientLike,
  RedisStoreOptions,
  RedisSubscriberLike,
} from "./src/store/redis.ts";
export { postgresStore } from "./src/store/postgres.ts";
export type {
  PostgresClientLike,
  PostgresStoreOptions,
} from "./src/store/postgres.ts";
