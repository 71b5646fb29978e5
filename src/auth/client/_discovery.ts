/**
 * OAuth discovery ahead of the SDK's `auth()`: the protected resource
 * metadata (RFC 9728) and the authorization server metadata (RFC 8414 /
 * OpenID Connect Discovery), found where the SDK looks, in its order — but
 * read with the rule RFC 8414 gives: `authorization_endpoint` is required
 * only of a server that supports a grant using it. The SDK's own parse
 * requires it, and fails a client-credentials-only server with a raw
 * `ZodError`. The state found is saved through the provider's
 * `saveDiscoveryState`, so the SDK's `auth()` takes it as it is; metadata
 * that does not parse fails with an `AuthorizationError`
 * (`metadata-unusable`) naming the document.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  buildDiscoveryUrls,
  discoverOAuthProtectedResourceMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import {
  OAuthMetadataSchema,
  OpenIdProviderDiscoveryMetadataSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import { fetchWithinOrigin } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AuthorizationError } from "./authorization_error.ts";

/** RFC 8414 metadata, `authorization_endpoint` optional. */
const OAUTH_METADATA = OAuthMetadataSchema.partial({
  authorization_endpoint: true,
});
/** OpenID provider metadata, `authorization_endpoint` optional. */
const OIDC_METADATA = OpenIdProviderDiscoveryMetadataSchema.partial({
  authorization_endpoint: true,
});

/** What a flow needs found before the SDK's `auth()` runs. */
export interface DiscoveryOptions {
  /** The protected resource metadata URL a challenge named. */
  readonly resourceMetadataUrl?: URL;
  /** The fetch of the flow. */
  readonly fetchFn: FetchLike;
}

/**
 * Finds and saves the discovery state of `serverUrl` for `provider`, unless
 * the provider keeps one already (or keeps none at all: then the SDK's
 * `auth()` discovers). Returns the state the flow will use, if any.
 */
export async function ensureDiscovery(
  provider: OAuthClientProvider,
  serverUrl: string | URL,
  options: DiscoveryOptions,
): Promise<OAuthDiscoveryState | undefined> {
  if (
    provider.discoveryState === undefined ||
    provider.saveDiscoveryState === undefined
  ) return undefined;
  const kept = await provider.discoveryState();
  if (kept?.authorizationServerUrl !== undefined) return kept;
  const state = await discoverServerInfo(serverUrl, options);
  await provider.saveDiscoveryState(state);
  return state;
}

/**
 * `provider` as the flow sees it: itself when it keeps discovery state;
 * else a view that keeps it for this connection (in memory), so that
 * {@link ensureDiscovery} can hand the SDK's `auth()` what it found. Every
 * other member is the provider's own, called on the provider.
 */
export function withKeptDiscovery(
  provider: OAuthClientProvider,
): OAuthClientProvider {
  if (
    provider.discoveryState !== undefined &&
    provider.saveDiscoveryState !== undefined
  ) return provider;
  let kept: OAuthDiscoveryState | undefined;
  const own: Partial<OAuthClientProvider> = {
    discoveryState: () => kept,
    saveDiscoveryState: (state) => {
      kept = state;
    },
    invalidateCredentials: async (scope) => {
      if (scope === "all" || scope === "discovery") kept = undefined;
      await provider.invalidateCredentials?.(scope);
    },
  };
  return new Proxy(provider, {
    get(target, key) {
      if (Object.hasOwn(own, key)) return own[key as keyof typeof own];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has(target, key) {
      return Object.hasOwn(own, key) || Reflect.has(target, key);
    },
  });
}

/**
 * The SDK's `discoverOAuthServerInfo`, with the authorization server
 * metadata read by {@link discoverMetadata}.
 */
export async function discoverServerInfo(
  serverUrl: string | URL,
  options: DiscoveryOptions,
): Promise<OAuthDiscoveryState> {
  let resourceMetadata: OAuthDiscoveryState["resourceMetadata"];
  let authorizationServerUrl: string | undefined;
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      { resourceMetadataUrl: options.resourceMetadataUrl },
      options.fetchFn,
    );
    authorizationServerUrl = resourceMetadata.authorization_servers?.[0];
  } catch {
    // No RFC 9728 metadata: the MCP server's origin stands in for the
    // authorization server (the 2025-03-26 rule), as in the SDK.
  }
  authorizationServerUrl ??= String(new URL("/", serverUrl));
  const authorizationServerMetadata = await discoverMetadata(
    authorizationServerUrl,
    options.fetchFn,
  );
  return {
    authorizationServerUrl,
    ...(options.resourceMetadataUrl === undefined
      ? {}
      : { resourceMetadataUrl: options.resourceMetadataUrl.href }),
    resourceMetadata,
    authorizationServerMetadata,
  };
}

/**
 * The authorization server metadata of `authorizationServerUrl`, tried at
 * the SDK's well-known URLs in its order (a 4xx: the next one; a 5xx: a
 * failure); `undefined` when none answers.
 */
export async function discoverMetadata(
  authorizationServerUrl: string | URL,
  fetchFn: FetchLike,
): Promise<OAuthDiscoveryState["authorizationServerMetadata"]> {
  const fetchIn = fetchWithinOrigin(fetchFn);
  for (const { url, type } of buildDiscoveryUrls(authorizationServerUrl)) {
    let response: Response;
    try {
      response = await fetchIn(url, {
        headers: {
          "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
          Accept: "application/json",
        },
      });
    } catch (error) {
      // As the SDK: a TypeError (a network or CORS failure) tries the next URL.
      if (error instanceof TypeError) continue;
      throw error;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {
        // Nothing lost: the refused document's body is unread by design.
      });
      if (response.status < 500) continue;
      throw new Error(
        `HTTP ${response.status} trying to load ${
          type === "oauth" ? "OAuth" : "OpenID provider"
        } metadata from ${url}`,
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw unusable(url, "not JSON", error);
    }
    const parsed = (type === "oauth" ? OAUTH_METADATA : OIDC_METADATA)
      .safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) =>
        `${issue.path.join(".") || "(document)"}: ${issue.message}`
      );
      throw unusable(url, issues.join("; "), parsed.error);
    }
    // `authorization_endpoint` may be absent (see the module doc); a flow
    // that needs it checks before it starts.
    return parsed.data as OAuthDiscoveryState["authorizationServerMetadata"];
  }
  return undefined;
}

function unusable(url: URL, why: string, cause: unknown): AuthorizationError {
  return new AuthorizationError(
    "metadata-unusable",
    `OAuth: the authorization server metadata at ${url.href} is not usable: ${why}`,
    { cause },
  );
}

/**
 * The refusal of a flow that needs the authorization endpoint (the
 * authorization code grant) when the metadata names none.
 */
export function noAuthorizationEndpoint(
  authorizationServerUrl: string,
): AuthorizationError {
  return new AuthorizationError(
    "metadata-unusable",
    `OAuth: the authorization server ${authorizationServerUrl} publishes no authorization_endpoint in its metadata, and this client uses the authorization code grant (it has a redirectUrl), which needs one; give oauthClient a clientId and clientSecret without a redirectUrl (client credentials), or use an authorization server that supports the authorization code grant`,
  );
}
