/**
 * `kvStore` (deprecated): `httpHandler`'s sessions in Deno KV, now a view —
 * the one session backend over `denoKvStore(kv)`, the same as passing the
 * `Deno.Kv` itself as `store`. The shapes it took by name stay as
 * deprecated aliases of the store adapter's for one release.
 *
 * @module
 */

import {
  type DenoKvAtomicLike,
  type DenoKvLike,
  denoKvStore,
} from "../../store/deno_kv.ts";
import {
  type HttpSessionStore,
  StoreSessionBackend,
} from "./store_sessions.ts";

export type { HttpSessionStore } from "./store_sessions.ts";

/**
 * A Deno KV key, structurally.
 *
 * @deprecated Nothing takes it any more; `kvStore` reads its `prefix` parts
 * as strings.
 */
export type KvKeyLike = readonly (string | number | bigint | boolean)[];

/**
 * A Deno KV entry as `get` resolves it, structurally.
 *
 * @deprecated Nothing takes it any more; see `DenoKvLike` in
 * `@weft/mcp/store`.
 */
export interface KvEntryLike<T> {
  /** The entry's key. */
  readonly key: readonly unknown[];
  /** Its value; `null` when there is none. */
  readonly value: T | null;
  /** Its version; `null` when there is none. */
  readonly versionstamp: string | null;
}

/**
 * The atomic operation of a Deno KV, structurally.
 *
 * @deprecated `DenoKvAtomicLike` from `@weft/mcp/store`, which it now is.
 */
export type KvAtomicLike = DenoKvAtomicLike;

/**
 * A Deno KV, structurally: the shape `kvStore` takes.
 *
 * @deprecated `DenoKvLike` from `@weft/mcp/store`, which it now is; pass a
 * contract store from `@weft/mcp/store`, or a `Deno.Kv`, where a store goes.
 */
export type KvLike = DenoKvLike;

/** Options of {@link kvStore}. */
export interface KvStoreOptions {
  /**
   * The key prefix of everything stored, its parts read as strings.
   * Default `["weft"]`, `denoKvStore`'s: the same sessions as passing the
   * `Deno.Kv` as `store`.
   */
  readonly prefix?: KvKeyLike;
  /**
   * How often a stream resumed on one instance looks for events another
   * instance stored, in ms. Default 100. `watch` wakes it sooner where it
   * delivers across instances (Deno Deploy).
   */
  readonly pollInterval?: number;
}

/**
 * Keeps `httpHandler`'s sessions in Deno KV: session records (id, protocol
 * version, client capabilities and info, last activity, expiry) and the
 * resumable events, so any instance serves any session — a request naming a
 * session this instance has not seen is served from the stored state, a
 * DELETE on one instance ends the session on all, a stream resumes with
 * `Last-Event-ID` on any instance, and expiry and `maxSessions` hold across
 * instances. The sessions are those of `denoKvStore(kv)` (with the same
 * `prefix`): a handler given `kvStore(kv)` and one given `kv` share them.
 *
 * Programs using it need KV: `"unstable": ["kv"]` in `deno.json` (or
 * `--unstable-kv`); on Deno Deploy, `Deno.openKv()` opens the database every
 * isolate shares.
 *
 * @deprecated Pass the `Deno.Kv` itself as `httpHandler`'s `store` (taken
 * as `denoKvStore(kv)` from `@weft/mcp/store`, the one store every
 * stateful option takes): the same sessions, under the same keys.
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
  const { prefix, pollInterval } = options;
  const store = denoKvStore(kv, {
    ...(prefix === undefined ? {} : { prefix: prefix.map(String) }),
    ...(pollInterval === undefined ? {} : { pollInterval }),
  });
  return new StoreSessionBackend(store, { pollInterval });
}
