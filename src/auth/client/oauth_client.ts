/**
 * `oauthClient`: an OAuth client for MCP servers that require
 * authorization, as an SDK `OAuthClientProvider`. Discovery (RFC 9728,
 * RFC 8414 / OIDC), PKCE, the `resource` parameter, client registration
 * (Client ID Metadata Document, dynamic registration) and the code
 * exchange are the SDK's `auth()`; this module adds the storage (per
 * issuer, client and principal), a guarded refresh, the `iss` check
 * (RFC 9207), the `authorize` hook that completes the flow in one call,
 * and client credentials for headless agents.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  auth,
  type OAuthClientProvider as SdkOAuthClientProvider,
  type OAuthDiscoveryState,
  refreshAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth-extensions"
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OAuthStore } from "./oauth_store.ts";
import { oauthStoreOf } from "./oauth_store_view.ts";
import type { Store } from "../../store/contract.ts";
import { ensureDiscovery, noAuthorizationEndpoint } from "./_discovery.ts";

/** RFC 8693 token exchange, RFC 7523 JWT bearer and the SEP-990 ID-JAG type. */
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
/** How long a pending authorization (state and PKCE verifier) is kept. */
const PENDING_TTL = 10 * 60_000;
/** How long a refresh may hold its lease before another process may try. */
const REFRESH_LEASE = 30_000;
/** Tokens this close to expiry are refreshed before use. */
const EXPIRY_MARGIN = 30_000;

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
   * Where tokens are kept: an `OAuthStore`, or a shared contract store
   * (`redisStore(url)`, `postgresStore(url)`, `denoKvStore(kv)` from
   * `@weft/mcp/store`; entries under `oauth/`). Default: this process's
   * memory.
   */
  store?: OAuthStore | Store;
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

/** What is stored for a token set. */
interface TokenRecord {
  tokens: OAuthTokens & { issuer?: string };
  /** Epoch milliseconds from which the access token is refreshed before use, when its lifetime is known. */
  refreshAt?: number;
  /** Epoch milliseconds until which a refresh is in progress elsewhere. */
  lease?: number;
}

/** What is stored for an authorization in progress, by its `state`. */
interface PendingRecord {
  serverUrl: string;
  principal: string;
  verifier: string;
  scope?: string;
  resourceMetadataUrl?: string;
  expires: number;
}

/**
 * Creates an OAuth client for servers that require authorization, to pass
 * as `connectHttp(url, { auth })` or per server in `connectServers`.
 * Interactive (authorization code + PKCE) with `redirectUrl`; client
 * credentials (a secret or `privateKey`) with `clientId` and no
 * `redirectUrl`.
 *
 * @example Authorization code, the browser driven by the host
 * ```ts ignore
 * import { connectHttp } from "@weft/mcp";
 * import { kvOAuthStore, oauthClient } from "@weft/mcp/auth";
 * const auth = oauthClient({
 *   redirectUrl: "http://127.0.0.1:8976/callback",
 *   // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 *   store: kvOAuthStore(await Deno.openKv()),
 *   authorize: async (url) => {
 *     console.log(`open ${url}`);
 *     return new URL(prompt("paste the URL you came back to:") ?? "");
 *   },
 * });
 * await using client = await connectHttp("https://mcp.example.com/mcp", { auth });
 * ```
 */
export function oauthClient(
  options: OAuthClientOptions = {},
): OAuthClientProvider {
  return new OAuthClient(options, oauthStoreOf(options.store));
}

/**
 * The client `oauthClient` returns: an SDK `OAuthClientProvider`. Used
 * unbound it keys its state by the last server it was bound to; a
 * connection binds its own view with `forServer`.
 */
export class OAuthClient implements OAuthClientProvider {
  readonly #options: OAuthClientOptions;
  readonly #store: OAuthStore;
  readonly #serverUrl: string | undefined;
  readonly #principal: string;
  #state: string | undefined;
  #verifier: string | undefined;
  #pendingScope: string | undefined;
  #pendingResourceMetadataUrl: string | undefined;
  #callback: URL | undefined;
  #redirect: URL | undefined;
  /** While a flow runs, `tokens()` answers nothing, so the SDK neither refreshes nor reuses. */
  #hidden = false;
  /** The fetch of the flow running now (for the identity provider's exchange). */
  #flowFetch: FetchLike | undefined;

