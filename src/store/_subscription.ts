/**
 * The subscription object every adapter returns: ends once (on
 * `unsubscribe()`, disposal or its signal), running the adapter's release.
 *
 * @module
 */

import type { StoreSubscription } from "./contract.ts";

/**
 * A subscription whose end runs `release` once; `signal` ends it too.
 * `active()` says whether messages may still be delivered.
 */
export function subscription(
  release: () => Promise<void>,
  signal: AbortSignal | undefined,
): StoreSubscription & { active(): boolean } {
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => {
    if (ended === undefined) {
      signal?.removeEventListener("abort", onAbort);
      ended = release();
    }
    return ended;
  };
  const onAbort = () => void end().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    unsubscribe: end,
    [Symbol.asyncDispose]: end,
    active: () => ended === undefined,
  };
}

/** Throws unless `ms` is a positive finite number of milliseconds. */
export function checkTtl(ms: number | undefined, where: string): void {
  if (ms === undefined) return;
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(
      `${where}: ttlMs must be a positive number of milliseconds, got ${ms}`,
    );
  }
}

/** The methods whose first argument is a key, stream or channel. */
const KEYED = new Set<string | symbol>([
  "get",
  "set",
  "delete",
  "swap",
  "claimOnce",
  "append",
  "readAfter",
  "dropLog",
  "publish",
  "subscribe",
]);

/**
 * `store` with every method's synchronous throw (a bad argument) turned
 * into a rejected promise, as the contract's methods fail, and every key
 * checked first.
 */
export function rejecting<T extends object>(store: T): T {
  const wrapped = { ...store } as Record<string | symbol, unknown>;
  for (const name of Reflect.ownKeys(store)) {
    const method = (store as Record<string | symbol, unknown>)[name];
    if (typeof method !== "function") continue;
    wrapped[name] = (...args: unknown[]) => {
      try {
        if (KEYED.has(name)) checkKey(args[0] as string, String(name));
        return method.apply(store, args);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return wrapped as T;
}

/** Throws unless `key` is a key the contract takes (no U+0000). */
export function checkKey(key: string, where: string): void {
  if (typeof key !== "string" || key.includes("\u0000")) {
    throw new RangeError(
      `${where}: a key or channel is a string without U+0000, got ${
        JSON.stringify(key)
      }`,
    );
  }
}
