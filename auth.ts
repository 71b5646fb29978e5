/**
 * OAuth on both sides of a connection.
 *
 * Serving: `httpHandler(newServer, { auth })` (from `@weft/mcp`) makes the
 * endpoint an OAuth resource server; this entry point holds what its `auth`
 * option is built from: {@link jwtVerifier} for JWT access tokens, or a
 * `verify` function of your own that throws {@link InvalidTokenError} for a
 * token it refuses. Tools read the verified caller as `ctx.auth`
 * ({@link AuthInfo}).
 *
 * Calling: {@link oauthClient} is the OAuth client that `connectHttp(url, {
 * auth })` and `connectServers(config, { auth })` use for servers that need
 * OAuth, with its token stores ({@link memoryOAuthStore},
 * {@link kvOAuthStore}), the redirect endpoint for deployed apps
 * ({@link oauthCallback}) and its typed failure ({@link AuthorizationError}).
 *
 * @example A resource server that accepts JWT access tokens
 * ```ts
 * import { httpHandler, Server } from "@weft/mcp";
 * import { jwtVerifier } from "@weft/mcp/auth";
 *
 * const handler = httpHandler(
 *   () => new Server({ name: "orders", version: "1.0.0" }),
 *   {
 *     auth: {
 *       resource: "https://mcp.example.com/mcp",
 *       authorizationServers: ["https://auth.example.com"],
 *       verify: jwtVerifier({
 *         issuer: "https://auth.example.com",
 *         audience: "https://mcp.example.com/mcp",
 *         jwks: new URL("https://auth.example.com/jwks"),
 *       }),
 *     },
 *   },
 * );
 * await handler.close();
 * ```
 *
 * @example An OAuth client for a hosted server
 * ```ts ignore
 * import { connectHttp } from "@weft/mcp";
 * import { oauthClient } from "@weft/mcp/auth";
 *
 * // Opens the authorization page and resolves with the URL the browser
 * // was sent back to (a local listener, a CLI prompt, ...).
 * declare function openAndWaitForRedirect(page: URL): Promise<URL>;
 *
 * const auth = oauthClient({
 *   redirectUrl: "http://127.0.0.1:8976/callback",
 *   authorize: openAndWaitForRedirect,
 * });
 * await using client = await connectHttp("https://mcp.example.com/mcp", {
 *   auth,
 * });
 * ```
 *
 * @module
 */

// Serving: the caller, the verify option, JWT access tokens.
export type { AuthInfo } from "./src/core/auth.ts";
export { InvalidTokenError } from "./src/auth/server/resource.ts";
export type {
  ResourceAuthOptions,
  TokenVerifier,
} from "./src/auth/server/resource.ts";
export { jwtVerifier } from "./src/auth/server/jwt.ts";
export type {
  JsonWebKeySet,
  JwtAlgorithm,
  JwtVerifierOptions,
} from "./src/auth/server/jwt.ts";

// Calling: the OAuth client, its token stores and its redirect endpoint.
export { oauthClient } from "./src/auth/client/oauth_client.ts";
export type {
  OAuthClientOptions,
  OAuthClientProvider,
} from "./src/auth/client/options.ts";
export { AuthorizationError } from "./src/auth/client/authorization_error.ts";
export type { AuthorizationErrorReason } from "./src/auth/client/authorization_error.ts";
export {
  kvOAuthStore,
  memoryOAuthStore,
} from "./src/auth/client/oauth_store.ts";
export type {
  KvOAuthStoreOptions,
  OAuthStore,
  OAuthStoreEntry,
  OAuthStoreSetOptions,
} from "./src/auth/client/oauth_store.ts";
export { oauthCallback } from "./src/auth/client/oauth_callback.ts";
export type { OAuthCallbackOptions } from "./src/auth/client/oauth_callback.ts";
