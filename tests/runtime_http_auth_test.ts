/**
 * `httpHandler`'s `auth` option (issue 19, the resource server): the
 * Protected Resource Metadata document, every refusal with its status,
 * `WWW-Authenticate` header and body (no token, wrong audience, wrong
 * issuer, expired, `alg: none`, HMAC with the public key, tampered
 * signature, missing scope, another principal on a session), the caller
 * reaching tools (`ctx.auth`, serveAgent's tools, `newServer(req, auth)`),
 * in both eras and in stateless, memory-session and KV-session modes.
 */

import assert from "node:assert/strict";
import {
  Agent,
  exportTools,
  httpHandler,
  type HttpHandlerOptions,
  rawTool,
  serveAgent,
  Server,
} from "../mod.ts";
import { type AuthInfo, InvalidTokenError, jwtVerifier } from "../auth.ts";
import { kvStore } from "../runtime.ts";
import { callTools, say, script } from "../testing.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import {
  b64url,
  hmacWithPublicKey,
  mint,
  signer,
  unsigned,
} from "./_helpers/jwt_mint.ts";

const RESOURCE = "http://localhost/mcp";
const ISSUER = "http://127.0.0.1:9/issuer";
const METADATA = "http://localhost/.well-known/oauth-protected-resource/mcp";

const key = await signer("RS256", "k1");
const verify = jwtVerifier({
  issuer: ISSUER,
  audience: RESOURCE,
  jwks: { keys: [key.jwk] },
});

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: RESOURCE,
    sub: "user-1",
    client_id: "app-1",
    scope: "mcp",
    iat: now,
    exp: now + 300,
    ...extra,
  };
}

function token(extra: Record<string, unknown> = {}): Promise<string> {
  return mint(key, claims(extra));
}

/** A tool that answers with what it sees of its caller. */
const whoami = rawTool({
  name: "whoami",
  description: "Names the caller.",
  run: (_args, ctx) =>
    JSON.stringify({
      clientId: ctx.auth?.clientId,
      sub: ctx.auth?.extra?.sub,
      scopes: ctx.auth?.scopes,
      token: ctx.auth?.token,
      resource: ctx.auth?.resource?.href,
    }),
});

const write = rawTool({
  name: "write_order",
  description: "Writes an order.",
  scopes: ["orders:write"],
  run: () => "written",
});

function newServer(): Server {
  const server = new Server({ name: "auth-test", version: "1" });
  exportTools(server, whoami, write);
  return server;
}

function handlerWith(options: HttpHandlerOptions = {}) {
  return httpHandler(newServer, {
    onerror: () => {},
    ...options,
    auth: {
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify,
      scopes: ["mcp"],
      ...options.auth,
    },
  });
}

type Json = Record<string, unknown>;

function call(name: string, id = 1): Json {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  };
}

function post(
  handler: (req: Request) => Promise<Response>,
  body: unknown,
  bearer?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const all: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...headers,
  };
  if (bearer !== undefined) all.authorization = `Bearer ${bearer}`;
  return handler(
    new Request(RESOURCE, {
      method: "POST",
      headers: all,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }),
  );
}

async function answer(res: Response): Promise<Json> {
  const text = await res.text();
  const messages = res.headers.get("content-type")?.includes(
      "application/json",
    )
    ? [JSON.parse(text)]
    : text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
  const found = messages.find((m: Json) => "result" in m || "error" in m);
  assert.ok(found, `no answer in ${text}`);
  return found;
}

/** The text of a tools/call answer. */
async function toolText(res: Response): Promise<string> {
  assert.equal(res.status, 200);
  const { result } = await answer(res) as {
    result: { content: { text: string }[]; isError?: boolean };
  };
  assert.equal(result.isError, undefined, JSON.stringify(result));
  return result.content[0].text;
}

async function assertRefusal(
  res: Response,
  status: number,
  header: string,
  body: Json,
): Promise<void> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("www-authenticate"), header);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.deepEqual(await res.json(), body);
}

