/**
 * Judging stored tokens, as pure functions over a clock reading: what a
 * token answer is stored as (and from when it is refreshed before use),
 * whether it is due, what one step of the guarded refresh does next, and
 * whether a failed refresh was the authorization server refusing the
 * refresh token. The OAuth client reads the time from a {@link Clock} it
 * is given, and hands the reading to these functions.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** Where the OAuth client reads the time: epoch milliseconds. */
export interface Clock {
  /** The time now, in epoch milliseconds. */
  now(): number;
}

/** The clock of the machine. */
export const systemClock: Clock = { now: () => Date.now() };

/** Tokens this close to expiry are refreshed before use (a tenth of a short lifetime). */
export const EXPIRY_MARGIN = 30_000;
/** How long a refresh may hold its lease before another process may try. */
export const REFRESH_LEASE = 30_000;

/** The tokens as stored, with the issuer they came from. */
export type StoredTokens = OAuthTokens & { issuer?: string };

/** What is stored for a token set. */
export interface TokenRecord {
  tokens: StoredTokens;
  /** Epoch milliseconds from which the access token is refreshed before use, when its lifetime is known. */
  refreshAt?: number;
  /** Epoch milliseconds until which a refresh is in progress elsewhere. */
  lease?: number;
}

/**
 * The record of a token answer received at `now`: refreshed before use
 * from its expiry less a margin (a tenth of a short lifetime, at most
 * {@link EXPIRY_MARGIN} of a long one); never when its lifetime is
 * unknown.
 */
export function recordOf(tokens: StoredTokens, now: number): TokenRecord {
  if (tokens.expires_in === undefined) return { tokens };
  const lifetime = tokens.expires_in * 1000;
  const margin = Math.min(EXPIRY_MARGIN, lifetime / 10);
  return { tokens, refreshAt: now + lifetime - margin };
}

/** Whether the record's access token is refreshed before it is sent at `now`. */
export function refreshDue(record: TokenRecord, now: number): boolean {
  return record.refreshAt !== undefined && record.refreshAt <= now &&
    record.tokens.refresh_token !== undefined;
}

/** A token answer as stored: one without `scope` grants what was asked (RFC 6749 5.1). */
export function withAskedScope(
  tokens: OAuthTokens,
  asked: string | undefined,
): OAuthTokens {
  return tokens.scope === undefined && asked !== undefined
    ? { ...tokens, scope: asked }
    : tokens;
}

/**
 * A refresh answer as stored: the refresh token kept when none came back,
 * the grant's scope kept when the answer names none (RFC 6749 6), the
 * issuer of the tokens it replaces.
 */
export function refreshedTokens(
  fresh: OAuthTokens,
  previous: StoredTokens,
  refreshToken: string,
): StoredTokens {
  return {
    ...fresh,
    refresh_token: fresh.refresh_token ?? refreshToken,
    ...(fresh.scope === undefined && previous.scope !== undefined
      ? { scope: previous.scope }
      : {}),
    issuer: previous.issuer,
  };
}

/** The scopes of stored tokens, as granted (or as asked). */
export function scopesOf(tokens: OAuthTokens | undefined): string[] {
  const scope = tokens?.scope;
  return scope === undefined ? [] : scope.split(" ").filter(Boolean);
}

/** What one attempt of the guarded refresh does, given the record it read. */
export type RefreshStep =
  /** No token, or no refresh token: nothing to refresh with. */
  | { readonly kind: "nothing" }
  /** The store holds another access token than the one found stale: a refresh elsewhere replaced it. */
  | { readonly kind: "replaced" }
  /** Another process holds the refresh lease until `until`: wait for its result. */
  | { readonly kind: "wait"; readonly until: number }
  /**
   * Take the lease (swap `leased` in for `record`) and post
   * `refreshToken`; `record` is put back if the refresh cannot be made.
   */
  | {
    readonly kind: "lease";
    readonly record: TokenRecord;
    readonly refreshToken: string;
    readonly leased: TokenRecord;
  };

/**
 * The next step of a refresh at `now`, for the stored `record` (absent:
 * none stored) and the access token `seen` stale by the caller, if any.
 */
export function refreshStep(
  record: TokenRecord | undefined,
  seen: string | undefined,
  now: number,
): RefreshStep {
  const refreshToken = record?.tokens.refresh_token;
  if (record === undefined || !refreshToken) return { kind: "nothing" };
  if (seen !== undefined && record.tokens.access_token !== seen) {
    return { kind: "replaced" };
  }
  if (record.lease !== undefined && record.lease > now) {
    return { kind: "wait", until: record.lease };
  }
  return {
    kind: "lease",
    record,
    refreshToken,
    leased: { ...record, lease: now + REFRESH_LEASE },
  };
}

/**
 * Whether the refresh that held the lease on the entry read at `version`
 * has finished: the entry changed and holds no lease.
 */
export function leaseReleased(
  version: string,
  current: { readonly version: string; readonly value: unknown },
): boolean {
  return current.version !== version &&
    (current.value as TokenRecord).lease === undefined;
}

/**
 * Whether a failed refresh was the authorization server refusing the
 * refresh token (an OAuth error answer other than a server-side one): the
 * SDK's `OAuthError` carries its `errorCode`. Its class is not imported:
 * it lives in the SDK's server half, which the HTTP clients never load.
 */
export function refusedGrant(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errorCode?: unknown }).errorCode;
  return typeof code === "string" && code !== "server_error" &&
    code !== "temporarily_unavailable";
}
