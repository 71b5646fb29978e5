/**
 * What an `httpHandler` is inside: an {@link HttpEndpoint} holding the
 * parts a request meets (the resource-metadata gate, the front door, the
 * routes) and those it answers for (sessions, listen streams, list
 * changes), each built before it (`endpointFor` in `_assembly.ts`) and
 * handed over whole.
 *
 * @module
 */

import { internalError, storeDown, storeUnavailable } from "./guard.ts";
import type { Store } from "../../store/contract.ts";
import type { SessionStore } from "./sessions.ts";
import type { FrontDoor, PeerInfo } from "./_front_door.ts";
import type { StatelessRoute } from "./_stateless.ts";
import type { ListenCap } from "./_listen_cap.ts";
import { SignalHook } from "./_host.ts";
import { type ListenedAt, listenUrl } from "./_listen_url.ts";
import type { AuthGate } from "./_auth.ts";
import { type ListChanges, LISTS } from "./_list_changes.ts";
import type { HttpHandlerStats } from "./handler.ts";

/** The parts of an endpoint, each built before it. */
export interface EndpointParts {
  /** The checks every request passes before a route. */
  readonly door: FrontDoor;
  /** The resource-server gate (`auth`): serves the metadata document. */
  readonly gate: AuthGate | undefined;
  /** Where legacy requests go: the sessions, else a stateless route. */
  readonly route: { close(): Promise<void> };
  /** Where modern requests (2026-07-28) go, in either mode. */
  readonly modern: StatelessRoute;
  /** The sessions (session mode). */
  readonly sessions: SessionStore | undefined;
  /** The cap on open listen streams. */
  readonly listens: ListenCap;
  /** The open listen streams, told of list changes. */
  readonly changes: ListChanges;
  /** Sees every failure. */
  readonly report: (error: Error) => void;
  /** A contract store given as `store`: disposed when a signal ends the process. */
  readonly store: Store | undefined;
  /** The Host values the DNS-rebinding rule accepts (for the address `onListen` prints). */
  readonly hosts: string[] | undefined;
  /** Closes the endpoint when it aborts. */
  readonly signal: AbortSignal | undefined;
}

/** One `httpHandler`: answers requests, and ends what it holds. */
export class HttpEndpoint {
  readonly #door: FrontDoor;
  readonly #gate: AuthGate | undefined;
  readonly #parts: EndpointParts;
  readonly #signals: SignalHook;

  /** An endpoint over `parts`, closed when `parts.signal` aborts. */
  constructor(parts: EndpointParts) {
    this.#door = parts.door;
    this.#gate = parts.gate;
    this.#parts = parts;
    this.#signals = new SignalHook(() => void this.#endProcess());
    parts.signal?.addEventListener("abort", () => void this.close(), {
      once: true,
    });
  }

  /** Answers one request; never throws. Bound once: the handler is this function. */
  readonly fetch = async (
    req: Request,
    info?: PeerInfo,
  ): Promise<Response> => {
    try {
      const metadata = this.#gate?.metadata(req);
      if (metadata !== undefined) return metadata;
      return await this.#door.enter(req, info);
    } catch (error) {
      this.#parts.report(
        error instanceof Error ? error : new Error(String(error)),
      );
      return storeDown(error) !== undefined
        ? storeUnavailable()
        : internalError();
    }
  };

  /** Prints where it listens and closes on SIGTERM and SIGINT (`deno serve`). */
  onListen(address: ListenedAt): void {
    console.error(
      `httpHandler: listening on ${listenUrl(address, this.#parts.hosts)}`,
    );
    this.#signals.install();
  }

  /** Live sessions, their kept events, open listen streams. */
  stats(): HttpHandlerStats {
    const { sessions, listens } = this.#parts;
    const kept = sessions?.kept ?? { events: 0, bytes: 0 };
    return {
      sessions: sessions?.size ?? 0,
      keptEvents: kept.events,
      keptBytes: kept.bytes,
      listens: listens.open,
    };
  }

  /** Tells the open listen streams here and on other instances that `list` changed. */
  async listChanged(
    list: "tools" | "prompts" | "resources" = "tools",
  ): Promise<void> {
    if (!LISTS.includes(list)) {
      throw new TypeError(
        `httpHandler: listChanged(list): list must be "tools", "prompts" or "resources", got ${
          JSON.stringify(list)
        }`,
      );
    }
    await this.#parts.changes.publish(list);
  }

  /** Ends every session, stream and idle server; later requests still work. */
  async close(): Promise<void> {
    const { changes, route, modern } = this.#parts;
    this.#signals.remove();
    // Listen streams end with their result, then the servers close.
    await changes.close();
    await Promise.all([route.close(), modern.close()]);
    this.#door.close();
  }

  // The signal deno serve passes on ends the process: the handler closes,
  // then a contract store given as `store` (its connections would hold the
  // process otherwise). `close()` itself leaves the store to its owner.
  async #endProcess(): Promise<void> {
    await this.close();
    const store = this.#parts.store;
    if (store === undefined) return;
    try {
      await store[Symbol.asyncDispose]();
    } catch {
      // The process is ending; a store that fails to close changes nothing.
    }
  }
}
