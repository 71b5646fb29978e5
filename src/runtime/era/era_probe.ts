/**
 * Judging a `server/discover` probe: what came back, what it proves of the
 * server's era, and the error when it proves nothing.
 *
 * @module
 */

import {
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
  type ProtocolEra,
} from "./era.ts";

/**
 * Which era a connection speaks: found out (`"auto"`, the default) or
 * pinned (`"modern"`: 2026-07-28, `"legacy"`: the `initialize` handshake).
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example Pin a server known to speak only the `initialize` handshake
 * ```ts
 * import type { ConnectHttpOptions } from "@weft/mcp";
 * import type { ProtocolPreference } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * const protocol: ProtocolPreference = "legacy";
 * const options: ConnectHttpOptions = { protocol };
 * assert.equal(options.protocol, "legacy");
 * ```
 */
export type ProtocolPreference = "auto" | ProtocolEra;

/** What a `server/discover` probe got back, before it is judged. */
export type ProbeOutcome =
  | { readonly kind: "result"; readonly result: unknown }
  | {
    readonly kind: "rpc-error";
    readonly code: number;
    readonly message: string;
    readonly data?: unknown;
  }
  | {
    readonly kind: "http-error";
    readonly status: number;
    readonly body: string;
  }
  | { readonly kind: "network-error"; readonly error: unknown }
  | { readonly kind: "timeout"; readonly ms: number }
  | { readonly kind: "closed" };

/** The verdict on one probe outcome. */
export type ProbeVerdict =
  | {
    readonly kind: "modern";
    readonly version: string;
    readonly discover: DiscoverResult;
  }
  | { readonly kind: "legacy" }
  | { readonly kind: "error"; readonly error: Error };

/** The parts of a `server/discover` result the client uses. */
export interface DiscoverResult {
  /** The modern revisions the server serves. */
  readonly supportedVersions: readonly string[];
  /** The server's capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's name and version (from the result's `_meta`, else its body). */
  readonly serverInfo?: { name: string; version: string };
  /** The server's instructions, when it gives any. */
  readonly instructions?: string;
}

/**
 * The era probe could not tell a server's era, or the server does not speak
 * the era the connection was pinned to. `reason` says which: `"refused"`
 * (401/403), `"server-error"` (HTTP 5xx), `"unreachable"` (the request
 * failed), `"closed"` (a stdio server exited on the probe), `"not-modern"`
 * (pinned to `"modern"`, the server gave legacy evidence). The connect
 * rejects with a `ServerConnectError` (phase `initialize`) whose cause is
 * this error.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example Tell a pinned era the server does not speak
 * ```ts
 * import { ProtocolNegotiationError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * const error = new ProtocolNegotiationError("not-modern", "the server did not answer server/discover");
 * assert.equal(error.reason, "not-modern");
 * ```
 */
export class ProtocolNegotiationError extends Error {
  /** Why the negotiation failed. */
  readonly reason:
    | "refused"
    | "server-error"
    | "unreachable"
    | "closed"
    | "not-modern";

  /** Builds the error from its reason, a sentence and the underlying cause. */
  constructor(
    reason: ProtocolNegotiationError["reason"],
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`protocol negotiation failed: ${detail}`, options);
    this.name = "ProtocolNegotiationError";
    this.reason = reason;
  }
}

/** Reads a `server/discover` result, or `undefined` when it is not one. */
export function parseDiscoverResult(
  result: unknown,
): DiscoverResult | undefined {
  if (!isObject(result)) return undefined;
  const versions = result.supportedVersions;
  if (
    !Array.isArray(versions) || !versions.every((v) => typeof v === "string")
  ) return undefined;
  const capabilities = isObject(result.capabilities) ? result.capabilities : {};
  const meta = isObject(result._meta) ? result._meta : {};
  const info = implementationOf(meta[META.serverInfo]) ??
    implementationOf(result.serverInfo);
  return {
    supportedVersions: versions,
    capabilities,
    ...(info === undefined ? {} : { serverInfo: info }),
    ...(typeof result.instructions === "string"
      ? { instructions: result.instructions }
      : {}),
  };
}

