/**
 * Single-use records for signed `requestState`s: a state is accepted once,
 * its id claimed until the state expires. The store is anything with
 * `claimOnce(key, ttlMs)` (true the first time a key is claimed within
 * `ttlMs`, false after) — the shape every contract store of
 * `@weft/mcp/store` takes (a raw `Deno.Kv` is taken as `denoKvStore(kv)`
 * before it gets here); this file holds the bounded memory default.
 *
 * @module
 */

/** Where the ids of accepted requestStates are kept, so each is accepted once. */
export interface ClaimStore {
  /** True the first time `key` is claimed within `ttlMs`; false after. */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}

/** The most ids the memory store holds at once. */
export const MEMORY_CLAIMS_MAX = 100_000;

/**
 * The claims of this process, in memory: bounded and expiring. When it is
 * full of ids that have not expired, a claim is refused with an error
 * (never forgotten early: forgetting an id would let its state be replayed).
 */
export class MemoryClaims implements ClaimStore {
  readonly #max: number;
  // id → expiry (ms since the epoch); insertion order is expiry order for
  // one TTL, so the oldest entries are swept first.
  readonly #until = new Map<string, number>();

  constructor(max: number = MEMORY_CLAIMS_MAX) {
    this.#max = max;
  }

  /** How many ids are held. */
  get size(): number {
    return this.#until.size;
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const until = this.#until.get(key);
    if (until !== undefined && until > now) return Promise.resolve(false);
    if (until !== undefined) this.#until.delete(key);
    if (this.#until.size >= this.#max) this.#sweep(now);
    if (this.#until.size >= this.#max) {
      return Promise.reject(
        new Error(
          `the requestState claims in memory are full (${this.#max} states accepted within their expiry); pass a shared store to setRequestStateKey, or try again later`,
        ),
      );
    }
    this.#until.set(key, now + Math.max(0, ttlMs));
    return Promise.resolve(true);
  }

  #sweep(now: number): void {
    for (const [key, until] of this.#until) {
      if (until <= now) this.#until.delete(key);
    }
  }
}
