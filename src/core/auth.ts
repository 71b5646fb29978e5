/**
 * Who is calling: the verified caller of a tool served over authenticated
 * HTTP (the MCP SDK's `AuthInfo` shape), and the scopes each exported tool
 * requires — shared by the bridge (which knows the tools) and the HTTP
 * handler (which answers 403 before a call starts).
 *
 * @module
 */

/**
 * A verified access token and what it says of its holder: the MCP SDK's
 * `AuthInfo` shape. The HTTP handler's `auth` option makes one per request
 * (`verify`); tools see it as `ctx.auth`, the server factory as
 * `newServer(request, auth)`.
 *
 * @example A tool that names its caller
 * ```ts
 * import { rawTool, type AuthInfo } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const whoami = rawTool({
 *   name: "whoami",
 *   description: "Names the caller.",
 *   run: (_args, ctx) => ctx.auth?.clientId ?? "anonymous",
 * });
 * const auth: AuthInfo = { token: "t", clientId: "app", scopes: ["read"] };
 * assert.equal(await whoami.invoke("{}", { auth }), "app");
 * ```
 */
export interface AuthInfo {
  /** The access token as the client sent it. Never forward it to another service. */
  token: string;
  /** The OAuth client the token was issued to. */
  clientId: string;
  /** The scopes the token grants. */
  scopes: string[];
  /** When the token expires, in seconds since the epoch. */
  expiresAt?: number;
  /** The resource (RFC 8707) the token was issued for. */
  resource?: URL;
  /** Anything else the verifier found (`jwtVerifier`: `sub`, `iss`, `claims`). */
  extra?: Record<string, unknown>;
}

/** What a server says its tools need: the scopes a call of `tool` requires (absent: none). */
export type ScopeLookup = (tool: string) => readonly string[] | undefined;

const lookups = new WeakMap<object, ScopeLookup>();

/** Records how `server` answers which scopes its tools need (the bridge calls it). */
export function setScopeLookup(server: object, lookup: ScopeLookup): void {
  lookups.set(server, lookup);
}

/** The scopes a call of `tool` on `server` needs; empty when none or unknown. */
export function requiredScopes(
  server: object,
  tool: string,
): readonly string[] {
  return lookups.get(server)?.(tool) ?? [];
}
