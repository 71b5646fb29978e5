/**
 * The fetch an OAuth-enabled HTTP connection sends through: attaches
 * `Authorization: Bearer`, answers a 401 with a refresh or a new
 * authorization, a 403 `insufficient_scope` with a step-up to the union
 * of the scopes held and the scopes named (bounded), and sends the request
 * again. Requests of one connection share one flow at a time. A refusal
 * that stands is thrown as an `AuthorizationError`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  auth,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AuthorizationError } from "./authorization_error.ts";
import { OAuthClient } from "./oauth_client.ts";
import { ensureDiscovery, withKeptDiscovery } from "./_discovery.ts";
import {
  type BearerChallenge,
  bearerChallenge,
  named,
  refusalOf,
  scopeRefusalOf,
  type ServerNaming,
} from "./refusal.ts";
import {
  refusedBefore,
  type RefusedScopes,
  stepUpVerdict,
  words,
} from "./_scopes.ts";

/**
 * Wraps `base` for requests to the MCP endpoint `naming.url`. A refusal
 * that stands — a 401 after a new authorization, a 403
 * `insufficient_scope` with no step-up left or nothing new to ask, an
 * `invalid_scope` from the authorization server — is thrown as an
 * `AuthorizationError`, never answered as a response.
 */
export function oauthFetch(
  provider: OAuthClientProvider,
  naming: ServerNaming,
  base: FetchLike,
): FetchLike {
  const connection = new OAuthConnection(provider, naming, base);
  return (input, init) => connection.send(input, init);
}

/** One connection's authorization: what it wants, the flow it runs, what was refused. */
class OAuthConnection {
  readonly #provider: OAuthClientProvider;
  readonly #naming: ServerNaming;
  readonly #base: FetchLike;
  /** The client's view for this server, when the provider is an `oauthClient`. */
  readonly #client: OAuthClient | undefined;
  /** The provider as the flow sees it (discovery kept for the connection). */
  readonly #flowProvider: OAuthClientProvider;
  /** The scope the connection wants: the challenge's, or a step-up's union. */
  #scope: string | undefined;
  #resourceMetadataUrl: URL | undefined;
  /** The flow running now: one at a time per connection; a second request waits for it. */
  #flow: Promise<void> | undefined;
  /**
   * Scope sets the authorization server refused (`invalid_scope`): a
   * request wanting one of them (or more) fails at once, without asking
   * again.
   */
  readonly #refused: RefusedScopes[] = [];

  constructor(
    provider: OAuthClientProvider,
    naming: ServerNaming,
    base: FetchLike,
  ) {
    this.#provider = provider;
    this.#naming = naming;
    this.#base = base;
    this.#client = provider instanceof OAuthClient
      ? provider.forServer(naming.url)
      : undefined;
    this.#flowProvider = this.#client === undefined
      ? withKeptDiscovery(provider)
      : provider;
  }

