/**
 * Racing work against an `AbortSignal` without leaking listeners.
 *
 * @module
 */

/**
 * Settles like `work`, or rejects with the signal's reason as soon as it
 * aborts. The abandoned `work` keeps running; its late outcome is absorbed,
 * never reported as unhandled.
 *
 * @example Using `raceAbort`
 * ```ts
 * import { raceAbort } from "./abort.ts";
 * import assert from "node:assert/strict";
 * const controller = new AbortController();
 * const never = new Promise<string>(() => {});
 * const raced = raceAbort(never, controller.signal);
 * controller.abort(new Error("stop"));
 * await assert.rejects(raced, { message: "stop" });
 * ```
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
