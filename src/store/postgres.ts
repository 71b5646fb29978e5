/**
 * `postgresStore`: the contract over Postgres, through the `postgres`
 * client (loaded on first use, so programs that never use Postgres never
 * load it).
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
  return ownMethods(new PostgresStore(target, options));
}

/** A TTL in ms as a statement parameter (`null`: kept until deleted). */
function ttl(ms: number | undefined): never {
  return (ms === undefined ? null : ms) as never;
}

/** A text statement parameter. */
function text(value: string): never {
  return value as never;
}

/** The contract over Postgres: what {@link postgresStore} returns. */
class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly #target: string | PostgresClientLike;
  readonly #connectTimeout: number;
  readonly #kv: string;
  readonly #claim: string;
  readonly #log: string;
  readonly #head: string;
  readonly #bus: string;
  #ready: Promise<PostgresClientLike> | undefined;
  #closed = false;
  #lastSweep = Date.now();
  #sweeping: Promise<void> | undefined;
  // LISTEN once per channel, however many subscribe to it; the last
  // subscriber UNLISTENs it.
  readonly #channels: ChannelSet;

  constructor(
    target: string | PostgresClientLike,
    options: PostgresStoreOptions,
  ) {
    const prefix = options.prefix ?? "weft";
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
      throw new RangeError(
        `postgresStore: prefix must be lower-case letters, digits and _, got ${prefix}`,
      );
    }
    this.#target = target;
    this.#connectTimeout = options.connectTimeout ?? 5;
    this.#kv = `${prefix}_kv`;
    this.#claim = `${prefix}_claim`;
    this.#log = `${prefix}_log`;
    this.#head = `${prefix}_log_head`;
    this.#bus = `${prefix}_bus`;
    this.#channels = new ChannelSet((channel) => this.#listen(channel));
  }

  // LISTENs on `channel`'s Postgres channel; resolves to its UNLISTEN.
  async #listen(channel: string): Promise<() => Promise<void>> {
    const sql = await this.#connect();
    let listens = 0;
    const handle = await sql.listen(this.#ident(channel), (payload) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        return;
      }
      if (!Array.isArray(parsed) || parsed[0] !== channel) return;
      this.#channels.deliver(channel, String(parsed[1]));
    }, () => {
      // Again after the first: the listening connection was lost and made
      // anew; what was notified in between is gone.
      if (listens++ > 0) this.#channels.gap(channel);
    });
    return () => handle.unlisten();
  }

  #connect(): Promise<PostgresClientLike> {
    if (this.#ready !== undefined) return this.#ready;
    const ready = this.#open();
    this.#ready = ready;
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = undefined; // the next operation tries again
    });
    return ready;
  }

  // The client, with the four tables made sure of.
  async #open(): Promise<PostgresClientLike> {
    let sql: PostgresClientLike;
    if (typeof this.#target === "string") {
      const { default: postgres } = await import("postgres");
      sql = postgres(this.#target, {
        connect_timeout: this.#connectTimeout,
        onnotice: () => {},
        max: 4,
      }) as unknown as PostgresClientLike;
    } else sql = this.#target;
    const kv = this.#kv, claim = this.#claim;
    const log = this.#log, head = this.#head;
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
  }

  // An operation against Postgres: its failure read by the one classifier.
  async #run<T>(
    operation: string,
    body: (sql: PostgresClientLike) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) {
      throw new StoreUnavailableError(
        "postgres",
        operation,
        "the store is closed",
      );
    }
    try {
      const sql = await this.#connect();
      const result = await body(sql);
      if (
        Date.now() - this.#lastSweep > 60_000 && this.#sweeping === undefined
      ) {
        this.#lastSweep = Date.now();
        this.#sweeping = this.#sweep(sql).catch(() => {
          // Nothing lost: expired rows stay unread (reads check the expiry) until the next sweep.
        }).finally(() => {
          this.#sweeping = undefined;
        });
      }
      return result;
    } catch (error) {
      // The server answered a refusal (a payload too long, say): a plain
      // error; not reached, or going away: an outage.
      throw storeFailure("postgres", operation, error);
    }
  }

  async #sweep(sql: PostgresClientLike): Promise<void> {
    for (const table of [this.#kv, this.#claim, this.#log, this.#head]) {
      await sql.unsafe(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at <= clock_timestamp() LIMIT 1000)`,
      );
    }
  }

  // The Postgres channel of `channel`: a name within the 63-byte limit,
  // the same on every instance. The payload names the channel in full.
  #ident(channel: string): string {
    let a = 0x811c9dc5, b = 0x01000193;
    for (const byte of new TextEncoder().encode(channel)) {
      a = Math.imul(a ^ byte, 0x01000193) >>> 0;
      b = Math.imul(b ^ byte, 0x811c9dc5) >>> 0;
    }
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return `${this.#bus}_${hex(a)}${hex(b)}`;
  }

  async get<T>(key: string): Promise<StoreEntry<T> | undefined> {
    checkKey(key, "get");
    const kv = this.#kv;
    return await this.#run("get", async (sql) => {
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
  }

  async set(
    key: string,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<string> {
    checkKey(key, "set");
    checkTtl(options?.ttlMs, "postgresStore.set");
    const kv = this.#kv;
    return await this.#run("set", async (sql) => {
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
  }

  async delete(key: string): Promise<void> {
    checkKey(key, "delete");
    const kv = this.#kv;
    await this.#run("delete", async (sql) => {
      await sql.unsafe(`DELETE FROM ${kv} WHERE key = $1`, [text(key)]);
    });
  }

  async swap(
    key: string,
    expected: string | undefined,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<boolean> {
    checkKey(key, "swap");
    checkTtl(options?.ttlMs, "postgresStore.swap");
    const kv = this.#kv;
    return await this.#run("swap", async (sql) => {
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
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    checkKey(key, "claimOnce");
    checkTtl(ttlMs, "postgresStore.claimOnce");
    const claim = this.#claim;
    return await this.#run("claimOnce", async (sql) => {
      const rows = await sql.unsafe(
        `INSERT INTO ${claim} (key, expires_at) VALUES ($1, ${expiry(2)})
         ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE ${claim}.expires_at <= clock_timestamp()
         RETURNING 1 AS won`,
        [text(key), ttl(ttlMs)],
      );
      return rows.length === 1;
    });
  }

  async append(
    stream: string,
    value: unknown,
    options?: StoreAppendOptions,
  ): Promise<string> {
    checkKey(stream, "append");
    checkTtl(options?.ttlMs, "postgresStore.append");
    const head = this.#head, log = this.#log;
    return await this.#run("append", async (sql) => {
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
  }

  async readAfter<T>(
    stream: string,
    afterId: string | undefined,
    limit?: number,
  ): Promise<StoreLogEntry<T>[]> {
    checkKey(stream, "readAfter");
    if (afterId !== undefined && !/^[0-9]{1,18}$/.test(afterId)) {
      throw new RangeError(
        `postgresStore.readAfter: ${afterId} is not an id of this store`,
      );
    }
    const log = this.#log;
    return await this.#run("readAfter", async (sql) => {
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
  }

  async dropLog(stream: string): Promise<void> {
    checkKey(stream, "dropLog");
    const log = this.#log, head = this.#head;
    await this.#run("dropLog", async (sql) => {
      await sql.unsafe(`DELETE FROM ${log} WHERE stream = $1`, [
        text(stream),
      ]);
      await sql.unsafe(`DELETE FROM ${head} WHERE stream = $1`, [
        text(stream),
      ]);
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    checkKey(channel, "publish");
    await this.#run("publish", async (sql) => {
      await sql.unsafe(`SELECT pg_notify($1, $2)`, [
        text(this.#ident(channel)),
        text(JSON.stringify([channel, message])),
      ]);
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
          channel,
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
    await this.#sweeping;
    if (typeof this.#target === "string" && this.#ready !== undefined) {
      const sql = await this.#ready.catch(() =>
        // Nothing lost: a connection that never opened has nothing to end.
        undefined
      );
      await sql?.end({ timeout: 1 });
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
