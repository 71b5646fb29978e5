/**
 * The one storage contract: everything instances of a program share —
 * session records and their event replay, the listen bus, single-use and
 * leased records, TTL key-values (era verdicts, tokens, caches), durable
 * task records, pins and catalogs — goes through a {@link Store}. Memory,
 * Deno KV, Redis and Postgres implement it; they hold records and know
 * nothing of MCP.
 *
 * @module
 */

/** A value a store holds: anything `JSON.stringify` round-trips. */
export type StoreValue = unknown;

/** One stored value and the version it was read at. */
export interface StoreEntry<T = StoreValue> {
  /** The stored value (a copy: changing it changes nothing stored). */
  readonly value: T;
  /** Opaque; changes on every write of the key. For {@link Store.swap}. */
  readonly version: string;
}

/** Options of a write. */
export interface StoreSetOptions {
  /** Milliseconds after which the value is gone. Default: kept until deleted. */
  readonly ttlMs?: number;
}

/** One event of an append-only log, as {@link Store.readAfter} returns it. */
export interface StoreLogEntry<T = StoreValue> {
  /** The event's id: opaque, ordered within its stream, never reused. */
  readonly id: string;
  /** The event. */
  readonly value: T;
}

/** Options of {@link Store.append}. */
export interface StoreAppendOptions {
  /** Milliseconds the whole stream lives after its last append. Default: kept until {@link Store.dropLog}. */
  readonly ttlMs?: number;
}

/** Options of {@link Store.subscribe}. */
export interface StoreSubscribeOptions {
  /** Ends the subscription when aborted (as `unsubscribe()` does). */
  readonly signal?: AbortSignal;
  /**
   * Called when the store's push connection was lost and is back (Redis
   * pub/sub, Postgres `LISTEN`): messages published in between may never
   * arrive — neither engine keeps them — so re-read whatever the messages
   * stood for. Memory and Deno KV never call it.
   */
  readonly onGap?: () => void;
}

/**
 * A live subscription: `await using sub = await store.subscribe(...)`, or
 * `await sub.unsubscribe()`. After either, nothing more is delivered and
 * the subscription holds no resource of the store.
 */
export interface StoreSubscription extends AsyncDisposable {
  /** Ends the subscription; resolves once the store let go of it. */
  unsubscribe(): Promise<void>;
}

/**
 * What every shared store does. Keys (and stream and channel names) are
 * strings without U+0000 (a `RangeError` otherwise); by convention the first
 * path segment names what a record is (see {@link STORE_NAMESPACES}), so one
 * store serves every need of a program without collisions. Values are
 * JSON-shaped. Four kinds of record:
 *
 * - **key-values** with an optional TTL: `get`, `set`, `delete`, and
 *   `swap` (compare-and-set on the version `get` returned: a lease — an
 *   OAuth refresh taken by one instance only — or a record updated without
 *   lost writes);
 * - **single-use claims**: `claimOnce`, in a key space of their own (a
 *   claim is not a key-value);
 * - **append-only logs** per stream: `append`, `readAfter`, `dropLog`
 *   (event replay: nothing lost, nothing doubled);
 * - **publish/subscribe**: `publish`, `subscribe` (a message reaches every
 *   subscriber of the channel on every instance, this one included, that
 *   was subscribed when it was published).
 *
 * A store that cannot reach its engine rejects with a
 * {@link StoreUnavailableError}: nothing is silently dropped.
 *
 * @example A single-use record and a lease
 * ```ts
 * import { memoryStore } from "@weft/mcp/store";
 * import assert from "node:assert/strict";
 * await using store = memoryStore();
 * assert.equal(await store.claimOnce("state/abc", 60_000), true);
 * assert.equal(await store.claimOnce("state/abc", 60_000), false);
 * await store.set("oauth/token", { refresh: "r1" });
 * const entry = await store.get("oauth/token");
 * assert.equal(await store.swap("oauth/token", entry?.version, { refresh: "r2" }), true);
 * assert.equal(await store.swap("oauth/token", entry?.version, { refresh: "r3" }), false);
 * ```
 */
export interface Store extends AsyncDisposable {
  /** Names the engine: `"memory"`, `"deno-kv"`, `"redis"`, `"postgres"`. */
  readonly kind: string;

