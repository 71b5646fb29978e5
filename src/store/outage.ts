/**
 * The one outage classifier: how a store adapter's client error reads —
 * the engine could not be reached (an outage: `StoreUnavailableError`,
 * answered 503 and tried again), the engine answered and refused the
 * operation (a plain error naming it), or a bug in the call (a
 * `RangeError`/`TypeError`, thrown as it is) — and, for every consumer,
 * whether an error is or was caused by an outage. The Redis, Postgres and
 * Deno KV adapters, the HTTP handler and the task host
 * all use it; nothing else decides.
 *
 * Each engine is read by its own types and codes, never by a message:
 * Postgres by SQLSTATE and severity, Redis by the reply-error class and
 * the error code the protocol puts first in a reply, Deno KV by the error
 * class.
 *
 * @module
 */

import { StoreUnavailableError } from "./contract.ts";

/** The engines whose failures are classified. */
export type StoreEngine = "redis" | "postgres" | "deno-kv";

/**
 * How one failure reads: `outage` (the engine was not reached or is going
 * away), `refused` (the engine answered: this operation cannot be done),
 * `bug` (the call itself was wrong).
 */
export type StoreFailureKind = "outage" | "refused" | "bug";

/**
 * SQLSTATEs of a server that cannot serve now: connection exceptions
 * (class 08), an administrator's or a crash's shutdown (57P01–57P03), too
 * many connections (53300).
 */
const PG_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300"]);

/** Redis reply codes of a server that cannot serve now (loading, busy, failing over). */
const REDIS_UNAVAILABLE = new Set([
  "LOADING",
  "BUSY",
  "MASTERDOWN",
  "CLUSTERDOWN",
  "TRYAGAIN",
  "READONLY",
]);

function field(error: unknown, name: string): unknown {
  return typeof error === "object" && error !== null
    ? (error as Record<string, unknown>)[name]
    : undefined;
}

function postgres(error: unknown): StoreFailureKind {
  const severity = field(error, "severity");
  // No severity: the client's own error (refused connection, timeout, a
  // connection closed or ended): the server was not reached.
  if (typeof severity !== "string") return "outage";
  if (severity === "FATAL" || severity === "PANIC") return "outage";
  const code = field(error, "code");
  if (typeof code !== "string") return "refused";
  return code.startsWith("08") || PG_UNAVAILABLE.has(code)
    ? "outage"
    : "refused";
}

function redis(error: unknown): StoreFailureKind {
  // A reply error: the server answered; its code is the reply's first word.
  if (error instanceof Error && error.name === "ReplyError") {
    const code = error.message.split(" ", 1)[0];
    return REDIS_UNAVAILABLE.has(code) ? "outage" : "refused";
  }
  // Connection errors, timeouts, `MaxRetriesPerRequestError`: not reached.
  return "outage";
}

/**
 * How `error`, thrown by `engine`'s client, reads. A `RangeError` is a
 * `bug` for every engine (a key, value or TTL refused before the call),
 * and so is a `TypeError` from Deno KV (a key or value KV cannot take);
 * Deno KV reports everything else as not reached (a closed database, an
 * unreachable Deno Deploy KV, an I/O error).
 */
export function classifyStoreFailure(
  engine: StoreEngine,
  error: unknown,
): StoreFailureKind {
  if (error instanceof StoreUnavailableError) return "outage";
  if (error instanceof RangeError) return "bug";
  switch (engine) {
    case "postgres":
      return postgres(error);
    case "redis":
      return redis(error);
    case "deno-kv":
      return error instanceof TypeError ? "bug" : "outage";
  }
}

/**
 * The error an adapter throws for `error` from `operation` on `engine`:
 * a `StoreUnavailableError` for an outage, a plain `Error` naming the
 * store and operation (its `cause` the client's error) for a refusal,
 * `error` itself for a bug or an outage already classified.
 */
export function storeFailure(
  engine: StoreEngine,
  operation: string,
  error: unknown,
): unknown {
  if (error instanceof StoreUnavailableError) return error;
  switch (classifyStoreFailure(engine, error)) {
    case "bug":
      return error;
    case "refused":
      return new Error(
        `${engine} store: ${operation} failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    case "outage":
      return new StoreUnavailableError(engine, operation, error);
  }
}

/** The `StoreUnavailableError` that `error` is or was caused by (through `cause`), if any. */
export function storeOutageOf(
  error: unknown,
): StoreUnavailableError | undefined {
  for (let depth = 0; depth < 8 && error instanceof Error; depth++) {
    if (error instanceof StoreUnavailableError) return error;
    error = error.cause;
  }
  return undefined;
}
