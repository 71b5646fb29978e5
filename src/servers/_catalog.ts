/**
 * Cached catalogs: each server's `tools/list` entries, kept in a store with
 * their validity, so a cold start builds the agent's tools without
 * connecting, and a server is connected when one of its tools is first
 * called.
 *
 * An entry is keyed by the server's name and a fingerprint of what it is
 * (its kind, command, arguments, working directory, environment, URL,
 * headers and protocol, hashed: no secret is stored), so a changed entry in
 * the config never reads an old listing. It is valid for `ttlMs` after it
 * was listed; a server that said its list changes
 * (`notifications/tools/list_changed`) is listed again when it does, and
 * every listing rewrites the entry.
 *
 * @module
 */

import { isStore, type Store, STORE_NAMESPACES } from "../store/contract.ts";
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

  constructor(option: Store | CatalogOptions, now: () => number = Date.now) {
    const given: CatalogOptions = isStore(option) ? { store: option } : option;
    this.#store = given.store;
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
    const entry = await this.#store.get<StoredCatalog>(await keyOf(spec));
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
    await this.#store.set(await keyOf(spec), value, { ttlMs: this.#ttlMs });
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

/** `catalog/<server>/<fingerprint>`: the fingerprint a SHA-256 of what the server is. */
async function keyOf(spec: ServerSpec): Promise<string> {
  const c = spec.config as unknown as Record<string, unknown>;
  const identity = canonical({
    kind: spec.kind,
    command: c.command,
    args: c.args,
    cwd: c.cwd,
    env: c.env,
    url: c.url,
    headers: c.headers,
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
