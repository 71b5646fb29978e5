/**
 * `redisStore`: the contract over Redis, through the `ioredis` client
 * (loaded on first use, so programs that never use Redis never load it).
 *
 * @module
 */

import { ownMethods } from "./_own_methods.ts";
import {
  type Store,
  type StoreAppendOptions,
  type StoreEntry,
  type StoreLogEntry,
  type StoreSetOptions,
  type StoreSubscribeOptions,
  type StoreSubscription,
  StoreUnavailableError,
} from "./contract.ts";
import { ChannelSet, checkKey, checkTtl } from "./_subscription.ts";
import { storeFailure } from "./outage.ts";

/**
 * The subscriber connection of a Redis client, structurally (an `ioredis`
 * client is one).
 */
export interface RedisSubscriberLike {
  /** Subscribes this connection to `channel`. */
  subscribe(channel: string): Promise<unknown>;
  /** Unsubscribes this connection from `channel`. */
  unsubscribe(channel: string): Promise<unknown>;
  /** Listens for messages (`"message"`) and errors (`"error"`). */
  on(
    event: "message",
    listener: (channel: string, message: string) => void,
  ): unknown;
  /** Listens for errors. */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Listens for the connection being ready (again, after a reconnect). */
  on(event: "ready", listener: () => void): unknown;
  /** Closes the connection. */
  quit(): Promise<unknown>;
}

/**
 * A Redis client, structurally: an `ioredis` client (`new Redis(url)`) is
 * one. `duplicate()` opens the dedicated subscriber connection.
 */
export interface RedisClientLike {
  /** Sends one command. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** A new connection with the same options. */
  duplicate(): RedisSubscriberLike;
  /** Closes the connection. */
  quit(): Promise<unknown>;
}

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** The prefix of every key and channel. Default `"weft:"`. */
  readonly prefix?: string;
  /**
   * How long a command may wait for the server (connecting included), in
   * ms, before it fails with a `StoreUnavailableError`. Default 5,000.
   */
  readonly timeoutMs?: number;
}

// Compare-and-set on the version before the first newline of the value.
const SWAP = `
local cur = redis.call('GET', KEYS[1])
local matches
if cur then
  local nl = string.find(cur, '\\n', 1, true)
  matches = nl ~= nil and string.sub(cur, 1, nl - 1) == ARGV[1]
else
  matches = ARGV[1] == ''
end
if not matches then return 0 end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`;

// Appends to a stream; with a TTL, trims events older than it (server
// clock) and moves the stream's expiry on.
const APPEND = `
if ARGV[2] == '' then
  return redis.call('XADD', KEYS[1], '*', 'v', ARGV[1])
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = redis.call('XADD', KEYS[1], 'MINID', tostring(now - tonumber(ARGV[2])), '*', 'v', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id`;

/**
 * A {@link Store} over Redis. Key-values are strings holding their version
 * and JSON (`SET … PX` for the TTL, a Lua script for `swap`); claims are
 * `SET … NX PX`; logs are Redis streams (`XADD`/`XRANGE`, ids given by the
 * server, so ordered across every instance); publish/subscribe is Redis
 * pub/sub on a dedicated subscriber connection, opened with the first
 * subscription and closed with the last. Messages published while that
 * connection is down are not delivered (Redis pub/sub keeps nothing).
 *
 * `target` is a connection string (`redis://user:pass@host:6379/0`,
 * `rediss://` for TLS) or an `ioredis` client (left open by `close()`).
 *
 * @example Sessions and tokens in Redis
 * ```ts ignore
 * import { redisStore } from "@weft/mcp/store";
 * await using store = redisStore("redis://127.0.0.1:6379");
 * await store.set("oauth/token", { access: "…" }, { ttlMs: 3_600_000 });
 * ```
 */
export function redisStore(
  target: string | RedisClientLike,
  options: RedisStoreOptions = {},
): Store {
  return ownMethods(new RedisStore(target, options));
}

/** A stream id as Redis gives it (`<ms>-<seq>`). */
const STREAM_ID = /^[0-9]+-[0-9]+$/;

