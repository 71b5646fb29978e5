/**
 * The handler's own checks of what `verify` returns, end to end through
 * `httpHandler` in both eras (a legacy `initialize`, a modern stateless
 * `tools/call`): the expiry gate allows `jwtVerifier`'s `clockTolerance`
 * (a token the verifier accepts is not refused behind its back), and none
 * for a `verify` of one's own.
 */

import assert from "node:assert/strict";
import { exportTools, httpHandler, rawTool, Server } from "../mod.ts";
import {
  type AuthInfo,
  jwtVerifier,
  type JwtVerifierOptions,
  type TokenVerifier,
} from "../auth.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import { mint, signer } from "./_helpers/jwt_mint.ts";

const ISSUER = "https://as.example";
const RESOURCE = "http://localhost/mcp";
const key = await signer("ES256", "k1");

function verifier(options: Partial<JwtVerifierOptions> = {}) {
  return jwtVerifier({
    issuer: ISSUER,
    audience: RESOURCE,
    jwks: { keys: [key.jwk] },
    cacheSize: 0,
    ...options,
  });
}

/** A token for `sub` that expired `ago` seconds ago. */
function expired(ago: number, sub = "alice"): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return mint(key, {
    iss: ISSUER,
    aud: RESOURCE,
    sub,
    client_id: "app",
    scope: "mcp",
    exp: now - ago,
  });
}

const whoami = rawTool({
  name: "whoami",
  description: "Names the caller.",
  run: (_args, ctx) =>
    JSON.stringify([ctx.auth?.clientId, ctx.auth?.extra?.sub]),
});

function handlerWith(verify: TokenVerifier) {
  return httpHandler(() => {
    const server = new Server({ name: "gate", version: "1" });
    exportTools(server, whoami);
    return server;
  }, {
    onerror: () => {},
    auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify },
  });
}

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A legacy `initialize` with `token`. */
function legacy(
  handler: (req: Request) => Promise<Response>,
  token: string,
): Promise<Response> {
  return handler(
    new Request(RESOURCE, {
      method: "POST",
      headers: { ...HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "gate-test", version: "1" },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    }),
  );
}

/** A modern (stateless) `tools/call` of `whoami` with `token`. */
function modern(
  handler: (req: Request) => Promise<Response>,
  token: string,
): Promise<Response> {
  return handler(
    new Request(RESOURCE, {
      method: "POST",
      headers: {
        ...HEADERS,
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "whoami",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "whoami",
          arguments: {},
          _meta: {
            [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
            [META.clientCapabilities]: {},
            [META.clientInfo]: { name: "gate-test", version: "1" },
          },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    }),
  );
}

/**
 * The status of `res`; for a 401 with its error_description, for a 200
 * with the caller the tool named (a modern call) or the server's name (a
 * legacy initialize).
 */
async function outcome(res: Response): Promise<string> {
  const text = await res.text();
  if (res.status === 401) {
    return `401 ${JSON.parse(text).error_description}`;
  }
  if (res.status !== 200) return `${res.status} ${text}`;
  const data = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  const result = JSON.parse(data ?? "{}").result;
  return `200 ${result?.content?.[0]?.text ?? result?.serverInfo?.name}`;
}

const ERAS = { legacy, modern } as const;

/** What a request of `era` that passed reads: the server, or the caller. */
const PASSED = { legacy: "200 gate", modern: '200 ["app","alice"]' } as const;

Deno.test("clockTolerance holds end to end: a token expired 10 s ago passes with 30 s (and the default), is refused with none, both eras", async () => {
  const token = await expired(10);
  const cases: [string, TokenVerifier, string][] = [
    ["tolerance 30", verifier({ clockTolerance: 30 }), "passed"],
    ["default tolerance", verifier(), "passed"],
    ["tolerance 0", verifier({ clockTolerance: 0 }), "401 the token expired"],
  ];
  for (const [name, verify, expected] of cases) {
    for (const era of ["legacy", "modern"] as const) {
      await using handler = handlerWith(verify);
      assert.equal(
        await outcome(await ERAS[era](handler, token)),
        expected === "passed" ? PASSED[era] : expected,
        `${name}, ${era}`,
      );
    }
  }
  // Past the tolerance: refused by both.
  for (const [era, send] of Object.entries(ERAS)) {
    await using handler = handlerWith(verifier({ clockTolerance: 30 }));
    assert.equal(
      await outcome(await send(handler, await expired(60))),
      "401 the token expired",
      era,
    );
  }
});

Deno.test("a verify of one's own gets no tolerance on expiresAt, even wrapping jwtVerifier", async () => {
  const inner = verifier({ clockTolerance: 30 });
  const wrapped: TokenVerifier = (token) => inner(token);
  const now = Date.now() / 1000;
  const own: TokenVerifier = (token) =>
    ({ token, clientId: "app", scopes: [], expiresAt: now - 10 }) as AuthInfo;
  const token = await expired(10);
  for (const verify of [wrapped, own]) {
    for (const [era, send] of Object.entries(ERAS)) {
      await using handler = handlerWith(verify);
      assert.equal(
        await outcome(await send(handler, token)),
        "401 the token expired",
        era,
      );
    }
  }
});

Deno.test("jwtVerifier: a clockTolerance that is not a non-negative number is refused when the verifier is made", () => {
  for (const bad of [-1, Number.NaN, Infinity, "30" as unknown as number]) {
    assert.throws(() => verifier({ clockTolerance: bad }), {
      name: "TypeError",
      message:
        `jwtVerifier: options.clockTolerance must be a non-negative number of seconds, got ${
          String(bad)
        }`,
    });
  }
});

Deno.test("a verify of one's own whose result names no principal (no clientId, no extra.sub) is refused 401 in both eras, as jwtVerifier refuses one", async () => {
  const refused: [string, unknown][] = [
    ["no clientId", { scopes: [] }],
    ["an empty clientId", { clientId: "", scopes: [] }],
    ["empty ones", { clientId: "", scopes: [], extra: { sub: "" } }],
    ["not strings", { clientId: 7, scopes: [], extra: { sub: 1 } }],
    ["null", null],
  ];
  for (const [name, result] of refused) {
    const verify = ((token: string) =>
      result === null
        ? null
        : { token, ...(result as object) }) as unknown as TokenVerifier;
    // Two such callers would be one principal: neither gets a session
    // (legacy) nor a call (modern) to share.
    for (const era of ["legacy", "modern"] as const) {
      await using handler = handlerWith(verify);
      for (const token of ["alice's", "mallory's"]) {
        assert.equal(
          await outcome(await ERAS[era](handler, token)),
          name === "null"
            ? "401 the token is not valid"
            : "401 the token names no principal: no client id or subject",
          `${name}, ${era}`,
        );
      }
    }
  }
  // Either one names the caller.
  const passed: [unknown, string][] = [
    [{ clientId: "", scopes: [], extra: { sub: "alice" } }, '["","alice"]'],
    [{ clientId: "app", scopes: [] }, '["app",null]'],
  ];
  for (const [result, seen] of passed) {
    const verify: TokenVerifier = (token) =>
      ({ token, ...(result as object) }) as AuthInfo;
    await using handler = handlerWith(verify);
    assert.equal(await outcome(await legacy(handler, "t")), "200 gate");
    assert.equal(await outcome(await modern(handler, "t")), `200 ${seen}`);
  }
});
