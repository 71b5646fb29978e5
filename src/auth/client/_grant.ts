/**
 * Which grant an `oauthClient` uses and what it registers, as pure
 * functions of its options: the authorization code grant with a
 * `redirectUrl`; else the enterprise JWT bearer grant (SEP-990) with
 * `enterprise`; else client credentials. Also the scope a flow asks, the
 * client's own registration, and the store keys it keeps them under.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthClientOptions } from "./options.ts";

/** RFC 7523's JWT bearer grant type (the enterprise grant presents an ID-JAG with it). */
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** The grant a client uses. */
export type Grant = "authorization_code" | "client_credentials" | "jwt_bearer";

/** The grant `options` make the client use. */
export function grantOf(options: OAuthClientOptions): Grant {
  if (options.redirectUrl !== undefined) return "authorization_code";
  return options.enterprise === undefined ? "client_credentials" : "jwt_bearer";
}

/** The client metadata registered (dynamic registration) or published (CIMD). */
export function clientMetadataOf(
  options: OAuthClientOptions,
): OAuthClientMetadata {
  const redirect = options.redirectUrl;
  const name = options.clientName ?? "weft-mcp";
  if (redirect === undefined) {
    return {
      client_name: name,
      redirect_uris: [],
      grant_types: [
        grantOf(options) === "jwt_bearer" ? JWT_BEARER : "client_credentials",
      ],
      token_endpoint_auth_method: options.privateKey !== undefined
        ? "private_key_jwt"
        : "client_secret_basic",
      ...(options.scope === undefined ? {} : { scope: options.scope }),
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
    token_endpoint_auth_method: options.clientSecret !== undefined
      ? "client_secret_basic"
      : "none",
    application_type: native ? "native" : "web",
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  } as OAuthClientMetadata;
}

/**
 * The scope a flow for `wanted` (a challenge's scope, a step-up's union)
 * asks when the client decides it alone: `wanted`, else the `scope`
 * option; `undefined` when the protected resource metadata decides (see
 * {@link supportedScope}).
 */
export function ownScope(
  wanted: string | undefined,
  option: string | undefined,
): string | undefined {
  if (wanted !== undefined && wanted !== "") return wanted;
  return option;
}

/** The scope the protected resource metadata's `scopes_supported` names, if any. */
export function supportedScope(
  supported: readonly string[] | undefined,
): string | undefined {
  return supported !== undefined && supported.length > 0
    ? supported.join(" ")
    : undefined;
}

/** The client credentials grant's token request for the scope asked. */
export function clientCredentialsParams(
  wanted: string | undefined,
): URLSearchParams {
  const params = new URLSearchParams({ grant_type: "client_credentials" });
  if (wanted !== undefined) params.set("scope", wanted);
  return params;
}

/** The pre-registered client `options` name (`clientId`, maybe a secret); `undefined` without one. */
export function preRegisteredClient(
  options: OAuthClientOptions,
): OAuthClientInformationMixed | undefined {
  const id = options.clientId;
  if (id === undefined) return undefined;
  return options.clientSecret === undefined
    ? { client_id: id }
    : { client_id: id, client_secret: options.clientSecret };
}

/** The key of this client's registration with `issuer`. */
export function clientKeyOf(
  options: OAuthClientOptions,
  issuer: string,
): string[] {
  const who = options.clientId ?? options.clientMetadataUrl ??
    `dcr:${options.redirectUrl ?? ""}`;
  return ["client", issuer, who];
}

/**
 * The key of the tokens of `principal` at `serverUrl`, from `issuer`, for
 * the client registered as `registered` (else the configured client id).
 */
export function tokensKeyOf(
  options: OAuthClientOptions,
  at: {
    readonly issuer: string;
    readonly registered: OAuthClientInformationMixed | undefined;
    readonly principal: string;
    readonly serverUrl: string;
  },
): string[] {
  const clientId = at.registered?.client_id ?? options.clientId ??
    options.clientMetadataUrl ?? "";
  return ["tokens", at.issuer, clientId, at.principal, at.serverUrl];
}
