/**
 * `kvStore`: sessions and their resumable events in Deno KV, so every
 * instance of a server — processes on one machine, isolates on Deno Deploy
 * — serves every session.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { outagesAsStoreErrors } from "./_kv_outage.ts";

/** A Deno KV key, structurally. */
export type KvKeyLike = readonly (string | number | bigint | boolean)[];

/** A Deno KV entry as `get` resolves it, structurally. */
export interface KvEntryLike<T> {
  /** The entry's key. */
  readonly key: readonly unknown[];
  /** Its value; `null` when there is none. */
  readonly value: T | null;
  /** Its version; `null` when there is none. */
  readonly versionstamp: string | null;
}

/** The atomic operation of a Deno KV, structurally: the members `kvStore` uses. */
export interface KvAtomicLike {
  /** Fails the commit unless each key still has the given version. */
  check(
    ...checks: { key: KvKeyLike; versionstamp: string | null }[]
  ): KvAtomicLike;
  /** Sets a key. */
  set(key: KvKeyLike, value: unknown, options?: { expireIn?: number }): this;
  /** Deletes a key. */
  delete(key: KvKeyLike): this;
  /** Adds `n` to a 64-bit counter, modulo 2^64 (never conflicts). */
  sum(key: KvKeyLike, n: bigint): this;
  /** Commits; `ok` is false when a check failed. */
  commit(): Promise<{ readonly ok: boolean }>;
}

/**
 * A Deno KV, structurally: the members `kvStore` uses. `Deno.Kv` (from
 * `Deno.openKv()`, which needs `--unstable-kv` or `"unstable": ["kv"]` in
 * `deno.json`) is one; taking it by shape keeps this module free of the
 * unstable `Deno.Kv` types for programs that never use KV.
 *
 * @deprecated The shape `kvStore` takes; pass a contract store from
 * `@weft/mcp/store`, or a `Deno.Kv`, where a store goes.
 */
export interface KvLike {
  /** Reads one key. */
  get<T = unknown>(key: KvKeyLike): Promise<KvEntryLike<T>>;
  /** Lists keys by prefix, or from `start` (inclusive) to `end` (exclusive). */
  list<T = unknown>(
    selector: { prefix: KvKeyLike } | {
      prefix: KvKeyLike;
      start: KvKeyLike;
    },
    options?: { limit?: number },
  ): AsyncIterable<{ key: readonly unknown[]; value: T }>;
  /** Sets a key. */
  set(
    key: KvKeyLike,
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<unknown>;
  /** Deletes a key. */
  delete(key: KvKeyLike): Promise<void>;
  /** Starts an atomic operation. */
  atomic(): KvAtomicLike;
  /**
   * Watches keys (Deno Deploy delivers changes from every instance; a local
   * KV file only this process's). Optional: without it, polling alone.
   */
  watch?(keys: readonly KvKeyLike[]): ReadableStream<unknown>;
}

/** The longest session id looked up, in characters (KV keys hold 2,048 bytes). */
const MAX_SESSION_ID = 256;

/** Options of {@link kvStore}. */
export interface KvStoreOptions {
  /** The key prefix of everything stored. Default `["weft-mcp"]`. */
  readonly prefix?: KvKeyLike;
  /**
   * How often a stream resumed on one instance looks for events another
   * instance stored, in ms. Default 100. `watch` wakes it sooner where it
   * delivers across instances (Deno Deploy).
   */
  readonly pollInterval?: number;
}

/** What a session record in KV holds. */
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

/** -1 as a 64-bit counter's addend (sums wrap modulo 2^64). */
const MINUS_ONE = (1n << 64n) - 1n;

/** One stored event. */
interface StoredEvent {
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
}

/**
 * Where `httpHandler` keeps sessions when given `store`: made by
 * {@link kvStore}. Opaque: its members are the handler's business.
 */
export interface HttpSessionStore {
  /** Identifies the store kind. */
  readonly kind: "kv";
}

/** The KV store's workings, for the session layer. */
export class KvSessionBackend implements HttpSessionStore {
  /** Identifies the store kind. */
  readonly kind = "kv" as const;
  readonly #kv: KvLike;
  readonly #prefix: KvKeyLike;
  /** How often resumed streams poll, ms. */
  readonly pollInterval: number;
  readonly #instance = crypto.randomUUID().slice(0, 8);
  /** Told when an event could not be stored. */
  onStoreError?: (error: unknown) => void;
  #counter = 0;

