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
 * The class here is the adapter: it holds a flow's state between the
 * SDK's callbacks and does the store's reads and writes; what to decide is
 * judged by pure functions over a clock reading (`_grant.ts`: which grant
 * and what is registered; `_callback.ts`: state, `iss`, code;
 * `_tokens.ts`: expiry and the refresh steps; `_enterprise.ts`: the
 * SEP-990 exchange) and the guarded refresh is `_refresh.ts`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  auth,
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
import { AuthorizationError } from "./authorization_error.ts";
import type { OAuthClientOptions, OAuthClientProvider } from "./options.ts";
import { ensureDiscovery, noAuthorizationEndpoint } from "./_discovery.ts";
import {
  type Clock,
  recordOf,
  refreshDue,
  scopesOf,
  systemClock,
  withAskedScope,
} from "./_tokens.ts";
import { refreshGuarded } from "./_refresh.ts";
import {
  callbackDenial,
  callbackVerdict,
  discoveredIssuerRefusal,
  noVerifier,
  type PendingRecord,
  pendingRecordOf,
  randomToken,
  stateMismatch,
} from "./_callback.ts";
import {
  clientCredentialsParams,
  clientMetadataOf,
  grantOf,
  ownScope,
  preRegisteredClient,
  supportedScope,
} from "./_grant.ts";
import { jwtBearerGrant } from "./_enterprise.ts";
import { ClientRecords } from "./_records.ts";
import {
  endFlow,
  type Flow,
  flowOutcome,
  idleFlow,
  startFlow,
} from "./_flow.ts";

export { AuthorizationError } from "./authorization_error.ts";
export type { AuthorizationErrorReason } from "./authorization_error.ts";
export type { OAuthClientOptions, OAuthClientProvider } from "./options.ts";

/** Where an {@link OAuthClient} view is bound, and the clock it reads. */
export interface OAuthClientBinding {
  /** The MCP server the view is for. */
  readonly serverUrl?: string;
  /** Who the tokens belong to; default the `principal` option, else `"default"`. */
  readonly principal?: string;
  /** Where expiry, leases and pending authorizations read the time; default the system's. */
  readonly clock?: Clock;
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
  readonly #clock: Clock;
  readonly #records: ClientRecords;
  /** The authorization running on this view, between the SDK's callbacks. */
  readonly #flow: Flow = idleFlow();

