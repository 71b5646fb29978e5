/**
 * `AuthorizationError`: why an OAuth flow stopped, or why a server's
 * authorization could not be given: the value a connect or a call rejects
 * with.
 *
 * @module
 */

/** Why an OAuth flow stopped; see {@link AuthorizationError}. */
export type AuthorizationErrorReason =
  /** The user must visit `authorizationUrl`; no `authorize` was given. */
  | "redirect-required"
  /** The authorization server answered the redirect with an `error`. */
  | "denied"
  /** The callback's `state` matches no pending authorization (expired, replayed, forged). */
  | "state-mismatch"
  /** The callback's `iss` is not the issuer the flow started with (RFC 9207). */
  | "issuer-mismatch"
  /** The server answered 401 to a token obtained just now, or the authorization server refused the client. */
  | "refused"
  /** The enterprise identity provider refused the token exchange (SEP-990). */
  | "idp-refused"
  /** The server answered 401 and the connection has no OAuth client to get a token with. */
  | "authorization-required"
  /** The server answered 403 `insufficient_scope` and no step-up (left) gets the scope. */
  | "insufficient-scope"
  /** The authorization server refused the scope asked for (`invalid_scope`). */
  | "scope-refused"
  /**
   * The authorization server's metadata does not parse, or lacks what the
   * flow needs (an `authorization_endpoint` for the authorization code
   * grant; a client-credentials-only server may publish none).
   */
  | "metadata-unusable";

/**
 * The server wants authorization the connection could not give, or an
 * OAuth flow could not complete. `reason` says why; `status` (401 or 403),
 * `scope` (what the server's challenge requires) and `challenge` (its
 * `WWW-Authenticate` header) say what the server answered, `server` and
 * `url` which server. `authorizationUrl` is where to send the user when
 * the reason is `"redirect-required"`. A connect rejects with it; a call
 * rejects with it too (through `importTools`, the model reads
 * `mcp: <message>` and the tool error's `cause` is this error).
 *
 * @example Tell an unauthorized server from any other failure
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectHttp } from "@weft/mcp";
 * import { AuthorizationError } from "@weft/mcp/auth";
 *
 * const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response(null, {
 *     status: 401,
 *     headers: { "www-authenticate": 'Bearer scope="mcp"' },
 *   }));
 * const url = `http://127.0.0.1:${http.addr.port}/mcp`;
 * try {
 *   await connectHttp(url, { name: "orders", protocol: "legacy" });
 *   assert.fail("connected");
 * } catch (e) {
 *   assert.ok(e instanceof AuthorizationError);
 *   assert.equal(e.reason, "authorization-required");
 *   assert.equal(e.status, 401);
 *   assert.equal(e.scope, "mcp");
 *   assert.equal(e.server, "orders");
 * }
 * await http.shutdown();
 * ```
 */
export class AuthorizationError extends Error {
  /** Why the flow stopped. */
  readonly reason: AuthorizationErrorReason;
  /** Where the user authorizes, for `"redirect-required"`. */
  readonly authorizationUrl: URL | undefined;
  /** The HTTP status the MCP server answered (401, 403), when it answered one. */
  readonly status: number | undefined;
  /** The scope the server's challenge requires; for `"scope-refused"`, the scope refused. */
  readonly scope: string | undefined;
  /** The server's `WWW-Authenticate` header, as it came. */
  readonly challenge: string | undefined;
  /** The server's name, when known. */
  readonly server: string | undefined;
  /** The MCP endpoint's URL, when known. */
  readonly url: string | undefined;
  /** Builds the error. */
  constructor(
    reason: AuthorizationErrorReason,
    message: string,
    options: {
      /** Where the user authorizes, for `"redirect-required"`. */
      authorizationUrl?: URL;
      /** The HTTP status the MCP server answered: 401 or 403. */
      status?: number;
      /** The scope the server's challenge requires (or the one refused, for `"scope-refused"`). */
      scope?: string;
      /** The server's `WWW-Authenticate` header, as it came. */
      challenge?: string;
      /** The server's name (a config key, or `connectHttp`'s `name`: by default the URL's host). */
      server?: string;
      /** The MCP endpoint's URL. */
      url?: string;
      /** What failed underneath. */
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AuthorizationError";
    this.reason = reason;
    this.authorizationUrl = options.authorizationUrl;
    this.status = options.status;
    this.scope = options.scope;
    this.challenge = options.challenge;
    this.server = options.server;
    this.url = options.url;
  }
}