  /** Builds the backend over `kv`. */
  constructor(kv: KvLike, options: KvStoreOptions = {}) {
    // A KV that fails to answer is an outage (503), not a failure (500).
    this.#kv = outagesAsStoreErrors(kv);
    this.#prefix = options.prefix ?? ["weft-mcp"];
    this.pollInterval = options.pollInterval ?? 100;
  }

  #key(...parts: (string | number)[]): KvKeyLike {
    return [...this.#prefix, ...parts];
  }

  /** The record of session `id`, unless absent or expired. */
  async get(id: string): Promise<SessionRecord | undefined> {
    // The handler issues UUIDs: a longer id (a client's, past what a KV
    // key holds) names no session and never reaches KV.
    if (id.length > MAX_SESSION_ID) return undefined;
    const entry = await this.#kv.get<SessionRecord>(this.#key("s", id));
    const record = entry.value;
    if (record === null) return undefined;
    if (record.expiresAt <= Date.now()) {
      await this.remove(id);
      return undefined;
    }
    return record;
  }

  /**
   * Stores a new session's record unless `max` live sessions exist (over
   * every instance); resolves to whether it was stored. A shared 64-bit
   * count (summed, so concurrent opens never conflict) guards the cap; past
   * the cap it is recounted from the live records (expired ones removed on
   * the way, so records KV expired on its own hold no slot), and an open
   * that still does not fit takes its record back.
   */
  async create(record: SessionRecord, max: number): Promise<boolean> {
    const countKey = this.#key("count");
    const key = this.#key("s", record.id);
    await this.#kv.atomic()
      .sum(countKey, 1n)
      .set(key, record, { expireIn: record.expiresAt - Date.now() })
      .commit();
    if (await this.#count() <= max) return true;
    if (await this.#recount() <= max) return true;
    await this.#kv.atomic().delete(key).sum(countKey, MINUS_ONE).commit();
    return false;
  }

  async #count(): Promise<number> {
    const entry = await this.#kv.get<{ value: bigint }>(this.#key("count"));
    return Number(entry.value?.value ?? 0n);
  }

  /** Counts the live records, removing expired ones; sets the count to it. */
  async #recount(): Promise<number> {
    let live = 0;
    const now = Date.now();
    for await (
      const entry of this.#kv.list<SessionRecord>({ prefix: this.#key("s") })
    ) {
      if (entry.value.expiresAt <= now) {
        await this.#kv.delete(entry.key as KvKeyLike);
      } else live++;
    }
    const delta = BigInt(live - await this.#count());
    await this.#kv.atomic()
      .sum(this.#key("count"), BigInt.asUintN(64, delta))
      .commit();
    return live;
  }

  /** Moves a session's expiry on (it was used). */
  async touch(record: SessionRecord, idle: number): Promise<SessionRecord> {
    const now = Date.now();
    const next = { ...record, lastSeen: now, expiresAt: now + idle };
    await this.#kv.set(this.#key("s", record.id), next, { expireIn: idle });
    return next;
  }

  /** Ends a session on every instance: its record and events go. */
  async remove(id: string): Promise<void> {
    const key = this.#key("s", id);
    const record = await this.#kv.get(key);
    if (record.versionstamp !== null) {
      await this.#kv.atomic()
        .check({ key, versionstamp: record.versionstamp })
        .delete(key)
        .sum(this.#key("count"), MINUS_ONE)
        .commit();
    }
    for await (const entry of this.#kv.list({ prefix: this.#key("e", id) })) {
      await this.#kv.delete(entry.key as KvKeyLike);
    }
    await this.#kv.delete(this.#key("t", id));
  }

  /** A new event sequence: ordered by time, unique across instances. */
  #sequence(): string {
    const count = (this.#counter++ % 1_000_000).toString().padStart(6, "0");
    return `${
      Date.now().toString().padStart(15, "0")
    }.${count}.${this.#instance}`;
  }

  /** The SDK event store of session `id`, writing to KV; events live `ttl` ms. */
  events(id: string, ttl: number): KvEventStore {
    return new KvEventStore(this, id, ttl);
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

  /**
   * The id the next event of session `id` gets, now, and the write that
   * stores it under that id (ordered among the others by that id, whenever
   * it runs).
   */
  reserve(
    id: string,
    streamId: StreamId,
    message: JSONRPCMessage,
    ttl: number,
  ): { eventId: EventId; commit(): Promise<void> } {
    const seq = this.#sequence();
    const commit = async () => {
      const event: StoredEvent = { streamId, message };
      try {
        await this.#kv.atomic()
          .set(this.#key("e", id, seq), event, { expireIn: ttl })
          .set(this.#key("t", id), seq, { expireIn: ttl })
          .commit();
      } catch (error) {
        // Not kept (a value over KV's size limit, say): the live stream
        // still gets the event; a resumption would miss it.
        this.onStoreError?.(error);
      }
      this.#remember(`${id}/${streamId}`, seq);
    };
    return { eventId: `${streamId}/${seq}`, commit };
  }

  // The sequences this instance stored per stream (newest 10,000 streams),
  // so dropping a delivered stream's events needs no listing.
  readonly #written = new Map<string, string[]>();

  #remember(stream: string, seq: string): void {
    const seqs = this.#written.get(stream);
    if (seqs !== undefined) {
      seqs.push(seq);
      return;
    }
    if (this.#written.size >= 10_000) {
      this.#written.delete(this.#written.keys().next().value!);
    }
    this.#written.set(stream, [seq]);
  }

  /** Drops the stored events of `streamId` in session `id`. */
  async dropStream(id: string, streamId: StreamId): Promise<void> {
    const known = this.#written.get(`${id}/${streamId}`);
    if (known !== undefined) {
      this.#written.delete(`${id}/${streamId}`);
      // In chunks: an atomic operation takes at most 1,000 mutations.
      for (let at = 0; at < known.length; at += 500) {
        const atomic = this.#kv.atomic();
        for (const seq of known.slice(at, at + 500)) {
          atomic.delete(this.#key("e", id, seq));
        }
        await atomic.commit();
      }
      return;
    }
    for await (
      const entry of this.#kv.list<StoredEvent>({ prefix: this.#key("e", id) })
    ) {
      if (entry.value.streamId === streamId) {
        await this.#kv.delete(entry.key as KvKeyLike);
      }
    }
  }

  /**
   * The events of `streamId` stored after sequence `after`, in order, with
   * their ids; and the last sequence seen.
   */
  async after(
    id: string,
    streamId: StreamId,
    after: string,
  ): Promise<{ events: [EventId, JSONRPCMessage][]; last: string }> {
    const events: [EventId, JSONRPCMessage][] = [];
    let last = after;
    for await (
      const entry of this.#kv.list<StoredEvent>({
        prefix: this.#key("e", id),
        start: this.#key("e", id, after + "\u0000"),
      })
    ) {
      const seq = String(entry.key[entry.key.length - 1]);
      last = seq;
      if (entry.value.streamId === streamId) {
        events.push([`${streamId}/${seq}`, entry.value.message]);
      }
    }
    return { events, last };
  }

  /** Tells every instance that `list` changed (`httpHandler`'s `listChanged`). */
  async publishChange(list: string): Promise<void> {
    const record: ChangeRecord = { by: this.#instance };
    await this.#kv.set(this.#key("l", list), record);
  }

  /**
   * Calls `onChange(list)` for each change of `lists` another instance
   * publishes, until `signal` aborts or `wanted()` says no more: woken by
   * `watch` where it works, else every `pollInterval` ms.
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
    const keys = lists.map((list) => this.#key("l", list));
    const seen: (string | null)[] = [];
    const read = async (first: boolean) => {
      for (let i = 0; i < keys.length; i++) {
        const entry = await this.#kv.get<ChangeRecord>(keys[i]);
        const stamp = entry.versionstamp;
        if (
          !first && stamp !== seen[i] && stamp !== null &&
          entry.value?.by !== this.#instance
        ) {
          onChange(lists[i]);
        }
        seen[i] = stamp;
      }
    };
    await read(true);
    while (!signal.aborted && wanted()) {
      await this.#nap(keys, this.pollInterval, signal);
      if (signal.aborted) return;
      await read(false);
    }
  }

  /**
   * Resolves after `ms`, or sooner when another event of session `id` is
   * stored where `watch` sees it.
   */
  wait(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return this.#nap([this.#key("t", id)], ms, signal);
  }

  // Resolves after `ms`, or sooner when one of `keys` changes where
  // `watch` sees it, or when `signal` aborts.
  #nap(
    keys: readonly KvKeyLike[],
    ms: number,
    signal: AbortSignal,
  ): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      let stream: ReadableStream<unknown> | undefined;
      let first = true;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        stream?.cancel().catch(() => {
          // Nothing lost: the watch is over; a cancel that fails leaves nothing to read.
        });
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
      if (typeof this.#kv.watch === "function" && !signal.aborted) {
        try {
          stream = this.#kv.watch!(keys);
          const reader = stream.getReader();
          (async () => {
            for (;;) {
              const { done: end } = await reader.read();
              if (end) return;
              if (first) first = false; // the current value
              else return done();
            }
          })().catch(() => {
            // Nothing lost: a failed watch only wakes the waiter by its timer instead.
          });
        } catch {
          // no watch here: polling alone
        }
      }
    });
  }
}

/** A change one instance published, as `watchChanges` reads it. */
interface ChangeRecord {
  /** The instance that published it. */
  readonly by: string;
}

/**
 * The event store of one session, over the backend. Priming events get an
 * id but no record.
 */
export class KvEventStore implements EventStore {
  readonly #backend: KvSessionBackend;
  readonly #id: string;
  readonly #ttl: number;
  #primed = 0;