function invalid(description: string): [number, string, Json] {
  return [
    401,
    `Bearer error="invalid_token", scope="mcp", resource_metadata="${METADATA}", error_description="${description}"`,
    { error: "invalid_token", error_description: description },
  ];
}

Deno.test("metadata: the path-aware and root documents (RFC 9728), public, cached, CORS", async () => {
  await using handler = handlerWith({
    auth: {
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify,
      scopes: ["mcp"],
      resourceName: "Orders",
    },
  });
  for (
    const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]
  ) {
    const res = await handler(new Request(`http://localhost${path}`));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await res.json(), {
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
      // The endpoint's, then the tools' (write_order's orders:write).
      scopes_supported: ["mcp", "orders:write"],
      resource_name: "Orders",
    });
  }
  const other = await handler(
    new Request("http://localhost/.well-known/oauth-protected-resource/other"),
  );
  // Another path is not the document: a GET of the (stateless) endpoint.
  assert.equal(other.status, 405);
  await other.body?.cancel();
});

Deno.test("refused: no token — 401 with resource_metadata and scope, no error code", async () => {
  await using handler = handlerWith();
  await assertRefusal(
    await post(handler, call("whoami")),
    401,
    `Bearer scope="mcp", resource_metadata="${METADATA}"`,
    {
      error: "invalid_request",
      error_description: "an access token is required",
    },
  );
  // Another scheme is no bearer token either.
  await assertRefusal(
    await post(handler, call("whoami"), undefined, {
      authorization: "Basic dXNlcjpwYXNz",
    }),
    401,
    `Bearer scope="mcp", resource_metadata="${METADATA}"`,
    {
      error: "invalid_request",
      error_description: "an access token is required",
    },
  );
});

Deno.test("refused: each bad token — 401 invalid_token with its reason", async (t) => {
  await using handler = handlerWith();
  const good = await token();
  const [head, body] = good.split(".");
  const other = await signer("RS256", "k1");
  const cases: [string, Promise<string> | string, string][] = [
    [
      "wrong audience",
      token({ aud: "http://localhost/other" }),
      "the token was not issued for this resource",
    ],
    [
      "wrong issuer",
      token({ iss: "http://evil.example" }),
      "the token's issuer is not accepted",
    ],
    [
      "expired (beyond the 30 s tolerance)",
      token({ exp: Math.floor(Date.now() / 1000) - 31 }),
      "the token expired",
    ],
    [
      "not valid yet",
      token({ nbf: Math.floor(Date.now() / 1000) + 120 }),
      "the token is not valid yet",
    ],
    ["no expiry", token({ exp: undefined }), "the token has no expiry"],
    [
      "alg none",
      unsigned(claims(), "k1"),
      `the token's algorithm \\"none\\" is not accepted`,
    ],
    [
      "HS256 keyed with the public key",
      hmacWithPublicKey(key, claims()),
      `the token's algorithm \\"HS256\\" is not accepted`,
    ],
    [
      "tampered payload",
      `${head}.${b64url(JSON.stringify(claims({ scope: "mcp admin" })))}.${
        good.split(".")[2]
      }`,
      "the token's signature is not valid",
    ],
    [
      "signed by another key with the same kid",
      mint(other, claims()),
      "the token's signature is not valid",
    ],
    [
      "unknown kid",
      mint(await signer("RS256", "k9"), claims()),
      `the issuer has no key \\"k9\\" for RS256`,
    ],
    ["not a JWT", "opaque-token", "the token is not a JWT"],
    [
      "payload not JSON",
      `${head}.${b64url("nope")}.${good.split(".")[2]}`,
      "the token's payload is not JSON",
    ],
  ];
  assert.ok(body);
  for (const [name, bearer, description] of cases) {
    await t.step(name, async () => {
      const [status, header, json] = invalid(description);
      // The body carries the unescaped text.
      json.error_description = description.replaceAll('\\"', '"');
      await assertRefusal(
        await post(handler, call("whoami"), await bearer),
        status,
        header,
        json,
      );
    });
  }
});

