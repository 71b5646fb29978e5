/**
 * `httpHandler`'s shared sessions over a contract store (from
 * `@weft/mcp/store`: Redis, Postgres, Deno KV, memory): session records,
 * their resumable events and the listen bus on the store's
 * publish/subscribe. The one session backend: the handler builds one when
 * its `store` option is a contract store (or a `Deno.Kv`, taken as
 * `denoKvStore(kv)`), and the deprecated `kvStore(kv)` is one over
 * `denoKvStore(kv)`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  type Store,
  STORE_NAMESPACES,
  type StoreSubscription,
  StoreUnavailableError,
} from "../../store/contract.ts";
import { SharedEventStore } from "./_shared_events.ts";

/**
 * Where `httpHandler` keeps sessions when given `store`: made by the
 * deprecated `kvStore`. Opaque: its members are the handler's business.
 *
 * @deprecated Pass a contract store from `@weft/mcp/store` (or the
 * `Deno.Kv` itself) as `httpHandler`'s `store`; this type goes with
 * `kvStore` in a later release.
 */
export interface HttpSessionStore {
  /** Identifies the store kind. */
  readonly kind: "kv";
}

/** What a shared session's record holds. */
export interface SessionRecord {
  /** The session id. */
  readonly id: string;
  /** The protocol version the session negotiated. */
  readonly protocol: string;
  /** The client's capabilities, from its initialize request. */
  readonly capabilities: unknown;
  /** The client's name and version, from its initialize request. */
  readonly clientInfo: unknown;
  /** `auth`: the principal (client and subject) that opened the session. */
  readonly principal?: string;
  /** When the session was last used, ms since the epoch. */
  readonly lastSeen: number;
  /** When it expires unless used again, ms since the epoch. */
  readonly expiresAt: number;
}

/** The longest session id looked up, in characters: the handler issues UUIDs. */
const MAX_SESSION_ID = 256;

/** One event as logged: its sequence, its stream, the message. */
interface LoggedEvent {
  readonly seq: string;
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
}

/** The live sessions over every instance: id → expiry as last written. */
type SessionIndex = Record<string, number>;

/** Options of {@link StoreSessionBackend}. */
export interface StoreSessionBackendOptions {
  /** How often resumed streams poll, ms. Default 100. */
  readonly pollInterval?: number;
  /** How often the bus proves itself alive while listen streams are open, ms. Default 2,000. */
  readonly heartbeat?: number;
  /** Told when an event could not be stored (the live stream still carried it). */
  readonly onStoreError?: (error: unknown) => void;
}

/** The session backend over a contract {@link Store}. */
export class StoreSessionBackend implements HttpSessionStore {
  /** Identifies the store kind. */
  readonly kind = "kv" as const;
  /** How often resumed streams poll, ms. */
  readonly pollInterval: number;
  readonly #onStoreError?: (error: unknown) => void;
  readonly #store: Store;
  readonly #instance = crypto.randomUUID().replaceAll("-", "").slice(0, 8);
  #counter = 0;
  /** The events' time to live (the session idle time), once an event was stored here. */
  #eventTtl: number | undefined;

  readonly #heartbeat: number;

  /**
   * Builds the backend over `store`; resumed streams poll every
   * `pollInterval` ms; while listen streams are open, the bus proves
   * itself alive every `heartbeat` ms (default 2,000); `onStoreError` is
   * told when an event could not be stored.
   */
  constructor(store: Store, options: StoreSessionBackendOptions = {}) {
    this.#store = store;
    this.pollInterval = options.pollInterval ?? 100;
    this.#heartbeat = options.heartbeat ?? 2_000;
    this.#onStoreError = options.onStoreError;
  }

