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

/**
 * `store` with every method's synchronous throw (a bad argument) turned
 * into a rejected promise, as the contract's methods fail.
 */
export function rejecting<T extends object>(store: T): T {
  const wrapped = { ...store } as Record<string | symbol, unknown>;
  for (const name of Reflect.ownKeys(store)) {
    const method = (store as Record<string | symbol, unknown>)[name];
    if (typeof method !== "function") continue;
    wrapped[name] = (...args: unknown[]) => {
      try {
        return method.apply(store, args);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return wrapped as T;
}