Deno.test("refused: a token without the resource's scope — 403 insufficient_scope", async () => {
  await using handler = handlerWith();
  await assertRefusal(
    await post(handler, call("whoami"), await token({ scope: "other" })),
    403,
    `Bearer error="insufficient_scope", scope="mcp", resource_metadata="${METADATA}", error_description="the token lacks the scope mcp"`,
    {
      error: "insufficient_scope",
      error_description: "the token lacks the scope mcp",
    },
  );
});

Deno.test("per-tool scopes: the call is refused 403 naming every scope needed, before the tool runs; granted, it runs", async () => {
  await using handler = handlerWith();
  await assertRefusal(
    await post(handler, call("write_order"), await token()),
    403,
    `Bearer error="insufficient_scope", scope="mcp orders:write", resource_metadata="${METADATA}", error_description="the token lacks the scope orders:write"`,
    {
      error: "insufficient_scope",
      error_description: "the token lacks the scope orders:write",
    },
  );
  // A batch naming the tool is refused whole.
  const batch = await post(
    handler,
    [call("whoami", 1), call("write_order", 2)],
    await token(),
  );
  assert.equal(batch.status, 403);
  await batch.body?.cancel();
  // Other tools need no more than the resource's scope.
  const who = JSON.parse(
    await toolText(await post(handler, call("whoami"), await token())),
  );
  assert.equal(who.clientId, "app-1");
  assert.equal(
    await toolText(
      await post(
        handler,
        call("write_order"),
        await token({ scope: "mcp orders:write" }),
      ),
    ),
    "written",
  );
});

Deno.test("the caller reaches the tool: token, client, subject, scopes, resource", async () => {
  await using handler = handlerWith();
  const bearer = await token({ scope: "mcp orders:read" });
  assert.deepEqual(
    JSON.parse(await toolText(await post(handler, call("whoami"), bearer))),
    {
      clientId: "app-1",
      sub: "user-1",
      scopes: ["mcp", "orders:read"],
      token: bearer,
      resource: RESOURCE,
    },
  );
});

Deno.test("stateless: 20 alternating callers, concurrent, each sees only itself", async () => {
  await using handler = handlerWith();
  const tokens = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => token({ client_id: `app-${i % 2}`, sub: `user-${i}` }),
    ),
  );
  for (let round = 0; round < 3; round++) {
    const seen = await Promise.all(
      tokens.map(async (bearer, i) =>
        JSON.parse(
          await toolText(await post(handler, call("whoami", i), bearer)),
        )
      ),
    );
    seen.forEach((who, i) => {
      assert.equal(who.clientId, `app-${i % 2}`);
      assert.equal(who.sub, `user-${i}`);
      assert.equal(who.token, tokens[i]);
    });
  }
});

Deno.test("newServer(request, auth) is handed the caller (and makes a server per request)", async () => {
  const seen: (string | undefined)[] = [];
  await using handler = httpHandler(
    (_req: Request, auth?: AuthInfo) => {
      seen.push(auth?.clientId);
      return newServer();
    },
    {
      onerror: () => {},
      auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify },
    },
  );
  await toolText(
    await post(handler, call("whoami"), await token({ client_id: "a" })),
  );
  await toolText(
    await post(handler, call("whoami"), await token({ client_id: "b" })),
  );
  assert.deepEqual(seen, ["a", "b"]);
});

Deno.test("serveAgent: the agent's tools see the caller", async () => {
  const agent = new Agent(script(), {
    name: "orders",
    tools: [whoami],
  });
  await using handler = httpHandler(() => {
    const server = new Server({ name: "agent", version: "1" });
    serveAgent(server, agent, "Handles orders.");
    return server;
  }, {
    onerror: () => {},
    auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify },
  });
  const who = JSON.parse(
    await toolText(
      await post(handler, call("whoami"), await token({ client_id: "agent" })),
    ),
  );
  assert.equal(who.clientId, "agent");
});

