/**
 * The fetch an OAuth-enabled HTTP connection sends through: attaches
 * `Authorization: Bearer`, answers a 401 with a refresh or a new
 * authorization, a 403 `insufficient_scope` with a step-up to the union
 * of the scopes held and the scopes named (bounded), and sends the request
 * again. Requests of one connection share one flow at a time.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "../sdk_types.ts";
import { AuthorizationError, OAuthClient } from "./oauth_client.ts";

/** Wraps `base` for requests to the MCP endpoint `serverUrl`. */
export function oauthFetch(
  provider: OAuthClientProvider,
  serverUrl: URL,
  base: FetchLike,
): FetchLike {
  const client = provider instanceof OAuthClient
    ? provider.forServer(serverUrl)
    : undefined;
  let scope: string | undefined;
  let resourceMetadataUrl: URL | undefined;
  let flow: Promise<void> | undefined;

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
    refused?: string,
  ): Promise<void> => {
    if (client !== undefined) {
      if (!stepUp && (await client.refresh(base, refused))) return;
      await client.authorizeAgain({
        ...(scope === undefined ? {} : { scope }),
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        fetchFn: base,
      });
      return;
    }
    const result = await auth(provider, {
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
        const challenge = extractWWWAuthenticateParams(response);
        await response.body?.cancel();
        if (challenge.resourceMetadataUrl !== undefined) {
          resourceMetadataUrl = challenge.resourceMetadataUrl;
        }
        if (challenge.scope !== undefined) scope = challenge.scope;
        authorized = true;
        await once(() => authorize(false, token));
        continue;
      }
      if (response.status === 403) {
        const challenge = extractWWWAuthenticateParams(response);
        if (challenge.error !== "insufficient_scope") return response;
        const limit = client?.maxStepUps ?? 2;
        const held = client !== undefined
          ? await client.grantedScopes()
          : (await provider.tokens())?.scope?.split(" ") ?? [];
        const wanted = union(held, scope, challenge.scope);
        // Nothing new to ask for, or asked enough: the refusal stands.
        if (stepUps >= limit || wanted.every((s) => held.includes(s))) {
          return response;
        }
        await response.body?.cancel();
        if (challenge.resourceMetadataUrl !== undefined) {
          resourceMetadataUrl = challenge.resourceMetadataUrl;
        }
        scope = wanted.join(" ");
        stepUps++;
        await once(() => authorize(true));
        continue;
      }
      return response;
    }
  };
}

function union(
  held: readonly string[],
  ...more: (string | undefined)[]
): string[] {
  const all = new Set(held);
  for (const list of more) {
    for (const s of list?.split(" ") ?? []) if (s !== "") all.add(s);
  }
  return [...all];
}
