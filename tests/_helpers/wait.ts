/**
 * Waiting in tests without guessing how long something takes.
 *
 * - {@link waitFor}: polls a condition until it holds, failing with what was
 *   awaited once its deadline passes (10 s unless a `signal` says otherwise) —
 *   for a state that has no event to await (a store record, a task status).
 * - {@link latch}: a promise to resolve from a callback, an event, a log line;
 *   {@link within} awaits it with a deadline.
 * - {@link quietFor}: the one deliberate window, for a negative assertion
 *   (something must NOT happen within `ms`); its reason is part of the call.
 * - {@link nextTurn}: one macrotask turn, on purpose (timers and I/O due now
 *   run first) — never a guess at how long something takes.
 * - {@link pace}: a delay that is the scenario itself (a slow writer, a
 *   progress cadence); its reason is part of the call.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Aborts the wait (default: `AbortSignal.timeout(10_000)`). */
  readonly signal?: AbortSignal;
  /** Pause between checks, ms (default 5). */
  readonly everyMs?: number;
}

/**
 * Resolves with `check()`'s first truthy value; rejects naming `what` when
 * `signal` aborts first (a function is read then, to show the last state).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  options: WaitOptions = {},
): Promise<Exclude<T, false | undefined | null | 0 | "">> {
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  const every = options.everyMs ?? 5;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | undefined | null | 0 | "">;
    if (signal.aborted) {
      assert.fail(
        `never happened: ${typeof what === "string" ? what : what()}`,
      );
    }
    await pause(every, signal);
  }
}

/**
 * A window in which something must NOT happen: waits `ms` and returns. The
 * `why` names the negative assertion the window serves (read, not used).
 */
export function quietFor(ms: number, why: string): Promise<void> {
  void why;
  return pause(ms);
}

/**
 * One macrotask turn: everything already queued (microtasks, timers due
 * now, I/O callbacks ready) runs before this resolves. For a step that is
 * one turn by design, not for waiting on an outcome (use {@link waitFor}
 * or a {@link latch} for that).
 */
export function nextTurn(): Promise<void> {
  return pause(0);
}

/**
 * A delay that paces the scenario on purpose (a slow writer, a progress
 * cadence): waits `ms`. The `why` names the pacing (read, not used).
 */
export function pace(ms: number, why: string): Promise<void> {
  void why;
  return pause(ms);
}

/**
 * Resolves with `promise`'s value; rejects naming `what` when `signal`
 * aborts first (default 10 s): awaiting a latch or an event that a
 * regression would never open fails instead of hanging the test.
 */
export async function within<T>(
  promise: Promise<T>,
  what: string,
  options: Pick<WaitOptions, "signal"> = {},
): Promise<T> {
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  let onAbort = () => {};
  const expired = new Promise<never>((_resolve, reject) => {
    onAbort = () =>
      reject(new assert.AssertionError({ message: `never happened: ${what}` }));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** A promise and the functions that settle it. */
export interface Latch<T> {
  readonly promise: Promise<T>;
  readonly open: (value: T) => void;
}

/** A promise opened from outside (a callback, an event, a log line). */
export function latch<T = void>(): Latch<T> {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Repeats `poke` until `arrived` settles: for an effect that a poke made
 * before its receiver listens is lost (a publish before the subscription is
 * in force, an update before a stream opens). Each poke waits up to
 * `everyMs` (default 20) for the arrival; rejects naming `what` when
 * `signal` aborts first (default 10 s). Resolves with `arrived`'s value.
 */
export async function pokeUntil<T>(
  poke: () => unknown,
  arrived: Promise<T>,
  what: string,
  options: WaitOptions = {},
): Promise<T> {
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  const every = options.everyMs ?? 20;
  let done = false;
  arrived.then(() => done = true, () => done = true);
  while (!done) {
    if (signal.aborted) assert.fail(`never happened: ${what}`);
    await poke();
    await Promise.race([arrived.catch(() => {}), pause(every, signal)]);
  }
  return await arrived;
}
