/**
 * The example server on Deno Deploy (or `deno serve`). Two ways to run it:
 *
 * - Stateless (the default), with `reuseServers: false`: a fresh
 *   `newServer()` per request, so any instance can answer any request and
 *   the single-use scripted agent is new every time.
 * - Sessions in Deno KV (`MCP_SESSIONS=kv`): `Mcp-Session-Id`, resumable
 *   streams and DELETE, with the sessions in `Deno.openKv()` — a local file
 *   here, the database every isolate shares on Deno Deploy — so any
 *   instance serves any session.
 *
 *     deno serve -A examples/deploy.ts                            # stateless
 *     MCP_SESSIONS=kv deno serve -A --unstable-kv examples/deploy.ts
 *
 * With OAuth on (`MCP_AUTH_ISSUER` set): the endpoint is a resource server
 * for that authorization server — the metadata document at
 * `/.well-known/oauth-protected-resource/mcp`, a bearer token (a JWT access
 * token issued for `MCP_RESOURCE`, checked against the issuer's JWKS) on
 * every request, the caller in each tool's `ctx.auth` (see docs/auth.md):
 *
 *     MCP_AUTH_ISSUER=https://auth.example.com \
 *     MCP_RESOURCE=https://weft-example.deno.dev/mcp \
 *     deno serve -A examples/deploy.ts
 *
 * `MCP_AUTH_JWKS` names the JWKS URL when it is not `<issuer>/jwks`.
 *
 * The handler is the module's default export as it is: `deno serve` then
 * tells it when it listens, and it closes its sessions and open streams on
 * SIGTERM, so a stop exits at once.
 *
 * Every path serves MCP. The handler's DNS-rebinding rule refuses a
 * non-loopback Origin header unless `allowedOrigins` names it; MCP clients
 * outside a browser send none.
 *
 * @module
 */

import { httpHandler } from "../mod.ts";
import { jwtVerifier } from "../auth.ts";
import type { HttpHandler, HttpHandlerOptions } from "../runtime.ts";
import type { DenoKvLike } from "../store.ts";
import type { JsonWebKeySet } from "../auth.ts";
import { newServer } from "./server.ts";

/** The session-mode handler with its sessions in `kv`. */
export function kvSessions(
  kv: DenoKvLike,
  options: HttpHandlerOptions = {},
): HttpHandler {
  // The Deno.Kv itself: taken as denoKvStore(kv), never closed for us.
  return httpHandler(newServer, { ...options, sessions: true, store: kv });
}

/** Where the OAuth settings come from: the environment on Deploy, a test's values here. */
export interface AuthSettings {
  /** The authorization server's issuer URL. */
  issuer: string;
  /** This endpoint's public URL: tokens must be issued for it. */
  resource: string;
  /** The issuer's keys: its JWKS URL (default `<issuer>/jwks`) or the set. */
  jwks?: string | JsonWebKeySet;
}

/** The `auth` option for `settings`: JWT access tokens with the `mcp` scope. */
export function authOptions(settings: AuthSettings): HttpHandlerOptions {
  return {
    auth: {
      resource: settings.resource,
      authorizationServers: [settings.issuer],
      scopes: ["mcp"],
      verify: jwtVerifier({
        issuer: settings.issuer,
        audience: settings.resource,
        jwks: settings.jwks ?? `${settings.issuer.replace(/\/$/, "")}/jwks`,
      }),
    },
  };
}

/** The OAuth settings in the environment; absent when `MCP_AUTH_ISSUER` is not set. */
function authFromEnv(): HttpHandlerOptions {
  const issuer = Deno.env.get("MCP_AUTH_ISSUER");
  if (issuer === undefined) return {};
  const resource = Deno.env.get("MCP_RESOURCE");
  if (resource === undefined) {
    throw new Error(
      "examples/deploy.ts: MCP_AUTH_ISSUER is set but MCP_RESOURCE is not; set it to this endpoint's public URL (https://<app>.deno.dev/mcp)",
    );
  }
  return authOptions({
    issuer,
    resource,
    jwks: Deno.env.get("MCP_AUTH_JWKS"),
  });
}

/** What Deno Deploy and `deno serve` call. */
const app: HttpHandler = Deno.env.get("MCP_SESSIONS") === "kv"
  ? kvSessions(await Deno.openKv(), authFromEnv())
  // The example's scripted model answers once: a fresh server per request.
  : httpHandler(newServer, { reuseServers: false, ...authFromEnv() });

export default app satisfies Deno.ServeDefaultExport;
