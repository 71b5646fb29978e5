/**
 * Cached catalogs: each server's `tools/list` entries, kept in a store with
 * their validity, so a cold start builds the agent's tools without
 * connecting, and a server is connected when one of its tools is first
 * called.
 *
 * An entry is keyed by the server's name and a fingerprint of what it is —
 * its kind, command, arguments, working directory, the *names* of its
 * environment variables and headers, its URL without credentials, query
 * values or fragment, and its protocol — so a changed entry in the config
 * never reads an old listing. No secret goes into the fingerprint: a value
 * of `env` or `headers` (a token), a URL's user info or query values could
 * be recovered from an unsalted hash by hashing guesses, so they are left
 * out, and an entry that changes only a secret keeps its catalog. (Arguments
 * are in: a secret passed as an argument is not kept from a store reader;
 * pass secrets in `env` or `headers`.) It is valid for `ttlMs` after it
 * was listed; a server that said its list changes
 * (`notifications/tools/list_changed`) is listed again when it does, and
 * every listing rewrites the entry.
 *
 * @module
 */

import { isStore, type Store, STORE_NAMESPACES } from "../store/contract.ts";
import { acceptStore, isDenoKv } from "../store/accept.ts";
import type { ServerSpec } from "./config.ts";
import {
  type CatalogOptions,
  DEFAULT_CATALOG_TTL_MS,
  StaleToolError,
} from "./catalog.ts";

export { StaleToolError };

/** One server's entry as stored. */
interface StoredCatalog {
  readonly v: 1;
  /** When the server was listed (ms since the epoch). */
  readonly listedAt: number;
  /** The `tools/list` entries, every page, as the server sent them. */
  readonly tools: unknown[];
}

/** A set's catalog: reads and writes the entries of its servers. */
export class ServerCatalog {
  readonly #store: Store;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(option: unknown, now: () => number = Date.now) {
    // A store (contract or raw Deno.Kv) or `{ store, ttlMs }`; anything else
    // is a TypeError here, at `connectServers`, never a catalog-less start.
    const wrapped = typeof option === "object" && option !== null &&
      !isStore(option) && !isDenoKv(option) && "store" in option;
    const given: CatalogOptions = wrapped
      ? option as CatalogOptions
      : { store: option as Store };
    this.#store = acceptStore(
      given.store,
      wrapped
        ? "connectServers: options.catalog.store"
        : "connectServers: options.catalog",
    );
    const ttl = given.ttlMs;
    this.#ttlMs = ttl !== undefined && Number.isFinite(ttl) && ttl > 0
      ? ttl
      : DEFAULT_CATALOG_TTL_MS;
    this.#now = now;
  }

  /**
   * The server's listing when the catalog has a good one; `undefined` when
   * it has none, it is stale, or unreadable. Rejects when the store does.
   */
  async read(spec: ServerSpec): Promise<unknown[] | undefined> {
    const entry = await this.#store.get<StoredCatalog>(await catalogKey(spec));
    const value = entry?.value;
    if (
      value === undefined || value === null || value.v !== 1 ||
      !Array.isArray(value.tools) || typeof value.listedAt !== "number"
    ) return undefined;
    const age = this.#now() - value.listedAt;
    if (age < 0 || age >= this.#ttlMs) return undefined;
    return value.tools;
  }

  /** Keeps the server's listing, good for the ttl from now. */
  async write(spec: ServerSpec, tools: readonly unknown[]): Promise<void> {
    const value: StoredCatalog = {
      v: 1,
      listedAt: this.#now(),
      tools: [...tools],
    };
    await this.#store.set(await catalogKey(spec), value, {
      ttlMs: this.#ttlMs,
    });
  }
}

/**
 * How a listed tool compares between the catalog and the server now:
 * `"same"`, `"changed"` or `"removed"`.
 */
export function compareEntry(
  cached: readonly unknown[],
  fresh: readonly unknown[],
  name: string,
): "same" | "changed" | "removed" {
  const now = fresh.find((e) => nameOf(e) === name);
  if (now === undefined) return "removed";
  const then = cached.find((e) => nameOf(e) === name);
  return then !== undefined && canonical(then) === canonical(now)
    ? "same"
    : "changed";
}

function nameOf(entry: unknown): unknown {
  return typeof entry === "object" && entry !== null
    ? (entry as { name?: unknown }).name
    : undefined;
}

// JSON with object keys sorted: a server that sends the same definition in
// another key order has not changed it.
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });
}

/**
 * `catalog/<server>/<fingerprint>`: the fingerprint a SHA-256 of what the
 * server is, every secret value left out (see the module's doc).
 */
export async function catalogKey(spec: ServerSpec): Promise<string> {
  const c = spec.config as unknown as Record<string, unknown>;
  const identity = canonical({
    kind: spec.kind,
    command: c.command,
    args: c.args,
    cwd: c.cwd,
    env: namesOf(c.env),
    url: typeof c.url === "string" ? withoutSecrets(c.url) : undefined,
    headers: namesOf(c.headers, true),
    protocol: c.protocol,
  });
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(identity),
  );
  const hex = Array.from(
    new Uint8Array(digest).slice(0, 16),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return `${STORE_NAMESPACES.catalogs}${encodeURIComponent(spec.name)}/${hex}`;
}

// The keys of a record (env, headers), sorted; its values are secrets.
function namesOf(record: unknown, lower = false): string[] | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  return Object.keys(record).map((k) => lower ? k.toLowerCase() : k).sort();
}

// The URL's origin, path and query names: no user info, query value or fragment.
function withoutSecrets(url: string): string {
  const parsed = new URL(url);
  const names = [...new Set(parsed.searchParams.keys())].sort();
  return `${parsed.origin}${parsed.pathname}${
    names.length > 0 ? `?${names.join("&")}` : ""
  }`;
}
