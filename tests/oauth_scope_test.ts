/**
 * The OAuth client's scopes against a weft resource server (`httpHandler`
 * with `auth`, `jwtVerifier`, a tool with `scopes: ["orders:write"]`) and a
 * test authorization server on 127.0.0.1 minting JWTs with WebCrypto, in
 * both protocol eras: the scope asked when `scope` is not given (the 401
 * challenge's, else the metadata's `scopes_supported`), the step-up to the
 * union on `403 insufficient_scope` for client credentials and the
 * authorization code, its bound, an `invalid_scope` that stops at once, and
 * the `AuthorizationError` a connect or a call rejects with (status, scope,
 * challenge, server) — what a model reads of it, and its `cause`.
 */

import assert from "node:assert/strict";
import {
  Agent,
  connectHttp,
  connectServers,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  Server,
} from "../mod.ts";
import { jwtVerifier } from "../auth.ts";
import type { ToolResultPart } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { McpTransportError } from "../src/bridge/remote_error.ts";
import {
  AuthorizationError,
  type OAuthClient,
  oauthClient,
  type OAuthClientOptions,
} from "../src/auth/client/oauth_client.ts";
import { mint, signer } from "./_helpers/jwt_mint.ts";
import { movableClock } from "./_helpers/clock.ts";

// The token types are real: a type that became `any` again fails `deno check`.
type StoredTokens = NonNullable<Awaited<ReturnType<OAuthClient["tokens"]>>>;
// @ts-expect-error a number is no token set
const _notTokens: StoredTokens = 5;
// @ts-expect-error access_token is a string
const _badToken: StoredTokens = { access_token: 1, token_type: "Bearer" };

const ERAS = ["legacy", "modern"] as const;
const key = await signer("ES256", "as-key");

interface TokenRequest {
  readonly grant: string;
  readonly scope: string | null;
}

interface Orders extends AsyncDisposable {
  readonly url: string;
  readonly issuer: string;
  /** Every request to the token endpoint, in order. */
  readonly tokenRequests: TokenRequest[];
  /** The scopes asked at the authorization endpoint (browser flow). */
  readonly authorizeScopes: (string | null)[];
}

interface OrdersOptions {
  /** The scopes the authorization server grants; others are `invalid_scope`. Default: all. */
  readonly grantable?: readonly string[];
  /** Grants `mcp` only, whatever is asked, and says so in `scope`. */
  readonly stingy?: boolean;
  /** Strips `scope` from the resource's 401 challenge. */
  readonly challengeWithoutScope?: boolean;
  /** The audience of the tokens minted. Default: the resource. */
  readonly audience?: string;
  /** The code grant's tokens live 1 s and come with a refresh token. */
  readonly shortLived?: boolean;
}

/**
 * A weft resource server at `/mcp` (every request needs `mcp`; the tool
 * `place_order` needs `orders:write`) and its authorization server at
 * `/as`: metadata, and a token endpoint for client credentials and the
 * authorization code (the code is the scope the user approved).
 */