  /** Use {@link oauthClient}. */
  constructor(
    options: OAuthClientOptions,
    store: OAuthStore,
    serverUrl?: string,
    principal?: string,
  ) {
    this.#options = options;
    this.#store = store;
    this.#serverUrl = serverUrl;
    this.#principal = principal ?? options.principal ?? "default";
  }

  /** This client's view for the server at `url` (and `principal`). */
  forServer(url: string | URL, principal?: string): OAuthClient {
    return new OAuthClient(
      this.#options,
      this.#store,
      new URL(url).href,
      principal ?? this.#principal,
    );
  }

  /** The store this client keeps its state in. */
  get store(): OAuthStore {
    return this.#store;
  }

  /** Scope step-ups allowed per request. */
  get maxStepUps(): number {
    return this.#options.maxStepUps ?? 2;
  }

  get redirectUrl(): string | URL | undefined {
    return this.#options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.#options.redirectUrl;
    const name = this.#options.clientName ?? "weft-mcp";
    if (redirect === undefined) {
      return {
        client_name: name,
        redirect_uris: [],
        grant_types: [
          this.#options.enterprise === undefined
            ? "client_credentials"
            : JWT_BEARER,
        ],
        token_endpoint_auth_method: this.#options.privateKey !== undefined
          ? "private_key_jwt"
          : "client_secret_basic",
        ...(this.#options.scope === undefined
          ? {}
          : { scope: this.#options.scope }),
      };
    }
    const href = new URL(redirect).href;
    const host = new URL(redirect).hostname;
    const native = host === "127.0.0.1" || host === "localhost" ||
      host === "[::1]" || !href.startsWith("https:");
    return {
      client_name: name,
      redirect_uris: [href],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#options.clientSecret !== undefined
        ? "client_secret_basic"
        : "none",
      application_type: native ? "native" : "web",
      ...(this.#options.scope === undefined
        ? {}
        : { scope: this.#options.scope }),
    } as OAuthClientMetadata;
  }

  get addClientAuthentication(): OAuthClientProvider[
    "addClientAuthentication"
  ] {
    const key = this.#options.privateKey;
    const id = this.#options.clientId;
    if (key === undefined || id === undefined) return undefined;
    return createPrivateKeyJwtAuth({
      issuer: id,
      subject: id,
      privateKey: key,
      alg: this.#options.algorithm ?? "RS256",
    });
  }

  /**
   * The grant of a flow without a browser (client credentials, or the
   * enterprise JWT bearer grant); `undefined` for the authorization code
   * flow. The SDK passes `clientMetadata.scope` (the `scope` option),
   * never the scope its own flow chose: the scope asked is this client's
   * choice, as for the browser flow (see `#scopeToAsk`).
   */
  async prepareTokenRequest(
    _scope?: string,
  ): Promise<URLSearchParams | undefined> {
    if (this.#options.redirectUrl !== undefined) return undefined;
    const wanted = await this.#scopeToAsk();
    if (this.#options.enterprise !== undefined) {
      return await this.#jwtBearerGrant(this.#options.enterprise, wanted);
    }
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (wanted !== undefined) params.set("scope", wanted);
    return params;
  }

  /**
   * The scope a flow asks for, the same for every grant: the one the
   * connection wants (the challenge's, or a step-up's union), else the
   * `scope` option, else the protected resource metadata's
   * `scopes_supported` (the SDK's `auth()` chooses the same for the
   * browser flow, given the first two as its `scope`).
   */
  #scopeToAsk(): Promise<string | undefined> {
    return this.scopeFor(this.#pendingScope);
  }

  /**
   * The scope a flow for `wanted` (a challenge's scope, a step-up's union)
   * asks: `wanted`, else the `scope` option, else the protected resource
   * metadata's `scopes_supported` (once discovered).
   */
  async scopeFor(wanted: string | undefined): Promise<string | undefined> {
    if (wanted !== undefined && wanted !== "") return wanted;
    if (this.#options.scope !== undefined) return this.#options.scope;
    const supported = (await this.discoveryState())?.resourceMetadata
      ?.scopes_supported;
    return supported !== undefined && supported.length > 0
      ? supported.join(" ")
      : undefined;
  }

  state(): string {
    this.#state = randomToken();
    return this.#state;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.#verifier = codeVerifier;
    const state = this.#state ?? this.state();
    const record: PendingRecord = {
      serverUrl: this.#server(),
      principal: this.#principal,
      verifier: codeVerifier,
      expires: Date.now() + PENDING_TTL,
      ...(this.#pendingScope === undefined
        ? {}
        : { scope: this.#pendingScope }),
      ...(this.#pendingResourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: this.#pendingResourceMetadataUrl }),
    };
    await this.#store.set(["pending", state], record, {
      expireIn: PENDING_TTL,
    });
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new AuthorizationError(
        "state-mismatch",
        "OAuth: no PKCE verifier for this authorization (it expired or was used); start the authorization again",
      );
    }
    return this.#verifier;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.#redirect = authorizationUrl;
    if (this.#options.authorize !== undefined) {
      this.#callback = await this.#options.authorize(authorizationUrl);
    }
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // RFC 8414 3.3: the metadata's issuer is the URL it was found under;
    // a document naming another issuer is not this server's to trust. (Not
    // on the 2025-03-26 fallback, where no resource metadata named the
    // authorization server and the MCP server's origin stood in for it.)
    const issuer = state.authorizationServerMetadata?.issuer;
    if (
      issuer !== undefined && state.resourceMetadata !== undefined &&
      withoutSlash(issuer) !== withoutSlash(state.authorizationServerUrl)
    ) {
      throw new AuthorizationError(
        "issuer-mismatch",
        `OAuth: the authorization server metadata found for ${state.authorizationServerUrl} names issuer ${
          JSON.stringify(issuer)
        } (RFC 8414 requires the same); refusing it`,
      );
    }
    await this.#store.set(["discovery", this.#server()], state);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const entry = await this.#store.get(["discovery", this.#server()]);
    return entry?.value as OAuthDiscoveryState | undefined;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const key = await this.#clientKey();
    if (key !== undefined) {
      const entry = await this.#store.get(key);
      if (entry !== undefined) {
        return entry.value as OAuthClientInformationMixed;
      }
    }
    const id = this.#options.clientId;
    if (id === undefined) return undefined;
    return this.#options.clientSecret === undefined
      ? { client_id: id }
      : { client_id: id, client_secret: this.#options.clientSecret };
  }

  async saveClientInformation(
    clientInformation: OAuthClientInformationMixed,
  ): Promise<void> {
    const key = await this.#clientKey(
      (clientInformation as { issuer?: string }).issuer,
    );
    if (key !== undefined) await this.#store.set(key, clientInformation);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#hidden) return undefined;
    return (await this.#tokenEntry())?.record.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const key = await this.#tokensKey();
    if (key === undefined) return;
    // A token answer without `scope` grants what was asked (RFC 6749 5.1).
    const asked = await this.#scopeToAsk();
    await this.#store.set(
      key,
      recordOf(
        tokens.scope === undefined && asked !== undefined
          ? { ...tokens, scope: asked }
          : tokens,
      ),
    );
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "all" || scope === "tokens") {
      const key = await this.#tokensKey();
      if (key !== undefined) await this.#store.delete(key);
    }
    if (scope === "all" || scope === "client") {
      const key = await this.#clientKey();
      if (key !== undefined) await this.#store.delete(key);
    }
    if (scope === "all" || scope === "discovery") {
      await this.#store.delete(["discovery", this.#server()]);
    }
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }

  /**
   * The access token to send: the stored one, refreshed first when it is
   * about to expire and a refresh token is at hand.
   */
  async accessToken(fetchFn: FetchLike): Promise<string | undefined> {
    const current = await this.#tokenEntry();
    if (current === undefined) return undefined;
    const { record } = current;
    if (
      record.refreshAt !== undefined && record.refreshAt <= Date.now() &&
      record.tokens.refresh_token !== undefined
    ) {
      if (await this.refresh(fetchFn, record.tokens.access_token)) {
        return (await this.#tokenEntry())?.record.tokens.access_token;
      }
      return undefined;
    }
    return record.tokens.access_token;
  }

  /** The scopes of the stored token, as granted (or as asked). */
  async grantedScopes(): Promise<string[]> {
    const scope = (await this.#tokenEntry())?.record.tokens.scope;
    return scope === undefined ? [] : scope.split(" ").filter(Boolean);
  }

  /**
   * Refreshes the stored token with its refresh token, guarded: only the
   * process whose swap on the token entry won posts the refresh token;
   * the others wait for its result. `false` when there is nothing to
   * refresh with or the authorization server refused the refresh token.
   * `seen` is the access token the caller found stale: when the store
   * already holds another one, a refresh elsewhere replaced it, and none
   * is spent here.
   */
  async refresh(fetchFn: FetchLike, seen?: string): Promise<boolean> {
    const key = await this.#tokensKey();
    if (key === undefined) return false;
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry = await this.#store.get(key);
      const record = entry?.value as TokenRecord | undefined;
      const refreshToken = record?.tokens.refresh_token;
      if (entry === undefined || record === undefined || !refreshToken) {
        return false;
      }
      if (seen !== undefined && record.tokens.access_token !== seen) {
        return true;
      }
      if (record.lease !== undefined && record.lease > Date.now()) {
        if (await this.#awaitChange(key, entry.version, record.lease)) {
          return true;
        }
        continue;
      }
      const leased: TokenRecord = {
        ...record,
        lease: Date.now() + REFRESH_LEASE,
      };
      if (!(await this.#store.swap(key, entry.version, leased))) continue;
      const discovery = await this.discoveryState();
      const client = await this.clientInformation();
      if (discovery === undefined || client === undefined) {
        await this.#store.set(key, record);
        return false;
      }
      try {
        const fresh = await refreshAuthorization(
          discovery.authorizationServerUrl,
          {
            metadata: discovery.authorizationServerMetadata,
            clientInformation: client,
            refreshToken,
            ...(discovery.resourceMetadata?.resource === undefined
              ? {}
              : { resource: new URL(discovery.resourceMetadata.resource) }),
            addClientAuthentication: this.addClientAuthentication,
            fetchFn,
          },
        );
        await this.#store.set(
          key,
          recordOf({
            ...fresh,
            refresh_token: fresh.refresh_token ?? refreshToken,
            // An answer without `scope` keeps the grant's (RFC 6749 6).
            ...(fresh.scope === undefined && record.tokens.scope !== undefined
              ? { scope: record.tokens.scope }
              : {}),
            issuer: record.tokens.issuer,
          } as OAuthTokens),
        );
        return true;
      } catch (error) {
        if (refusedGrant(error)) {
          // The refresh token is spent or revoked: authorize again.
          await this.#store.delete(key);
          return false;
        }
        await this.#store.set(key, record);
        throw error;
      }
    }
    return false;
  }

  /**
   * Runs the SDK's `auth()` for this server, never reusing or refreshing
   * the stored token (the caller tried that), and finishes an interactive
   * authorization through `authorize`. Resolves once new tokens are stored.
   */
  async authorizeAgain(
    options: { scope?: string; resourceMetadataUrl?: URL; fetchFn: FetchLike },
  ): Promise<void> {
    const serverUrl = this.#server();
    // Discovery first, with RFC 8414's rule for `authorization_endpoint`
    // (the SDK's own parse requires it of every server).
    const found = await ensureDiscovery(this, serverUrl, options);
    const metadata = found?.authorizationServerMetadata;
    if (
      this.#options.redirectUrl !== undefined && metadata !== undefined &&
      typeof metadata.authorization_endpoint !== "string"
    ) throw noAuthorizationEndpoint(found!.authorizationServerUrl);
    this.#hidden = true;
    this.#callback = undefined;
    this.#redirect = undefined;
    this.#pendingScope = options.scope ?? this.#options.scope;
    this.#pendingResourceMetadataUrl = options.resourceMetadataUrl?.href;
    this.#flowFetch = options.fetchFn;
    let result: "AUTHORIZED" | "REDIRECT";
    try {
      result = await auth(this, {
        serverUrl,
        ...(this.#pendingScope === undefined
          ? {}
          : { scope: this.#pendingScope }),
        ...(options.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: options.resourceMetadataUrl }),
        fetchFn: options.fetchFn,
      });
    } finally {
      this.#hidden = false;
      this.#flowFetch = undefined;
    }
    if (result === "AUTHORIZED") return;
    const callback = this.#callback;
    if (callback === undefined) {
      throw new AuthorizationError(
        "redirect-required",
        `OAuth: ${serverUrl} needs the user to authorize at the authorization URL; send them there and finish with oauthCallback, or give oauthClient an authorize function`,
        { authorizationUrl: this.#redirect },
      );
    }
    await this.finish(callback, options.fetchFn);
  }

  /**
   * Finishes an authorization from the URL the browser came back to:
   * checks `error`, `state` (one use, unexpired) and `iss` (RFC 9207),
   * then exchanges the code and stores the tokens.
   */
  async finish(callback: URL, fetchFn: FetchLike): Promise<void> {
    const params = callback.searchParams;
    const error = params.get("error");
    if (error !== null) {
      const description = params.get("error_description");
      throw new AuthorizationError(
        "denied",
        `OAuth: the authorization server refused: ${error}${
          description === null ? "" : ` (${description})`
        }`,
      );
    }
    const state = params.get("state") ?? "";
    const entry = await this.#store.get(["pending", state]);
    const pending = entry?.value as PendingRecord | null | undefined;
    if (
      entry === undefined || typeof pending?.verifier !== "string" ||
      pending.expires <= Date.now() ||
      !(await this.#store.swap(["pending", state], entry.version, null, {
        expireIn: 1,
      }))
    ) {
      throw new AuthorizationError(
        "state-mismatch",
        "OAuth: the callback's state matches no pending authorization (expired, used, or not ours); start the authorization again",
      );
    }
    const bound = this.#serverUrl === pending.serverUrl &&
        this.#principal === pending.principal
      ? this
      : this.forServer(pending.serverUrl, pending.principal);
    await bound.#exchange(pending, params, fetchFn);
  }

  async #exchange(
    pending: PendingRecord,
    params: URLSearchParams,
    fetchFn: FetchLike,
  ): Promise<void> {
    const discovery = await this.discoveryState();
    const issuer = discovery?.authorizationServerMetadata?.issuer;
    const iss = params.get("iss");
    const metadata = discovery?.authorizationServerMetadata as
      | Record<string, unknown>
      | undefined;
    const required =
      metadata?.["authorization_response_iss_parameter_supported"] === true;
    if ((iss !== null || required) && iss !== issuer) {
      throw new AuthorizationError(
        "issuer-mismatch",
        `OAuth: the callback names issuer ${
          JSON.stringify(iss)
        }, the flow started with ${
          JSON.stringify(issuer)
        } (RFC 9207: a mix-up); start the authorization again`,
      );
    }
    const code = params.get("code");
    if (code === null) {
      throw new AuthorizationError(
        "denied",
        "OAuth: the callback carries no code",
      );
    }
    this.#verifier = pending.verifier;
    this.#pendingScope = pending.scope;
    const result = await auth(this, {
      serverUrl: pending.serverUrl,
      authorizationCode: code,
      ...(pending.scope === undefined ? {} : { scope: pending.scope }),
      ...(pending.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: new URL(pending.resourceMetadataUrl) }),
      fetchFn,
    });
    this.#verifier = undefined;
    if (result !== "AUTHORIZED") {
      throw new AuthorizationError(
        "refused",
        "OAuth: the code exchange did not authorize",
      );
    }
  }

  /**
   * SEP-990: exchanges the user's ID token at the identity provider for an
   * ID-JAG whose audience is this server's authorization server and whose
   * resource is this server, and answers the JWT bearer grant presenting
   * it (the SDK adds the `resource` and this client's authentication).
   */
  async #jwtBearerGrant(
    enterprise: NonNullable<OAuthClientOptions["enterprise"]>,
    wanted: string | undefined,
  ): Promise<URLSearchParams> {
    const discovery = await this.discoveryState();
    const audience = discovery?.authorizationServerMetadata?.issuer ??
      discovery?.authorizationServerUrl;
    if (audience === undefined) {
      throw new TypeError(
        "oauthClient: enterprise authorization ran before the authorization server was discovered",
      );
    }
    const resource = discovery?.resourceMetadata?.resource ?? this.#server();
    const idToken = typeof enterprise.idToken === "string"
      ? enterprise.idToken
      : await enterprise.idToken();
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      audience,
      resource,
      subject_token: idToken,
      subject_token_type: ID_TOKEN,
    });
    if (wanted !== undefined && wanted !== "") body.set("scope", wanted);
    const headers = new Headers({
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    if (enterprise.idpClientSecret !== undefined) {
      const id = encodeURIComponent(enterprise.idpClientId ?? "");
      const secret = encodeURIComponent(enterprise.idpClientSecret);
      headers.set("authorization", `Basic ${btoa(`${id}:${secret}`)}`);
    } else if (enterprise.idpClientId !== undefined) {
      body.set("client_id", enterprise.idpClientId);
    }
    const endpoint = new URL(enterprise.idpTokenEndpoint);
    const fetchFn = this.#flowFetch ?? fetch;
    const response = await fetchFn(endpoint, {
      method: "POST",
      headers,
      body,
    });
    const answer = await response.json().catch(() => undefined) as
      | Record<string, unknown>
      | undefined;
    const assertion = answer?.["access_token"];
    if (
      !response.ok || typeof assertion !== "string" ||
      answer?.["issued_token_type"] !== ID_JAG
    ) {
      const error = typeof answer?.["error"] === "string"
        ? `${answer["error"]}${
          typeof answer["error_description"] === "string"
            ? ` (${answer["error_description"]})`
            : ""
        }`
        : `HTTP ${response.status} without an ID-JAG`;
      throw new AuthorizationError(
        "idp-refused",
        `OAuth: the identity provider at ${endpoint.href} refused to exchange the ID token for an ID-JAG for ${audience}: ${error}; check the ID token (expired?) and that the IdP trusts this client for that authorization server`,
      );
    }
    const grant = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
    if (wanted !== undefined && wanted !== "") grant.set("scope", wanted);
    return grant;
  }

  async #awaitChange(
    key: readonly string[],
    version: string,
    until: number,
  ): Promise<boolean> {
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const entry = await this.#store.get(key);
      if (entry === undefined) return false;
      const record = entry.value as TokenRecord;
      if (entry.version !== version && record.lease === undefined) return true;
    }
    return false;
  }

  #server(): string {
    if (this.#serverUrl === undefined) {
      throw new TypeError(
        "oauthClient: this client is not bound to a server; pass it as connectHttp's auth option",
      );
    }
    return this.#serverUrl;
  }

  async #issuer(): Promise<string | undefined> {
    return (await this.discoveryState())?.authorizationServerUrl;
  }

