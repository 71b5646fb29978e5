/**
 * A host's task records: updates by compare-and-set (a terminal record is
 * never rewritten by a change that declines it), and waiting for a record
 * to change — woken at once by a change made in this process, else after
 * a poll interval (a change made elsewhere).
 *
 * @module
 */

import type { Store } from "../store/contract.ts";
import { recordKey, type TaskRecord } from "./_record.ts";

/** The longest a waiter sleeps before reading the store again, ms. */
const MAX_WAIT_MS = 250;

/** The records of one host's store. */
export class RecordBook {
  readonly #store: Store;
  /** Local wake-ups of waiters, by task id. */
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * Updates the record with `change` (compare-and-set, retried); `change`
   * returns `undefined` to leave it. Resolves to the record as it is after,
   * `undefined` when it is gone.
   */
  async update(
    id: string,
    change: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < 64; attempt++) {
      const entry = await this.#store.get<TaskRecord>(recordKey(id));
      if (entry === undefined) return undefined;
      const next = change(entry.value);
      if (next === undefined) return entry.value;
      const written = { ...next, lastUpdatedAt: new Date().toISOString() };
      if (
        await this.#store.swap(recordKey(id), entry.version, written, {
          ttlMs: written.ttl,
        })
      ) {
        this.wake(id);
        return written;
      }
    }
    throw new Error(
      `task ${id}: its record kept changing under 64 updates in a row; the store is contended`,
    );
  }

  /** Wakes this process's waiters on task `id`. */
  wake(id: string): void {
    for (const wake of this.#waiters.get(id) ?? []) wake();
  }

  /** Resolves when the record changes here, after `ms` (a change elsewhere), or on abort. */
  changed(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(id);
      if (set === undefined) this.#waiters.set(id, set = new Set());
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0) this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, Math.min(ms, MAX_WAIT_MS));
      signal.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }
}