  /**
   * This backend's store and timings, its failures to store an event told
   * to `onStoreError`: how a handler given a backend built elsewhere
   * (`kvStore(kv)`) reports them as its own without changing that object
   * (two handlers sharing it each hear their own).
   */
  reporting(onStoreError: (error: unknown) => void): StoreSessionBackend {
    return new StoreSessionBackend(this.#store, {
      pollInterval: this.pollInterval,
      heartbeat: this.#heartbeat,
      onStoreError,
    });
  }

  #session(id: string) {
    return `${STORE_NAMESPACES.sessions}id/${id}`;
  }
  #log(id: string) {
    return `${STORE_NAMESPACES.events}${id}`;
  }
  #index() {
    return `${STORE_NAMESPACES.sessions}index`;
  }

  /** The record of session `id`, unless absent or expired. */
  async get(id: string): Promise<SessionRecord | undefined> {
    // A longer id (a client's) names no session and never reaches the store.
    if (id.length > MAX_SESSION_ID) return undefined;
    const entry = await this.#store.get<SessionRecord>(this.#session(id));
    if (entry === undefined || entry.value.expiresAt <= Date.now()) {
      return undefined;
    }
    return entry.value;
  }

  /**
   * Stores a new session's record unless `max` live sessions exist over
   * every instance: the index of live sessions is updated by
   * compare-and-set, an entry past its indexed expiry dropped unless its
   * record says it was used since.
   */
  async create(record: SessionRecord, max: number): Promise<boolean> {
    for (;;) {
      const entry = await this.#store.get<SessionIndex>(this.#index());
      const index: SessionIndex = { ...entry?.value };
      const now = Date.now();
      for (const [id, until] of Object.entries(index)) {
        if (until > now) continue;
        const live = await this.get(id);
        if (live === undefined) delete index[id];
        else index[id] = live.expiresAt;
      }
      if (Object.keys(index).length >= max) return false;
      index[record.id] = record.expiresAt;
      if (await this.#store.swap(this.#index(), entry?.version, index)) break;
    }
    await this.#store.set(this.#session(record.id), record, {
      ttlMs: Math.max(1, record.expiresAt - Date.now()),
    });
    return true;
  }

  /** Moves a session's expiry on (it was used). */
  async touch(
    record: SessionRecord,
    idle: number,
  ): Promise<SessionRecord> {
    const now = Date.now();
    const next = { ...record, lastSeen: now, expiresAt: now + idle };
    await this.#store.set(this.#session(record.id), next, { ttlMs: idle });
    return next;
  }

  /** Ends a session on every instance: its record, index entry and events go. */
  async remove(id: string): Promise<void> {
    await this.#store.delete(this.#session(id));
    for (;;) {
      const entry = await this.#store.get<SessionIndex>(this.#index());
      if (entry === undefined || !(id in entry.value)) break;
      const index = { ...entry.value };
      delete index[id];
      if (await this.#store.swap(this.#index(), entry.version, index)) break;
    }
    await this.#store.dropLog(this.#log(id));
  }

  /** The SDK event store of session `id`; its events live `ttl` ms. */
  events(id: string, ttl: number): SharedEventStore {
    return new SharedEventStore(this, id, ttl);
  }

  /** Stores one event; resolves to its id. */
  async store(
    id: string,
    streamId: StreamId,
    message: JSONRPCMessage,
    ttl: number,
  ): Promise<EventId> {
    const { eventId, commit } = this.reserve(id, streamId, message, ttl);
    await commit();
    return eventId;
  }

  /** A new event sequence, in the format `parseEventId` reads. */
  #sequence(): string {
    const count = (this.#counter++ % 1_000_000).toString().padStart(6, "0");
    return `${
      Date.now().toString().padStart(15, "0")
    }.${count}.${this.#instance}`;
  }

  /** Names an event now; `commit` appends it to the session's log. */
  reserve(
    id: string,
    streamId: StreamId,
    message: JSONRPCMessage,
    ttl: number,
  ): { eventId: EventId; commit(): Promise<void> } {
    const seq = this.#sequence();
    this.#eventTtl = ttl;
    const commit = async () => {
      const event: LoggedEvent = { seq, streamId, message };
      try {
        await this.#store.append(this.#log(id), event, { ttlMs: ttl });
        await this.#store.publish(`${this.#log(id)}`, seq);
      } catch (error) {
        // Not kept: the live stream still gets the event; a resumption
        // would miss it.
        this.#onStoreError?.(error);
      }
    };
    return { eventId: `${streamId}/${seq}`, commit };
  }

  /**
   * Marks the events of `streamId` in session `id` as delivered: never
   * replayed. The mark lives as long as the stream's events can (the
   * events' time to live, from now; 24 h before this instance stored one).
   */
  async dropStream(id: string, streamId: StreamId): Promise<void> {
    await this.#store.set(`${this.#log(id)}/dropped/${streamId}`, true, {
      ttlMs: this.#eventTtl ?? 24 * 3_600_000,
    });
  }

  /**
   * The events of `streamId` stored after sequence `after`, in sequence
   * order, with their ids; and the last sequence seen.
   */
  async after(
    id: string,
    streamId: StreamId,
    after: string,
  ): Promise<{ events: [EventId, JSONRPCMessage][]; last: string }> {
    const dropped = await this.#store.get(
      `${this.#log(id)}/dropped/${streamId}`,
    );
    const logged = await this.#store.readAfter<LoggedEvent>(
      this.#log(id),
      undefined,
    );
    let last = after;
    const events: [EventId, JSONRPCMessage][] = [];
    for (
      const { value } of logged.sort((a, b) =>
        a.value.seq < b.value.seq ? -1 : a.value.seq > b.value.seq ? 1 : 0
      )
    ) {
      if (value.seq <= after) continue;
      if (value.seq > last) last = value.seq;
      if (value.streamId === streamId && dropped === undefined) {
        events.push([`${streamId}/${value.seq}`, value.message]);
      }
    }
    return { events, last };
  }

  /** Tells every instance that `list` changed. */
  async publishChange(list: string): Promise<void> {
    await this.#store.publish(`list/${list}`, this.#instance);
  }

  /**
   * Calls `onChange(list)` for each change of `lists` another instance
   * publishes, pushed by the store, until `signal` aborts or `wanted()`
   * says no more (checked every `pollInterval` ms). Every `heartbeat` ms a
   * message goes round the bus (published, received back): one that fails
   * or is not back within `heartbeat` ms rejects with a
   * `StoreUnavailableError` — the bus is down, changes would be lost.
   */
  async watchChanges(
    lists: readonly string[],
    options: {
      readonly onChange: (list: string) => void;
      readonly signal: AbortSignal;
      readonly wanted: () => boolean;
    },
  ): Promise<void> {
    const { onChange, signal, wanted } = options;
    const subs: StoreSubscription[] = [];
    // The bus's connection dropped and came back: changes published in
    // between are lost, so the streams must end (their clients list again).
    let gap = false;
    const onGap = () => void (gap = true);
    try {
      for (const list of lists) {
        subs.push(
          await this.#store.subscribe(`list/${list}`, (by) => {
            if (by !== this.#instance) onChange(list);
          }, { signal, onGap }),
        );
      }
      // The heartbeat: this instance's own channel, round trips counted.
      const ping = `list/~alive/${this.#instance}`;
      let sent = 0, back = 0, sentAt = Date.now();
      subs.push(
        await this.#store.subscribe(ping, (n) => {
          back = Math.max(back, Number(n));
        }, { signal }),
      );
      while (!signal.aborted && wanted()) {
        await pause(this.pollInterval, signal);
        if (gap) {
          throw new StoreUnavailableError(
            this.#store.kind,
            "subscribe",
            new Error(
              "the bus connection dropped and came back: list changes published in between may be lost",
            ),
          );
        }
        const now = Date.now();
        if (back < sent && now - sentAt > this.#heartbeat) {
          throw new StoreUnavailableError(
            this.#store.kind,
            "subscribe",
            new Error(
              `a message published on the bus was not received back within ${this.#heartbeat} ms`,
            ),
          );
        }
        if (back === sent && now - sentAt >= this.#heartbeat) {
          sent++;
          sentAt = now;
          await this.#store.publish(ping, String(sent));
        }
      }
    } finally {
      await Promise.all(subs.map((sub) => sub.unsubscribe()));
    }
  }

  /**
   * Resolves after `ms`, or sooner when another event of session `id` is
   * stored (pushed by the store) or `signal` aborts.
   */
  async wait(
    id: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void> {
    const woken = new AbortController();
    const both = AbortSignal.any([signal, woken.signal]);
    // A gap may have hidden the wake-up: look again at once.
    const sub = await this.#store.subscribe(
      this.#log(id),
      () => woken.abort(),
      { signal: both, onGap: () => woken.abort() },
    ).catch(() =>
      // Nothing lost: without a subscription the wait ends by its timer and looks again.
      undefined
    );
    try {
      await pause(ms, both);
    } finally {
      await sub?.unsubscribe();
    }
  }
}

/** Resolves after `ms` or when `signal` aborts, leaving no timer behind. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    if (signal.aborted) done();
  });
}
