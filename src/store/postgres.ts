/**
 * `postgresStore`: the contract over Postgres, through the `postgres`
 * client (loaded on first use, so programs that never use Postgres never
 * load it).
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
 * A Postgres client, structurally: a `postgres` client (`postgres(url)`)
 * is one.
 */
export interface PostgresClientLike {
  /** Runs one statement with `$1`… parameters. */
  unsafe(
    query: string,
    parameters?: never[],
  ): PromiseLike<readonly Record<string, unknown>[]>;
  /**
   * `LISTEN`s on `channel` over a dedicated connection; resolves once the
   * server confirmed. `onListen` runs each time the `LISTEN` is in force:
   * first, and again after the connection was lost and made anew.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): PromiseLike<{ unlisten(): Promise<void> }>;
  /** Closes every connection. */
  end(options?: { timeout?: number }): Promise<void>;
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The prefix of the tables (`<prefix>_kv`, `<prefix>_claim`,
   * `<prefix>_log`, `<prefix>_log_head`) and of the notification channels.
   * Lower-case letters, digits and `_`. Default `"weft"`.
   */
  readonly prefix?: string;
  /** Seconds to wait for a connection. Default 5. */
  readonly connectTimeout?: number;
}

/** The expiry of a TTL in ms given as parameter `$n`, by the server's clock. */
const expiry = (n: number) =>
  `CASE WHEN $${n}::float8 IS NULL THEN NULL ELSE clock_timestamp() + $${n}::float8 * interval '1 millisecond' END`;
const liveRow = (table: string) =>
  `(${table}.expires_at IS NULL OR ${table}.expires_at > clock_timestamp())`;

/**
 * A {@link Store} over Postgres. Four tables, created on first use;
 * expiry by the server's clock (rows past it are invisible, and swept
 * about once a minute); `swap` and `claimOnce` are single conditional
 * upserts; a log's ids come from a per-stream counter row updated in the
 * same statement as the insert, so ids are committed in order and a
 * reader after an id never misses one. Publish/subscribe is
 * `NOTIFY`/`LISTEN`, one Postgres channel per channel (a dedicated
 * connection listens; the last subscriber of a channel `UNLISTEN`s it); a message is at most about 7,900 bytes (the `NOTIFY` limit).
 *
 * `target` is a connection string (`postgres://user:pass@host:5432/db`)
 * or a `postgres` client (left open by `close()`).
 *
 * @example Sessions and tokens in Postgres
 * ```ts ignore
 * import { postgresStore } from "@weft/mcp/store";
 * await using store = postgresStore("postgres://weft@127.0.0.1:5432/weft");
 * console.log(await store.claimOnce("state/abc", 600_000)); // true
 * ```
 */
