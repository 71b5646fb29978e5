/**
 * Racing work against an `AbortSignal` without leaking listeners.
 *
 * `linkSignal` gives a request its own child of a caller's signal. The SDK's
 * `request` adds an abort listener to the signal it is given and never
 * removes it; a long-lived signal (a run's, a user's) would pile up one
 * listener per request, and a later abort would cancel requests that
 * finished long ago. The bridge and the HTTP client both use it.
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
    work.catch(() => {
      // Nothing lost: the caller gets the abort; the abandoned work's failure has no one to tell.
    });
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

/** A child signal and the function that detaches it from its parent. */
export interface LinkedSignal {
  /** Aborts, with the parent's reason, when the parent aborts before `unlink`. */
  readonly signal: AbortSignal;
  /** Detaches the child; it never aborts with the parent afterwards. */
  unlink(): void;
  /** Aborts the child alone (a per-call deadline), with `reason`. */
  abort(reason?: unknown): void;
}

/**
 * Links a child signal to `parent`. An already-aborted parent gives an
 * already-aborted child with the same reason. The agent loop's per-call
 * signal, the bridge's per-request signal and the HTTP client's are all
 * links.
 *
 * @example Using `linkSignal`
 * ```ts
 * import { linkSignal } from "./abort.ts";
 * import assert from "node:assert/strict";
 * const parent = new AbortController();
 * const link = linkSignal(parent.signal);
 * link.unlink();
 * parent.abort();
 * assert.ok(!link.signal.aborted);
 * ```
 */
export function linkSignal(parent: AbortSignal): LinkedSignal {
  const child = new AbortController();
  const abort = (reason?: unknown): void => child.abort(reason);
  if (parent.aborted) {
    child.abort(parent.reason);
    return { signal: child.signal, unlink: noop, abort };
  }
  const onAbort = (): void => child.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return {
    signal: child.signal,
    unlink: () => parent.removeEventListener("abort", onAbort),
    abort,
  };
}

function noop(): void {}
