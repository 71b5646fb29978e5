/**
 * The clock difference a `verify` function allows on `exp` when it judges
 * expiry itself (`jwtVerifier`'s `clockTolerance`), recorded beside the
 * function so that the HTTP gate's own check of `expiresAt` allows as
 * much.
 *
 * @module
 */

/** Seconds of clock difference, per `verify` function. */
const tolerances = new WeakMap<object, number>();

/**
 * Records that `verify` checks expiry itself, allowing `seconds` of clock
 * difference: the gate's own check of the result's `expiresAt` then allows
 * as much, so a token the verifier accepts is not refused by the gate. A
 * `verify` not recorded (one of your own, or one wrapping `jwtVerifier`)
 * gets none.
 */
export function setClockTolerance(verify: object, seconds: number): void {
  tolerances.set(verify, seconds);
}

/** The seconds of clock difference `verify` allows: what it recorded, else 0. */
export function clockToleranceOf(verify: object): number {
  return tolerances.get(verify) ?? 0;
}
