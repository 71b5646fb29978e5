/**
 * Where a client keeps each server's protocol era, so that a reconnect,
 * and with a persistent store a restart, sends no `server/discover` probe.
 *
 * @module
 */

import { isModernVersion, type ProtocolEra } from "./era.ts";
import type { DiscoverResult } from "./era_probe.ts";
import type { Store } from "../../store/contract.ts";
import { memoryStore } from "../../store/memory.ts";
import { eraView } from "../store_views.ts";
import { acceptStore, hasMethods } from "../../store/accept.ts";

/**
 * An `eraStore` option as kept (see {@link acceptStore}): a contract store,
 * a raw `Deno.Kv` as `denoKvStore(kv)`, a deprecated key-value store as
 * it is; anything else is a `TypeError` naming `where`.
 */
export function acceptEraStore(
  value: unknown,
  where: string,
): EraStore | undefined {
  if (value === undefined) return undefined;
  return acceptStore(
    value,
    where,
    (candidate): candidate is EraKeyValueStore =>
      hasMethods(candidate, "get", "set"),
  );
}

/**
 * A place for era verdicts: a contract store (`memoryStore()`,
 * `denoKvStore(kv)`, `redisStore(url)`, `postgresStore(url)` from
 * `@weft/mcp/store`; verdicts under `era/`), or a `Deno.Kv`
 * (`await Deno.openKv()`, which needs `--unstable-kv` or
 * `"unstable": ["kv"]` in `deno.json`), taken as `denoKvStore(kv)`.
 * Anything else is a `TypeError` at the call. An {@link EraKeyValueStore}
 * (any object with `get` and `set` on array keys, `memoryEraStore()`)
 * still works but is deprecated: pass a contract store.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example Keep verdicts across restarts in Deno KV
 * ```ts ignore
 * import { connectHttp } from "@weft/mcp";
 * // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 * const kv = await Deno.openKv("./mcp-state.sqlite3");
 * await using client = await connectHttp("http://127.0.0.1:8000/mcp", { eraStore: kv });
 * ```
 */
export type EraStore = EraKeyValueStore | Store;

/**
 * The key-value shape of an era store.
 *
 * @deprecated Pass a contract store from `@weft/mcp/store` (or a `Deno.Kv`,
 * taken as `denoKvStore(kv)`) as `eraStore`; this shape goes in a later
 * release.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example
 * ```ts
 * import { type EraKeyValueStore, memoryEraStore } from "@weft/mcp/runtime";
 * const store: EraKeyValueStore = memoryEraStore();
 * await store.set(["a"], { era: "legacy" });
 * ```
 */
export interface EraKeyValueStore {
  /** The value kept under `key` (`{ value: null }` when none). */
  get(key: readonly string[]): Promise<{ readonly value: unknown }>;
  /** Keeps `value` under `key` for `expireIn` ms at most. */
  set(
    key: readonly string[],
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<unknown>;
}

/** One server's verdict as kept. */
export interface EraVerdict {
  /** The era the server speaks. */
  readonly era: ProtocolEra;
  /** The modern revision (modern only). */
  readonly version?: string;
  /** The server's `server/discover` result (modern only), for the handshake a cached verdict skips. */
  readonly discover?: Record<string, unknown>;
}

/** How long a verdict is kept: 7 days (a server may move to the modern era). */
export const ERA_VERDICT_TTL = 7 * 24 * 3_600_000;

/** The store key of the server `target`. */
export function eraKey(target: string): string[] {
  return ["weft-mcp", "protocol-era", target];
}

/**
 * A store in this process's memory: verdicts survive reconnects, not
 * restarts. It is `memoryStore()` from `@weft/mcp/store` seen through the
 * older key-value shape.
 *
 * @deprecated Pass `memoryStore()` from `@weft/mcp/store` as `eraStore`
 * (or nothing: every connection without one shares this process's memory).
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example A store of one's own
 * ```ts
 * import { memoryEraStore } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * const store = memoryEraStore();
 * await store.set(["a"], { era: "legacy" });
 * assert.deepEqual((await store.get(["a"])).value, { era: "legacy" });
 * ```
 */
export function memoryEraStore(): EraKeyValueStore {
  return eraView(memoryStore()) as EraKeyValueStore;
}

// Every connection without an `eraStore` shares this one.
const processStore: Store = memoryStore();

/** The verdict kept for `target`, or `undefined` (a store that fails counts as empty). */
export async function readVerdict(
  store: EraStore | undefined,
  target: string,
): Promise<EraVerdict | undefined> {
  let value: unknown;
  try {
    value = (await (eraView(store ?? processStore)!).get(eraKey(target))).value;
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.era === "legacy") return { era: "legacy" };
  if (v.era !== "modern" || !isModernVersion(v.version)) return undefined;
  const discover = typeof v.discover === "object" && v.discover !== null
    ? v.discover as Record<string, unknown>
    : undefined;
  return { era: "modern", version: v.version, discover };
}

/** Keeps the verdict for `target`; a store that fails is ignored (the next connect probes again). */
export async function writeVerdict(
  store: EraStore | undefined,
  target: string,
  verdict: EraVerdict,
): Promise<void> {
  try {
    await (eraView(store ?? processStore)!).set(eraKey(target), verdict, {
      expireIn: ERA_VERDICT_TTL,
    });
  } catch {
    // Only a cost: the next connect probes again.
  }
}

/** Forgets the verdict for `target` (the server refuted it): the next connect probes. */
export async function forgetVerdict(
  store: EraStore | undefined,
  target: string,
): Promise<void> {
  try {
    await (eraView(store ?? processStore)!).set(eraKey(target), null, {
      expireIn: ERA_VERDICT_TTL,
    });
  } catch {
    // The next connect may fail the same way; nothing more to do here.
  }
}

/** A server's answer to `server/discover` as a modern verdict keeps it. */
export function discoverToStore(
  discover: DiscoverResult,
): Record<string, unknown> {
  return {
    supportedVersions: [...discover.supportedVersions],
    capabilities: discover.capabilities,
    ...(discover.serverInfo === undefined
      ? {}
      : { serverInfo: discover.serverInfo }),
    ...(discover.instructions === undefined
      ? {}
      : { instructions: discover.instructions }),
  };
}
