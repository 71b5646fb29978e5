/**
 * The one outage classifier (src/store/outage.ts), as a table: for each
 * engine, which client errors read as an outage, a refusal or a bug — by
 * their types and codes — and that every consumer (the HTTP guard, the task
 * host) reads an outage through `cause` with the same function. The real
 * engines' errors are in tests/store_unavailable_test.ts and
 * tests/store_postgres_outage_test.ts.
 */

import assert from "node:assert/strict";
import { StoreUnavailableError } from "../store.ts";
import {
  classifyStoreFailure,
  type StoreEngine,
  storeFailure,
  type StoreFailureKind,
  storeOutageOf,
} from "../src/store/outage.ts";
import { storeDown } from "../src/runtime/http/guard.ts";
import { isStoreOutage } from "../src/tasks/_outcome.ts";

/** An error of `name` (a client's class name) with `fields`. */
function clientError(
  name: string,
  message: string,
  fields: Record<string, unknown> = {},
): Error {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, fields);
}

const pg = (severity: string | undefined, code: string) =>
  Object.assign(new Error(`pg ${code}`), { severity, code });

const TABLE: [StoreEngine, string, unknown, StoreFailureKind][] = [
  // Postgres: severity says the server answered; SQLSTATE says how.
  [
    "postgres",
    "a refused connection",
    clientError("Error", "connect ECONNREFUSED", { code: "ECONNREFUSED" }),
    "outage",
  ],
  [
    "postgres",
    "the client's CONNECTION_CLOSED",
    clientError("Error", "write CONNECTION_CLOSED", {
      code: "CONNECTION_CLOSED",
    }),
    "outage",
  ],
  [
    "postgres",
    "the client's CONNECT_TIMEOUT",
    clientError("Error", "connect timeout", { code: "CONNECT_TIMEOUT" }),
    "outage",
  ],
  ["postgres", "FATAL 57P01 admin shutdown", pg("FATAL", "57P01"), "outage"],
  ["postgres", "ERROR 57P02 crash shutdown", pg("ERROR", "57P02"), "outage"],
  [
    "postgres",
    "ERROR 57P03 cannot connect now",
    pg("ERROR", "57P03"),
    "outage",
  ],
  [
    "postgres",
    "FATAL 53300 too many connections",
    pg("FATAL", "53300"),
    "outage",
  ],
  // Not FATAL: only its SQLSTATE says it (a pool at max_connections).
  [
    "postgres",
    "ERROR 53300 too many connections",
    pg("ERROR", "53300"),
    "outage",
  ],
  [
    "postgres",
    "ERROR 08006 connection failure",
    pg("ERROR", "08006"),
    "outage",
  ],
  [
    "postgres",
    "ERROR 08P01 protocol violation",
    pg("ERROR", "08P01"),
    "outage",
  ],
  ["postgres", "PANIC XX000", pg("PANIC", "XX000"), "outage"],
  ["postgres", "ERROR 22001 value too long", pg("ERROR", "22001"), "refused"],
  ["postgres", "ERROR 23505 unique violation", pg("ERROR", "23505"), "refused"],
  [
    "postgres",
    "ERROR 53100 disk full (not 53300)",
    pg("ERROR", "53100"),
    "refused",
  ],
  [
    "postgres",
    "a message saying 'connection' with a refusal's code",
    Object.assign(new Error("connection refused by policy"), {
      severity: "ERROR",
      code: "42501",
    }),
    "refused",
  ],
  [
    "postgres",
    "a RangeError (a TTL refused before the call)",
    new RangeError("ttlMs"),
    "bug",
  ],
  // Redis: a reply error is the server answering; its code comes first.
  [
    "redis",
    "ECONNREFUSED",
    clientError("Error", "connect ECONNREFUSED 127.0.0.1:1", {
      code: "ECONNREFUSED",
    }),
    "outage",
  ],
  [
    "redis",
    "a closed connection",
    clientError("Error", "Connection is closed."),
    "outage",
  ],
  [
    "redis",
    "MaxRetriesPerRequestError",
    clientError(
      "MaxRetriesPerRequestError",
      "Reached the max retries per request limit",
    ),
    "outage",
  ],
  [
    "redis",
    "a command timeout",
    clientError("Error", "Command timed out"),
    "outage",
  ],
  [
    "redis",
    "ReplyError LOADING",
    clientError("ReplyError", "LOADING Redis is loading the dataset in memory"),
    "outage",
  ],
  [
    "redis",
    "ReplyError BUSY",
    clientError("ReplyError", "BUSY Redis is busy running a script"),
    "outage",
  ],
  [
    "redis",
    "ReplyError READONLY (a replica after failover)",
    clientError(
      "ReplyError",
      "READONLY You can't write against a read only replica.",
    ),
    "outage",
  ],
  [
    "redis",
    "ReplyError ERR",
    clientError("ReplyError", "ERR wrong number of arguments"),
    "refused",
  ],
  [
    "redis",
    "ReplyError WRONGTYPE",
    clientError(
      "ReplyError",
      "WRONGTYPE Operation against a key holding the wrong kind of value",
    ),
    "refused",
  ],
  [
    "redis",
    "ReplyError NOSCRIPT",
    clientError("ReplyError", "NOSCRIPT No matching script"),
    "refused",
  ],
  [
    "redis",
    "ReplyError OOM",
    clientError(
      "ReplyError",
      "OOM command not allowed when used memory > 'maxmemory'",
    ),
    "refused",
  ],
  [
    "redis",
    "a plain error whose message starts ERR is not a reply",
    clientError("Error", "ERR looks like a reply"),
    "outage",
  ],
  ["redis", "a RangeError", new RangeError("U+0000"), "bug"],
  // Deno KV: a key or value KV cannot take is a bug; anything else, not reached.
  [
    "deno-kv",
    "a closed database (BadResource)",
    new Deno.errors.BadResource("Bad resource ID"),
    "outage",
  ],
  ["deno-kv", "an I/O error", new Error("database is locked"), "outage"],
  [
    "deno-kv",
    "a TypeError (a value KV cannot take)",
    new TypeError("Value too large"),
    "bug",
  ],
  ["deno-kv", "a RangeError", new RangeError("key too large"), "bug"],
  // Already classified: stays an outage everywhere.
  [
    "redis",
    "a StoreUnavailableError",
    new StoreUnavailableError("redis", "get", "down"),
    "outage",
  ],
];