export function postgresStore(
  target: string | PostgresClientLike,
  options: PostgresStoreOptions = {},
): Store {
  const prefix = options.prefix ?? "weft";
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new RangeError(
      `postgresStore: prefix must be lower-case letters, digits and _, got ${prefix}`,
    );
  }
  const owned = typeof target === "string";
  const kv = `${prefix}_kv`, claim = `${prefix}_claim`;
  const log = `${prefix}_log`, head = `${prefix}_log_head`;
  const bus = `${prefix}_bus`;
  let ready: Promise<PostgresClientLike> | undefined;
  let closed = false;
  let lastSweep = Date.now();
  let sweeping: Promise<void> | undefined;
  // LISTEN once per channel, however many subscribe to it; the last
  // subscriber UNLISTENs it.
  const channels = new ChannelSet(async (channel) => {
    const sql = await connect();
    let listens = 0;
    const handle = await sql.listen(ident(channel), (payload) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        return;
      }
      if (!Array.isArray(parsed) || parsed[0] !== channel) return;
      channels.deliver(channel, String(parsed[1]));
    }, () => {
      // Again after the first: the listening connection was lost and made
      // anew; what was notified in between is gone.
      if (listens++ > 0) channels.gap(channel);
    });
    return () => handle.unlisten();
  });

  function connect(): Promise<PostgresClientLike> {
    if (ready !== undefined) return ready;
    ready = (async () => {
      let sql: PostgresClientLike;
      if (typeof target === "string") {
        const { default: postgres } = await import("postgres");
        sql = postgres(target, {
          connect_timeout: options.connectTimeout ?? 5,
          onnotice: () => {},
          max: 4,
        }) as unknown as PostgresClientLike;
      } else sql = target;
      for (
        const statement of [
          `CREATE TABLE IF NOT EXISTS ${kv} (key text PRIMARY KEY, value text NOT NULL, version text NOT NULL, expires_at timestamptz)`,
          `CREATE TABLE IF NOT EXISTS ${claim} (key text PRIMARY KEY, expires_at timestamptz NOT NULL)`,
          `CREATE TABLE IF NOT EXISTS ${head} (stream text PRIMARY KEY, n bigint NOT NULL, expires_at timestamptz)`,
          `CREATE TABLE IF NOT EXISTS ${log} (stream text NOT NULL, id bigint NOT NULL, value text NOT NULL, expires_at timestamptz, PRIMARY KEY (stream, id))`,
        ]
      ) {
        try {
          await sql.unsafe(statement);
        } catch (error) {
          // Another instance created it at the same moment.
          const code = (error as { code?: unknown }).code;
          if (code !== "23505" && code !== "42P07") throw error;
        }
      }
      return sql;
    })();
    ready.catch(() => {
      ready = undefined; // the next operation tries again
    });
    return ready;
  }

  async function run<T>(
    operation: string,
    body: (sql: PostgresClientLike) => Promise<T>,
  ): Promise<T> {
    if (closed) {
      throw new StoreUnavailableError(
        "postgres",
        operation,
        "the store is closed",
      );
    }
    try {
      const sql = await connect();
      const result = await body(sql);
      if (Date.now() - lastSweep > 60_000 && sweeping === undefined) {
        lastSweep = Date.now();
        sweeping = sweep(sql).catch(() => {
          // Nothing lost: expired rows stay unread (reads check the expiry) until the next sweep.
        }).finally(() => {
          sweeping = undefined;
        });
      }
      return result;
    } catch (error) {
      // The server answered a refusal (a payload too long, say): a plain
      // error; not reached, or going away: an outage.
      throw storeFailure("postgres", operation, error);
    }
  }

  async function sweep(sql: PostgresClientLike): Promise<void> {
    for (const table of [kv, claim, log, head]) {
      await sql.unsafe(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at <= clock_timestamp() LIMIT 1000)`,
      );
    }
  }

  const ttl = (ms: number | undefined) =>
    (ms === undefined ? null : ms) as never;
  const text = (value: string) => value as never;

  // The Postgres channel of `channel`: a name within the 63-byte limit,
  // the same on every instance. The payload names the channel in full.
  function ident(channel: string): string {
    let a = 0x811c9dc5, b = 0x01000193;
    for (const byte of new TextEncoder().encode(channel)) {
      a = Math.imul(a ^ byte, 0x01000193) >>> 0;
      b = Math.imul(b ^ byte, 0x811c9dc5) >>> 0;
    }
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return `${bus}_${hex(a)}${hex(b)}`;
  }

  const store: Store = {
    kind: "postgres",
    get<T>(key: string) {
      return run("get", async (sql): Promise<StoreEntry<T> | undefined> => {
        const rows = await sql.unsafe(
          `SELECT value, version FROM ${kv} WHERE key = $1 AND ${liveRow(kv)}`,
          [text(key)],
        );
        if (rows.length === 0) return undefined;
        return {
          value: JSON.parse(String(rows[0].value)) as T,
          version: String(rows[0].version),
        };
      });
    },
    set(key, value, options) {
      checkTtl(options?.ttlMs, "postgresStore.set");
      return run("set", async (sql) => {
        const rows = await sql.unsafe(
          `INSERT INTO ${kv} (key, value, version, expires_at)
           VALUES ($1, $2, gen_random_uuid()::text, ${expiry(3)})
           ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value,
             version = EXCLUDED.version, expires_at = EXCLUDED.expires_at
           RETURNING version`,
          [text(key), text(JSON.stringify(value ?? null)), ttl(options?.ttlMs)],
        );
        return String(rows[0].version);
      });
    },
    delete(key) {
      return run("delete", async (sql) => {
        await sql.unsafe(`DELETE FROM ${kv} WHERE key = $1`, [text(key)]);
      });
    },
    swap(key, expected, value, options) {
      checkTtl(options?.ttlMs, "postgresStore.swap");
      return run("swap", async (sql) => {
        const json = text(JSON.stringify(value ?? null));
        const rows = expected === undefined
          ? await sql.unsafe(
            `INSERT INTO ${kv} (key, value, version, expires_at)
             VALUES ($1, $2, gen_random_uuid()::text, ${expiry(3)})
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value,
               version = EXCLUDED.version, expires_at = EXCLUDED.expires_at
             WHERE NOT ${liveRow(kv)}
             RETURNING version`,
            [text(key), json, ttl(options?.ttlMs)],
          )
          : await sql.unsafe(
            `UPDATE ${kv} SET value = $2, version = gen_random_uuid()::text,
               expires_at = ${expiry(3)}
             WHERE key = $1 AND version = $4 AND ${liveRow(kv)}
             RETURNING version`,
            [text(key), json, ttl(options?.ttlMs), text(expected)],
          );
        return rows.length === 1;
      });
    },
    claimOnce(key, ttlMs) {
      checkTtl(ttlMs, "postgresStore.claimOnce");
      return run("claimOnce", async (sql) => {
        const rows = await sql.unsafe(
          `INSERT INTO ${claim} (key, expires_at) VALUES ($1, ${expiry(2)})
           ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
           WHERE ${claim}.expires_at <= clock_timestamp()
           RETURNING 1 AS won`,
          [text(key), ttl(ttlMs)],
        );
        return rows.length === 1;
      });
    },
    append(stream, value, options) {
      checkTtl(options?.ttlMs, "postgresStore.append");
      return run("append", async (sql) => {
        // The counter row stays locked until the insert commits: appends
        // to one stream commit in id order.
        const rows = await sql.unsafe(
          `WITH h AS (
             INSERT INTO ${head} (stream, n, expires_at) VALUES ($1, 1, ${
            expiry(3)
          })
             ON CONFLICT (stream) DO UPDATE SET n = ${head}.n + 1,
               expires_at = EXCLUDED.expires_at
             RETURNING n)
           INSERT INTO ${log} (stream, id, value, expires_at)
           SELECT $1, h.n, $2, ${expiry(3)} FROM h RETURNING id`,
          [
            text(stream),
            text(JSON.stringify(value ?? null)),
            ttl(options?.ttlMs),
          ],
        );
        return String(rows[0].id);
      });
    },
    readAfter<T>(stream: string, afterId: string | undefined, limit?: number) {
      if (afterId !== undefined && !/^[0-9]{1,18}$/.test(afterId)) {
        throw new RangeError(
          `postgresStore.readAfter: ${afterId} is not an id of this store`,
        );
      }
      return run("readAfter", async (sql) => {
        const rows = await sql.unsafe(
          `SELECT id, value FROM ${log}
           WHERE stream = $1 AND id > $2::bigint AND ${liveRow(log)}
           ORDER BY id LIMIT $3::bigint`,
          [
            text(stream),
            text(afterId ?? "0"),
            (limit === undefined ? null : limit) as never,
          ],
        );
        return rows.map((row): StoreLogEntry<T> => ({
          id: String(row.id),
          value: JSON.parse(String(row.value)) as T,
        }));
      });
    },
    dropLog(stream) {
      return run("dropLog", async (sql) => {
        await sql.unsafe(`DELETE FROM ${log} WHERE stream = $1`, [
          text(stream),
        ]);
        await sql.unsafe(`DELETE FROM ${head} WHERE stream = $1`, [
          text(stream),
        ]);
      });
    },
    publish(channel, message) {
      return run("publish", async (sql) => {
        await sql.unsafe(`SELECT pg_notify($1, $2)`, [
          text(ident(channel)),
          text(JSON.stringify([channel, message])),
        ]);
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
            channel,
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
      await sweeping;
      if (owned && ready !== undefined) {
        const sql = await ready.catch(() =>
          // Nothing lost: a connection that never opened has nothing to end.
          undefined
        );
        await sql?.end({ timeout: 1 });
      }
    },
    [Symbol.asyncDispose]() {
      return store.close();
    },
  };
  return rejecting(store);
}
