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
  const serverUrl = naming.url;
  const client = provider instanceof OAuthClient
    ? provider.forServer(serverUrl)
    : undefined;
  const flowProvider = client === undefined
    ? withKeptDiscovery(provider)
    : provider;
  let scope: string | undefined;
  let resourceMetadataUrl: URL | undefined;
  let flow: Promise<void> | undefined;
  /**
   * Scope sets the authorization server refused (`invalid_scope`): a
   * request wanting one of them (or more) fails at once, without asking
   * again.
   */
  const refused: { scopes: readonly string[]; cause: unknown }[] = [];

  /** One flow at a time per connection; a second request waits for it. */
  const once = (run: () => Promise<void>): Promise<void> => {
    if (flow === undefined) {
      flow = run().finally(() => {
        flow = undefined;
      });
    }
    return flow;
  };

  const bearer = async (): Promise<string | undefined> =>
    client !== undefined
      ? await client.accessToken(base)
      : (await provider.tokens())?.access_token;

  const authorize = async (
    stepUp: boolean,
    refusedToken?: string,
  ): Promise<void> => {
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
    await ensureDiscovery(flowProvider, serverUrl, {
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      fetchFn: base,
    });
    const result = await auth(flowProvider, {
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
  };

  /** Runs a flow; an `invalid_scope` is remembered and thrown as an `AuthorizationError`. */
  const flowFor = async (
    status: number,
    challenge: BearerChallenge | undefined,
    stepUp: boolean,
    refusedToken?: string,
  ): Promise<void> => {
    const wanted = scope;
    try {
      await once(() => authorize(stepUp, refusedToken));
    } catch (error) {
      // What the flow asked: the scope wanted, else the client's fallback.
      const asked = client === undefined
        ? wanted
        : await client.scopeFor(wanted);
      const refusal = scopeRefusalOf(error, asked, status, challenge, naming);
      if (refusal !== undefined) {
        if (asked !== undefined) {
          refused.push({ scopes: words(asked), cause: error });
        }
        throw refusal;
      }
      throw named(error, status, challenge, naming);
    }
  };

  const held = async (): Promise<string[]> =>
    client !== undefined
      ? await client.grantedScopes()
      : words((await provider.tokens())?.scope);

  return async (input, init) => {
    let authorized = false;
    let stepUps = 0;
    for (;;) {
      // Waits for a flow another request started.
      if (flow !== undefined) await flow.catch(() => {});
      const token = await bearer();
      const headers = new Headers(init?.headers);
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      const response = await base(input, { ...init, headers });
      if (response.status === 401 && !authorized) {
        const challenge = bearerChallenge(response);
        await response.body?.cancel().catch(() => {});
        if (challenge?.resourceMetadata !== undefined) {
          resourceMetadataUrl = new URL(challenge.resourceMetadata);
        }
        if (challenge?.scope !== undefined) scope = challenge.scope;
        authorized = true;
        refuseKnown(scope, 401, challenge);
        await flowFor(401, challenge, false, token);
        continue;
      }
      if (response.status === 403) {
        const challenge = bearerChallenge(response);
        if (challenge?.error === "insufficient_scope") {
          const limit = client?.maxStepUps ?? 2;
          const holding = await held();
          const wanted = union(holding, scope, challenge.scope);
          // Nothing new to ask for, or asked enough: the refusal stands.
          if (
            stepUps < limit && !wanted.every((s) => holding.includes(s))
          ) {
            await response.body?.cancel().catch(() => {});
            if (challenge.resourceMetadata !== undefined) {
              resourceMetadataUrl = new URL(challenge.resourceMetadata);
            }
            scope = wanted.join(" ");
            stepUps++;
            refuseKnown(scope, 403, challenge);
            await flowFor(403, challenge, true);
            continue;
          }
          await response.body?.cancel().catch(() => {});
          throw refusalOf(response, {
            ...naming,
            oauth: true,
            held: await held(),
            stepUps,
          })!;
        }
      }
      const refusal = refusalOf(response, { ...naming, oauth: true });
      if (refusal !== undefined) {
        await response.body?.cancel().catch(() => {});
        throw refusal;
      }
      return response;
    }
  };

  /** Throws at once when the authorization server refused these scopes (or fewer) already. */
  function refuseKnown(
    wanted: string | undefined,
    status: number,
    challenge: BearerChallenge | undefined,
  ): void {
    const asked = words(wanted);
    const before = refused.find((r) =>
      r.scopes.length > 0 && r.scopes.every((s) => asked.includes(s))
    );
    if (before === undefined) return;
    throw scopeRefusalOf(before.cause, wanted, status, challenge, naming)!;
  }
}

function words(scope: string | undefined): string[] {
  return scope?.split(" ").filter((s) => s !== "") ?? [];
}

function union(
  held: readonly string[],
  ...more: (string | undefined)[]
): string[] {
  const all = new Set(held);
  for (const list of more) for (const s of words(list)) all.add(s);
  return [...all];
}