Deno.test("serveAgent: the tools the agent's own run calls see the caller too", async () => {
  const seen: (string | undefined)[] = [];
  const spy = rawTool({
    name: "spy",
    description: "Notes the caller.",
    run: (_args, ctx) => {
      seen.push(ctx.auth?.clientId);
      return "noted";
    },
  });
  await using handler = httpHandler(() => {
    // A fresh scripted agent per request: a script plays once.
    const agent = new Agent(
      script(callTools({ name: "spy", args: {} }), say("done")),
      { name: "orders", tools: [spy] },
    );
    const server = new Server({ name: "agent", version: "1" });
    serveAgent(server, agent, "Handles orders.");
    return server;
  }, {
    onerror: () => {},
    reuseServers: false,
    auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify },
  });
  const asked = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "orders", arguments: { prompt: "Check order 7." } },
  };
  assert.equal(
    await toolText(
      await post(handler, asked, await token({ client_id: "c1" })),
    ),
    "done",
  );
  assert.deepEqual(seen, ["c1"]);
});

Deno.test("a custom verify: undefined and InvalidTokenError refuse; a foreign resource or past expiresAt refuse; other failures answer 500", async () => {
  const errors: Error[] = [];
  await using handler = httpHandler(newServer, {
    onerror: (e) => errors.push(e),
    auth: {
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      verify: (t) => {
        if (t === "ok") return { token: t, clientId: "c", scopes: [] };
        if (t === "revoked") {
          throw new InvalidTokenError("the token was revoked");
        }
        if (t === "elsewhere") {
          return {
            token: t,
            clientId: "c",
            scopes: [],
            resource: new URL("http://localhost/other"),
          };
        }
        if (t === "old") {
          return { token: t, clientId: "c", scopes: [], expiresAt: 1 };
        }
        if (t === "boom") throw new Error("introspection down");
        return undefined;
      },
    },
  });
  const header = (d: string) =>
    `Bearer error="invalid_token", resource_metadata="${METADATA}", error_description="${d}"`;
  for (
    const [bearer, description] of [
      ["unknown", "the token is not valid"],
      ["revoked", "the token was revoked"],
      ["elsewhere", "the token was not issued for this resource"],
      ["old", "the token expired"],
    ]
  ) {
    await assertRefusal(
      await post(handler, call("whoami"), bearer),
      401,
      header(description),
      { error: "invalid_token", error_description: description },
    );
  }
  const boom = await post(handler, call("whoami"), "boom");
  assert.equal(boom.status, 500);
  assert.deepEqual(await boom.json(), {
    jsonrpc: "2.0",
    error: { code: -32603, message: "Internal error" },
    id: null,
  });
  assert.ok(errors.some((e) => e.message === "introspection down"));
  const who = JSON.parse(
    await toolText(await post(handler, call("whoami"), "ok")),
  );
  assert.equal(who.clientId, "c");
});

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "auth-test", version: "1" },
  },
};

