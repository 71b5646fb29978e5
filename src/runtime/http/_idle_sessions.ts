/**
 * The idle sessions of one session-mode handler: a queue ordered by when
 * each went idle (oldest first), so expiring them never walks the live
 * ones, and one unref'd timer for the oldest. A session is idle when
 * nothing of it is open (no request in flight, no SSE stream); an idle
 * session expires once its last request is older than the idle timeout.
 *
 * @module
 */

import { unrefTimer } from "./_host.ts";

/** What the queue reads of a session. */
export interface Idling {
  /** The session id, once the SDK gave one. */
  id?: string;
  /** Requests and streams (a GET stream included) still open. */
  open: number;
  /** When its last request ended, ms since the epoch. */
  lastSeen: number;
}

/** What the queue does when sessions expire. */
export interface IdleHooks<S> {
  /** Ends an expired session (already taken out of the live sessions). */
  readonly end: (session: S) => void;
  /** Runs after each round of expiry. */
  readonly expired: () => void;
}

/** The idle queue over `sessions`, the live sessions by id. */
export class IdleSessions<S extends Idling> {
  /** Idle sessions, in the order they went idle (oldest first). */
  readonly #idle = new Map<string, S>();
  readonly #sessions: Map<string, S>;
  readonly #timeout: number;
  readonly #hooks: IdleHooks<S>;
  #timer?: ReturnType<typeof setTimeout>;

  /** Sessions of `sessions` idle `timeout` ms expire. */
  constructor(sessions: Map<string, S>, timeout: number, hooks: IdleHooks<S>) {
    this.#sessions = sessions;
    this.#timeout = timeout;
    this.#hooks = hooks;
  }

  /** The session idle longest, if any. */
  oldest(): S | undefined {
    return this.#idle.values().next().value;
  }

  /** A request or stream of `session` opened: it is not idle. */
  acquire(session: S): void {
    session.open++;
    if (session.open === 1 && session.id !== undefined) {
      this.#idle.delete(session.id);
    }
  }

  /** A request or stream of `session` ended: idle once nothing is open. */
  release(session: S): void {
    session.open--;
    session.lastSeen = Date.now();
    if (session.open > 0 || session.id === undefined) return;
    if (!this.#sessions.has(session.id)) return;
    // Re-inserted: the idle queue stays ordered by when sessions went idle.
    this.#idle.delete(session.id);
    this.#idle.set(session.id, session);
    this.#schedule();
  }

  /** Whether `session` is past its idle time at `now`. */
  expired(session: S, now: number): boolean {
    return session.open === 0 && now - session.lastSeen >= this.#timeout;
  }

  /** Expires the idle sessions past their time, oldest first; stops at the first that is not. */
  expire(): void {
    const now = Date.now();
    for (const [sid, session] of this.#idle) {
      if (!this.expired(session, now)) break;
      this.#idle.delete(sid);
      this.#sessions.delete(sid);
      this.#hooks.end(session);
    }
    this.#hooks.expired();
  }

  /** Takes session `id` out of the queue (it ended). */
  delete(id: string): void {
    this.#idle.delete(id);
  }

  /** Empties the queue and stops the timer. */
  clear(): void {
    this.#idle.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const oldest = this.oldest();
    if (oldest === undefined) return;
    const wait = Math.max(0, oldest.lastSeen + this.#timeout - Date.now());
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.expire();
      this.#schedule();
    }, wait + 1);
    this.#timer = timer;
    unrefTimer(timer);
  }
}
