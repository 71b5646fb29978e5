/**
 * `redisStore`: the contract over Redis, through the `ioredis` client
 * (loaded on first use, so programs that never use Redis never load it).
 *
 * @module
 */

import {
  type Store,
  type StoreEntry,
  type StoreLogEntry,
  type StoreSubscribeOptions,
  type StoreSubscription,
  StoreUnavailableError,
} from "./contract.ts";
import { ChannelSet, checkTtl, rejecting } from "./_subscription.ts";
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
  const prefix = options.prefix ?? "weft:";
  const timeout = options.timeoutMs ?? 5_000;
  const owned = typeof target === "string";
  let client: Promise<RedisClientLike> | undefined = owned
    ? undefined
    : Promise.resolve(target);
  let subscriber: RedisSubscriberLike | undefined;
  let subscriberReady: Promise<RedisSubscriberLike> | undefined;
  // SUBSCRIBE once per channel (resolved once the server confirmed); the
  // subscriber connection closes with the last channel.
  const channels = new ChannelSet(async (full) => {
    const sub = await subscriberConnection();
    await sub.subscribe(full);
    return async () => {
      if (subscriber === sub) await sub.unsubscribe(full);
    };
  }, async () => {
    const sub = subscriber;
    if (channels.size > 0 || sub === undefined) return;
    subscriber = undefined;
    subscriberReady = undefined;
    await sub.quit().catch(() => {
      // Nothing lost: the subscriber is dropped; a failed quit closes the connection anyway.
    });
  });
  let closed = false;

  function connect(): Promise<RedisClientLike> {
    if (client !== undefined) return client;
    client = (async () => {
      const { Redis } = await import("ioredis");
      const redis = new Redis(target as string, {
        connectTimeout: timeout,
        commandTimeout: timeout,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      });
      redis.on("error", () => {}); // surfaced by the commands that fail
      return redis as unknown as RedisClientLike;
    })();
    return client;
  }

  async function run<T>(
    operation: string,
    body: (redis: RedisClientLike) => Promise<T>,
  ): Promise<T> {
    if (closed) {
      throw new StoreUnavailableError(
        "redis",
        operation,
        "the store is closed",
      );
    }
    const redis = await connect();
    try {
      return await body(redis);
    } catch (error) {
      throw storeFailure("redis", operation, error);
    }
  }

  const key = (kind: string, name: string) => `${prefix}${kind}:${name}`;
  const version = () => crypto.randomUUID().replaceAll("-", "");
  const ttlArgs = (ttl: number | undefined): (string | number)[] =>
    ttl === undefined ? [] : ["PX", Math.ceil(ttl)];
  const parse = <T>(raw: unknown): StoreEntry<T> | undefined => {
    if (typeof raw !== "string") return undefined;
    const nl = raw.indexOf("\n");
    return { version: raw.slice(0, nl), value: JSON.parse(raw.slice(nl + 1)) };
  };
  const streamId = /^[0-9]+-[0-9]+$/;

  function subscriberConnection(): Promise<RedisSubscriberLike> {
    if (subscriberReady !== undefined) return subscriberReady;
    subscriberReady = (async () => {
      const sub = (await connect()).duplicate();
      sub.on("error", () => {});
      sub.on("message", (channel, message) => {
        channels.deliver(channel, message);
      });
      // "ready" again after the first: the connection dropped and came
      // back (the client subscribes again by itself); what was published
      // in between is gone.
      let readies = 0;
      sub.on("ready", () => {
        if (readies++ > 0 && subscriber === sub) channels.gap();
      });
      subscriber = sub;
      return sub;
    })();
    return subscriberReady;
  }

  const store: Store = {
    kind: "redis",
    get<T>(name: string) {
      return run(
        "get",
        async (redis) => parse<T>(await redis.call("GET", key("v", name))),
      );
    },
    set(name, value, options) {
      checkTtl(options?.ttlMs, "redisStore.set");
      return run("set", async (redis) => {
        const v = version();
        await redis.call(
          "SET",
          key("v", name),
          `${v}\n${JSON.stringify(value ?? null)}`,
          ...ttlArgs(options?.ttlMs),
        );
        return v;
      });
    },
    delete(name) {
      return run("delete", async (redis) => {
        await redis.call("DEL", key("v", name));
      });
    },
    swap(name, expected, value, options) {
      checkTtl(options?.ttlMs, "redisStore.swap");
      return run("swap", async (redis) => {
        const result = await redis.call(
          "EVAL",
          SWAP,
          1,
          key("v", name),
          expected ?? "",
          `${version()}\n${JSON.stringify(value ?? null)}`,
          options?.ttlMs === undefined ? "" : Math.ceil(options.ttlMs),
        );
        return result === 1;
      });
    },
    claimOnce(name, ttlMs) {
      checkTtl(ttlMs, "redisStore.claimOnce");
      return run("claimOnce", async (redis) =>
        await redis.call(
          "SET",
          key("c", name),
          "1",
          "PX",
          Math.ceil(ttlMs),
          "NX",
        ) === "OK");
    },
    append(stream, value, options) {
      checkTtl(options?.ttlMs, "redisStore.append");
      return run("append", async (redis) =>
        String(
          await redis.call(
            "EVAL",
            APPEND,
            1,
            key("l", stream),
            JSON.stringify(value ?? null),
            options?.ttlMs === undefined ? "" : Math.ceil(options.ttlMs),
          ),
        ));
    },
    readAfter<T>(stream: string, afterId: string | undefined, limit?: number) {
      if (afterId !== undefined && !streamId.test(afterId)) {
        throw new RangeError(
          `redisStore.readAfter: ${afterId} is not an id of this store`,
        );
      }
      return run("readAfter", async (redis) => {
        const raw = await redis.call(
          "XRANGE",
          key("l", stream),
          afterId === undefined ? "-" : `(${afterId}`,
          "+",
          ...(limit === undefined ? [] : ["COUNT", limit]),
        ) as [string, string[]][];
        return raw.map(([id, fields]): StoreLogEntry<T> => ({
          id,
          value: JSON.parse(fields[fields.indexOf("v") + 1]) as T,
        }));
      });
    },
    dropLog(stream) {
      return run("dropLog", async (redis) => {
        await redis.call("DEL", key("l", stream));
      });
    },
    publish(channel, message) {
      return run("publish", async (redis) => {
        await redis.call("PUBLISH", key("b", channel), message);
      });
    },
    subscribe(
      channel: string,
      onMessage: (message: string) => void,
      options?: StoreSubscribeOptions,
    ): Promise<StoreSubscription> {
      return run(
        "subscribe",
        () =>
          channels.subscribe(
            key("b", channel),
            onMessage,
            options?.signal,
            options?.onGap,
          ),
      );
    },
    async close() {
      if (closed) return;
      await channels.close();
      closed = true;
      if (subscriber !== undefined) {
        await subscriber.quit().catch(() => {
          // Nothing lost: the store is closing; a failed quit closes the connection anyway.
        });
      }
      if (owned && client !== undefined) {
        await (await client).quit().catch(() => {
          // Nothing lost: the store is closing; a failed quit closes the connection anyway.
        });
      }
    },
    [Symbol.asyncDispose]() {
      return store.close();
    },
  };
  return rejecting(store);
}
