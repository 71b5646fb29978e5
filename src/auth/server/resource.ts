/**
 * The resource-server side of MCP authorization: what
 * `httpHandler`'s `auth` option takes, and the error a `verify` function
 * throws to refuse a token with a reason.
 *
 * @module
 */

import type { AuthInfo } from "../../core/auth.ts";

export type { AuthInfo };

/**
 * Checks one bearer token: resolves to the caller it stands for, or
 * `undefined` (or throws {@link InvalidTokenError}) to refuse it with 401
 * `invalid_token`. Any other failure answers 500 (the token was not
 * judged). `jwtVerifier(…)` makes one for JWT access tokens; write your own
 * for opaque tokens (introspection, RFC 7662). The request is the one
 * being served: read from it, never forward the token. The caller must be
 * named — a non-empty `clientId` or `extra.sub` (sessions and signed
 * `requestState` are bound to the two) — else the handler refuses the token
 * with 401 `invalid_token`, as `jwtVerifier` refuses one without `sub`,
 * `client_id` or `azp`; it also refuses a result whose `expiresAt` is past.
 *
 * @example An opaque-token verifier
 * ```ts
 * import type { AuthInfo, TokenVerifier } from "@weft/mcp/auth";
 *
 * const tokens = new Map<string, AuthInfo>();
 * const verify: TokenVerifier = (token) => tokens.get(token);
 * ```
 */
export type TokenVerifier = (
  token: string,
  request: Request,
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/**
 * `httpHandler`'s `auth` option: the endpoint is an OAuth 2.1 resource
 * server (MCP authorization, RFC 9728, RFC 8707, RFC 6750).
 *
 * @example A resource guarded by a local authorization server
 * ```ts
 * import { jwtVerifier, type ResourceAuthOptions } from "@weft/mcp/auth";
 *
 * const auth: ResourceAuthOptions = {
 *   resource: "http://127.0.0.1:8000/mcp",
 *   authorizationServers: ["http://127.0.0.1:3000"],
 *   verify: jwtVerifier({
 *     issuer: "http://127.0.0.1:3000",
 *     audience: "http://127.0.0.1:8000/mcp",
 *     jwks: "http://127.0.0.1:3000/jwks",
 *   }),
 *   scopes: ["mcp"],
 * };
 * ```
 */
export interface ResourceAuthOptions {
  /**
   * This endpoint's canonical URL (RFC 8707 `resource`): what tokens must
   * be issued for, and where the metadata document is served from
   * (`/.well-known/oauth-protected-resource` + its path).
   */
  resource: string | URL;
  /** The authorization servers' issuer URLs, listed in the metadata document. */
  authorizationServers: (string | URL)[];
  /** Checks each request's bearer token (see {@link TokenVerifier}). */
  verify: TokenVerifier;
  /**
   * Scopes every request needs: named in the 401 challenge (`scope=`) and
   * in the metadata's `scopes_supported`; a token without them gets 403
   * `insufficient_scope`. Per-tool scopes are the tools' `scopes` option.
   */
  scopes?: string[];
  /** A human-readable name for the metadata document's `resource_name`. */
  resourceName?: string;
}

/**
 * Thrown by a {@link TokenVerifier} (and `jwtVerifier`) to refuse a token:
 * the handler answers 401 with `error="invalid_token"` and this message as
 * the `error_description`. Say what is wrong with the token, not more.
 *
 * @example Refusing a revoked token
 * ```ts
 * import { InvalidTokenError, type TokenVerifier } from "@weft/mcp/auth";
 *
 * const revoked = new Set<string>(["t1"]);
 * const verify: TokenVerifier = (token) => {
 *   if (revoked.has(token)) throw new InvalidTokenError("the token was revoked");
 *   return { token, clientId: "app", scopes: [] };
 * };
 * ```
 */
export class InvalidTokenError extends Error {
  /** Builds the error from the reason the client is told. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidTokenError";
  }
}
