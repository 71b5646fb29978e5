/**
 * Where an OAuth client keeps what it learns: discovery results, client
 * registrations, tokens and pending authorizations. In memory by default
 * (`memoryStore()` from `@weft/mcp/store`); any contract store or a
 * `Deno.Kv` keeps them elsewhere. The shapes below are the older ones.
 *
 * @module
 */

import { memoryStore } from "../../store/memory.ts";
import { oauthStoreOf } from "./oauth_store_view.ts";

/** One stored value with the version it was read at. */
export interface OAuthStoreEntry {
  /** The stored value (JSON-shaped). */
  readonly value: unknown;
  /** Opaque; changes on every write. */
  readonly version: string;
}

/** Options of a store write. */
export interface OAuthStoreSetOptions {
  /** Milliseconds after which the entry is gone (PKCE verifiers, state). */
  readonly expireIn?: number;
}

/**
 * A key-value store for OAuth state. `swap` is what keeps two processes
 * from spending one rotating refresh token twice: a refresh is started
 * only by the writer whose swap on the token entry succeeded.
 *
 * @deprecated As `oauthClient`'s `store`, pass a contract store from
 * `@weft/mcp/store` (or a `Deno.Kv`, taken as `denoKvStore(kv)`); this
 * shape becomes internal in a later release.
 *
 * @example A store backed by a Map (what `memoryOAuthStore` does)
 * ```ts
 * import { memoryOAuthStore, type OAuthStore } from "@weft/mcp/auth";
 * const store: OAuthStore = memoryOAuthStore();
 * await store.set(["a"], 1);
 * const entry = await store.get(["a"]);
 * console.log(entry?.value); // 1
 * ```
 */
export interface OAuthStore {
  /** The entry at `key`, or `undefined`. */
  get(key: readonly string[]): Promise<OAuthStoreEntry | undefined>;
  /** Writes `value` at `key`. */
  set(
    key: readonly string[],
    value: unknown,
    options?: OAuthStoreSetOptions,
  ): Promise<void>;
  /** Removes `key`. */
  delete(key: readonly string[]): Promise<void>;
  /**
   * Writes `value` only when `key` is still at `version` (`undefined`:
   * absent), atomically; `false` when another writer came first.
   */
  swap(
    key: readonly string[],
    version: string | undefined,
    value: unknown,
    options?: OAuthStoreSetOptions,
  ): Promise<boolean>;
}

/**
 * A store in this process's memory: tokens are lost on restart. It is
 * `memoryStore()` from `@weft/mcp/store` seen through the older shape.
 *
 * @deprecated Pass `memoryStore()` from `@weft/mcp/store` as
 * `oauthClient`'s `store` (or nothing: memory is the default).
 *
 * @example
 * ```ts
 * import { memoryOAuthStore, oauthClient } from "@weft/mcp/auth";
 * const auth = oauthClient({ clientId: "agent", clientSecret: "s3cret", store: memoryOAuthStore() });
 * ```
 */
export function memoryOAuthStore(): OAuthStore {
  return oauthStoreOf(memoryStore());
}

/** Options of {@link kvOAuthStore}. */
export interface KvOAuthStoreOptions {
  /** The key prefix. Default `["weft", "oauth"]`. */
  readonly prefix?: readonly string[];
}

/**
 * A store in Deno KV: tokens survive restarts and are shared by every
 * instance of a Deno Deploy app. Entries are keyed by issuer, client and
 * principal; PKCE verifiers and `state` expire after ten minutes; a
 * refresh is guarded by an atomic check on the token entry's versionstamp.
 * Deno KV is unstable: a program using it runs with `--unstable-kv`, or has
 * `"unstable": ["kv"]` in its `deno.json`.
 *
 * @deprecated Pass the `Deno.Kv` itself (taken as `denoKvStore(kv)`), or
 * `denoKvStore(kv)` from `@weft/mcp/store`, as `oauthClient`'s `store`.
 *
 * @example
 * ```ts ignore
 * import { kvOAuthStore, oauthClient } from "@weft/mcp/auth";
 * // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 * const kv = await Deno.openKv();
 * const auth = oauthClient({ clientId: "agent", clientSecret: "s3cret", store: kvOAuthStore(kv) });
 * ```
 */
export function kvOAuthStore(
  kv: Deno.Kv,
  options: KvOAuthStoreOptions = {},
): OAuthStore {
  const prefix = options.prefix ?? ["weft", "oauth"];
  const full = (key: readonly string[]): Deno.KvKey => [...prefix, ...key];
  return {
    async get(key) {
      const entry = await kv.get(full(key));
      return entry.versionstamp === null
        ? undefined
        : { value: entry.value, version: entry.versionstamp };
    },
    async set(key, value, setOptions) {
      await kv.set(full(key), value, expiry(setOptions));
    },
    async delete(key) {
      await kv.delete(full(key));
    },
    async swap(key, version, value, setOptions) {
      // A commit that throws did not write (SQLite busy when two handles
      // write at once): tried again, the check keeps it correct.
      for (let attempt = 0;; attempt++) {
        try {
          const result = await kv.atomic()
            .check({ key: full(key), versionstamp: version ?? null })
            .set(full(key), value, expiry(setOptions))
            .commit();
          return result.ok;
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((r) => setTimeout(r, 10 + 20 * attempt));
        }
      }
    },
  };
}

function expiry(
  options: OAuthStoreSetOptions | undefined,
): { expireIn?: number } {
  return options?.expireIn === undefined ? {} : { expireIn: options.expireIn };
}
