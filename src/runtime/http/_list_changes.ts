/**
 * The list changes of one `httpHandler`: the `subscriptions/listen`
 * streams (2026-07-28) open on it, told when a list changed — by
 * `listChanged` here, or, with sessions in a shared store, by another
 * instance publishing on the store's bus, watched while a stream is open.
 *
 * @module
 */

import type { EraTransport } from "../era/era_server.ts";
import type { StoreSessionBackend } from "./store_sessions.ts";
import { STORE_RETRY_SECONDS } from "./guard.ts";

/** The lists whose changes `subscriptions/listen` delivers. */
export const LISTS: readonly string[] = ["tools", "prompts", "resources"];

/** The error a listen stream ends with when the shared store's bus fails. */
const BUS_DOWN = {
  code: -32000,
  message:
    `Service Unavailable: the shared store is unreachable, so list changes can no longer reach this stream; listen again after ${STORE_RETRY_SECONDS} s`,
} as const;

/** The open listen streams of a handler, and the bus that tells them of other instances' changes. */
export class ListChanges {
  /** The modern transports serving now; those listening are told. */
  readonly live: Set<EraTransport> = new Set();
  readonly #backend: StoreSessionBackend | undefined;
  readonly #report: (error: Error) => void;
  readonly #closing = new AbortController();
  #watching = false;
  /** The watch under way: `close` waits for it, so the store is not read after. */
  #watched: Promise<unknown> = Promise.resolve();

  /**
   * Changes told to the streams open here, and through `backend` (sessions
   * in a shared store) to and from every instance sharing it.
   */
  constructor(
    backend: StoreSessionBackend | undefined,
    report: (error: Error) => void,
  ) {
    this.#backend = backend;
    this.#report = report;
  }

  /** Tells every open listen stream here that `list` changed. */
  deliver(list: string): Promise<unknown> {
    return Promise.all(
      this.#listening().map((era) =>
        era.notify(`notifications/${list}/list_changed`).catch(this.#report)
      ),
    );
  }

  /** Tells the streams open here and, through the shared store, those of other instances. */
  async publish(list: string): Promise<void> {
    await Promise.all([this.deliver(list), this.#backend?.publishChange(list)]);
  }

  /**
   * A listen stream opened: with sessions in a shared store, the changes
   * other instances publish are watched while any stream is open here.
   * Bound: the modern route calls it as it is.
   */
  readonly watch = (): void => {
    const backend = this.#backend;
    if (
      backend === undefined || this.#watching || this.#closing.signal.aborted
    ) {
      return;
    }
    this.#watching = true;
    this.#watched = backend.watchChanges(LISTS, {
      onChange: (list) => void this.deliver(list),
      signal: this.#closing.signal,
      wanted: () => this.#listening().length > 0,
    }).catch((error) => this.#busDown(error))
      .finally(() => this.#watching = false);
  };

  /** Ends every open listen stream with its result, and the watch. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all(this.#listening().map((era) => era.endListens()));
    await this.#watched;
  }

  #listening(): EraTransport[] {
    return [...this.live].filter((era) => era.listening);
  }

  #busDown(error: unknown): Promise<unknown> | undefined {
    // Closing: no listen stream is left to tell, and the store may be
    // closing with the handler; nothing is lost.
    if (this.#closing.signal.aborted) return;
    // The bus failed: the open listen streams would hear nothing more.
    // Each ends with an error saying so; the client listens again.
    this.#report(
      new Error(
        "httpHandler: the shared store's bus failed, so the open subscriptions/listen streams were ended with an error",
        { cause: error },
      ),
    );
    this.#watching = false;
    return Promise.all(
      this.#listening().map((era) => era.endListens(BUS_DOWN)),
    ).catch(() => {
      // Nothing lost: the bus failure was reported just above; each stream ends on its own.
    });
  }
}
