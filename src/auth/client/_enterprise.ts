/**
 * Enterprise-managed authorization (SEP-990, cross-app access): the user's
 * ID token is exchanged at the enterprise identity provider (RFC 8693) for
 * an ID-JAG whose audience is the MCP server's authorization server and
 * whose resource is the MCP server; the ID-JAG is then presented there as
 * a JWT bearer grant (RFC 7523). The request and the verdict on the
 * answer are pure; {@link jwtBearerGrant} sends one between them.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AuthorizationError } from "./authorization_error.ts";
import { JWT_BEARER } from "./_grant.ts";
import type { OAuthClientOptions } from "./options.ts";

/** RFC 8693 token exchange, and the token types of SEP-990. */
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

/** The `enterprise` option of `oauthClient`. */
export type Enterprise = NonNullable<OAuthClientOptions["enterprise"]>;

/** What one exchange is for. */
export interface ExchangeTarget {
  /** The authorization server's issuer (the ID-JAG's audience). */
  readonly audience: string;
  /** The MCP server (the ID-JAG's resource). */
  readonly resource: string;
  /** The scope asked, if any. */
  readonly scope: string | undefined;
}

/** The token exchange request sent to the identity provider for `idToken`. */
export function idpExchangeRequest(
  enterprise: Enterprise,
  target: ExchangeTarget & { readonly idToken: string },
): { readonly endpoint: URL; readonly init: RequestInit } {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    audience: target.audience,
    resource: target.resource,
    subject_token: target.idToken,
    subject_token_type: ID_TOKEN,
  });
  if (target.scope !== undefined && target.scope !== "") {
    body.set("scope", target.scope);
  }
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
  return {
    endpoint: new URL(enterprise.idpTokenEndpoint),
    init: { method: "POST", headers, body },
  };
}

/** The verdict on the identity provider's answer. */
export type IdJagVerdict =
  | { readonly kind: "assertion"; readonly assertion: string }
  | { readonly kind: "refused"; readonly error: AuthorizationError };

/**
 * Whether the identity provider's answer (`status`, its JSON `answer` if
 * it parsed) carries an ID-JAG; else the `idp-refused` error naming the
 * identity provider at `endpoint`, the audience and the reason.
 */
export function idJagVerdict(
  status: number,
  answer: Record<string, unknown> | undefined,
  at: { readonly endpoint: URL; readonly audience: string },
): IdJagVerdict {
  const assertion = answer?.["access_token"];
  const ok = status >= 200 && status < 300;
  if (
    ok && typeof assertion === "string" &&
    answer?.["issued_token_type"] === ID_JAG
  ) {
    return { kind: "assertion", assertion };
  }
  const error = typeof answer?.["error"] === "string"
    ? `${answer["error"]}${
      typeof answer["error_description"] === "string"
        ? ` (${answer["error_description"]})`
        : ""
    }`
    : `HTTP ${status} without an ID-JAG`;
  return {
    kind: "refused",
    error: new AuthorizationError(
      "idp-refused",
      `OAuth: the identity provider at ${at.endpoint.href} refused to exchange the ID token for an ID-JAG for ${at.audience}: ${error}; check the ID token (expired?) and that the IdP trusts this client for that authorization server`,
    ),
  };
}

/** The JWT bearer grant's token request presenting `assertion`. */
export function jwtBearerParams(
  assertion: string,
  scope: string | undefined,
): URLSearchParams {
  const grant = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
  if (scope !== undefined && scope !== "") grant.set("scope", scope);
  return grant;
}

/**
 * Exchanges the user's ID token at the identity provider for an ID-JAG
 * for `target`, and answers the JWT bearer grant presenting it (the SDK
 * adds the `resource` and this client's authentication).
 */
export async function jwtBearerGrant(
  enterprise: Enterprise,
  target: ExchangeTarget,
  fetchFn: FetchLike,
): Promise<URLSearchParams> {
  const idToken = typeof enterprise.idToken === "string"
    ? enterprise.idToken
    : await enterprise.idToken();
  const { endpoint, init } = idpExchangeRequest(enterprise, {
    ...target,
    idToken,
  });
  const response = await fetchFn(endpoint, init);
  // A body that is not JSON is judged as an answer without an ID-JAG.
  const answer = await response.json().catch(() =>
    // Nothing lost: a body that is not JSON is judged as no ID-JAG below.
    undefined
  ) as
    | Record<string, unknown>
    | undefined;
  const verdict = idJagVerdict(response.status, answer, {
    endpoint,
    audience: target.audience,
  });
  if (verdict.kind === "refused") throw verdict.error;
  return jwtBearerParams(verdict.assertion, target.scope);
}
