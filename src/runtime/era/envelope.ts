/**
 * The modern envelope on the server side, and its bridge to the legacy
 * handshake a v1 `Server` knows: what a request's `params._meta` declares
 * (its version, the client's capabilities and info, which the internal
 * `initialize` carries), what that `initialize` answered (the server's
 * facts, memoized per server), and what a modern result carries as it
 * leaves (`resultType`, the server's info, cache hints), `server/discover`'s
 * answer among them. Pure functions, shared by `EraTransport` and the
 * HTTP handler's direct route.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import {
  CACHEABLE_METHODS,
  isModernVersion,
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
} from "./era.ts";
import { isObject } from "./era_probe.ts";
import type { ResolvedCacheHints } from "./cache_hints.ts";

type Json = Record<string, unknown>;

/** Every version served, modern first: what `server/discover` and `-32022` list. */
export const SERVED_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** A message's `params._meta`, when it is an object. */
export function metaOf(message: unknown): Json | undefined {
  if (!isObject(message)) return undefined;
  const params = message.params;
  if (!isObject(params)) return undefined;
  return isObject(params._meta) ? params._meta : undefined;
}

/**
 * The modern protocol version a message's envelope names, when it is a
 * JSON-RPC request (or notification) whose `params._meta` names one; else
 * `undefined` (a legacy message).
 */
export function modernVersionOf(message: unknown): string | undefined {
  const version = metaOf(message)?.[META.protocolVersion];
  return isModernVersion(version) ? version : undefined;
}

/** The `-32022` error of a modern version this server does not serve. */
export function unsupportedVersionError(
  requested: string,
): { code: number; message: string; data: Json } {
  return {
    code: MODERN_ERROR.unsupportedVersion,
    message: `Unsupported protocol version: ${requested} (supported: ${
      SERVED_VERSIONS.join(", ")
    })`,
    data: { supported: [...SERVED_VERSIONS], requested },
  };
}

/**
 * The client capabilities and info a modern request's envelope (`_meta`)
 * declares, as the internal `initialize` carries them: `{}` and
 * `{ name: "unknown", version: "0" }` when absent or malformed.
 */
export function envelopeClient(
  meta: Json,
): { capabilities: Json; clientInfo: Json } {
  const declared = meta[META.clientCapabilities];
  const capabilities = isObject(declared) ? declared : {};
  const info = meta[META.clientInfo];
  const clientInfo = isObject(info) && typeof info.name === "string" &&
      typeof info.version === "string"
    ? info
    : { name: "unknown", version: "0" };
  return { capabilities, clientInfo };
}

/** What the server's `initialize` answered: its capabilities, info, instructions. */
export interface ServerFacts {
  readonly capabilities: Json;
  readonly serverInfo: Json;
  readonly instructions?: string;
}

/** The facts of an `initialize` result: its capabilities, info and instructions, each when well-formed. */
export function factsOf(result: Json): ServerFacts {
  return {
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    serverInfo: isObject(result.serverInfo) ? result.serverInfo : {},
    ...(typeof result.instructions === "string" &&
      { instructions: result.instructions }),
  };
}

/** The internal `initialize` a server last saw, and what it answered. */
export interface InitMemo {
  /** The client capabilities and info it carried, as JSON. */
  key?: string;
  /** The server's answer (settled). */
  facts?: Promise<ServerFacts>;
}

/**
 * A modern result as it leaves: `resultType` (default `"complete"`), the
 * server's info in `_meta`, and on a cacheable method's result the cache
 * hints (unless the result set its own).
 */
export function stampResult(
  method: string,
  result: unknown,
  facts: ServerFacts,
  hints: ResolvedCacheHints,
): Json {
  const out: Json = isObject(result) ? { ...result } : {};
  if (out.resultType === undefined) out.resultType = "complete";
  const meta = isObject(out._meta) ? out._meta : {};
  out._meta = { ...meta, [META.serverInfo]: facts.serverInfo };
  if (CACHEABLE_METHODS.has(method)) {
    if (out.ttlMs === undefined) out.ttlMs = hints.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hints.scope;
  }
  return out;
}

/**
 * The result of `server/discover`, stamped: every version served, the
 * server's capabilities and its instructions (when it has some).
 */
export function discoverResult(
  facts: ServerFacts,
  hints: ResolvedCacheHints,
): Json {
  return stampResult(
    "server/discover",
    {
      supportedVersions: [...SERVED_VERSIONS],
      capabilities: facts.capabilities,
      ...(facts.instructions !== undefined &&
        { instructions: facts.instructions }),
    },
    facts,
    hints,
  );
}