/** A new version of a key-value: random, opaque. */
function version(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** The `PX` arguments of a TTL, or none. */
function ttlArgs(ttl: number | undefined): (string | number)[] {
  return ttl === undefined ? [] : ["PX", Math.ceil(ttl)];
}

/** A key-value as kept (`<version>\n<json>`), read back. */
function parse<T>(raw: unknown): StoreEntry<T> | undefined {
  if (typeof raw !== "string") return undefined;
  const nl = raw.indexOf("\n");
  return { version: raw.slice(0, nl), value: JSON.parse(raw.slice(nl + 1)) };
}

/** The contract over Redis: what {@link redisStore} returns. */
class RedisStore implements Store {
  readonly kind = "redis";
  readonly #target: string | RedisClientLike;
  readonly #prefix: string;
  readonly #timeout: number;
  /** Whether the connection is this store's own (made from a URL). */
  readonly #owned: boolean;
  #client: Promise<RedisClientLike> | undefined;
  #subscriber: RedisSubscriberLike | undefined;
  #subscriberReady: Promise<RedisSubscriberLike> | undefined;
  // SUBSCRIBE once per channel (resolved once the server confirmed); the
  // subscriber connection closes with the last channel.
  readonly #channels: ChannelSet;
  #closed = false;

  constructor(target: string | RedisClientLike, options: RedisStoreOptions) {
    this.#target = target;
    this.#prefix = options.prefix ?? "weft:";
    this.#timeout = options.timeoutMs ?? 5_000;
    this.#owned = typeof target === "string";
    this.#client = typeof target === "string"
      ? undefined
      : Promise.resolve(target);
    this.#channels = new ChannelSet(async (full) => {
      const sub = await this.#subscriberConnection();
      await sub.subscribe(full);
      return async () => {
        if (this.#subscriber === sub) await sub.unsubscribe(full);
      };
    }, async () => {
      const sub = this.#subscriber;
      if (this.#channels.size > 0 || sub === undefined) return;
      this.#subscriber = undefined;
      this.#subscriberReady = undefined;
      await sub.quit().catch(() => {
        // Nothing lost: the subscriber is dropped; a failed quit closes the connection anyway.
      });
    });
  }

  #connect(): Promise<RedisClientLike> {
    if (this.#client !== undefined) return this.#client;
    this.#client = (async () => {
      const { Redis } = await import("ioredis");
      const redis = new Redis(this.#target as string, {
        connectTimeout: this.#timeout,
        commandTimeout: this.#timeout,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      });
      redis.on("error", () => {}); // surfaced by the commands that fail
      return redis as unknown as RedisClientLike;
    })();
    return this.#client;
  }

  // An operation against Redis: its failure read by the one classifier.
  async #run<T>(
    operation: string,
    body: (redis: RedisClientLike) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) {
      throw new StoreUnavailableError(
        "redis",
        operation,
        "the store is closed",
      );
    }
    const redis = await this.#connect();
    try {
      return await body(redis);
    } catch (error) {
      throw storeFailure("redis", operation, error);
    }
  }

  #key(kind: string, name: string): string {
    return `${this.#prefix}${kind}:${name}`;
  }

  #subscriberConnection(): Promise<RedisSubscriberLike> {
    if (this.#subscriberReady !== undefined) return this.#subscriberReady;
    this.#subscriberReady = (async () => {
      const sub = (await this.#connect()).duplicate();
      sub.on("error", () => {});
      sub.on("message", (channel, message) => {
        this.#channels.deliver(channel, message);
      });
      // "ready" again after the first: the connection dropped and came
      // back (the client subscribes again by itself); what was published
      // in between is gone.
      let readies = 0;
      sub.on("ready", () => {
        if (readies++ > 0 && this.#subscriber === sub) this.#channels.gap();
      });
      this.#subscriber = sub;
      return sub;
    })();
    return this.#subscriberReady;
  }

  async get<T>(name: string): Promise<StoreEntry<T> | undefined> {
    checkKey(name, "get");
    return await this.#run(
      "get",
      async (redis) => parse<T>(await redis.call("GET", this.#key("v", name))),
    );
  }

  async set(
    name: string,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<string> {
    checkKey(name, "set");
    checkTtl(options?.ttlMs, "redisStore.set");
    return await this.#run("set", async (redis) => {
      const v = version();
      await redis.call(
        "SET",
        this.#key("v", name),
        `${v}\n${JSON.stringify(value ?? null)}`,
        ...ttlArgs(options?.ttlMs),
      );
      return v;
    });
  }

  async delete(name: string): Promise<void> {
    checkKey(name, "delete");
    await this.#run("delete", async (redis) => {
      await redis.call("DEL", this.#key("v", name));
    });
  }

  async swap(
    name: string,
    expected: string | undefined,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<boolean> {
    checkKey(name, "swap");
    checkTtl(options?.ttlMs, "redisStore.swap");
    return await this.#run("swap", async (redis) => {
      const result = await redis.call(
        "EVAL",
        SWAP,
        1,
        this.#key("v", name),
        expected ?? "",
        `${version()}\n${JSON.stringify(value ?? null)}`,
        options?.ttlMs === undefined ? "" : Math.ceil(options.ttlMs),
      );
      return result === 1;
    });
  }

  async claimOnce(name: string, ttlMs: number): Promise<boolean> {
    checkKey(name, "claimOnce");
    checkTtl(ttlMs, "redisStore.claimOnce");
    return await this.#run("claimOnce", async (redis) =>
      await redis.call(
        "SET",
        this.#key("c", name),
        "1",
        "PX",
        Math.ceil(ttlMs),
        "NX",
      ) === "OK");
  }

  async append(
    stream: string,
    value: unknown,
    options?: StoreAppendOptions,
  ): Promise<string> {
    checkKey(stream, "append");
    checkTtl(options?.ttlMs, "redisStore.append");
    return await this.#run("append", async (redis) =>
      String(
        await redis.call(
          "EVAL",
          APPEND,
          1,
          this.#key("l", stream),
          JSON.stringify(value ?? null),
          options?.ttlMs === undefined ? "" : Math.ceil(options.ttlMs),
        ),
      ));
  }

  async readAfter<T>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]> {
    checkKey(stream, "readAfter");
    if (afterId !== undefined && !STREAM_ID.test(afterId)) {
      throw new RangeError(
        `redisStore.readAfter: ${afterId} is not an id of this store`,
      );
    }
    return await this.#run("readAfter", async (redis) => {
      const raw = await redis.call(
        "XRANGE",
        this.#key("l", stream),
        afterId === undefined ? "-" : `(${afterId}`,
        "+",
        ...(limit === undefined ? [] : ["COUNT", limit]),
      ) as [string, string[]][];
      return raw.map(([id, fields]): StoreLogEntry<T> => ({
        id,
        value: JSON.parse(fields[fields.indexOf("v") + 1]) as T,
      }));
    });
  }

  async dropLog(stream: string): Promise<void> {
    checkKey(stream, "dropLog");
    await this.#run("dropLog", async (redis) => {
      await redis.call("DEL", this.#key("l", stream));
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    checkKey(channel, "publish");
    await this.#run("publish", async (redis) => {
      await redis.call("PUBLISH", this.#key("b", channel), message);
    });
  }

  async subscribe(
    channel: string,
    onMessage: (message: string) => void,
    options?: StoreSubscribeOptions,
  ): Promise<StoreSubscription> {
    checkKey(channel, "subscribe");
    return await this.#run(
      "subscribe",
      () =>
        this.#channels.subscribe(
          this.#key("b", channel),
          onMessage,
          options?.signal,
          options?.onGap,
        ),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#channels.close();
    this.#closed = true;
    if (this.#subscriber !== undefined) {
      await this.#subscriber.quit().catch(() => {
        // Nothing lost: the store is closing; a failed quit closes the connection anyway.
      });
    }
    if (this.#owned && this.#client !== undefined) {
      await (await this.#client).quit().catch(() => {
        // Nothing lost: the store is closing; a failed quit closes the connection anyway.
      });
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
