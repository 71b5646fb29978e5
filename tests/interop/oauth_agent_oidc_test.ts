/**
 * End to end, both halves of issue 19 against one real authorization
 * server: `oidc-provider` 9.13.3 on 127.0.0.1 issues JWT access tokens
 * (two seconds long) for weft's own resource server, `httpHandler` with
 * `auth: { resource, authorizationServers, verify: jwtVerifier(…) }`
 * checking them against the provider's JWKS, issuer and audience. A weft
 * `Agent` (a scripted model) calls the served `whoami` tool through
 * `importTools(await connectHttp(url, { auth: oauthClient(…) }))`, the
 * browser driven through the provider's login and consent pages.
 *
 * Proven here: the tool sees the provider's client id and the scopes
 * granted (`ctx.auth`), in both eras; after the token expires the next run
 * refreshes without `authorize`; a second client on a fresh KV handle
 * reuses the stored tokens; the resource server refuses the expired token
 * 401 with its pinned challenge; once the refresh token is revoked at the
 * provider, the next run must ask the user again.
 */

import assert from "node:assert/strict";
import { type MovableClock, movableClock } from "../_helpers/clock.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "./_oidc_provider.ts";
import {
  Agent,
  connectHttp,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  Server,
} from "../../mod.ts";
import { jwtVerifier } from "../../auth.ts";
import { callTools, say, script } from "../../testing.ts";
import {
  OAuthClient,
  oauthClient,
  type OAuthClientProvider,
} from "../../src/runtime/client/oauth_client.ts";
import { kvOAuthStore } from "../../src/runtime/client/oauth_store.ts";
import { browser } from "./_oidc_browser.ts";

const REDIRECT = "http://127.0.0.1:8977/callback";
const CLIENT_ID = "weft-desk";
const SCOPE = "mcp";
// Long: a token expires when the test moves the clock, never on its own.
const TOKEN_TTL = 300;

const whoami = rawTool({
  name: "whoami",
  description: "Names the caller.",
  run: (_args, ctx) =>
    JSON.stringify({
      clientId: ctx.auth?.clientId,
      scopes: ctx.auth?.scopes,
      resource: ctx.auth?.resource?.href,
    }),
});

function newServer(): Server {
  const server = new Server({ name: "desk", version: "1" });
  exportTools(server, whoami);
  return server;
}

interface Fixture extends AsyncDisposable {
  readonly issuer: string;
  readonly resource: string;
  /** Refresh tokens the provider consumed. */
  readonly refreshes: { consumed: number };
}

async function start(): Promise<Fixture> {
  // Both listeners first: each URL is in the other's configuration.
  const late: {
    provider?: Provider;
    handler?: (
      req: Request,
      info?: Deno.ServeHandlerInfo,
    ) => Promise<Response>;
  } = {};
  const as = createServer((req, res) => late.provider!.callback()(req, res));
  await new Promise<void>((resolve) =>
    as.listen(0, "127.0.0.1", () => resolve())
  );
  const issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
  const stop = new AbortController();
  const rs = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    (req, info) => late.handler!(req, info),
  );
  const resource = `http://127.0.0.1:${rs.addr.port}/mcp`;
  const refreshes = { consumed: 0 };
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      token_endpoint_auth_method: "none",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }],
    scopes: ["openid", "offline_access", SCOPE],
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id }),
    }),
    features: {
      devInteractions: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new Error("unknown resource");
          return {
            scope: SCOPE,
            audience: resource,
            accessTokenTTL: TOKEN_TTL,
            accessTokenFormat: "jwt",
          };
        },
      },
    },
    issueRefreshToken: () => true,
    rotateRefreshToken: true,
    pkce: { required: () => true },
  });
  late.provider = provider;
  provider.on("refresh_token.consumed", () => refreshes.consumed++);
  late.handler = httpHandler(newServer, {
    onerror: () => {},
    dnsRebindingProtection: false,
    auth: {
      resource,
      authorizationServers: [issuer],
      scopes: [SCOPE],
      verify: jwtVerifier({
        issuer,
        audience: resource,
        jwks: `${issuer}/jwks`,
        clockTolerance: 0,
      }),
    },
  });
  return {
    issuer,
    resource,
    refreshes,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await rs.finished;
      as.closeAllConnections();
      await new Promise((resolve) => as.close(resolve));
    },
  };
}

