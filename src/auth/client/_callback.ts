/**
 * Judging an authorization code flow's callback, as pure functions: the
 * pending authorization kept by its `state` (one use, unexpired), the
 * `error` the authorization server answered, the `iss` of RFC 9207, the
 * `code`; and the issuer a discovered metadata document names (RFC 8414
 * 3.3). Each answers a verdict; the client does the store's swap and the
 * exchange.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { AuthorizationError } from "./authorization_error.ts";

/** How long a pending authorization (state and PKCE verifier) is kept. */
export const PENDING_TTL = 10 * 60_000;

/** What is stored for an authorization in progress, by its `state`. */
export interface PendingRecord {
  serverUrl: string;
  principal: string;
  verifier: string;
  scope?: string;
  resourceMetadataUrl?: string;
  expires: number;
}

/** The pending record of a flow started at `now`, kept {@link PENDING_TTL}. */
export function pendingRecordOf(
  flow: {
    readonly serverUrl: string;
    readonly principal: string;
    readonly verifier: string;
    readonly scope?: string | undefined;
    readonly resourceMetadataUrl?: string | undefined;
  },
  now: number,
): PendingRecord {
  return {
    serverUrl: flow.serverUrl,
    principal: flow.principal,
    verifier: flow.verifier,
    expires: now + PENDING_TTL,
    ...(flow.scope === undefined ? {} : { scope: flow.scope }),
    ...(flow.resourceMetadataUrl === undefined
      ? {}
      : { resourceMetadataUrl: flow.resourceMetadataUrl }),
  };
}

/** The refusal of a callback whose `state` matches no pending authorization. */
export function stateMismatch(): AuthorizationError {
  return new AuthorizationError(
    "state-mismatch",
    "OAuth: the callback's state matches no pending authorization (expired, used, or not ours); start the authorization again",
  );
}

/** The refusal of a code exchange without the PKCE verifier. */
export function noVerifier(): AuthorizationError {
  return new AuthorizationError(
    "state-mismatch",
    "OAuth: no PKCE verifier for this authorization (it expired or was used); start the authorization again",
  );
}

/** The `denied` refusal of a callback carrying an `error`; `undefined` without one. */
export function callbackDenial(
  params: URLSearchParams,
): AuthorizationError | undefined {
  const error = params.get("error");
  if (error === null) return undefined;
  const description = params.get("error_description");
  return new AuthorizationError(
    "denied",
    `OAuth: the authorization server refused: ${error}${
      description === null ? "" : ` (${description})`
    }`,
  );
}

/**
 * The pending authorization a stored `value` holds at `now`, or
 * `undefined` when there is none to finish (absent, used, malformed or
 * expired): the callback is then refused with {@link stateMismatch}.
 */
export function livePending(
  value: unknown,
  now: number,
): PendingRecord | undefined {
  const pending = value as PendingRecord | null | undefined;
  if (typeof pending?.verifier !== "string") return undefined;
  if (pending.expires <= now) return undefined;
  return pending;
}

/** The verdict on a callback's `iss` and `code`. */
export type CallbackVerdict =
  | { readonly kind: "exchange"; readonly code: string }
  | { readonly kind: "refused"; readonly error: AuthorizationError };

/**
 * Whether the code of a callback may be exchanged, given the discovery
 * state the flow started with: `iss`, when present or required by the
 * metadata, must be the flow's issuer (RFC 9207: a mix-up otherwise); a
 * `code` must be present.
 */
export function callbackVerdict(
  params: URLSearchParams,
  discovery: OAuthDiscoveryState | undefined,
): CallbackVerdict {
  const issuer = discovery?.authorizationServerMetadata?.issuer;
  const iss = params.get("iss");
  const metadata = discovery?.authorizationServerMetadata as
    | Record<string, unknown>
    | undefined;
  const required =
    metadata?.["authorization_response_iss_parameter_supported"] === true;
  if ((iss !== null || required) && iss !== issuer) {
    return {
      kind: "refused",
      error: new AuthorizationError(
        "issuer-mismatch",
        `OAuth: the callback names issuer ${
          JSON.stringify(iss)
        }, the flow started with ${
          JSON.stringify(issuer)
        } (RFC 9207: a mix-up); start the authorization again`,
      ),
    };
  }
  const code = params.get("code");
  if (code === null) {
    return {
      kind: "refused",
      error: new AuthorizationError(
        "denied",
        "OAuth: the callback carries no code",
      ),
    };
  }
  return { kind: "exchange", code };
}

/**
 * The refusal of discovered metadata whose issuer is not the URL it was
 * found under (RFC 8414 3.3: not this server's to trust); `undefined` when
 * it is, or on the 2025-03-26 fallback, where no resource metadata named
 * the authorization server and the MCP server's origin stood in for it.
 */
export function discoveredIssuerRefusal(
  state: OAuthDiscoveryState,
): AuthorizationError | undefined {
  const issuer = state.authorizationServerMetadata?.issuer;
  if (
    issuer === undefined || state.resourceMetadata === undefined ||
    withoutSlash(issuer) === withoutSlash(state.authorizationServerUrl)
  ) return undefined;
  return new AuthorizationError(
    "issuer-mismatch",
    `OAuth: the authorization server metadata found for ${state.authorizationServerUrl} names issuer ${
      JSON.stringify(issuer)
    } (RFC 8414 requires the same); refusing it`,
  );
}

/** A fresh `state`: 32 random bytes, base64url. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replaceAll("=", "");
}

function withoutSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
