/**
 * The authorization a client view runs, kept in one record between the
 * SDK's callbacks (`state()`, `saveCodeVerifier()`,
 * `redirectToAuthorization()`, `tokens()`), and the verdict on how the
 * SDK's `auth()` ended, as a pure function.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AuthorizationError } from "./authorization_error.ts";

/** The state of the authorization running on one client view. */
export interface Flow {
  /** The `state` of the authorization request. */
  state?: string;
  /** The PKCE verifier of the code exchange. */
  verifier?: string;
  /** The scope the flow asks (a challenge's, a step-up's union, the option). */
  scope?: string;
  /** The protected resource metadata URL a challenge named. */
  resourceMetadataUrl?: string;
  /** The URL the browser came back to, from the `authorize` hook. */
  callback?: URL;
  /** The authorization URL the user was sent to. */
  redirect?: URL;
  /** While a flow runs, `tokens()` answers nothing, so the SDK neither refreshes nor reuses. */
  hidden: boolean;
  /** The fetch of the flow running now (for the identity provider's exchange). */
  fetch?: FetchLike;
}

/** A view's flow before any authorization ran. */
export function idleFlow(): Flow {
  return { hidden: false };
}

/** Starts a new authorization on `flow`: what the last one left is forgotten. */
export function startFlow(
  flow: Flow,
  start: {
    readonly scope: string | undefined;
    readonly resourceMetadataUrl: URL | undefined;
    readonly fetchFn: FetchLike;
  },
): void {
  flow.hidden = true;
  flow.callback = undefined;
  flow.redirect = undefined;
  flow.scope = start.scope;
  flow.resourceMetadataUrl = start.resourceMetadataUrl?.href;
  flow.fetch = start.fetchFn;
}

/** Ends the SDK's part of an authorization: tokens are answered again. */
export function endFlow(flow: Flow): void {
  flow.hidden = false;
  flow.fetch = undefined;
}

/** How an authorization goes on once the SDK's `auth()` returned. */
export type FlowOutcome =
  /** Tokens are stored. */
  | { readonly kind: "authorized" }
  /** The `authorize` hook brought the browser back: finish from `callback`. */
  | { readonly kind: "finish"; readonly callback: URL }
  /** The user must authorize and nothing brought them back: `redirect-required`. */
  | { readonly kind: "refused"; readonly error: AuthorizationError };

/** The verdict on `auth()`'s `result` for the flow of the server at `serverUrl`. */
export function flowOutcome(
  result: "AUTHORIZED" | "REDIRECT",
  flow: Pick<Flow, "callback" | "redirect">,
  serverUrl: string,
): FlowOutcome {
  if (result === "AUTHORIZED") return { kind: "authorized" };
  if (flow.callback !== undefined) {
    return { kind: "finish", callback: flow.callback };
  }
  return {
    kind: "refused",
    error: new AuthorizationError(
      "redirect-required",
      `OAuth: ${serverUrl} needs the user to authorize at the authorization URL; send them there and finish with oauthCallback, or give oauthClient an authorize function`,
      { authorizationUrl: flow.redirect },
    ),
  };
}
