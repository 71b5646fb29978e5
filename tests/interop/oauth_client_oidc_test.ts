/**
 * `oauthClient` against a real authorization server: `oidc-provider`
 * 9.13.3 on 127.0.0.1, issuing JWT access tokens (two seconds long) for a
 * small MCP resource whose bearer check (test-local: `jose` against the
 * provider's JWKS, issuer and audience) guards a weft `httpHandler`.
 * The browser is a function: it follows the authorization URL through the
 * provider's dev interactions (login, consent) with a cookie jar and
 * `redirect: "manual"`, and answers the URL it was sent back to.
 *
 * Proven here: authorization code + PKCE with the `resource` parameter and
 * the `iss` check; the token's audience is the resource; refresh after
 * expiry without `authorize`; a second client on a fresh KV handle reuses
 * the stored tokens; two clients refreshing at once (rotating refresh
 * tokens, reuse detection on) spend the refresh token once; a callback
 * with a foreign `state` or a wrong `iss` is refused.
 */

import assert from "node:assert/strict";
import { createServer, type Server as NodeServer } from "node:http";
import Provider from "./_oidc_provider.ts";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { connectHttp, httpHandler } from "../../mod.ts";
import {
  AuthorizationError,
  OAuthClient,
  oauthClient,
} from "../../src/auth/client/oauth_client.ts";
import { kvOAuthStore } from "../../src/auth/client/oauth_store.ts";
import { oauthCallback } from "../../src/auth/client/oauth_callback.ts";
import { runCli } from "../../cli.ts";
import { browser as oidcBrowser } from "./_oidc_browser.ts";
import { movableClock } from "../_helpers/clock.ts";

/** The user at oidc-provider's dev pages, coming back to {@link REDIRECT}. */
const browser = (
  redirect = REDIRECT,
): ReturnType<typeof oidcBrowser> => oidcBrowser(redirect);

const REDIRECT = "http://127.0.0.1:8976/callback";
const CLIENT_ID = "weft-agent";
const SCOPE = "mcp:read";
// Long: a token expires when the test moves the clock, never on its own.
const TOKEN_TTL = 300;

interface Fixture extends AsyncDisposable {
  readonly issuer: string;
  readonly mcpUrl: string;
  /** The verified tokens the resource accepted, in order. */
  readonly accepted: JWTPayload[];
  /** Refresh tokens consumed, and refresh grants refused (reuse). */
  readonly refreshes: { consumed: number; refused: number };
}

async function listen(server: NodeServer): Promise<number> {
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("no port");
  }
  return address.port;
}

async function start(): Promise<Fixture> {
  const asServer = createServer();
  const port = await listen(asServer);
  const issuer = `http://127.0.0.1:${port}`;
  const closer = new AbortController();
  let mcpUrl = "";
  const refreshes = { consumed: 0, refused: 0 };
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
      // Dynamic registration, for `weft-mcp login` (no client id given).
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== mcpUrl) throw new Error("unknown resource");
          return {
            scope: SCOPE,
            audience: mcpUrl,
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
  provider.on("refresh_token.consumed", () => refreshes.consumed++);
  provider.on("grant.error", (_ctx: unknown, error: { message?: string }) => {
    if (String(error?.message).includes("grant")) refreshes.refused++;
  });
  asServer.on("request", provider.callback());

  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const accepted: JWTPayload[] = [];
  const mcp = httpHandler(() => {
    const server = new McpServer({ name: "resource", version: "1.0.0" });
    server.registerTool(
      "ping",
      { description: "answers pong" },
      () => ({ content: [{ type: "text", text: "pong" }] }),
    );
    return server.server;
  });
  const http = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closer.signal,
    onListen: () => {},
  }, async (request, info) => {
    const url = new URL(request.url);
    const metadata = `${url.origin}/.well-known/oauth-protected-resource/mcp`;
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return Response.json({
        resource: mcpUrl,
        authorization_servers: [issuer],
        scopes_supported: [SCOPE],
      });
    }
    const token = request.headers.get("authorization")?.match(
      /^Bearer (.+)$/,
    )?.[1];
    try {
      if (token === undefined) throw new Error("no token");
      const { payload } = await jwtVerify(token, jwks, {
        issuer,
        audience: mcpUrl,
      });
      accepted.push(payload);
    } catch {
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            `Bearer resource_metadata="${metadata}", scope="${SCOPE}"`,
        },
      });
    }
    return await mcp(request, info);
  });
  mcpUrl = `http://127.0.0.1:${http.addr.port}/mcp`;
  return {
    issuer,
    mcpUrl,
    accepted,
    refreshes,
    async [Symbol.asyncDispose]() {
      closer.abort();
      await http.finished;
      asServer.closeAllConnections();
      await new Promise((resolve) => asServer.close(resolve));
    },
  };
}