  /** The key of this client's registration with `issuer`. */
  async #clientKey(issuer?: string): Promise<string[] | undefined> {
    const at = issuer ?? await this.#issuer();
    if (at === undefined) return undefined;
    const who = this.#options.clientId ?? this.#options.clientMetadataUrl ??
      `dcr:${this.#options.redirectUrl ?? ""}`;
    return ["client", at, who];
  }

  async #tokensKey(): Promise<string[] | undefined> {
    const issuer = await this.#issuer();
    if (issuer === undefined) return undefined;
    const clientKey = await this.#clientKey(issuer);
    const stored = clientKey === undefined
      ? undefined
      : await this.#store.get(clientKey);
    const clientId =
      (stored?.value as OAuthClientInformationMixed | undefined)?.client_id ??
        this.#options.clientId ?? this.#options.clientMetadataUrl ?? "";
    return ["tokens", issuer, clientId, this.#principal, this.#server()];
  }

  async #tokenEntry(): Promise<{ record: TokenRecord } | undefined> {
    const key = await this.#tokensKey();
    if (key === undefined) return undefined;
    const entry = await this.#store.get(key);
    if (entry === undefined) return undefined;
    return { record: entry.value as TokenRecord };
  }
}

function recordOf(tokens: OAuthTokens): TokenRecord {
  if (tokens.expires_in === undefined) return { tokens };
  const lifetime = tokens.expires_in * 1000;
  // A tenth of a short lifetime, at most EXPIRY_MARGIN of a long one.
  const margin = Math.min(EXPIRY_MARGIN, lifetime / 10);
  return { tokens, refreshAt: Date.now() + lifetime - margin };
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replaceAll("=", "");
}

/**
 * Whether a failed refresh was the authorization server refusing the
 * refresh token (an OAuth error answer other than a server-side one): the
 * SDK's `OAuthError` carries its `errorCode`. Its class is not imported:
 * it lives in the SDK's server half, which the HTTP clients never load.
 */
function refusedGrant(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return typeof code === "string" && code !== "server_error" &&
    code !== "temporarily_unavailable";
}

function withoutSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
