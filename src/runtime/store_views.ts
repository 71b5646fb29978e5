/**
 * The contract store seen as the runtime's older single-purpose stores:
 * a `Store` (from `@weft/mcp/store`) passed where an `eraStore` goes
 * serves the era verdicts under `era/`.
 *
 * @module
 */

import { isStore, type Store, STORE_NAMESPACES } from "../store/contract.ts";

/** The key-value shape the era verdicts are read and written through. */
export interface KeyArrayStore {
  /** The value kept under `key` (`{ value: null }` when none). */
  get(key: readonly string[]): Promise<{ readonly value: unknown }>;
  /** Keeps `value` under `key` for `expireIn` ms at most. */
  set(
    key: readonly string[],
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<unknown>;
}

/** The contract key of an array key under `namespace`. */
export function storeKey(namespace: string, key: readonly string[]): string {
  return namespace + key.map(encodeURIComponent).join("/");
}

/** `store` as an era store when it is a contract store, else as is. */
export function eraView<T extends KeyArrayStore>(
  store: T | Store | undefined,
): T | KeyArrayStore | undefined {
  if (!isStore(store)) return store;
  return {
    async get(key) {
      const entry = await store.get(storeKey(STORE_NAMESPACES.era, key));
      return { value: entry === undefined ? null : entry.value };
    },
    set(key, value, options) {
      return store.set(
        storeKey(STORE_NAMESPACES.era, key),
        value,
        options?.expireIn === undefined ? {} : { ttlMs: options.expireIn },
      );
    },
  };
}
