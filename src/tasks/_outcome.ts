/**
 * Recording a task's outcome when the store is down: the write is tried
 * again with a growing pause (on the host's clock) while the store is
 * unreachable and the task is still this instance's, so a result finished
 * during an outage is kept, not lost and later reported as "the instance
 * stopped". A write the store refuses for another reason ends the task
 * `failed` with a reason saying its outcome could not be stored.
 *
 * @module
 */

import { StoreUnavailableError } from "../store/contract.ts";

/** Time for the host's waits: the real timers, or a test's. */
export interface TaskClock {
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real timers. */
export const REAL_CLOCK: TaskClock = {
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    }),
};

const clocks = new WeakMap<object, TaskClock>();

/** For tests: the clock of the host made for `store` (set before `serveTasks`). */
export function setTaskClock(store: object, clock: TaskClock): void {
  clocks.set(store, clock);
}

/** The clock of the host of `store`. */
export function taskClockOf(store: object): TaskClock {
  return clocks.get(store) ?? REAL_CLOCK;
}

/** The first pause after a failed write, ms; each next one doubles. */
export const FIRST_RETRY_MS = 100;
/** The longest pause between two tries, ms. */
export const MAX_RETRY_MS = 5_000;

/** The status message of a task whose outcome the store refused to keep. */
export const UNRECORDED_TEXT =
  "the task ended, but the store refused to keep its outcome; call it again only if running it twice is safe";

/** Whether `error` is (or was caused by) a store that cannot be reached. */
export function isStoreOutage(error: unknown): boolean {
  for (let depth = 0; depth < 8 && error instanceof Error; depth++) {
    if (error instanceof StoreUnavailableError) return true;
    error = error.cause;
  }
  return false;
}

/**
 * Runs `write` until it succeeds, pausing `FIRST_RETRY_MS`, doubled each
 * time up to `MAX_RETRY_MS`, after each failure that is a store outage;
 * `report` hears each. Resolves `true` once written, `false` when `stop`
 * aborted first (the task is no longer this instance's, or the host
 * closed). Any other failure rejects.
 */
export async function untilRecorded(
  write: () => Promise<void>,
  options: {
    readonly clock: TaskClock;
    readonly stop: AbortSignal;
    readonly report?: (error: unknown, attempt: number) => void;
  },
): Promise<boolean> {
  let pause = FIRST_RETRY_MS;
  for (let attempt = 1;; attempt++) {
    if (options.stop.aborted) return false;
    try {
      await write();
      return true;
    } catch (error) {
      if (!isStoreOutage(error)) throw error;
      options.report?.(error, attempt);
    }
    await options.clock.sleep(pause, options.stop);
    pause = Math.min(pause * 2, MAX_RETRY_MS);
  }
}

/**
 * Writes `result` with `finish` under the lease: tried again while the
 * store is unreachable (`untilRecorded`) until written, the task is no
 * longer this instance's, or the host closes (`stop`); a write refused
 * otherwise (a result the store will not keep) writes the task `failed`
 * with {@link UNRECORDED_TEXT} instead.
 */
export async function recordOutcome(
  finish: (result: Record<string, unknown>) => Promise<void>,
  result: Record<string, unknown>,
  options: { readonly clock: TaskClock; readonly stop: AbortSignal },
): Promise<void> {
  try {
    await untilRecorded(() => finish(result), options);
  } catch {
    // Not an outage: the store refused this result; say so instead.
    await untilRecorded(
      () =>
        finish({
          content: [{ type: "text", text: UNRECORDED_TEXT }],
          isError: true,
        }),
      options,
    );
  }
}
