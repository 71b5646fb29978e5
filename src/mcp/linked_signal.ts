/**
 * A per-request child of a caller's signal.
 *
 * The SDK's `request` adds an abort listener to the signal it is given and
 * never removes it. Handing it a long-lived signal (a run's, a user's) would
 * pile up one listener per request, and a later abort would send
 * `notifications/cancelled` for requests that finished long ago. Each
 * request gets a child signal instead, unlinked from the parent when the
 * request settles.
 *
 * @module
 */

/** A child signal and the function that detaches it from its parent. */
export interface LinkedSignal {
  /** Aborts, with the parent's reason, when the parent aborts before `unlink`. */
  readonly signal: AbortSignal;
  /** Detaches the child; it never aborts afterwards. */
  unlink(): void;
}

/**
 * Links a child signal to `parent`. An already-aborted parent gives an
 * already-aborted child with the same reason.
 *
 * @example Using `linkSignal`
 * ```ts
 * import { linkSignal } from "./linked_signal.ts";
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
  if (parent.aborted) {
    child.abort(parent.reason);
    return { signal: child.signal, unlink: noop };
  }
  const onAbort = (): void => child.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return {
    signal: child.signal,
    unlink: () => parent.removeEventListener("abort", onAbort),
  };
}

function noop(): void {}