/** One agent run whose model calls `whoami`; answers what the tool said. */
async function askWhoami(
  url: string,
  auth: OAuthClientProvider,
  protocol: "legacy" | "modern",
): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(15_000);
  await using client = await connectHttp(url, { auth, protocol, signal });
  const { tools, skipped } = await importTools(client, { signal });
  assert.equal(skipped, undefined);
  assert.deepEqual(tools.map((t) => t.name), ["whoami"]);
  const model = script(
    callTools({ name: "whoami", args: {} }),
    say("done"),
  );
  const result = await new Agent(model, { tools }).generate("who am I?", {
    signal,
  });
  assert.equal(result.text, "done");
  const [answer] = result.steps[0].results;
  assert.equal(answer.isError, false, answer.content);
  return JSON.parse(answer.content);
}

/** Moves the test's clock past the access tokens' lifetime. */
const expired = (clock: MovableClock) => clock.advance((TOKEN_TTL + 1) * 1000);

Deno.test("an Agent's imported tools behind weft's resource server and oidc-provider: ctx.auth, refresh without the user, tokens shared through KV, expired and revoked tokens refused", async () => {
  using clock = movableClock();
  await using fx = await start();
  const dir = await Deno.makeTempDir();
  const path = `${dir}/oauth.kv`;
  const firstKv = await Deno.openKv(path);
  using _closeFirst = { [Symbol.dispose]: () => firstKv.close() };
  const user = browser(REDIRECT);
  const auth = oauthClient({
    clientId: CLIENT_ID,
    redirectUrl: REDIRECT,
    authorize: user.authorize,
    store: kvOAuthStore(firstKv),
  });
  const caller = {
    clientId: CLIENT_ID,
    scopes: [SCOPE],
    resource: fx.resource,
  };

  // First run: the user signs in once; the tool sees who called.
  assert.deepEqual(await askWhoami(fx.resource, auth, "modern"), caller);
  assert.equal(user.visits.length, 1);
  const asked = user.visits[0].searchParams;
  assert.equal(asked.get("resource"), fx.resource);
  assert.equal(asked.get("scope"), SCOPE);
  const view = (auth as OAuthClient).forServer(fx.resource);
  const first = (await view.tokens())!;
  assert.ok(first.refresh_token, "a refresh token was issued");

  // The expired token: weft's resource server refuses it, challenge pinned.
  expired(clock);
  const stale = await fetch(fx.resource, {
    method: "POST",
    headers: {
      authorization: `Bearer ${first.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: "{}",
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(stale.status, 401);
  assert.equal(
    stale.headers.get("www-authenticate"),
    `Bearer error="invalid_token", scope="${SCOPE}", resource_metadata="${new URL(
      "/.well-known/oauth-protected-resource/mcp",
      fx.resource,
    )}", error_description="the token expired"`,
  );
  await stale.body?.cancel();

  // The next run refreshes; the user is not asked (legacy era this time).
  assert.deepEqual(await askWhoami(fx.resource, auth, "legacy"), caller);
  assert.equal(user.visits.length, 1);
  assert.equal(fx.refreshes.consumed, 1);
  const second = (await view.tokens())!;
  assert.notEqual(second.access_token, first.access_token);

  // Another process: a fresh KV handle on the same file, no authorize.
  const otherKv = await Deno.openKv(path);
  using _closeOther = { [Symbol.dispose]: () => otherKv.close() };
  const again = oauthClient({
    clientId: CLIENT_ID,
    redirectUrl: REDIRECT,
    authorize: () => Promise.reject(new Error("must not ask the user")),
    store: kvOAuthStore(otherKv),
  });
  assert.deepEqual(await askWhoami(fx.resource, again, "modern"), caller);
  assert.equal(fx.refreshes.consumed, 1, "the stored token was reused");

  // The refresh token revoked at the provider: once the access token
  // expires, the refresh is refused and only the user can authorize again.
  const revoke = await fetch(`${fx.issuer}/token/revocation`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      token: second.refresh_token!,
      token_type_hint: "refresh_token",
      client_id: CLIENT_ID,
    }),
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(revoke.status, 200);
  await revoke.body?.cancel();
  expired(clock);
  await assert.rejects(
    askWhoami(fx.resource, again, "modern"),
    /must not ask the user/,
  );
  assert.deepEqual(await askWhoami(fx.resource, auth, "modern"), caller);
  assert.equal(user.visits.length, 2, "the user was asked again");
  assert.equal(fx.refreshes.consumed, 1);
});