  /** The value at `key` with its version, or `undefined` (absent or expired). */
  get<T = StoreValue>(key: string): Promise<StoreEntry<T> | undefined>;
  /** Writes `value` at `key`; resolves to its new version. */
  set(
    key: string,
    value: StoreValue,
    options?: StoreSetOptions,
  ): Promise<string>;
  /** Removes `key` (absent: nothing happens). */
  delete(key: string): Promise<void>;
  /**
   * Writes `value` at `key` only when it is still at `version` (`undefined`:
   * absent or expired), atomically across every instance; `false` when
   * another writer came first.
   */
  swap(
    key: string,
    version: string | undefined,
    value: StoreValue,
    options?: StoreSetOptions,
  ): Promise<boolean>;

  /**
   * Claims `key` once: `true` for the first caller (over every instance)
   * within `ttlMs`, `false` for every later one until the claim expires.
   * A `requestState` spent once, a nonce, a job started by one worker.
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;

  /** Appends `value` to the log `stream`; resolves to its id. */
  append(
    stream: string,
    value: StoreValue,
    options?: StoreAppendOptions,
  ): Promise<string>;
  /**
   * The events of `stream` appended after the event `afterId` (from the
   * start when `undefined`), oldest first, at most `limit` (default all).
   * Every event appended before this call began and after `afterId` is in
   * the result exactly once.
   */
  readAfter<T = StoreValue>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]>;
  /** Drops the log `stream` and its events. */
  dropLog(stream: string): Promise<void>;

  /** Sends `message` to every subscriber of `channel`, on every instance. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `onMessage` with each message published on `channel` from when
   * the returned promise resolves until the subscription ends (`signal`
   * aborts, `unsubscribe()`, or the store closes).
   */
  subscribe(
    channel: string,
    onMessage: (message: string) => void,
    options?: StoreSubscribeOptions,
  ): Promise<StoreSubscription>;

  /**
   * Ends every subscription and lets go of the connections this store
   * opened (a client passed in by the caller stays open).
   */
  close(): Promise<void>;
}

/**
 * Whether `value` is a contract {@link Store} (as made by `memoryStore`,
 * `denoKvStore`, `redisStore`, `postgresStore`) rather than an older
 * single-purpose store: options that take either (`oauthClient`'s `store`,
 * `eraStore`) tell them apart with it.
 *
 * @example
 * ```ts
 * import { isStore, memoryStore } from "@weft/mcp/store";
 * console.log(isStore(memoryStore()), isStore(new Map())); // true false
 * ```
 */
export function isStore(value: unknown): value is Store {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Store>;
  return typeof candidate.kind === "string" &&
    typeof candidate.claimOnce === "function" &&
    typeof candidate.readAfter === "function" &&
    typeof candidate.subscribe === "function";
}

/**
 * The key prefixes the library's own records use, one per kind of record,
 * so that one store serves them all (and an application's own keys, under
 * any other first segment, never collide).
 *
 * @example A task record under its namespace
 * ```ts
 * import { memoryStore, STORE_NAMESPACES } from "@weft/mcp/store";
 * await using store = memoryStore();
 * await store.set(`${STORE_NAMESPACES.tasks}job-1`, { state: "working" });
 * ```
 */
export const STORE_NAMESPACES: {
  readonly sessions: "session/";
  readonly events: "events/";
  readonly bus: "bus/";
  readonly oauth: "oauth/";
  readonly era: "era/";
  readonly tasks: "task/";
  readonly pins: "pin/";
  readonly catalogs: "catalog/";
} = {
  sessions: "session/",
  events: "events/",
  bus: "bus/",
  oauth: "oauth/",
  era: "era/",
  tasks: "task/",
  pins: "pin/",
  catalogs: "catalog/",
} as const;

/**
 * A store could not reach its engine (a refused connection, a timeout, a
 * server gone): the operation did not happen. `cause` holds the client's
 * error; `store` names the engine.
 *
 * @example Tell an unreachable store apart
 * ```ts
 * import { StoreUnavailableError } from "@weft/mcp/store";
 * const error = new StoreUnavailableError("redis", "get", new Error("ECONNREFUSED"));
 * console.log(error instanceof StoreUnavailableError, error.message);
 * ```
 */
export class StoreUnavailableError extends Error {
  /** The engine: `"redis"`, `"postgres"`, `"deno-kv"`. */
  readonly store: string;
  /** The operation that failed. */
  readonly operation: string;

  /** Builds the error for `operation` on `store`. */
  constructor(store: string, operation: string, cause: unknown) {
    super(
      `${store} store: ${operation} failed, the store is unreachable ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); ` +
        "check that the server is up and the connection string is right",
      { cause },
    );
    this.name = "StoreUnavailableError";
    this.store = store;
    this.operation = operation;
  }
}
