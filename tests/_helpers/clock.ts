/**
 * A clock for tests whose subject is expiry: `advance(ms)` moves `Date.now`
 * forward for everything in this process (the authorization server, the
 * resource server, the OAuth client and its store), where sleeping past a
 * short token lifetime raced the test's own steps on a loaded machine (a
 * lifetime of whole seconds can end a moment after the token is issued).
 * Timers are not moved. Disposing restores the real clock.
 *
 * @module
 */

/** A movable `Date.now`, installed until disposed. */
export interface MovableClock extends Disposable {
  /** Moves the clock `ms` forward, at once. */
  advance(ms: number): void;
}

/** Installs a movable `Date.now` (one at a time; tests in a file run in turn). */
export function movableClock(): MovableClock {
  const real = Date.now;
  let offset = 0;
  Date.now = () => real() + offset;
  return {
    advance(ms: number): void {
      offset += ms;
    },
    [Symbol.dispose](): void {
      Date.now = real;
    },
  };
}
