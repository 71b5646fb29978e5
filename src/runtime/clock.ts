/**
 * The runtime's time, injected wherever it keeps deadlines — the client
 * lanes' request deadlines, the HTTP handler's body-read deadlines — so
 * tests drive them on a fake clock instead of sleeping.
 *
 * @module
 */

/**
 * The current time and one-shot timers: the process's own by default
 * ({@link SYSTEM_CLOCK}), a test's to move time by hand.
 *
 * @example A clock that keeps the timers armed on it
 * ```ts
 * import type { Clock } from "./clock.ts";
 * const armed = new Map<number, () => void>();
 * const clock: Clock = {
 *   now: () => 0,
 *   setTimeout: (callback) => {
 *     armed.set(armed.size + 1, callback);
 *     return armed.size;
 *   },
 *   clearTimeout: (handle) => armed.delete(handle as number),
 * };
 * clock.clearTimeout(clock.setTimeout(() => {}, 10));
 * ```
 */
export interface Clock {
  /** The current time in milliseconds (monotonic). */
  now(): number;
  /** Calls `callback` once after `delay` ms; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, delay: number): unknown;
  /** Cancels a timer `setTimeout` returned. */
  clearTimeout(handle: unknown): void;
  /**
   * References (`held`) or unreferences a timer `setTimeout` returned (an
   * unreferenced one holds no process open); whether it could. Absent, or
   * `false`: a deadline keeper clears an idle timer instead of keeping it
   * unreferenced.
   */
  hold?(handle: unknown, held: boolean): boolean;
}

/**
 * The process's clock: `performance.now()` and the global timers.
 *
 * @example
 * ```ts
 * import { SYSTEM_CLOCK } from "./clock.ts";
 * const timer = SYSTEM_CLOCK.setTimeout(() => {}, 1_000);
 * SYSTEM_CLOCK.clearTimeout(timer);
 * ```
 */
export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, delay) => setTimeout(callback, delay),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};
