/**
 * The one door every stateful option goes through: a contract store
 * passes, a raw `Deno.Kv` is taken as `denoKvStore(kv)`, a shape the option
 * took before passes as it did (deprecated), anything else is a
 * `TypeError` at the call naming the option and the fix.
 *
 * @module
 */

import { isStore, type Store } from "./contract.ts";
import { type DenoKvLike, denoKvStore } from "./deno_kv.ts";

/** The class of `Deno.Kv`, where the runtime has one (Deno with KV enabled). */
function kvClass(): (abstract new (...args: never[]) => unknown) | undefined {
  const deno = (globalThis as { Deno?: { Kv?: unknown } }).Deno;
  return typeof deno?.Kv === "function"
    ? deno.Kv as abstract new (...args: never[]) => unknown
    : undefined;
}

/** Whether `value` is a real `Deno.Kv` (from `Deno.openKv()`, with `--unstable-kv` or `"unstable": ["kv"]` in `deno.json`). */
export function isDenoKv(value: unknown): value is DenoKvLike {
  const Kv = kvClass();
  return Kv !== undefined && value instanceof Kv;
}

// One contract view per Kv, so a Kv given twice is one store (an option
// keyed by its store, as `serveTasks`' hosts are, sees the same one).
// The view never closes the Kv: it stays its owner's.
const views = new WeakMap<object, Store>();

/**
 * `value` as the store an option keeps its state in: a contract store as
 * it is, a raw `Deno.Kv` as `denoKvStore(kv)`, a legacy shape `legacy`
 * accepts as it is; anything else throws a `TypeError` naming `where`.
 */
export function acceptStore(value: unknown, where: string): Store;
export function acceptStore<T>(
  value: unknown,
  where: string,
  legacy: (value: object) => value is T & object,
): Store | T;
export function acceptStore<T>(
  value: unknown,
  where: string,
  legacy?: (value: object) => value is T & object,
): Store | T {
  if (isStore(value)) return value;
  if (isDenoKv(value)) {
    let view = views.get(value);
    if (view === undefined) views.set(value, view = denoKvStore(value));
    return view;
  }
  if (
    typeof value === "object" && value !== null && !(value instanceof Map) &&
    legacy?.(value)
  ) return value;
  throw new TypeError(
    `${where} must be a store: memoryStore(), denoKvStore(kv), redisStore(url) or postgresStore(url) from @weft/mcp/store, or a Deno.Kv (got ${
      describe(value)
    })`,
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof Map) return "a Map";
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor
    ?.name;
  return typeof name === "string" && name !== "Object"
    ? `a ${name}`
    : "an object without the store methods";
}

/** Whether `value` has each of `methods` as a function (a legacy shape's test). */
export function hasMethods(
  value: object,
  ...methods: readonly string[]
): boolean {
  return methods.every((name) =>
    typeof (value as Record<string, unknown>)[name] === "function"
  );
}
