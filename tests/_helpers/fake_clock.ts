/**
 * A fake clock for leases and timers: `setTimeout` callbacks run only when
 * `advance(ms)` passes their deadline (in deadline order), and `Date.now`
 * stands still but for it (so `memoryStore`'s TTLs lapse on the same clock). Nothing
 * sleeps. Disposing restores the real `Date.now`.
 *
 * @module
 */

import type { LeaseClock } from "../../src/tasks/_lease.ts";

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly run: () => void;
}

/** A {@link LeaseClock} moved by hand. */
export class FakeClock implements LeaseClock, Disposable {
  readonly #real = Date.now;
  readonly #start = Date.now();
  #elapsed = 0;
  #next = 1;
  #timers: Timer[] = [];
  #waiting: (() => void)[] = [];

  /** `dates: false` leaves `Date.now` alone (the lease's timers only). */
  constructor(options: { dates?: boolean } = {}) {
    if (options.dates !== false) Date.now = () => this.now();
  }

  now(): number {
    return this.#start + this.#elapsed;
  }

  setTimeout(run: () => void, ms: number): unknown {
    const timer = { id: this.#next++, at: this.#elapsed + ms, run };
    this.#timers.push(timer);
    for (const wake of this.#waiting.splice(0)) wake();
    return timer.id;
  }

  /** Resolves when the next timer is scheduled (a heartbeat's beat ended). */
  scheduled(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }

  /** Timers scheduled and not yet run. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time `ms` forward, running each timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.#elapsed + ms;
    for (;;) {
      const due = this.#timers
        .filter((timer) => timer.at <= end)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#elapsed = due.at;
      due.run();
    }
    this.#elapsed = end;
  }

  [Symbol.dispose](): void {
    Date.now = this.#real;
  }
}
