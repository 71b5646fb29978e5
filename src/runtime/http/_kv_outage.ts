/**
 * A Deno KV whose failures to answer read as an outage: every operation
 * `kvStore` makes that throws (a closed database, a Deno Deploy KV that
 * cannot be reached, an I/O error on a local file) rejects with a
 * `StoreUnavailableError` naming the operation, so the handler answers its
 * 503 with `Retry-After` instead of a 500. A `RangeError` or `TypeError`
 * (a key or value KV refuses: a bug, not an outage) goes through as it is.
 *
 * @module
 */

import { storeFailure } from "../../store/outage.ts";
import type { KvAtomicLike, KvKeyLike, KvLike } from "./kv_store.ts";

/** `error` as the failure of `operation`: an outage unless it is a bug. */
function failed(operation: string, error: unknown): never {
  throw storeFailure("deno-kv", operation, error);
}

/** `kv`, its operations' failures read as outages. */
export function outagesAsStoreErrors(kv: KvLike): KvLike {
  const guarded: KvLike = {
    get: <T>(key: KvKeyLike) =>
      kv.get<T>(key).catch((error) => failed("get", error)),
    list: (selector, options) => listed(kv, selector, options),
    set: (key, value, options) =>
      kv.set(key, value, options).catch((error) => failed("set", error)),
    delete: (key) => kv.delete(key).catch((error) => failed("delete", error)),
    atomic: () => atomically(kv.atomic()),
  };
  // Read when asked for, not now: `kv` is touched only by the operations.
  Object.defineProperty(guarded, "watch", {
    get: () => kv.watch?.bind(kv),
    enumerable: true,
  });
  return guarded;
}

async function* listed<T>(
  kv: KvLike,
  selector: Parameters<KvLike["list"]>[0],
  options: Parameters<KvLike["list"]>[1],
): AsyncGenerator<{ key: readonly unknown[]; value: T }> {
  try {
    yield* kv.list<T>(selector, options);
  } catch (error) {
    failed("list", error);
  }
}

function atomically(inner: KvAtomicLike): KvAtomicLike {
  const atomic: KvAtomicLike = {
    check(...checks) {
      inner.check(...checks);
      return atomic;
    },
    set(key: KvKeyLike, value: unknown, options?: { expireIn?: number }) {
      inner.set(key, value, options);
      return atomic;
    },
    delete(key: KvKeyLike) {
      inner.delete(key);
      return atomic;
    },
    sum(key: KvKeyLike, n: bigint) {
      inner.sum(key, n);
      return atomic;
    },
    commit: () => inner.commit().catch((error) => failed("commit", error)),
  };
  return atomic;
}
