/**
 * The subscription object every adapter returns: ends once (on
 * `unsubscribe()`, disposal or its signal), running the adapter's release;
 * and the channel bookkeeping the engines that push (Redis, Postgres)
 * share.
 *
 * @module
 */

import type { StoreSubscription } from "./contract.ts";

/**
 * A subscription whose end runs `release` once; `signal` ends it too.
 * `active()` says whether messages may still be delivered.
 */
export function subscription(
  release: () => Promise<void>,
  signal: AbortSignal | undefined,
): StoreSubscription & { active(): boolean } {
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => {
    if (ended === undefined) {
      signal?.removeEventListener("abort", onAbort);
      ended = release();
    }
    return ended;
  };
  const onAbort = () =>
    void end().catch(() => {
      // Nothing lost: unsubscribe() returns this same promise; its caller sees the failure.
    });
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    unsubscribe: end,
    [Symbol.asyncDispose]: end,
    active: () => ended === undefined,
  };
}

/** Throws unless `ms` is a positive finite number of milliseconds. */
export function checkTtl(ms: number | undefined, where: string): void {
  if (ms === undefined) return;
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(
      `${where}: ttlMs must be a positive number of milliseconds, got ${ms}`,
    );
  }
}

/** Throws unless `key` is a key the contract takes (no U+0000). */
export function checkKey(key: string, where: string): void {
  if (typeof key !== "string" || key.includes("\u0000")) {
    throw new RangeError(
      `${where}: a key or channel is a string without U+0000, got ${
        JSON.stringify(key)
      }`,
    );
  }
}

/** Ends the engine's interest in one channel (an `UNSUBSCRIBE`, an `UNLISTEN`). */
export type Detach = () => Promise<void>;

/**
 * The subscriptions of an engine that pushes, per channel: the engine is
 * attached to a channel once, with its first subscriber (`attach`, which
 * resolves once the engine confirmed), and detached with its last;
 * `afterDetach` runs after each detach (the Redis adapter closes its
 * subscriber connection when no channel is left). The engine hands each
 * message to {@link ChannelSet.deliver}.
 */
export class ChannelSet {
  readonly #listeners = new Map<string, Set<(message: string) => void>>();
  readonly #gaps = new Map<string, Set<() => void>>();
  readonly #attached = new Map<string, Promise<Detach>>();
  readonly #open = new Set<StoreSubscription>();
  readonly #attach: (channel: string) => Promise<Detach>;
  readonly #afterDetach?: () => Promise<void>;

  /** Attaches the engine with `attach`; `afterDetach` runs after each detach. */
  constructor(
    attach: (channel: string) => Promise<Detach>,
    afterDetach?: () => Promise<void>,
  ) {
    this.#attach = attach;
    this.#afterDetach = afterDetach;
  }

  /** The channels subscribed to. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Hands `message` to every subscriber of `channel`. */
  deliver(channel: string, message: string): void {
    for (const listener of [...this.#listeners.get(channel) ?? []]) {
      listener(message);
    }
  }

  /**
   * Tells the subscribers of `channel` (every channel when omitted) that
   * the engine's connection came back: messages may have been lost.
   */
  gap(channel?: string): void {
    const sets = channel === undefined
      ? [...this.#gaps.values()]
      : [this.#gaps.get(channel) ?? new Set<() => void>()];
    for (const set of sets) for (const onGap of [...set]) onGap();
  }

  /**
   * A subscription to `channel`, in force when it resolves (the engine
   * confirmed); rejects, holding nothing, when the engine could not attach.
   * `onGap` hears of {@link ChannelSet.gap}.
   */
  async subscribe(
    channel: string,
    onMessage: (message: string) => void,
    signal: AbortSignal | undefined,
    onGap?: () => void,
  ): Promise<StoreSubscription> {
    const deliver = (message: string) => {
      if (handle.active()) onMessage(message);
    };
    const gapped = () => {
      if (handle.active()) onGap?.();
    };
    if (onGap !== undefined) {
      let gaps = this.#gaps.get(channel);
      if (gaps === undefined) {
        gaps = new Set();
        this.#gaps.set(channel, gaps);
      }
      gaps.add(gapped);
    }
    let listeners = this.#listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
    }
    listeners.add(deliver);
    const handle = subscription(async () => {
      this.#open.delete(handle);
      const gaps = this.#gaps.get(channel);
      gaps?.delete(gapped);
      if (gaps?.size === 0) this.#gaps.delete(channel);
      await this.#release(channel, deliver);
    }, signal);
    this.#open.add(handle);
    try {
      let attached = this.#attached.get(channel);
      if (attached === undefined) {
        const attaching = this.#attach(channel);
        attached = attaching;
        this.#attached.set(channel, attaching);
        attaching.catch(() => {
          // The next subscriber tries again.
          if (this.#attached.get(channel) === attaching) {
            this.#attached.delete(channel);
          }
        });
      }
      await attached;
    } catch (error) {
      await handle.unsubscribe();
      throw error;
    }
    if (signal?.aborted) await handle.unsubscribe();
    return handle;
  }

  /** Ends every subscription. */
  async close(): Promise<void> {
    await Promise.all([...this.#open].map((sub) => sub.unsubscribe()));
  }

  // Ends one listener; the last of a channel detaches the engine from it.
  async #release(
    channel: string,
    listener: (message: string) => void,
  ): Promise<void> {
    const listeners = this.#listeners.get(channel);
    if (listeners === undefined || !listeners.delete(listener)) return;
    if (listeners.size > 0) return;
    this.#listeners.delete(channel);
    const attached = this.#attached.get(channel);
    this.#attached.delete(channel);
    const detach = await attached?.catch(() =>
      // Nothing lost: a subscription that never attached has nothing to detach.
      undefined
    );
    await detach?.().catch(() => {
      // Nothing lost: the channel is dropped; the connection's close ends it regardless.
    });
    await this.#afterDetach?.();
  }
}
