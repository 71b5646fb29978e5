/**
 * The timers the sandbox's deadlines use, injectable so tests can drive
 * them.
 *
 * @module
 */

/**
 * Sets and clears one-shot timers.
 *
 * @example
 * ```ts
 * import type { Clock } from "@weft/mcp/sandbox";
 * const clock: Clock = {
 *   setTimeout: (fn, ms) => setTimeout(fn, ms),
 *   clearTimeout: (id) => clearTimeout(id as number),
 * };
 * clock.clearTimeout(clock.setTimeout(() => {}, 10));
 * ```
 */
export interface Clock {
  /** Calls `fn` after `ms`; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer; ignores `undefined` and spent handles. */
  clearTimeout(handle: unknown): void;
}

/** The global timers. */
export const SYSTEM_CLOCK: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => {
    if (handle !== undefined) clearTimeout(handle as number);
  },
};
