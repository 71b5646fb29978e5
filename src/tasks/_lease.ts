/**
 * A lease on one store key: which instance runs a task. One state machine
 * — acquire, renew (the heartbeat), lose, release, take over — each step a
 * single compare-and-set on the store, so two instances racing one lapsed
 * lease cannot both win, and a renewal that finds the lease taken reports
 * it lost instead of writing over the winner.
 *
 * The lease record is `{ instance }` under a TTL: it lapses by itself when
 * its holder stops renewing it (a crash), and a released lease is a
 * `{ instance, released: true }` record that lapses at once — released by
 * compare-and-set, so a lease another instance took meanwhile is never
 * let go by mistake.
 *
 * Time comes from an injected {@link LeaseClock}: tests drive the
 * heartbeat on a fake one.
 *
 * @module
 */

import type { Store, StoreEntry } from "../store/contract.ts";

/** The lease as the store holds it. */
export interface LeaseRecord {
  /** The instance holding it. */
  readonly instance: string;
  /** Let go of by its holder: free, as a lapsed one is. */
  readonly released?: boolean;
}

/** Time for a lease: the real timers, or a test's. */
export interface LeaseClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `run` after `ms`. */
  setTimeout(run: () => void, ms: number): unknown;
  /** Cancels a call `setTimeout` scheduled. */
  clearTimeout(handle: unknown): void;
}

/** The real timers. */
export const REAL_LEASE_CLOCK: LeaseClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Where a lease stands, as this instance knows it: `idle` (not held:
 * never acquired, or an acquire lost the race), `held`, `lost` (another
 * instance holds it now), `released`.
 */
export type LeaseState = "idle" | "held" | "lost" | "released";

/** Options of a {@link Lease}. */
export interface LeaseOptions {
  /** This instance's id, written in the lease. */
  readonly instance: string;
  /** How long the lease lives unrenewed, ms. */
  readonly ttlMs: number;
  /** Default: the real timers. */
  readonly clock?: LeaseClock;
}

/** What the heartbeat reports. */
export interface HeartbeatOptions {
  /** The lease was found taken by another instance: the heartbeat stopped. */
  readonly onLost: () => void;
  /** A renewal the store failed (an outage): tried again at the next beat. */
  readonly onError: (error: unknown) => void;
  /** Runs after each renewal that kept the lease (a check of the task's record). */
  readonly afterBeat?: () => Promise<void>;
  /** Hears the end of each beat that kept beating, once the next one is scheduled. */
  readonly onBeat?: () => void;
}

/** Whether `entry` is a lease some instance holds (not lapsed, not released). */
function heldBy(
  entry: StoreEntry<LeaseRecord> | undefined,
): string | undefined {
  if (entry === undefined || entry.value.released === true) return undefined;
  return entry.value.instance;
}

/**
 * Whether the lease at `key` is held by some instance right now.
 * A task whose lease is not held is taken over by the next reader.
 */
export async function leaseHeld(store: Store, key: string): Promise<boolean> {
  return heldBy(await store.get<LeaseRecord>(key)) !== undefined;
}

/** One instance's lease on one key. */
export class Lease {
  readonly #store: Store;
  readonly #key: string;
  readonly #instance: string;
  readonly #ttlMs: number;
  readonly #clock: LeaseClock;
  #state: LeaseState = "idle";
  /** Until when, on this instance's clock, the last write keeps the lease. */
  #until = 0;
  #timer: unknown = undefined;
  #beating = false;

  constructor(store: Store, key: string, options: LeaseOptions) {
    this.#store = store;
    this.#key = key;
    this.#instance = options.instance;
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock ?? REAL_LEASE_CLOCK;
  }

  /** Where the lease stands. */
  get state(): LeaseState {
    return this.#state;
  }

  /** Until when (ms since the epoch, on the lease's clock) the last acquire or renewal keeps it. */
  get until(): number {
    return this.#until;
  }

  /** The pause between two beats of the heartbeat: a third of the TTL. */
  get beatMs(): number {
    return Math.max(10, Math.floor(this.#ttlMs / 3));
  }

  /**
   * Takes the lease when it is free (absent, lapsed or released): one
   * compare-and-set, so of several instances racing, exactly one wins.
   * `false` when another instance holds it. Taking over a task whose
   * runner stopped is this same step on its lapsed lease.
   */
  async acquire(): Promise<boolean> {
    const entry = await this.#store.get<LeaseRecord>(this.#key);
    const holder = heldBy(entry);
    if (holder !== undefined && holder !== this.#instance) return false;
    const won = await this.#write(entry?.version);
    this.#state = won ? "held" : "idle";
    return won;
  }

  /**
   * Extends the lease by its TTL. `"lost"` when another instance holds it
   * now (a renewal never writes over it); a lease that lapsed while no
   * one took it is taken again. A store failure rejects and changes
   * nothing (the next renewal tries again).
   */
  async renew(): Promise<"renewed" | "lost"> {
    if (this.#state !== "held") return "lost";
    const entry = await this.#store.get<LeaseRecord>(this.#key);
    const holder = entry?.value.instance;
    if (entry !== undefined && holder !== this.#instance) return this.#lose();
    if (entry?.value.released === true) return this.#lose();
    return await this.#write(entry?.version) ? "renewed" : this.#lose();
  }

  /**
   * Lets the lease go while it is still this instance's (compare-and-set:
   * a lease another instance took is left alone); stops the heartbeat.
   * The next reader may take the task over at once.
   */
  async release(): Promise<void> {
    this.stop();
    if (this.#state !== "held") return;
    this.#state = "released";
    const entry = await this.#store.get<LeaseRecord>(this.#key);
    if (heldBy(entry) !== this.#instance) return;
    await this.#store.swap(
      this.#key,
      entry!.version,
      { instance: this.#instance, released: true } satisfies LeaseRecord,
      // Lapses at once: nothing is left behind.
      { ttlMs: 1 },
    );
  }

  /**
   * Renews the lease every {@link beatMs} until it is lost (`onLost`),
   * released or stopped. Beats never overlap: the next is scheduled when
   * one ended.
   */
  heartbeat(options: HeartbeatOptions): void {
    if (this.#beating) return;
    this.#beating = true;
    const beat = async (): Promise<void> => {
      this.#timer = undefined;
      if (!this.#beating) return;
      try {
        if (await this.renew() === "lost") {
          this.#beating = false;
          options.onLost();
          return;
        }
        await options.afterBeat?.();
      } catch (error) {
        options.onError(error);
      }
      schedule();
      options.onBeat?.();
    };
    const schedule = (): void => {
      if (this.#beating && this.#state === "held") {
        this.#timer = this.#clock.setTimeout(() => void beat(), this.beatMs);
      }
    };
    schedule();
  }

  /** Stops the heartbeat (the lease lapses by its TTL unless released). */
  stop(): void {
    this.#beating = false;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #lose(): "lost" {
    // A renewal racing `release()` leaves the lease released, not lost.
    if (this.#state === "held") this.#state = "lost";
    this.stop();
    return "lost";
  }

  async #write(version: string | undefined): Promise<boolean> {
    const won = await this.#store.swap(
      this.#key,
      version,
      { instance: this.#instance } satisfies LeaseRecord,
      { ttlMs: this.#ttlMs },
    );
    if (won) this.#until = this.#clock.now() + this.#ttlMs;
    return won;
  }
}
