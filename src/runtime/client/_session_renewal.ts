/**
 * A new HTTP session after `404 Session not found`, as `McpClient` runs
 * it: the request that met the 404 begins one (a new `initialize`, shared
 * by every request that met the same 404) and goes once more; a second
 * 404 is a `SessionNotFoundError`, never a loop. A renewal that failed
 * leaves no session, and the next request begins one first.
 *
 * @module
 */

import { ServerConnectError } from "../errors.ts";
import { SessionNotFoundError } from "./session_error.ts";

/**
 * A connection's HTTP session: the session in use, whether an error is the
 * server's 404 for it, and forgetting it so the next `initialize` begins
 * another.
 */
export interface SessionRenewal {
  /** The session id in use, if any. */
  current(): string | undefined;
  /** Whether `error` is the server's answer that it does not know the session. */
  isGone(error: unknown): boolean;
  /** Forgets the session id (the next request carries none). */
  forget(): void;
  /** The deadline of the new `initialize`, ms. */
  readonly initializeTimeout: number;
  /** The server's name, for errors. */
  readonly server: string;
  /** The URL, for errors. */
  readonly target: string;
}

const renewals = new WeakMap<object, SessionRenewal>();

/** Declares that the connection behind `link` holds sessions, renewed as `renewal` says. */
export function setSessionRenewal(link: object, renewal: SessionRenewal): void {
  renewals.set(link, renewal);
}

/** How the connection behind `link` renews its session; `undefined` when it holds none. */
export function sessionRenewalOf(link: object): SessionRenewal | undefined {
  return renewals.get(link);
}

/** Runs requests of one connection, renewing its session after a 404. */
export class SessionKeeper {
  readonly #session: SessionRenewal;
  readonly #initialize: () => Promise<void>;
  /** The renewal of the session `from` under way, shared by its requests. */
  #renewal?: { from: string | undefined; done: Promise<void> };
  /** Whether the last renewal failed (no session is held). */
  #stale = false;

  /** `initialize` runs the client's handshake again on the same connection. */
  constructor(session: SessionRenewal, initialize: () => Promise<void>) {
    this.#session = session;
    this.#initialize = initialize;
  }

  /** Runs `send`; after a 404 for the session, renews it and runs `send` once more. */
  async run<T>(
    send: () => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const session = this.#session;
    if (this.#stale) await this.#renew(undefined);
    const before = session.current();
    try {
      return await send();
    } catch (error) {
      if (before === undefined || signal?.aborted || !session.isGone(error)) {
        throw error;
      }
      await this.#renew(before);
    }
    try {
      return await send();
    } catch (again) {
      if (signal?.aborted || !session.isGone(again)) throw again;
      throw new SessionNotFoundError(session.server, session.target, {
        cause: again,
      });
    }
  }

  #renew(from: string | undefined): Promise<void> {
    const session = this.#session;
    const running = this.#renewal;
    if (running !== undefined && running.from === from) return running.done;
    // Another request's renewal already replaced that session.
    if (from !== undefined && session.current() !== from) {
      return Promise.resolve();
    }
    session.forget();
    const done = this.#initialize().then(
      () => {
        this.#stale = false;
      },
      (error) => {
        this.#stale = true;
        throw new ServerConnectError(
          session.server,
          session.target,
          "initialize",
          error,
        );
      },
    ).finally(() => {
      if (this.#renewal?.done === done) this.#renewal = undefined;
    });
    this.#renewal = { from, done };
    return done;
  }
}
