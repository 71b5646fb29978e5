/**
 * `oauthClient` offline, against a test-local authorization server and
 * resource on 127.0.0.1 (the real one, oidc-provider, is in
 * tests/interop/oauth_client_oidc_test.ts; the suite's scenarios in
 * .ci/conformance): the stores' swap and expiry, the RFC 9207 `iss` check,
 * an `error` callback, the bounded scope step-up, a server-set entry that
 * says `"auth": "oauth"` with no client, and `connectServers`' `auth` option.
 */

import assert from "node:assert/strict";
import {
  connectHttp,
  connectServers,
  exportTools,
  httpHandler,
  Server,
} from "../mod.ts";
import {
  AuthorizationError,
  oauthClient,
} from "../src/auth/client/oauth_client.ts";
import {
  kvOAuthStore,
  memoryOAuthStore,
  type OAuthStore,
} from "../src/auth/client/oauth_store.ts";
import { denoKvStore, memoryStore } from "../store.ts";
import { oauthStoreOf } from "../src/auth/client/oauth_store_view.ts";
import {
  parseServersConfig,
  ServerConfigError,
} from "../src/servers/config.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";

async function swapContract(store: OAuthStore): Promise<void> {
  assert.equal(await store.swap(["k"], undefined, { n: 1 }), true);
  assert.equal(await store.swap(["k"], undefined, { n: 2 }), false);
  const first = await store.get(["k"]);
  assert.deepEqual(first?.value, { n: 1 });
  assert.equal(await store.swap(["k"], first!.version, { n: 3 }), true);
  // The version read before the last write is stale now.
  assert.equal(await store.swap(["k"], first!.version, { n: 4 }), false);
  assert.deepEqual((await store.get(["k"]))?.value, { n: 3 });
  await store.delete(["k"]);
  assert.equal(await store.get(["k"]), undefined);
}

Deno.test("stores: swap writes only at the version read (memory and KV)", async () => {
  await swapContract(memoryOAuthStore());
  const kv = await Deno.openKv(":memory:");
  try {
    await swapContract(kvOAuthStore(kv));
    await kvOAuthStore(kv).set(["x"], 1);
    assert.equal((await kv.get(["weft", "oauth", "x"])).value, 1);
  } finally {
    kv.close();
  }
});

Deno.test("stores: a contract store seen as an OAuth store keeps the swap contract, under oauth/", async () => {
  await using memory = memoryStore();
  await swapContract(oauthStoreOf(memory));
  await oauthStoreOf(memory).set(["tokens", "a b"], 1);
  assert.equal((await memory.get("oauth/tokens/a%20b"))?.value, 1);
  const kv = await Deno.openKv(":memory:");
  try {
    await swapContract(oauthStoreOf(denoKvStore(kv)));
  } finally {
    kv.close();
  }
});

Deno.test("stores: the memory store forgets an entry after expireIn", async () => {
  using clock = new FakeClock(); // Date.now stands still but for advance
  const store = memoryOAuthStore();
  await store.set(["pending", "s"], { v: 1 }, { expireIn: 20 });
  clock.advance(19);
  assert.deepEqual((await store.get(["pending", "s"]))?.value, { v: 1 });
  clock.advance(1);
  assert.equal(await store.get(["pending", "s"]), undefined);
});

interface Fake extends AsyncDisposable {
  readonly mcpUrl: string;
  readonly issuer: string;
  /** Token requests, by grant type. */
  readonly grants: string[];
}

/**
 * An authorization server (RFC 8414 metadata naming RFC 9207 support, a
 * token endpoint minting `t<n>` with the scope asked) and a resource whose
 * `/mcp` answers 401 without a token, then `onToken(token)` or the MCP
 * endpoint.
 */