  /** Use {@link oauthClient}. */
  constructor(
    options: OAuthClientOptions,
    store: OAuthStore,
    binding: OAuthClientBinding = {},
  ) {
    this.#options = options;
    this.#store = store;
    this.#serverUrl = binding.serverUrl;
    this.#principal = binding.principal ?? options.principal ?? "default";
    this.#clock = binding.clock ?? systemClock;
    this.#records = new ClientRecords(options, store, {
      serverUrl: this.#serverUrl,
      principal: this.#principal,
    });
  }

  /** This client's view for the server at `url` (and `principal`). */
  forServer(url: string | URL, principal?: string): OAuthClient {
    return new OAuthClient(this.#options, this.#store, {
      serverUrl: new URL(url).href,
      principal: principal ?? this.#principal,
      clock: this.#clock,
    });
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
    return clientMetadataOf(this.#options);
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
   * choice, as for the browser flow (see `scopeFor`).
   */
  async prepareTokenRequest(
    _scope?: string,
  ): Promise<URLSearchParams | undefined> {
    const grant = grantOf(this.#options);
    if (grant === "authorization_code") return undefined;
    const wanted = await this.scopeFor(this.#flow.scope);
    if (grant === "client_credentials") return clientCredentialsParams(wanted);
    const discovery = await this.discoveryState();
    const audience = discovery?.authorizationServerMetadata?.issuer ??
      discovery?.authorizationServerUrl;
    if (audience === undefined) {
      throw new TypeError(
        "oauthClient: enterprise authorization ran before the authorization server was discovered",
      );
    }
    return await jwtBearerGrant(this.#options.enterprise!, {
      audience,
      resource: discovery?.resourceMetadata?.resource ?? this.#records.server(),
      scope: wanted,
    }, this.#flow.fetch ?? fetch);
  }

  /**
   * The scope a flow for `wanted` (a challenge's scope, a step-up's union)
   * asks, the same for every grant: `wanted`, else the `scope` option,
   * else the protected resource metadata's `scopes_supported` (once
   * discovered; the SDK's `auth()` chooses the same for the browser flow,
   * given the first two as its `scope`).
   */
  async scopeFor(wanted: string | undefined): Promise<string | undefined> {
    return ownScope(wanted, this.#options.scope) ??
      supportedScope(
        (await this.discoveryState())?.resourceMetadata?.scopes_supported,
      );
  }

  state(): string {
    this.#flow.state = randomToken();
    return this.#flow.state;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.#flow.verifier = codeVerifier;
    const state = this.#flow.state ?? this.state();
    const record = pendingRecordOf({
      serverUrl: this.#records.server(),
      principal: this.#principal,
      verifier: codeVerifier,
      scope: this.#flow.scope,
      resourceMetadataUrl: this.#flow.resourceMetadataUrl,
    }, this.#clock.now());
    await this.#records.savePending(state, record);
  }

  codeVerifier(): string {
    if (this.#flow.verifier === undefined) throw noVerifier();
    return this.#flow.verifier;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.#flow.redirect = authorizationUrl;
    if (this.#options.authorize !== undefined) {
      this.#flow.callback = await this.#options.authorize(authorizationUrl);
    }
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const refusal = discoveredIssuerRefusal(state);
    if (refusal !== undefined) throw refusal;
    await this.#records.saveDiscovery(state);
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.#records.discovery();
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.#records.registration()) ??
      preRegisteredClient(this.#options);
  }

  async saveClientInformation(
    clientInformation: OAuthClientInformationMixed,
  ): Promise<void> {
    const issuer = (clientInformation as { issuer?: string }).issuer;
    await this.#records.saveRegistration(clientInformation, issuer);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#flow.hidden) return undefined;
    return (await this.#records.tokens())?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    if ((await this.#records.tokensKey()) === undefined) return;
    const asked = await this.scopeFor(this.#flow.scope);
    await this.#records.saveTokens(
      recordOf(withAskedScope(tokens, asked), this.#clock.now()),
    );
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    for (const what of ["tokens", "client", "discovery"] as const) {
      if (scope === "all" || scope === what) await this.#records.forget(what);
    }
    if (scope === "all" || scope === "verifier") {
      this.#flow.verifier = undefined;
    }
  }

  /**
   * The access token to send: the stored one, refreshed first when it is
   * about to expire and a refresh token is at hand.
   */
  async accessToken(fetchFn: FetchLike): Promise<string | undefined> {
    const record = await this.#records.tokens();
    if (record === undefined) return undefined;
    if (!refreshDue(record, this.#clock.now())) {
      return record.tokens.access_token;
    }
    if (await this.refresh(fetchFn, record.tokens.access_token)) {
      return (await this.#records.tokens())?.tokens.access_token;
    }
    return undefined;
  }

  /** The scopes of the stored token, as granted (or as asked). */
  async grantedScopes(): Promise<string[]> {
    return scopesOf((await this.#records.tokens())?.tokens);
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
    const key = await this.#records.tokensKey();
    if (key === undefined) return false;
    return await refreshGuarded(this.#store, key, {
      ...(seen === undefined ? {} : { seen }),
      clock: this.#clock,
      exchanger: async () => {
        const discovery = await this.discoveryState();
        const client = await this.clientInformation();
        if (discovery === undefined || client === undefined) return undefined;
        const resource = discovery.resourceMetadata?.resource;
        return (refreshToken) =>
          refreshAuthorization(discovery.authorizationServerUrl, {
            metadata: discovery.authorizationServerMetadata,
            clientInformation: client,
            refreshToken,
            ...(resource === undefined ? {} : { resource: new URL(resource) }),
            addClientAuthentication: this.addClientAuthentication,
            fetchFn,
          });
      },
    });
  }

  /**
   * Runs the SDK's `auth()` for this server, never reusing or refreshing
   * the stored token (the caller tried that), and finishes an interactive
   * authorization through `authorize`. Resolves once new tokens are stored.
   */
  async authorizeAgain(
    options: { scope?: string; resourceMetadataUrl?: URL; fetchFn: FetchLike },
  ): Promise<void> {
    const serverUrl = this.#records.server();
    // Discovery first, with RFC 8414's rule for `authorization_endpoint`
    // (the SDK's own parse requires it of every server).
    const found = await ensureDiscovery(this, serverUrl, options);
    const metadata = found?.authorizationServerMetadata;
    if (
      grantOf(this.#options) === "authorization_code" &&
      metadata !== undefined &&
      typeof metadata.authorization_endpoint !== "string"
    ) throw noAuthorizationEndpoint(found!.authorizationServerUrl);
    const flow = this.#flow;
    startFlow(flow, {
      scope: options.scope ?? this.#options.scope,
      resourceMetadataUrl: options.resourceMetadataUrl,
      fetchFn: options.fetchFn,
    });
    let result: "AUTHORIZED" | "REDIRECT";
    try {
      result = await auth(this, {
        serverUrl,
        ...(flow.scope === undefined ? {} : { scope: flow.scope }),
        ...(options.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: options.resourceMetadataUrl }),
        fetchFn: options.fetchFn,
      });
    } finally {
      endFlow(flow);
    }
    const outcome = flowOutcome(result, flow, serverUrl);
    if (outcome.kind === "refused") throw outcome.error;
    if (outcome.kind === "finish") {
      await this.finish(outcome.callback, options.fetchFn);
    }
  }

  /**
   * Finishes an authorization from the URL the browser came back to:
   * checks `error`, `state` (one use, unexpired) and `iss` (RFC 9207),
   * then exchanges the code and stores the tokens.
   */
  async finish(callback: URL, fetchFn: FetchLike): Promise<void> {
    const params = callback.searchParams;
    const denial = callbackDenial(params);
    if (denial !== undefined) throw denial;
    const pending = await this.#records.takePending(
      params.get("state") ?? "",
      this.#clock.now(),
    );
    if (pending === undefined) throw stateMismatch();
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
    const verdict = callbackVerdict(params, await this.discoveryState());
    if (verdict.kind === "refused") throw verdict.error;
    this.#flow.verifier = pending.verifier;
    this.#flow.scope = pending.scope;
    const result = await auth(this, {
      serverUrl: pending.serverUrl,
      authorizationCode: verdict.code,
      ...(pending.scope === undefined ? {} : { scope: pending.scope }),
      ...(pending.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: new URL(pending.resourceMetadataUrl) }),
      fetchFn,
    });
    this.#flow.verifier = undefined;
    if (result !== "AUTHORIZED") {
      throw new AuthorizationError(
        "refused",
        "OAuth: the code exchange did not authorize",
      );
    }
  }
}
