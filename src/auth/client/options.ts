/**
 * What `oauthClient` takes, and the SDK's provider interface it answers.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import type { OAuthClientProvider as SdkOAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthStore } from "./oauth_store.ts";
import type { Store } from "../../store/contract.ts";
import type { DenoKvLike } from "../../store/deno_kv.ts";

/**
 * The MCP SDK's `OAuthClientProvider` (the copy this module depends on):
 * what `connectHttp`'s and `connectServers`' `auth` take. `oauthClient`
 * makes one; any other implementation works too (the SDK's
 * `ClientCredentialsProvider`, say), with the SDK's `auth()` run on a 401.
 *
 * @example
 * ```ts
 * import { oauthClient, type OAuthClientProvider } from "@weft/mcp/auth";
 * const auth: OAuthClientProvider = oauthClient({ clientId: "agent", clientSecret: "s3cret" });
 * console.log(auth.redirectUrl); // undefined: client credentials
 * ```
 */
export type OAuthClientProvider = SdkOAuthClientProvider;

/** Options of {@link oauthClient}. */
export interface OAuthClientOptions {
  /**
   * Where the authorization server sends the browser back (authorization
   * code flow). Absent with `clientId`: the client credentials grant.
   */
  redirectUrl?: string | URL;
  /**
   * Sends the user to `url` and resolves with the URL the browser came
   * back to (the `redirectUrl` with `code`, `state`, maybe `iss`); the
   * client finishes the exchange and the call that needed it goes on.
   * Absent: the call fails with an `AuthorizationError`
   * (`"redirect-required"`) and `oauthCallback` finishes the flow.
   */
  authorize?: (url: URL) => Promise<URL>;
  /** The name shown to the user when registering. Default `"weft-mcp"`. */
  clientName?: string;
  /**
   * An HTTPS URL serving this client's metadata document (CIMD), used as
   * the client id where the authorization server supports it.
   */
  clientMetadataUrl?: string;
  /** A pre-registered client id. */
  clientId?: string;
  /** The pre-registered client's secret (`client_secret_basic` / `_post`). */
  clientSecret?: string;
  /** A private key (PEM or JWK) for `private_key_jwt` client authentication. */
  privateKey?: string | Record<string, unknown>;
  /** The private key's algorithm. Default `"RS256"`. */
  algorithm?: string;
  /**
   * Scopes asked for when the server's challenge names none; without it,
   * the protected resource metadata's `scopes_supported`. The same for
   * every grant.
   */
  scope?: string;
  /**
   * Where tokens are kept: a contract store (`memoryStore()`,
   * `redisStore(url)`, `postgresStore(url)`, `denoKvStore(kv)` from
   * `@weft/mcp/store`; entries under `oauth/`), or a raw `Deno.Kv`, taken
   * as `denoKvStore(kv)`; anything else is a `TypeError` at the call. An
   * `OAuthStore` (`memoryOAuthStore()`, `kvOAuthStore(kv)`) still works but
   * is deprecated. Default: this process's memory.
   */
  store?: OAuthStore | Store | DenoKvLike;
  /** Who the tokens belong to (a user id in a multi-user app). Default `"default"`. */
  principal?: string;
  /**
   * Scope step-ups per request on `403 insufficient_scope`, each asking
   * the union of the scopes held and the ones named. Default 2.
   */
  maxStepUps?: number;
  /**
   * Enterprise-managed authorization (SEP-990, cross-app access): the
   * user's ID token from the enterprise identity provider is exchanged
   * there (RFC 8693) for an identity assertion grant (ID-JAG) naming the
   * MCP server's authorization server and resource, which is then
   * presented to that authorization server as a JWT bearer grant
   * (RFC 7523) with this client's `clientId` and `clientSecret` (or
   * `privateKey`). No browser; no `redirectUrl`.
   */
  enterprise?: {
    /** The identity provider's token endpoint. */
    idpTokenEndpoint: string | URL;
    /**
     * The user's ID token at the identity provider, or a function
     * answering a current one (called for every exchange).
     */
    idToken: string | (() => string | Promise<string>);
    /** This client's id at the identity provider, sent with the exchange. */
    idpClientId?: string;
    /** This client's secret at the identity provider (`client_secret_basic`). */
    idpClientSecret?: string;
  };
}
