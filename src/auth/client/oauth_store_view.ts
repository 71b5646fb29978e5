/**
 * A contract `Store` (from `@weft/mcp/store`) as an {@link OAuthStore}:
 * what `oauthClient({ store })` uses when given one. Entries live under
 * `oauth/`; the refresh lease is the contract's `swap`.
 *
 * @module
 */

import { isStore, STORE_NAMESPACES } from "../../store/contract.ts";
import { acceptStore, hasMethods } from "../../store/accept.ts";
import type { OAuthStore } from "./oauth_store.ts";
import { memoryStore } from "../../store/memory.ts";

/**
 * The OAuth store `option` names: itself, a view of a contract store, or
 * this process's memory when absent.
 */
export function oauthStoreOf(option: unknown): OAuthStore {
  // Absent: this process's memory, through the same view as any store.
  // A contract store or a raw Deno.Kv (as `denoKvStore(kv)`) becomes the
  // view below; a deprecated `OAuthStore` is used as it is.
  const accepted = acceptStore(
    option ?? memoryStore(),
    "oauthClient: options.store",
    (value): value is OAuthStore =>
      hasMethods(value, "get", "set", "delete", "swap"),
  );
  if (!isStore(accepted)) return accepted;
  const store = accepted;
  // The runtime's key format for array keys (its `storeKey`): the
  // namespace, then each part URI-encoded, joined by "/".
  const key = (parts: readonly string[]) =>
    STORE_NAMESPACES.oauth + parts.map(encodeURIComponent).join("/");
  const ttl = (options?: { expireIn?: number }) =>
    options?.expireIn === undefined ? {} : { ttlMs: options.expireIn };
  return {
    get: (parts) => store.get(key(parts)),
    async set(parts, value, options) {
      await store.set(key(parts), value, ttl(options));
    },
    delete: (parts) => store.delete(key(parts)),
    swap: (parts, version, value, options) =>
      store.swap(key(parts), version, value, ttl(options)),
  };
}
