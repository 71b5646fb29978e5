/**
 * What one caller may hold of a task host: tasks running on this instance,
 * tasks kept in the store (counted from the caller's index, across
 * instances), and the size of the arguments a task keeps. Each limit is a
 * `serveTasks` option; reaching one refuses the call with a
 * `TaskLimitError` before anything is stored or started.
 *
 * @module
 */

import type { Store } from "../store/contract.ts";
import { indexKey, recordKey } from "./_record.ts";
import { TaskLimitError } from "./errors.ts";

/** The limits, resolved. */
export interface TaskLimits {
  /** Tasks of one caller running on this instance at once. */
  readonly maxRunningPerCaller: number;
  /** Tasks of one caller kept in the store (running or ended, until their ttl). */
  readonly maxTasksPerCaller: number;
  /** Bytes of a task's arguments as JSON. */
  readonly maxArgumentBytes: number;
}

/** Refuses `args` whose JSON takes more than `max` bytes (UTF-8). */
export function checkArgumentSize(args: unknown, max: number): void {
  const text = JSON.stringify(args ?? {}) ?? "";
  // A UTF-16 unit is at least one byte and at most three: count exactly
  // only when the length alone cannot tell.
  if (text.length > max) throw new TaskLimitError("arguments", max);
  if (text.length * 3 <= max) return;
  if (new TextEncoder().encode(text).byteLength > max) {
    throw new TaskLimitError("arguments", max);
  }
}

/** The tasks of each caller running in this process. */
export class RunningCount {
  readonly #counts = new Map<string, number>();

  /** Refuses a new task of `owner` when it already has `max` running here. */
  check(owner: string, max: number): void {
    if ((this.#counts.get(owner) ?? 0) >= max) {
      throw new TaskLimitError("running", max);
    }
  }

  /** One more task of `owner` runs here; the returned function ends it (once). */
  add(owner: string): () => void {
    this.#counts.set(owner, (this.#counts.get(owner) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#counts.get(owner) ?? 1) - 1;
      if (left > 0) this.#counts.set(owner, left);
      else this.#counts.delete(owner);
    };
  }
}

/**
 * Adds task `id` to `owner`'s index unless `owner` already keeps `max`
 * tasks: at the limit, ids whose record is gone (expired) are dropped
 * first, then the count is checked again. Compare-and-set, so two
 * instances starting tasks of one caller at once cannot pass the limit
 * together.
 */
export async function reserve(
  store: Store,
  owner: string,
  id: string,
  options: { readonly max: number; readonly ttlMs: number },
): Promise<void> {
  const key = indexKey(owner);
  for (let attempt = 0; attempt < 64; attempt++) {
    const entry = await store.get<string[]>(key);
    let ids = entry?.value ?? [];
    if (ids.length >= options.max) ids = await kept(store, ids);
    if (ids.length >= options.max) {
      throw new TaskLimitError("kept", options.max);
    }
    if (
      await store.swap(key, entry?.version, [...ids, id], {
        ttlMs: options.ttlMs,
      })
    ) return;
  }
  throw new Error(
    "a caller's task index kept changing under 64 updates in a row; the store is contended",
  );
}

/** The ids among `ids` whose record is still kept. */
async function kept(store: Store, ids: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    ids.map(async (id) =>
      (await store.get(recordKey(id))) === undefined ? undefined : id
    ),
  );
  return found.filter((id): id is string => id !== undefined);
}