  /** Builds the store of session `id`. */
  constructor(backend: KvSessionBackend, id: string, ttl: number) {
    this.#backend = backend;
    this.#id = id;
    this.#ttl = ttl;
  }

  /** Stores an event in KV; resolves to its id. */
  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    if (Object.keys(message).length === 0) {
      // Priming: an id to resume from, nothing to replay.
      // Sorted below every event stored from this millisecond on.
      const before = (Date.now() - 1).toString().padStart(15, "0");
      const seq = `${before}.999999.p${this.#primed++}`;
      return Promise.resolve(`${streamId}/${seq}`);
    }
    return this.#backend.store(this.#id, streamId, message, this.#ttl);
  }

  /**
   * Names an event now and stores it when `commit` runs: the events of an
   * answer sent whole are written only if its delivery fails.
   */
  reserve(
    streamId: StreamId,
    message: JSONRPCMessage,
  ): { eventId: EventId; commit(): Promise<void> } {
    return this.#backend.reserve(this.#id, streamId, message, this.#ttl);
  }

  /** The stream an event id names. */
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(parseEventId(eventId)?.streamId);
  }

  /** Replays from KV (the handler serves resumptions itself; kept for the interface). */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: {
      send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) throw new RangeError("unknown event id");
    const { events } = await this.#backend.after(
      this.#id,
      parsed.streamId,
      parsed.seq,
    );
    for (const [id, message] of events) await send(id, message);
    return parsed.streamId;
  }
}