function orders(options: OrdersOptions = {}): Orders {
  const closer = new AbortController();
  const tokenRequests: TokenRequest[] = [];
  const authorizeScopes: (string | null)[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closer.signal,
    onListen: () => {},
  }, async (request, info) => {
    const url = new URL(request.url);
    const origin = url.origin;
    if (url.pathname === "/.well-known/oauth-authorization-server/as") {
      return Response.json({
        issuer: `${origin}/as`,
        authorization_endpoint: `${origin}/as/authorize`,
        token_endpoint: `${origin}/as/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
      });
    }
    if (url.pathname === "/as/token") {
      const form = new URLSearchParams(await request.text());
      const grant = form.get("grant_type") ?? "";
      const scope = grant === "authorization_code"
        ? form.get("code")
        : grant === "refresh_token"
        ? form.get("refresh_token")!.slice(2)
        : form.get("scope");
      tokenRequests.push({ grant, scope });
      const asked = scope?.split(" ").filter(Boolean) ?? [];
      const unknown = asked.filter((s) =>
        options.grantable !== undefined && !options.grantable.includes(s)
      );
      if (unknown.length > 0) {
        return Response.json({
          error: "invalid_scope",
          error_description: `not for this client: ${unknown.join(" ")}`,
        }, { status: 400 });
      }
      const granted = options.stingy ? "mcp" : asked.join(" ");
      const now = Math.floor(Date.now() / 1000);
      const token = await mint(key, {
        iss: `${origin}/as`,
        aud: options.audience ?? `${origin}/mcp`,
        sub: "agent",
        client_id: "agent",
        scope: granted,
        iat: now,
        exp: now + 300,
      });
      // As asked: no `scope` in the answer (RFC 6749 5.1), unless stingy.
      const refreshable = options.shortLived && grant !== "client_credentials";
      return Response.json({
        access_token: token,
        token_type: "Bearer",
        expires_in: refreshable ? 1 : 300,
        ...(refreshable ? { refresh_token: `r:${granted}` } : {}),
        ...(options.stingy ? { scope: granted } : {}),
      });
    }
    // Requests come after the listener is up, `mcp` defined below.
    const response = await mcp(request, info);
    if (options.challengeWithoutScope && response.status === 401) {
      const headers = new Headers(response.headers);
      headers.set(
        "www-authenticate",
        headers.get("www-authenticate")!.replace(/\bscope="[^"]*"(, )?/, ""),
      );
      return new Response(response.body, { status: 401, headers });
    }
    return response;
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const resource = `${origin}/mcp`;
  const issuer = `${origin}/as`;
  const mcp = httpHandler(() => {
    const s = new Server({ name: "orders", version: "1" });
    exportTools(
      s,
      rawTool({
        name: "place_order",
        description: "Places an order.",
        scopes: ["orders:write"],
        run: () => "placed",
      }),
      rawTool({
        name: "cancel_order",
        description: "Cancels an order.",
        scopes: ["orders:admin"],
        run: () => "cancelled",
      }),
      rawTool({
        name: "list_orders",
        description: "Lists orders.",
        run: () => "none yet",
      }),
    );
    return s;
  }, {
    onerror: () => {},
    auth: {
      resource,
      authorizationServers: [issuer],
      scopes: ["mcp"],
      verify: jwtVerifier({
        issuer,
        audience: resource,
        jwks: { keys: [key.jwk] },
      }),
    },
  });
  return {
    url: resource,
    issuer,
    tokenRequests,
    authorizeScopes,
    async [Symbol.asyncDispose]() {
      closer.abort();
      await server.finished;
    },
  };
}

/** The user approves at once; the code carries the scope approved. */
function approve(fx: Orders): OAuthClientOptions["authorize"] {
  return (url) => {
    const scope = url.searchParams.get("scope");
    fx.authorizeScopes.push(scope);
    const back = new URL(url.searchParams.get("redirect_uri")!);
    back.searchParams.set("code", scope ?? "");
    back.searchParams.set("state", url.searchParams.get("state")!);
    return Promise.resolve(back);
  };
}

const scopesAsked = (fx: Orders) => fx.tokenRequests.map((r) => r.scope);

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] })
    .content;
  return content.map((c) => c.text ?? "").join("");
}

Deno.test("client credentials, both eras: without scope the 401's scope is asked; a 403 insufficient_scope steps up to the union and the call goes through", async () => {
  for (const protocol of ERAS) {
    for (const scope of [undefined, "mcp"]) {
      const what = `${protocol}, scope ${scope}`;
      await using fx = orders();
      const auth = oauthClient({
        clientId: "agent",
        clientSecret: "s3cret",
        ...(scope === undefined ? {} : { scope }),
      });
      await using client = await connectHttp(fx.url, {
        auth,
        protocol,
        signal: AbortSignal.timeout(10_000),
      });
      assert.deepEqual(scopesAsked(fx), ["mcp"], what);
      assert.equal(
        textOf(await client.callTool({ name: "list_orders", arguments: {} })),
        "none yet",
      );
      const placed = await client.callTool({
        name: "place_order",
        arguments: {},
      });
      assert.equal(textOf(placed), "placed", what);
      assert.deepEqual(scopesAsked(fx), ["mcp", "mcp orders:write"], what);
      assert.ok(
        fx.tokenRequests.every((r) => r.grant === "client_credentials"),
      );
      // The stepped-up token serves the next call: no token request.
      await client.callTool({ name: "place_order", arguments: {} });
      assert.equal(fx.tokenRequests.length, 2, what);
    }
  }
});

Deno.test("client credentials: a challenge naming no scope asks the metadata's scopes_supported", async () => {
  for (const protocol of ERAS) {
    await using fx = orders({ challengeWithoutScope: true });
    const bare = await fetch(fx.url, { method: "POST" });
    await bare.body?.cancel();
    assert.doesNotMatch(bare.headers.get("www-authenticate")!, /scope=/);
    await using client = await connectHttp(fx.url, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    const metadata = await fetch(
      `${new URL(fx.url).origin}/.well-known/oauth-protected-resource/mcp`,
    ).then((r) => r.json());
    assert.ok(metadata.scopes_supported.length > 0);
    assert.deepEqual(
      scopesAsked(fx),
      [metadata.scopes_supported.join(" ")],
      protocol,
    );
    const placed = await client.callTool({
      name: "place_order",
      arguments: {},
    });
    assert.equal(textOf(placed), "placed", protocol);
  }
});

Deno.test("authorization code, both eras: the 401's scope, then a step-up to the union through the user", async () => {
  for (const protocol of ERAS) {
    await using fx = orders();
    await using client = await connectHttp(fx.url, {
      auth: oauthClient({
        clientId: "app",
        redirectUrl: "http://127.0.0.1:1/callback",
        authorize: approve(fx),
      }),
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    const placed = await client.callTool({
      name: "place_order",
      arguments: {},
    });
    assert.equal(textOf(placed), "placed", protocol);
    assert.deepEqual(fx.authorizeScopes, ["mcp", "mcp orders:write"]);
    assert.deepEqual(fx.tokenRequests, [
      { grant: "authorization_code", scope: "mcp" },
      { grant: "authorization_code", scope: "mcp orders:write" },
    ]);
  }
});

Deno.test("a refresh answer without scope keeps the grant's: a later step-up, on another connection, asks the union with it", async () => {
  using clock = movableClock();
  await using fx = orders({ shortLived: true });
  const auth = oauthClient({
    clientId: "app",
    redirectUrl: "http://127.0.0.1:1/callback",
    authorize: approve(fx),
  });
  {
    await using client = await connectHttp(fx.url, {
      auth,
      signal: AbortSignal.timeout(10_000),
    });
    await client.callTool({ name: "place_order", arguments: {} });
  }
  assert.deepEqual(fx.authorizeScopes, ["mcp", "mcp orders:write"]);
  // The token lives 1 s: the next use refreshes it first.
  clock.advance(1_100);
  await using client = await connectHttp(fx.url, {
    auth,
    signal: AbortSignal.timeout(10_000),
  });
  const cancelled = await client.callTool({
    name: "cancel_order",
    arguments: {},
  });
  assert.equal(textOf(cancelled), "cancelled");
  assert.ok(
    fx.tokenRequests.some((r) => r.grant === "refresh_token"),
    "the stored token was refreshed",
  );
  assert.deepEqual(fx.authorizeScopes, [
    "mcp",
    "mcp orders:write",
    "mcp orders:write orders:admin",
  ]);
});

Deno.test("step-up is bounded: an authorization server that keeps granting less is asked maxStepUps times, then the call fails with insufficient-scope", async () => {
  for (const protocol of ERAS) {
    await using fx = orders({ stingy: true });
    await using client = await connectHttp(fx.url, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    const error = await client.callTool({ name: "place_order", arguments: {} })
      .then(() => assert.fail("called"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "insufficient-scope");
    assert.equal(error.status, 403);
    assert.equal(error.scope, "mcp orders:write");
    assert.equal(
      error.message,
      `insufficient scope: server "orders" (${fx.url}) requires the scope "mcp orders:write"; the token holds "mcp" after 2 step-up(s): grant this client "orders:write" at the authorization server (or raise maxStepUps)`,
    );
    // The connect's token, then two step-ups.
    assert.deepEqual(scopesAsked(fx), [
      "mcp",
      "mcp orders:write",
      "mcp orders:write",
    ]);
  }
});

Deno.test("invalid_scope from the authorization server stops at once: one token request for the union, none on the next call", async () => {
  for (const protocol of ERAS) {
    await using fx = orders({ grantable: ["mcp"] });
    await using client = await connectHttp(fx.url, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await client.callTool({
        name: "place_order",
        arguments: {},
      }).then(() => assert.fail("called"), (e: unknown) => e);
      assert.ok(error instanceof AuthorizationError, String(error));
      assert.equal(error.reason, "scope-refused");
      assert.equal(error.status, 403);
      assert.equal(error.scope, "mcp orders:write");
      assert.equal(error.server, "orders");
      assert.match(error.challenge ?? "", /error="insufficient_scope"/);
      assert.equal(
        error.message,
        `insufficient scope: the authorization server refused the scope "mcp orders:write" for server "orders" (${fx.url}) (invalid_scope: not for this client: orders:write); grant this client that scope at the authorization server, or ask for less (the scope option)`,
      );
    }
    assert.deepEqual(scopesAsked(fx), ["mcp", "mcp orders:write"], protocol);
    // The token held still serves what it can.
    assert.equal(
      textOf(await client.callTool({ name: "list_orders", arguments: {} })),
      "none yet",
    );
  }
});

Deno.test("invalid_scope on the connect's own token request: the connect fails with scope-refused, status 401, after one token request", async () => {
  for (const protocol of ERAS) {
    await using fx = orders({ grantable: [] });
    const error = await connectHttp(fx.url, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    }).then(() => assert.fail("connected"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "scope-refused");
    assert.equal(error.status, 401);
    assert.equal(error.scope, "mcp");
    assert.deepEqual(scopesAsked(fx), ["mcp"], protocol);
  }
});

Deno.test("a token the server refuses right after a new authorization: refused, status 401, once (no loop)", async () => {
  for (const protocol of ERAS) {
    await using fx = orders({ audience: "https://elsewhere.example/mcp" });
    const error = await connectHttp(fx.url, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    }).then(() => assert.fail("connected"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "refused");
    assert.equal(error.status, 401);
    assert.equal(error.server, "orders");
    const description = /error_description="([^"]*)"/.exec(
      error.challenge ?? "",
    )?.[1];
    assert.ok(description !== undefined, error.challenge);
    assert.equal(
      error.message,
      `authorization required: server "orders" (${fx.url}) answered 401 (invalid_token: ${description}) to the token its authorization server issued just now; check that the authorization server issues tokens for this resource (its URL as the audience) and that the server trusts that issuer`,
    );
    assert.equal(fx.tokenRequests.length, 1, protocol);
  }
});

Deno.test("a browser flow without authorize: redirect-required, named, with the 401's status and scope", async () => {
  await using fx = orders();
  const error = await connectHttp(fx.url, {
    auth: oauthClient({
      clientId: "app",
      redirectUrl: "http://127.0.0.1:1/callback",
    }),
    name: "orders",
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), (e: unknown) => e);
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "redirect-required");
  assert.equal(error.server, "orders");
  assert.equal(error.url, fx.url);
  assert.equal(error.status, 401);
  assert.equal(error.scope, "mcp");
  assert.equal(error.authorizationUrl?.searchParams.get("scope"), "mcp");
});

Deno.test("connect without an OAuth client, both eras: an AuthorizationError, status 401, the challenge's scope, the server named", async () => {
  for (const protocol of ERAS) {
    await using fx = orders();
    const error = await connectHttp(fx.url, {
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    }).then(() => assert.fail("connected"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "authorization-required");
    assert.equal(error.status, 401);
    assert.equal(error.scope, "mcp");
    assert.equal(error.server, "orders");
    assert.equal(error.url, fx.url);
    assert.equal(
      error.challenge,
      `Bearer scope="mcp", resource_metadata="${
        new URL(fx.url).origin
      }/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.equal(
      error.message,
      `authorization required: server "orders" (${fx.url}) answered 401 and requires the scope "mcp"; give the connection an OAuth client (the auth option: oauthClient(...)) or a valid token`,
    );
    assert.deepEqual(fx.tokenRequests, []);
  }
});

Deno.test("connectServers: a server answering 401 fails with its AuthorizationError as the cause; the others connect", async () => {
  await using fx = orders();
  const closer = new AbortController();
  const open = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: closer.signal,
      onListen: () => {},
    },
    httpHandler(() => {
      const s = new Server({ name: "open", version: "1" });
      exportTools(
        s,
        rawTool({ name: "ping", description: "Pings.", run: () => "pong" }),
      );
      return s;
    }),
  );
  try {
    await using servers = await connectServers({
      orders: { url: fx.url },
      open: { url: `http://127.0.0.1:${open.addr.port}/mcp` },
    }, { reconnect: false, signal: AbortSignal.timeout(10_000) });
    const failures = servers.error?.failures ?? [];
    assert.deepEqual(failures.map((f) => f.server), ["orders"]);
    const [failure] = failures;
    assert.ok(
      failure.cause instanceof AuthorizationError,
      String(failure.cause),
    );
    assert.equal(failure.cause.status, 401);
    assert.equal(failure.cause.server, "orders");
    assert.equal(failure.phase, "initialize");
    assert.deepEqual(servers.tools.map((t) => t.name), ["open_ping"]);
  } finally {
    closer.abort();
    await open.finished;
  }
});