async function openSession(
  handler: (req: Request) => Promise<Response>,
  bearer: string,
): Promise<string> {
  const res = await post(handler, INIT, bearer);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const sid = res.headers.get("mcp-session-id");
  assert.ok(sid);
  const done = await post(
    handler,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    bearer,
    { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" },
  );
  assert.equal(done.status, 202);
  return sid;
}

for (const mode of ["memory", "kv"] as const) {
  Deno.test(`sessions (${mode}): bound to their principal — another's token finds no session (404); the same principal's refreshed token is accepted and seen`, async () => {
    const kv = mode === "kv" ? await Deno.openKv(":memory:") : undefined;
    try {
      const options: HttpHandlerOptions = {
        sessions: true,
        store: kv === undefined ? undefined : kvStore(kv),
      };
      await using handler = handlerWith(options);
      const first = await token();
      const sid = await openSession(handler, first);
      const session = {
        "mcp-session-id": sid,
        "mcp-protocol-version": "2025-11-25",
      };
      const who = JSON.parse(
        await toolText(await post(handler, call("whoami"), first, session)),
      );
      assert.equal(who.token, first);
      // Another subject of the same client, then another client.
      for (
        const stranger of [
          await token({ sub: "user-2" }),
          await token({ client_id: "app-2" }),
        ]
      ) {
        const res = await post(handler, call("whoami"), stranger, session);
        assert.equal(res.status, 404);
        assert.equal(res.headers.get("www-authenticate"), null);
        assert.deepEqual(await res.json(), {
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found" },
          id: null,
        });
      }
      // No token at all: 401 before the session is looked at.
      const bare = await post(handler, call("whoami"), undefined, session);
      assert.equal(bare.status, 401);
      await bare.body?.cancel();
      // Refreshed: a new token of the same client and subject.
      const refreshed = await token({
        jti: "second",
        scope: "mcp orders:write",
      });
      assert.notEqual(refreshed, first);
      const again = JSON.parse(
        await toolText(
          await post(handler, call("whoami", 2), refreshed, session),
        ),
      );
      assert.equal(again.token, refreshed);
      assert.deepEqual(again.scopes, ["mcp", "orders:write"]);
      // Per-tool scopes hold in a session too.
      const refused = await post(
        handler,
        call("write_order", 3),
        first,
        session,
      );
      assert.equal(refused.status, 403);
      assert.match(
        refused.headers.get("www-authenticate")!,
        /error="insufficient_scope", scope="mcp orders:write"/,
      );
      await refused.body?.cancel();
    } finally {
      kv?.close();
    }
  });
}

Deno.test("KV sessions: a second instance sharing the store keeps the binding", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = kvStore(kv);
    await using a = handlerWith({ sessions: true, store });
    await using b = handlerWith({ sessions: true, store: kvStore(kv) });
    const mine = await token();
    const sid = await openSession(a, mine);
    const session = {
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-11-25",
    };
    const foreign = await post(
      b,
      call("whoami"),
      await token({ sub: "user-2" }),
      session,
    );
    assert.equal(foreign.status, 404);
    await foreign.body?.cancel();
    const who = JSON.parse(
      await toolText(await post(b, call("whoami"), mine, session)),
    );
    assert.equal(who.sub, "user-1");
  } finally {
    kv.close();
  }
});

// The modern era (2026-07-28): no session, the envelope in params._meta.
function modernCall(
  name: string,
): { body: Json; headers: Record<string, string> } {
  return {
    body: {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "auth-test", version: "1" },
        },
      },
    },
    headers: {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
  };
}

for (const sessions of [false, true]) {
  Deno.test(`modern era (${sessions ? "session" : "stateless"} handler): 401 without a token, 403 for a tool's scope, the caller seen`, async () => {
    await using handler = handlerWith({ sessions });
    const who = modernCall("whoami");
    await assertRefusal(
      await post(handler, who.body, undefined, who.headers),
      401,
      `Bearer scope="mcp", resource_metadata="${METADATA}"`,
      {
        error: "invalid_request",
        error_description: "an access token is required",
      },
    );
    const w = modernCall("write_order");
    await assertRefusal(
      await post(handler, w.body, await token(), w.headers),
      403,
      `Bearer error="insufficient_scope", scope="mcp orders:write", resource_metadata="${METADATA}", error_description="the token lacks the scope orders:write"`,
      {
        error: "insufficient_scope",
        error_description: "the token lacks the scope orders:write",
      },
    );
    const bearer = await token({ client_id: "modern-app" });
    const seen = JSON.parse(
      await toolText(await post(handler, who.body, bearer, who.headers)),
    );
    assert.equal(seen.clientId, "modern-app");
    assert.equal(seen.token, bearer);
  });
}
