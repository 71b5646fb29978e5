/**
 * `oauthCallback`: the redirect endpoint of an app (Deno Deploy, say) whose
 * OAuth flow the user finishes in a browser, possibly on another instance
 * than the one that started it: the pending authorization is found by its
 * `state` in the client's store.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AuthorizationError } from "./authorization_error.ts";
import { OAuthClient } from "./oauth_client.ts";
import type { OAuthClientProvider } from "./options.ts";

/** Options of {@link oauthCallback}. */
export interface OAuthCallbackOptions {
  /** Where to send the browser once tokens are stored (a 303); default a short page. */
  readonly redirectTo?: string | URL;
  /** The fetch the code exchange uses; `globalThis.fetch` when absent. */
  readonly fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * A `Request → Response` handler for the OAuth redirect URL: checks
 * `state` (one use, unexpired), `iss` and `error`, exchanges the code and
 * stores the tokens where `client` keeps them, so the next call of the
 * agent goes through. A refused or stale callback answers 400 with the
 * reason; a failed exchange answers 502.
 *
 * @example A Deno Deploy app finishing the flow
 * ```ts ignore
 * import { kvOAuthStore, oauthCallback, oauthClient } from "@weft/mcp/auth";
 * const auth = oauthClient({
 *   redirectUrl: "https://app.example.com/oauth/callback",
 *   // Deno KV is unstable: run with --unstable-kv, or "unstable": ["kv"] in deno.json.
 *   store: kvOAuthStore(await Deno.openKv()),
 * });
 * const callback = oauthCallback(auth, { redirectTo: "/" });
 * Deno.serve((request) =>
 *   new URL(request.url).pathname === "/oauth/callback"
 *     ? callback(request)
 *     : new Response("not found", { status: 404 })
 * );
 * ```
 */
export function oauthCallback(
  client: OAuthClientProvider,
  options: OAuthCallbackOptions = {},
): (request: Request) => Promise<Response> {
  if (!(client instanceof OAuthClient)) {
    throw new TypeError(
      "oauthCallback: the client must be one oauthClient() made (it keeps the pending authorizations)",
    );
  }
  const fetchFn: FetchLike = options.fetch ??
    ((input, init) => fetch(input, init));
  return async (request) => {
    try {
      await client.finish(new URL(request.url), fetchFn);
    } catch (error) {
      if (error instanceof AuthorizationError) {
        return new Response(error.message, {
          status: 400,
          headers: { "content-type": "text/plain; charset=utf-8" },
        });
      }
      return new Response(
        `OAuth: the code exchange failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
        {
          status: 502,
          headers: { "content-type": "text/plain; charset=utf-8" },
        },
      );
    }
    if (options.redirectTo !== undefined) {
      return new Response(null, {
        status: 303,
        headers: { location: new URL(options.redirectTo, request.url).href },
      });
    }
    return new Response(
      "<!doctype html><title>Authorized</title><p>Authorized. You can close this window.</p>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  };
}