/**
 * Judges a probe outcome the way the spec's backward-compatibility rules
 * do: a discover result naming a modern revision this client speaks is
 * modern; every other answer the server gave (an error of any code, an
 * HTTP 4xx other than 401/403, a body that is no discover result, a stdio
 * server silent for the probe's wait) is legacy evidence. No single error
 * code decides. What tells nothing about the era (401/403, 5xx, a failed
 * request) is an error.
 */
export function classifyProbe(
  outcome: ProbeOutcome,
  transport: "http" | "stdio",
): ProbeVerdict {
  switch (outcome.kind) {
    case "result": {
      const discover = parseDiscoverResult(outcome.result);
      const version = discover === undefined
        ? undefined
        : MODERN_PROTOCOL_VERSIONS.find((v) =>
          discover.supportedVersions.includes(v)
        );
      return discover === undefined || version === undefined
        ? { kind: "legacy" }
        : { kind: "modern", version, discover };
    }
    case "rpc-error":
      return classifyRpcError(outcome.code, outcome.data);
    case "http-error":
      return classifyHttpError(outcome.status, outcome.body);
    case "network-error":
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "unreachable",
          `the server/discover request failed: ${describe(outcome.error)}`,
          { cause: outcome.error },
        ),
      };
    case "timeout":
      if (transport === "stdio") return { kind: "legacy" };
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "unreachable",
          `no answer to server/discover within ${outcome.ms} ms`,
        ),
      };
    case "closed":
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "closed",
          "the server closed the connection on server/discover",
        ),
      };
  }
}

function classifyRpcError(code: number, data: unknown): ProbeVerdict {
  if (code === MODERN_ERROR.unsupportedVersion && isObject(data)) {
    const supported = Array.isArray(data.supported) ? data.supported : [];
    const version = MODERN_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
    // The server names a modern revision we speak but refused ours: it
    // speaks the modern era, yet we sent it already; take it as legacy
    // only when no modern revision is named.
    if (version !== undefined) {
      return {
        kind: "modern",
        version,
        discover: {
          supportedVersions: supported.map(String),
          capabilities: {},
        },
      };
    }
  }
  return { kind: "legacy" };
}

function classifyHttpError(status: number, body: string): ProbeVerdict {
  if (status === 401 || status === 403) {
    return {
      kind: "error",
      error: new ProtocolNegotiationError(
        "refused",
        `the server answered server/discover with HTTP ${status}`,
      ),
    };
  }
  if (status >= 500) {
    return {
      kind: "error",
      error: new ProtocolNegotiationError(
        "server-error",
        `the server answered server/discover with HTTP ${status}`,
      ),
    };
  }
  const error = jsonRpcErrorIn(body);
  return error === undefined
    ? { kind: "legacy" }
    : classifyRpcError(error.code, error.data);
}

function jsonRpcErrorIn(
  body: string,
): { code: number; data?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (!isObject(parsed) || !isObject(parsed.error)) return undefined;
    const { code, data } = parsed.error;
    return typeof code === "number" ? { code, data } : undefined;
  } catch {
    return undefined;
  }
}

/** A name and version, when `value` holds one. */
export function implementationOf(
  value: unknown,
): { name: string; version: string } | undefined {
  if (!isObject(value) || typeof value.name !== "string") return undefined;
  return {
    ...value,
    name: value.name,
    version: typeof value.version === "string" ? value.version : "",
  };
}

/** Whether `value` is a plain object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An error's message, or the value as text. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let sequence = 0;

/**
 * An id for a request of the client's own (`prefix` names its kind: a
 * probe, a listen), unique in the process.
 */
export function ownRequestId(prefix: string): string {
  return `${prefix}${++sequence}`;
}

/** The outcome of a probe sent over the inner transport: the answer `m` to it. */
export function outcomeOf(m: Record<string, unknown>): ProbeOutcome {
  if ("result" in m) return { kind: "result", result: m.result };
  const error = isObject(m.error) ? m.error : {};
  return {
    kind: "rpc-error",
    code: typeof error.code === "number" ? error.code : 0,
    message: typeof error.message === "string" ? error.message : "",
    data: error.data,
  };
}