/** An event id's stream and sequence, or `undefined` when it is not one of ours. */
export function parseEventId(
  eventId: string,
): { streamId: string; seq: string } | undefined {
  const slash = eventId.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const seq = eventId.slice(slash + 1);
  if (!/^[0-9]{15}\.[0-9]{6}\.(p[0-9]+|[0-9a-f]{8})$/.test(seq)) {
    return undefined;
  }
  return { streamId: eventId.slice(0, slash), seq };
}

/**
 * Keeps `httpHandler`'s sessions in Deno KV: session records (id, protocol
 * version, client capabilities and info, last activity, expiry) and the
 * resumable events, so any instance serves any session — a request naming a
 * session this instance has not seen is served from the stored state, a
 * DELETE on one instance ends the session on all, a stream resumes with
 * `Last-Event-ID` on any instance, and expiry and `maxSessions` hold across
 * instances. A stream resumed on another instance than the one running its
 * call gets the call's events by polling KV (`pollInterval`), woken sooner
 * by `watch` where it works across instances.
 *
 * Programs using it need KV: `"unstable": ["kv"]` in `deno.json` (or
 * `--unstable-kv`); on Deno Deploy, `Deno.openKv()` opens the database every
 * isolate shares.
 *
 * @deprecated Pass the `Deno.Kv` itself as `httpHandler`'s `store` (taken
 * as `denoKvStore(kv)` from `@weft/mcp/store`, the one store every
 * stateful option takes). Its records are kept under other keys: sessions
 * live when switching are not carried over.
 *
 * @example Using `kvStore`
 * ```ts ignore
 * import { httpHandler, kvStore } from "@weft/mcp";
 * import { Server } from "@modelcontextprotocol/sdk/server/index.js";
 * // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 * const kv = await Deno.openKv();
 * Deno.serve(httpHandler(
 *   () => new Server({ name: "demo", version: "1" }, { capabilities: {} }),
 *   { sessions: true, store: kvStore(kv) },
 * ));
 * ```
 */
export function kvStore(
  kv: KvLike,
  options: KvStoreOptions = {},
): HttpSessionStore {
  return new KvSessionBackend(kv, options);
}