  /** Sends one request, authorizing (or stepping up) and sending again as the server asks. */
  async send(
    input: string | URL,
    init: RequestInit | undefined,
  ): Promise<Response> {
    let authorized = false;
    let stepUps = 0;
    for (;;) {
      // Waits for a flow another request started.
      if (this.#flow !== undefined) {
        await this.#flow.catch(() => {
          // Nothing lost: the flow's own caller gets its failure; this
          // request asks for a token again below.
        });
      }
      const token = await this.#bearer();
      const headers = new Headers(init?.headers);
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      const response = await this.#base(input, { ...init, headers });
      if (response.status === 401 && !authorized) {
        const challenge = bearerChallenge(response);
        await response.body?.cancel().catch(() => {
          // Nothing lost: a refusal's body is dropped; its headers were read.
        });
        this.#learn(challenge);
        if (challenge?.scope !== undefined) this.#scope = challenge.scope;
        authorized = true;
        this.#refuseKnown(401, challenge);
        await this.#flowFor(401, challenge, false, token);
        continue;
      }
      const challenge = response.status === 403
        ? bearerChallenge(response)
        : undefined;
      if (challenge?.error === "insufficient_scope") {
        const holding = await this.#held();
        const verdict = stepUpVerdict(holding, this.#scope, challenge.scope, {
          taken: stepUps,
          limit: this.#client?.maxStepUps ?? 2,
        });
        await response.body?.cancel().catch(() => {
          // Nothing lost: a refusal's body is dropped; its headers were read.
        });
        if (verdict.kind === "step-up") {
          this.#learn(challenge);
          this.#scope = verdict.scope;
          stepUps++;
          this.#refuseKnown(403, challenge);
          await this.#flowFor(403, challenge, true);
          continue;
        }
        throw refusalOf(response, {
          ...this.#naming,
          oauth: true,
          held: await this.#held(),
          stepUps,
        })!;
      }
      const refusal = refusalOf(response, { ...this.#naming, oauth: true });
      if (refusal !== undefined) {
        await response.body?.cancel().catch(() => {
          // Nothing lost: a refusal's body is dropped; its headers were read.
        });
        throw refusal;
      }
      return response;
    }
  }

  /** Keeps the protected resource metadata URL a challenge names. */
  #learn(challenge: BearerChallenge | undefined): void {
    if (challenge?.resourceMetadata !== undefined) {
      this.#resourceMetadataUrl = new URL(challenge.resourceMetadata);
    }
  }

  async #bearer(): Promise<string | undefined> {
    return this.#client !== undefined
      ? await this.#client.accessToken(this.#base)
      : (await this.#provider.tokens())?.access_token;
  }

  async #held(): Promise<string[]> {
    return this.#client !== undefined
      ? await this.#client.grantedScopes()
      : words((await this.#provider.tokens())?.scope);
  }

  /** One flow at a time per connection; a second request waits for it. */
  #once(run: () => Promise<void>): Promise<void> {
    if (this.#flow === undefined) {
      this.#flow = run().finally(() => {
        this.#flow = undefined;
      });
    }
    return this.#flow;
  }

  async #authorize(stepUp: boolean, refusedToken?: string): Promise<void> {
    const scope = this.#scope;
    const resourceMetadataUrl = this.#resourceMetadataUrl;
    const base = this.#base;
    const client = this.#client;
    if (client !== undefined) {
      if (!stepUp && (await client.refresh(base, refusedToken))) return;
      await client.authorizeAgain({
        ...(scope === undefined ? {} : { scope }),
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        fetchFn: base,
      });
      return;
    }
    // Discovery first (see `ensureDiscovery`: a server without an
    // authorization endpoint), kept for this connection when the provider
    // keeps none.
    const serverUrl = this.#naming.url;
    await ensureDiscovery(this.#flowProvider, serverUrl, {
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      fetchFn: base,
    });
    const result = await auth(this.#flowProvider, {
      serverUrl,
      ...(scope === undefined ? {} : { scope }),
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      fetchFn: base,
    });
    if (result !== "AUTHORIZED") {
      throw new AuthorizationError(
        "redirect-required",
        `OAuth: ${serverUrl.href} needs the user to authorize; the provider redirected`,
      );
    }
  }

  /** Runs a flow; an `invalid_scope` is remembered and thrown as an `AuthorizationError`. */
  async #flowFor(
    status: number,
    challenge: BearerChallenge | undefined,
    stepUp: boolean,
    refusedToken?: string,
  ): Promise<void> {
    const wanted = this.#scope;
    try {
      await this.#once(() => this.#authorize(stepUp, refusedToken));
    } catch (error) {
      // What the flow asked: the scope wanted, else the client's fallback.
      const asked = this.#client === undefined
        ? wanted
        : await this.#client.scopeFor(wanted);
      const refusal = scopeRefusalOf(
        error,
        asked,
        status,
        challenge,
        this.#naming,
      );
      if (refusal !== undefined) {
        if (asked !== undefined) {
          this.#refused.push({ scopes: words(asked), cause: error });
        }
        throw refusal;
      }
      throw named(error, status, challenge, this.#naming);
    }
  }

  /** Throws at once when the authorization server refused these scopes (or fewer) already. */
  #refuseKnown(status: number, challenge: BearerChallenge | undefined): void {
    const before = refusedBefore(this.#refused, this.#scope);
    if (before === undefined) return;
    throw scopeRefusalOf(
      before.cause,
      this.#scope,
      status,
      challenge,
      this.#naming,
    )!;
  }
}