/** A token with `mcp` only, sent as a plain header (no OAuth client). */
async function mcpOnlyToken(fx: Orders): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await mint(key, {
    iss: fx.issuer,
    aud: fx.url,
    sub: "agent",
    client_id: "agent",
    scope: "mcp",
    iat: now,
    exp: now + 300,
  });
}

Deno.test("a call refused 403 without an OAuth client, both eras: an AuthorizationError naming the scope; through importTools the model reads it and the cause is it", async () => {
  for (const protocol of ERAS) {
    await using fx = orders();
    await using client = await connectHttp(fx.url, {
      headers: { authorization: `Bearer ${await mcpOnlyToken(fx)}` },
      name: "orders",
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    const error = await client.callTool({ name: "place_order", arguments: {} })
      .then(() => assert.fail("called"), (e: unknown) => e);
    assert.ok(error instanceof AuthorizationError, String(error));
    assert.equal(error.reason, "insufficient-scope");
    assert.equal(error.status, 403);
    assert.equal(error.scope, "mcp orders:write");
    assert.match(error.challenge ?? "", /^Bearer error="insufficient_scope"/);
    const text =
      `insufficient scope: server "orders" (${fx.url}) requires the scope "mcp orders:write"; ask the authorization server for a token with it, or give the connection an OAuth client (the auth option: oauthClient(...)), which steps up`;
    assert.equal(error.message, text);

    const { tools } = await importTools(client);
    const place = tools.find((t) => t.name === "place_order")!;
    const thrown = await place.invoke("{}").then(
      () => assert.fail("called"),
      (e: unknown) => e,
    );
    assert.ok(thrown instanceof McpTransportError, String(thrown));
    assert.ok(thrown.cause instanceof AuthorizationError);
    assert.equal(thrown.cause.status, 403);

    const result = await new Agent(
      script(callTools({ name: "place_order" }), say("asked for access")),
      { tools },
    ).generate("order it");
    const parts = result.messages.flatMap((m) =>
      m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
    );
    assert.deepEqual(parts.map((p) => [p.content, p.isError]), [
      [`mcp: ${text}`, true],
    ]);
  }
});