Deno.test("the outage classifier: each engine's errors read by type and code", () => {
  for (const [engine, what, error, kind] of TABLE) {
    assert.equal(
      classifyStoreFailure(engine, error),
      kind,
      `${engine}: ${what}`,
    );
  }
});

Deno.test("storeFailure: an outage is a StoreUnavailableError, a refusal a plain Error naming the store and operation, a bug itself", () => {
  for (const [engine, what, error, kind] of TABLE) {
    const thrown = storeFailure(engine, "swap", error);
    if (kind === "bug") {
      assert.equal(thrown, error, what);
    } else if (kind === "outage") {
      assert.ok(thrown instanceof StoreUnavailableError, what);
      if (error instanceof StoreUnavailableError) assert.equal(thrown, error);
      else {
        assert.equal(thrown.store, engine);
        assert.equal(thrown.operation, "swap");
        assert.equal(thrown.cause, error);
      }
    } else {
      assert.ok(
        thrown instanceof Error && !(thrown instanceof StoreUnavailableError),
        what,
      );
      assert.equal(
        thrown.message,
        `${engine} store: swap failed: ${(error as Error).message}`,
      );
      assert.equal(thrown.cause, error);
    }
  }
});

Deno.test("every consumer reads an outage through its causes with the one classifier", () => {
  const down = new StoreUnavailableError("postgres", "get", "down");
  const wrapped = new Error("tasks/get failed", {
    cause: new Error("read", { cause: down }),
  });
  for (const error of [down, wrapped]) {
    assert.equal(storeOutageOf(error), down);
    assert.equal(storeDown(error), down);
    assert.equal(isStoreOutage(error), true);
  }
  const refused = new Error("postgres store: set failed", {
    cause: pg("ERROR", "22001"),
  });
  for (const error of [refused, "down", undefined, { cause: down }]) {
    assert.equal(storeOutageOf(error), undefined);
    assert.equal(storeDown(error), undefined);
    assert.equal(isStoreOutage(error), false);
  }
  assert.equal(
    storeDown,
    storeOutageOf,
    "the HTTP guard's check is the store's",
  );
});