async function ping(
  url: string,
  auth: ReturnType<typeof oauthClient>,
): Promise<string> {
  await using client = await connectHttp(url, {
    auth,
    signal: AbortSignal.timeout(10_000),
  });
  const result = await client.callTool({ name: "ping", arguments: {} });
  const [item] = result.content as { type: string; text: string }[];
  return item.text;
}

async function tempKv(): Promise<
  { path: string; open: () => Promise<Deno.Kv> }
> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/oauth.kv`;
  return { path, open: () => Deno.openKv(path) };
}

Deno.test("oauthClient against oidc-provider: code + PKCE, refresh without the user, tokens shared through KV, one refresh for two racers", async () => {
  using clock = movableClock();
  await using fx = await start();
  const kv = await tempKv();
  const user = browser();
  const first = await kv.open();
  try {
    const auth = oauthClient({
      clientId: CLIENT_ID,
      redirectUrl: REDIRECT,
      authorize: user.authorize,
      store: kvOAuthStore(first),
    });
    assert.equal(await ping(fx.mcpUrl, auth), "pong");
    assert.equal(user.visits.length, 1);
    const asked = user.visits[0].searchParams;
    assert.equal(asked.get("code_challenge_method"), "S256");
    assert.equal(asked.get("resource"), fx.mcpUrl);
    assert.equal(asked.get("scope"), SCOPE);
    const token = fx.accepted.at(-1)!;
    assert.equal(token.aud, fx.mcpUrl);
    assert.equal(token.client_id, CLIENT_ID);
    assert.equal(token.scope, SCOPE);
    assert.equal(token.sub, "alice");

    // Expired: the next connection refreshes, the user is not asked.
    clock.advance((TOKEN_TTL + 1) * 1000);
    assert.equal(await ping(fx.mcpUrl, auth), "pong");
    assert.equal(user.visits.length, 1);
    assert.equal(fx.refreshes.consumed, 1);
    assert.notEqual(fx.accepted.at(-1)!.jti, token.jti);

    // Another process: a fresh KV handle on the same file, no authorize.
    const second = await kv.open();
    try {
      const again = oauthClient({
        clientId: CLIENT_ID,
        redirectUrl: REDIRECT,
        authorize: () => Promise.reject(new Error("must not ask the user")),
        store: kvOAuthStore(second),
      });
      assert.equal(await ping(fx.mcpUrl, again), "pong");

      // Two processes find the token expired at once: one refresh is spent
      // (oidc-provider revokes the grant on a reused refresh token, so a
      // second spend would also break the next call).
      clock.advance((TOKEN_TTL + 1) * 1000);
      const a = (auth as OAuthClient).forServer(fx.mcpUrl);
      const b = (again as OAuthClient).forServer(fx.mcpUrl);
      // Both found the same token stale (as a request's bearer would).
      const stale = (await a.tokens())?.access_token;
      assert.equal((await b.tokens())?.access_token, stale);
      const [ra, rb] = await Promise.all([
        a.refresh(fetch, stale),
        b.refresh(fetch, stale),
      ]);
      assert.deepEqual([ra, rb], [true, true]);
      assert.equal(fx.refreshes.consumed, 2);
      assert.equal(fx.refreshes.refused, 0);
      assert.equal(await ping(fx.mcpUrl, again), "pong");
      assert.equal(await ping(fx.mcpUrl, auth), "pong");
      assert.equal(user.visits.length, 1);
    } finally {
      second.close();
    }
  } finally {
    first.close();
  }
});

Deno.test("oauthClient against oidc-provider: without authorize the call fails with the URL; oauthCallback finishes it; a replayed or foreign callback is refused", async () => {
  await using fx = await start();
  const kv = await tempKv();
  const handle = await kv.open();
  using _closeKv = { [Symbol.dispose]: () => handle.close() };
  const store = kvOAuthStore(handle);
  const app = oauthClient({
    clientId: CLIENT_ID,
    redirectUrl: REDIRECT,
    store,
  });
  const error = await ping(fx.mcpUrl, app).then(
    () => assert.fail("connected without a token"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "redirect-required");
  assert.ok(error.authorizationUrl !== undefined);
  const back = await browser().authorize(error.authorizationUrl);
  assert.equal(back.searchParams.get("iss"), fx.issuer);

  // Another instance of the app (its own KV handle) gets the redirect.
  const otherKv = await kv.open();
  try {
    const other = oauthClient({
      clientId: CLIENT_ID,
      redirectUrl: REDIRECT,
      store: kvOAuthStore(otherKv),
    });
    const callback = oauthCallback(other, { redirectTo: "/done" });
    const wrongState = new URL(back);
    wrongState.searchParams.set("state", "not-ours");
    const refused = await callback(new Request(wrongState));
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /state matches no pending/);
    const done = await callback(new Request(back));
    assert.equal(done.status, 303, await done.text());
    assert.equal(done.headers.get("location"), "http://127.0.0.1:8976/done");
    const replay = await callback(new Request(back));
    assert.equal(replay.status, 400);
  } finally {
    otherKv.close();
  }
  // The first instance now has tokens: no user, no error.
  assert.equal(await ping(fx.mcpUrl, app), "pong");
});

Deno.test("weft-mcp login against oidc-provider: prints the URL, takes the redirect on loopback, stores the tokens where an agent finds them", async () => {
  await using fx = await start();
  const dir = await Deno.makeTempDir();
  const config = `${dir}/servers.json`;
  const kvPath = `${dir}/tokens.kv`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({ mcpServers: { docs: { url: fx.mcpUrl, auth: "oauth" } } }),
  );
  // A free loopback port for the redirect.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const redirect = `http://127.0.0.1:${port}/callback`;
  const user = browser(redirect);
  const out: string[] = [];
  const err: string[] = [];
  let visited: Promise<void> | undefined;
  const code = await runCli(
    [
      "login",
      "--config",
      config,
      "--kv",
      kvPath,
      "--port",
      String(port),
      "docs",
    ],
    {
      output: {
        stdout: (text) => {
          out.push(text);
          const url = text.match(/https?:\/\/\S+/)?.[0];
          if (url !== undefined && visited === undefined) {
            // The user opens the printed URL; the browser lands on the
            // CLI's loopback listener.
            visited = user.authorize(new URL(url)).then(async (back) => {
              const landed = await fetch(back);
              assert.equal(landed.status, 200);
              await landed.body?.cancel();
            });
          }
        },
        stderr: (text) => err.push(text),
      },
      signal: AbortSignal.timeout(20_000),
    },
  );
  await visited;
  assert.equal(code, 0, err.join(""));
  assert.match(out.join(""), /Open this URL in a browser to authorize docs/);
  assert.match(out.join(""), /docs: authorized; tokens stored in/);
  assert.equal(user.visits.length, 1);

  // inspect --config with the same --kv and --port: the tokens are used.
  const listed: string[] = [];
  const inspected = await runCli(
    ["inspect", "--config", config, "--kv", kvPath, "--port", String(port)],
    {
      output: { stdout: (t) => listed.push(t), stderr: (t) => listed.push(t) },
      signal: AbortSignal.timeout(20_000),
    },
  );
  assert.equal(inspected, 0, listed.join(""));
  assert.match(listed.join(""), /docs_ping/);

  // An agent started later, with the same KV file and redirect URL.
  const kv = await Deno.openKv(kvPath);
  try {
    const agent = oauthClient({
      redirectUrl: redirect,
      authorize: () => Promise.reject(new Error("must not ask the user")),
      store: kv,
    });
    assert.equal(await ping(fx.mcpUrl, agent), "pong");
  } finally {
    kv.close();
  }
});
