/**
 * The guarded refresh: only the process whose swap on the token entry won
 * posts the refresh token; the others wait for its result. Each step is
 * judged by `refreshStep` (pure, over a clock reading); this module does
 * the store's reads and swaps between the judgments.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthStore } from "./oauth_store.ts";
import {
  type Clock,
  leaseReleased,
  recordOf,
  refreshedTokens,
  refreshStep,
  refusedGrant,
  type TokenRecord,
} from "./_tokens.ts";

/** How often a process waiting for another's refresh reads the entry again. */
const POLL_MS = 25;

/** What the guarded refresh needs from the client. */
export interface RefreshOptions {
  /** The access token the caller found stale, if any. */
  readonly seen?: string;
  /** Where the time is read. */
  readonly clock: Clock;
  /**
   * The exchange of a refresh token for new tokens at the authorization
   * server, or `undefined` when the client cannot make one (discovery or
   * registration missing).
   */
  readonly exchanger: () => Promise<
    ((refreshToken: string) => Promise<OAuthTokens>) | undefined
  >;
  /** Waits between reads of an entry another process holds; a timer by default. */
  readonly pause?: (ms: number) => Promise<void>;
}

/**
 * Refreshes the tokens stored under `key`. `true` when the store now holds
 * fresh tokens (refreshed here or elsewhere); `false` when there is
 * nothing to refresh with, the client cannot, or the authorization server
 * refused the refresh token (the entry is then deleted: authorize again).
 * Another failure restores the entry and is thrown.
 */
export async function refreshGuarded(
  store: OAuthStore,
  key: readonly string[],
  options: RefreshOptions,
): Promise<boolean> {
  const { clock } = options;
  for (let attempt = 0; attempt < 3; attempt++) {
    const entry = await store.get(key);
    const record = entry?.value as TokenRecord | undefined;
    const step = refreshStep(record, options.seen, clock.now());
    if (step.kind === "nothing") return false;
    if (step.kind === "replaced") return true;
    if (step.kind === "wait") {
      const held = { key, version: entry!.version, until: step.until };
      if (await awaitRelease(store, held, options)) {
        return true;
      }
      continue;
    }
    if (!(await store.swap(key, entry!.version, step.leased))) continue;
    const exchange = await options.exchanger();
    if (exchange === undefined) {
      await store.set(key, step.record);
      return false;
    }
    try {
      const fresh = await exchange(step.refreshToken);
      await store.set(
        key,
        recordOf(
          refreshedTokens(fresh, step.record.tokens, step.refreshToken),
          clock.now(),
        ),
      );
      return true;
    } catch (error) {
      if (refusedGrant(error)) {
        // The refresh token is spent or revoked: authorize again.
        await store.delete(key);
        return false;
      }
      await store.set(key, step.record);
      throw error;
    }
  }
  return false;
}

/**
 * Waits, until the clock reaches `until`, for the refresh holding the
 * lease on the entry read at `version` to finish: `true` when it did,
 * `false` when the entry went or the lease lapsed.
 */
async function awaitRelease(
  store: OAuthStore,
  held: {
    readonly key: readonly string[];
    readonly version: string;
    readonly until: number;
  },
  options: RefreshOptions,
): Promise<boolean> {
  const { key, version, until } = held;
  const pause = options.pause ??
    ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  while (options.clock.now() < until) {
    await pause(POLL_MS);
    const entry = await store.get(key);
    if (entry === undefined) return false;
    if (leaseReleased(version, entry)) return true;
  }
  return false;
}