function fake(
  onToken: (token: string) => Response | undefined = () => undefined,
  metadataIssuer?: string,
): Fake {
  const closer = new AbortController();
  const grants: string[] = [];
  let minted = 0;
  const mcp = httpHandler(() => {
    const server = new Server({ name: "r", version: "1" });
    exportTools(server);
    return server;
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closer.signal,
    onListen: () => {},
  }, async (request, info) => {
    const url = new URL(request.url);
    const origin = url.origin;
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return Response.json({
          resource: `${origin}/mcp`,
          authorization_servers: [`${origin}/as`],
        });
      case "/.well-known/oauth-authorization-server/as":
        return Response.json({
          issuer: metadataIssuer ?? `${origin}/as`,
          authorization_endpoint: `${origin}/as/authorize`,
          token_endpoint: `${origin}/as/token`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          authorization_response_iss_parameter_supported: true,
        });
      case "/as/token": {
        const form = new URLSearchParams(await request.text());
        grants.push(form.get("grant_type") ?? "");
        return Response.json({
          access_token: `t${++minted}`,
          token_type: "Bearer",
          expires_in: 3600,
          ...(form.get("scope") === null ? {} : { scope: form.get("scope") }),
        });
      }
    }
    const token = request.headers.get("authorization")?.slice(7);
    if (token === undefined) {
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="read"`,
        },
      });
    }
    return onToken(token) ?? await mcp(request, info);
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    mcpUrl: `${base}/mcp`,
    issuer: `${base}/as`,
    grants,
    async [Symbol.asyncDispose]() {
      closer.abort();
      await server.finished;
    },
  };
}

/** A user who approves at once: the callback carries `code`, `state` and `iss`. */
function approve(
  iss: (url: URL) => string | undefined,
  seen: URL[] = [],
): (url: URL) => Promise<URL> {
  return (url) => {
    seen.push(url);
    const back = new URL(url.searchParams.get("redirect_uri")!);
    back.searchParams.set("code", "c1");
    back.searchParams.set("state", url.searchParams.get("state")!);
    const issuer = iss(url);
    if (issuer !== undefined) back.searchParams.set("iss", issuer);
    return Promise.resolve(back);
  };
}

const REDIRECT = "http://127.0.0.1:1/callback";

Deno.test("oauthClient: code + PKCE with the resource and iss; the token is sent", async () => {
  const seen: string[] = [];
  await using fx = fake((token) => {
    seen.push(token);
    return undefined;
  });
  const asked: URL[] = [];
  const auth = oauthClient({
    clientId: "c",
    redirectUrl: REDIRECT,
    authorize: approve(() => fx.issuer, asked),
  });
  await using client = await connectHttp(fx.mcpUrl, {
    auth,
    signal: AbortSignal.timeout(10_000),
  });
  assert.ok(client.getServerVersion() !== undefined);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].searchParams.get("resource"), fx.mcpUrl);
  assert.equal(asked[0].searchParams.get("code_challenge_method"), "S256");
  assert.equal(asked[0].searchParams.get("scope"), "read");
  assert.deepEqual(fx.grants, ["authorization_code"]);
  assert.ok(seen.length > 0 && seen.every((t) => t === "t1"));
});

Deno.test("oauthClient: two clients given one contract store (@weft/mcp/store): the second uses the first's token, no second authorization", async () => {
  await using fx = fake();
  await using store = memoryStore();
  const asked: URL[] = [];
  const options = {
    clientId: "c",
    redirectUrl: REDIRECT,
    authorize: approve(() => fx.issuer, asked),
    store,
  };
  {
    await using _client = await connectHttp(fx.mcpUrl, {
      auth: oauthClient(options),
      signal: AbortSignal.timeout(10_000),
    });
  }
  {
    await using client = await connectHttp(fx.mcpUrl, {
      auth: oauthClient(options),
      signal: AbortSignal.timeout(10_000),
    });
    // A request (the connect itself may send none: the era is cached).
    await client.listTools();
  }
  assert.equal(asked.length, 1);
  assert.deepEqual(fx.grants, ["authorization_code"]);
});

Deno.test("oauthClient: a callback naming another issuer (RFC 9207 mix-up) or none is refused", async () => {
  for (const iss of ["http://127.0.0.1:1/evil", undefined]) {
    await using fx = fake();
    const auth = oauthClient({
      clientId: "c",
      redirectUrl: REDIRECT,
      authorize: approve(() => iss),
    });
    const error = await connectHttp(fx.mcpUrl, {
      auth,
      signal: AbortSignal.timeout(10_000),
    }).then(() => assert.fail("connected"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "issuer-mismatch");
    assert.deepEqual(fx.grants, [], "no code was exchanged");
  }
});

Deno.test("oauthClient: an error callback fails with reason denied and the server's words", async () => {
  await using fx = fake();
  const auth = oauthClient({
    clientId: "c",
    redirectUrl: REDIRECT,
    authorize: (url) => {
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", "the user said no");
      return Promise.resolve(back);
    },
  });
  const error = await connectHttp(fx.mcpUrl, {
    auth,
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), (e: unknown) => e);
  assert.ok(error instanceof AuthorizationError);
  assert.equal(error.reason, "denied");
  assert.equal(
    error.message,
    "OAuth: the authorization server refused: access_denied (the user said no)",
  );
});

Deno.test("oauthClient: step-up asks the union of scopes, at most maxStepUps times a request; a scope already held is not asked again", async () => {
  let round = 0;
  await using fx = fake(() => {
    round++;
    return new Response(null, {
      status: 403,
      headers: {
        "www-authenticate":
          `Bearer error="insufficient_scope", scope="s${round}"`,
      },
    });
  });
  const asked: URL[] = [];
  const auth = oauthClient({
    clientId: "c",
    redirectUrl: REDIRECT,
    maxStepUps: 2,
    authorize: approve(() => fx.issuer, asked),
  });
  await connectHttp(fx.mcpUrl, {
    auth,
    protocol: "legacy",
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), () => {});
  // The 401's authorization, then two step-ups, each asking for more.
  assert.deepEqual(asked.map((u) => u.searchParams.get("scope")), [
    "read",
    "read s1",
    "read s1 s2",
  ]);

  // A 403 naming only scopes the token has: nothing to step up to.
  await using same = fake(() =>
    new Response(null, {
      status: 403,
      headers: {
        "www-authenticate": `Bearer error="insufficient_scope", scope="read"`,
      },
    })
  );
  const once: URL[] = [];
  await connectHttp(same.mcpUrl, {
    auth: oauthClient({
      clientId: "c",
      redirectUrl: REDIRECT,
      authorize: approve(() => same.issuer, once),
    }),
    protocol: "legacy",
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), () => {});
  assert.equal(once.length, 1);
});

Deno.test('servers: "auth" must be "oauth"; an entry saying oauth without a client fails naming the server; the auth option reaches it', async () => {
  assert.throws(
    () =>
      parseServersConfig({
        docs: { url: "http://127.0.0.1:1/mcp", auth: "basic" },
      }),
    (e: unknown) => e instanceof ServerConfigError && /"oauth"/.test(e.message),
  );
  await using fx = fake();
  const config = { docs: { url: fx.mcpUrl, auth: "oauth" as const } };
  {
    await using servers = await connectServers(config, {
      reconnect: false,
      signal: AbortSignal.timeout(10_000),
    });
    const [failure] = servers.error?.failures ?? [];
    assert.ok(failure !== undefined);
    assert.ok(
      failure.cause instanceof ServerConfigError,
      String(failure.cause),
    );
    assert.match(failure.cause.message, /no OAuth client for this server/);
  }
  const asked: URL[] = [];
  const auth = oauthClient({
    clientId: "c",
    redirectUrl: REDIRECT,
    authorize: approve(() => fx.issuer, asked),
  });
  for (
    const option of [
      { docs: auth },
      (name: string) => name === "docs" ? auth : undefined,
    ]
  ) {
    await using servers = await connectServers(config, {
      auth: option,
      reconnect: false,
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(servers.error, undefined, String(servers.error));
  }
  // The second set found the first one's tokens in the client's store.
  assert.equal(asked.length, 1);
});

Deno.test("oauthClient: authorization server metadata naming another issuer (RFC 8414 3.3) is refused before any authorization", async () => {
  await using fx = fake(undefined, "https://evil.example/as");
  const asked: URL[] = [];
  const error = await connectHttp(fx.mcpUrl, {
    auth: oauthClient({
      clientId: "c",
      redirectUrl: REDIRECT,
      authorize: approve(() => fx.issuer, asked),
    }),
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), (e: unknown) => e);
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "issuer-mismatch");
  assert.equal(asked.length, 0);
});
