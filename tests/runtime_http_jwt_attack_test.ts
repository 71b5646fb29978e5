/**
 * `jwtVerifier` under attack: malformed tokens of every kind (a fuzz of
 * many variants) refused 401 `invalid_token` through the handler, never a
 * 500 nor an error other than the refusal reported; `typ` (`at+jwt`, the
 * `allowJwtTyp` option), `crit`, tokens naming no principal; a failing
 * JWKS backed off (a real listener counting fetches); remembered claims
 * deep-copied (a tool mutating them, the next request unaffected); the
 * clock tolerance on both sides of `nbf` and `exp`; a token without `kid`
 * and several keys.
 */

import assert from "node:assert/strict";
import { exportTools, httpHandler, rawTool, Server } from "../mod.ts";
import {
  InvalidTokenError,
  jwtVerifier,
  type JwtVerifierOptions,
} from "../auth.ts";
import { HttpRefusalError } from "../runtime.ts";
import { b64url, mint, signer } from "./_helpers/jwt_mint.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";
import { waitFor } from "./_helpers/wait.ts";

const ISSUER = "https://as.example";
const RESOURCE = "http://localhost/mcp";

const key = await signer("RS256", "k1");

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: RESOURCE,
    sub: "user-1",
    client_id: "app-1",
    scope: "mcp",
    exp: now + 300,
    ...extra,
  };
}

function verifier(
  options: Partial<JwtVerifierOptions> = {},
): ReturnType<typeof jwtVerifier> {
  return jwtVerifier({
    issuer: ISSUER,
    audience: RESOURCE,
    jwks: { keys: [key.jwk] },
    ...options,
  });
}

function refusedWith(message: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof InvalidTokenError, String(e));
    assert.equal(e.message, message);
    return true;
  };
}

/** A tool that answers with the claims it is handed, after vandalising them. */
const vandal = rawTool({
  name: "vandal",
  description: "Reads the caller's claims, then changes them.",
  run: (_args, ctx) => {
    const claims = ctx.auth?.extra?.claims as Record<string, unknown>;
    const seen = JSON.stringify(claims);
    claims.scope = "admin";
    (claims.roles as string[]).push("root");
    (claims.org as Record<string, unknown>).id = "evil";
    ctx.auth!.scopes.push("admin");
    return seen;
  },
});

function handlerWith(verify: ReturnType<typeof jwtVerifier>) {
  const reported: Error[] = [];
  const handler = httpHandler(() => {
    const server = new Server({ name: "jwt-attack", version: "1" });
    exportTools(server, vandal);
    return server;
  }, {
    onerror: (e) => reported.push(e),
    auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify },
  });
  return { handler, reported };
}

function call(handler: (req: Request) => Promise<Response>, bearer: string) {
  return handler(
    new Request(RESOURCE, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "vandal", arguments: {} },
      }),
      signal: AbortSignal.timeout(10_000),
    }),
  );
}

/** Asserts a 401 invalid_token and that only that refusal was reported. */
async function assertInvalid(
  res: Response,
  reported: Error[],
  what: string,
): Promise<void> {
  const body = await res.text();
  assert.equal(
    res.status,
    401,
    `${what}: ${res.status} ${body} ${reported.map((e) => e.stack)}`,
  );
  assert.match(
    res.headers.get("www-authenticate") ?? "",
    /^Bearer error="invalid_token", /,
    what,
  );
  assert.equal(JSON.parse(body).error, "invalid_token", what);
  for (const e of reported.splice(0)) {
    assert.ok(
      e instanceof HttpRefusalError && e.status === 401,
      `${what}: reported ${e.stack}`,
    );
  }
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("a signature segment of length 1 mod 4 with a known kid: 401 invalid_token, not 500, nothing but the refusal reported", async () => {
  const { handler, reported } = handlerWith(verifier());
  await using _ = handler;
  const [head, body, sig] = (await mint(key, claims())).split(".");
  const long = sig + "A".repeat((5 - sig.length % 4) % 4);
  const variants = [long, sig.slice(0, 1), "A", sig.slice(0, 337)];
  for (const s of variants) {
    assert.equal(s.length % 4, 1);
    await assertInvalid(
      await call(handler, `${head}.${body}.${s}`),
      reported,
      `signature of ${s.length} characters`,
    );
    await assert.rejects(
      verifier()(`${head}.${body}.${s}`),
      refusedWith("the token's signature is not base64url"),
    );
  }
});

Deno.test("fuzz: 600 malformed tokens, each refused 401 invalid_token by the handler and InvalidTokenError by the verifier", async () => {
  const verify = verifier();
  const { handler, reported } = handlerWith(verify);
  await using _ = handler;
  const next = random(0x5eed);
  const pickOf = <T>(list: readonly T[]): T =>
    list[Math.floor(next() * list.length)];
  const good = await mint(key, claims());
  const [head, body, sig] = good.split(".");
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.!%~";
  const noise = (n: number) =>
    Array.from({ length: n }, () => pickOf([...alphabet])).join("");
  const json = [
    "null",
    "1",
    '"x"',
    "[]",
    "[1,2]",
    "true",
    "{",
    '{"alg":',
    "",
    "\u00ff\u00fe",
    '{"alg":"RS256","kid":"k1","typ":"at+jwt"',
    '{"alg":"RS256","kid":"k1","typ":"at+jwt","crit":["exp"]}',
    '{"alg":"RS256","kid":1,"typ":"at+jwt"}',
    '{"alg":"RS256","kid":"k1","typ":7}',
    '{"alg":["RS256"],"kid":"k1"}',
    '{"alg":"toString","kid":"k1","typ":"at+jwt"}',
    '{"alg":"__proto__","kid":"k1","typ":"at+jwt"}',
  ];
  const segment = (): string => {
    switch (Math.floor(next() * 6)) {
      case 0:
        return noise(Math.floor(next() * 40));
      case 1:
        return b64url(pickOf(json));
      case 2:
        return b64url(crypto.getRandomValues(new Uint8Array(next() * 300)));
      case 3:
        return pickOf([head, body, sig]);
      case 4: {
        const s = pickOf([head, body, sig]);
        const cut = Math.floor(next() * s.length);
        return s.slice(0, cut) + noise(1) + s.slice(cut + 1);
      }
      default:
        return pickOf([head, body, sig]).slice(
          0,
          Math.floor(next() * 200),
        );
    }
  };
  const tokens = new Set<string>([
    "",
    ".",
    "..",
    "...",
    `${head}.${body}`,
    `${head}.${body}.${sig}.${sig}`,
    `${head}..${sig}`,
    `.${body}.${sig}`,
    `${head}.${body}.`,
    `${head}.${body}.${sig}=`,
    `${head}=.${body}.${sig}`,
    `${head}.${b64url("[]")}.${sig}`,
    `${head}.${b64url("null")}.${sig}`,
    `${head}.${body}.${sig}`.repeat(40),
    `${head}.${
      b64url(JSON.stringify(claims({ pad: "x".repeat(40_000) })))
    }.${sig}`,
  ]);
  while (tokens.size < 600) {
    const n = pickOf([1, 2, 3, 3, 3, 3, 4, 5]);
    const token = Array.from({ length: n }, segment).join(".");
    if (token !== good) tokens.add(token);
  }
  for (const token of tokens) {
    const what = `token ${JSON.stringify(token.slice(0, 120))}`;
    await assert.rejects(verify(token), InvalidTokenError, what);
    if (!/^[\x21-\x7e]+$/.test(token)) continue; // not a header value
    await assertInvalid(await call(handler, token), reported, what);
  }
  // Not a string of ASCII: the verifier alone (headers cannot carry it).
  for (const token of ["é.é.é", `${head}.${body}.${sig}\u0000`, "\ud800"]) {
    await assert.rejects(verify(token), InvalidTokenError, token);
  }
  // The good token still passes: the fuzz did not poison anything.
  assert.equal((await verify(good)).clientId, "app-1");
});

Deno.test("a huge token is refused unread", async () => {
  await assert.rejects(
    verifier()("a".repeat(40_000)),
    refusedWith("the token is longer than 32768 characters"),
  );
  const { handler, reported } = handlerWith(verifier());
  await using _ = handler;
  await assertInvalid(
    await call(handler, "a.b.c".repeat(20_000)),
    reported,
    "100,000 characters",
  );
});

Deno.test("typ: at+jwt and application/at+jwt (any case) accepted; JWT, none and others refused by default", async () => {
  const verify = verifier();
  for (
    const typ of [
      "at+jwt",
      "application/at+jwt",
      "AT+JWT",
      "Application/At+JWT",
    ]
  ) {
    const auth = await verify(await mint(key, claims(), { typ }));
    assert.equal(auth.clientId, "app-1", typ);
  }
  for (
    const typ of [
      "JWT",
      "jwt",
      "application/jwt",
      "dpop+jwt",
      "oauth-id-jag+jwt",
      "at+jwt ",
      "secevent+jwt",
    ]
  ) {
    await assert.rejects(
      verify(await mint(key, claims(), { typ })),
      refusedWith(
        `the token's typ ${
          JSON.stringify(typ)
        } is not accepted; an access token is typ at+jwt`,
      ),
    );
  }
  await assert.rejects(
    verify(await mint(key, claims(), { typ: undefined })),
    refusedWith("the token has no typ; an access token is typ at+jwt"),
  );
  await assert.rejects(
    verify(await mint(key, claims(), { typ: ["at+jwt"] })),
    refusedWith(
      `the token's typ ["at+jwt"] is not accepted; an access token is typ at+jwt`,
    ),
  );
});

Deno.test("a kid that is not a string is refused, not taken for an absent one", async () => {
  await assert.rejects(
    verifier()(await mint(key, claims(), { kid: 1 })),
    refusedWith("the token's kid is not a string"),
  );
});

Deno.test("typ with allowJwtTyp: JWT, application/jwt and an absent typ also accepted; other types still refused", async () => {
  const verify = verifier({ allowJwtTyp: true });
  for (const typ of ["at+jwt", "JWT", "jwt", "application/jwt", undefined]) {
    const auth = await verify(await mint(key, claims(), { typ }));
    assert.equal(auth.clientId, "app-1", String(typ));
  }
  for (const typ of ["dpop+jwt", "oauth-id-jag+jwt", "", 1]) {
    await assert.rejects(
      verify(await mint(key, claims(), { typ })),
      InvalidTokenError,
      String(typ),
    );
  }
});

Deno.test("crit: any critical header extension is refused (none is understood)", async () => {
  const verify = verifier({ allowJwtTyp: true });
  for (const crit of [["exp"], ["b64"], ["urn:x"], [], "exp"]) {
    await assert.rejects(
      verify(await mint(key, claims(), { crit, exp: 1, b64: true })),
      refusedWith(
        "the token's header has crit: no critical extension is understood",
      ),
      JSON.stringify(crit),
    );
  }
});

Deno.test("a token naming no principal (no sub, client_id or azp, or empty ones) is refused; any one of them suffices", async () => {
  const verify = verifier();
  const { handler, reported } = handlerWith(verify);
  await using _ = handler;
  const none = { sub: undefined, client_id: undefined };
  for (
    const extra of [
      none,
      { sub: "", client_id: "", azp: "" },
      { sub: 1, client_id: null, azp: {} },
    ]
  ) {
    const token = await mint(key, claims(extra));
    await assert.rejects(
      verify(token),
      refusedWith(
        "the token names no principal: it has no sub, client_id or azp",
      ),
    );
    // Two such callers can never open, let alone share, a session.
    await assertInvalid(await call(handler, token), reported, "no principal");
  }
  assert.equal(
    (await verify(await mint(key, claims({ ...none, sub: "u" })))).clientId,
    "u",
  );
  assert.equal(
    (await verify(await mint(key, claims({ ...none, azp: "z" })))).clientId,
    "z",
  );
  assert.equal(
    (await verify(await mint(key, claims({ sub: undefined })))).clientId,
    "app-1",
  );
});

async function jwksServer(
  answer: () => Response | Promise<Response>,
): Promise<
  { url: string; fetches: () => number; [Symbol.asyncDispose](): Promise<void> }
> {
  let fetches = 0;
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () => {
      fetches++;
      return answer();
    },
  );
  await Promise.resolve();
  return {
    url: `http://127.0.0.1:${server.addr.port}/jwks`,
    fetches: () => fetches,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

Deno.test("a failing JWKS is backed off: neither sequential nor concurrent requests refetch it before the back-off (default ≥ 30 s)", async () => {
  let release!: () => void;
  const slow = new Promise<void>((r) => release = r);
  await using jwks = await jwksServer(async () => {
    await slow;
    return new Response("down", { status: 503 });
  });
  const verify = verifier({ jwks: jwks.url });
  const token = await mint(key, claims());
  // Concurrent first requests share one fetch.
  const concurrent = Array.from({ length: 10 }, () => verify(token));
  await waitFor(() => jwks.fetches() > 0, "the first fetch reaches the issuer");
  release();
  for (const result of await Promise.allSettled(concurrent)) {
    assert.equal(result.status, "rejected");
    const e = result.reason as Error;
    assert.ok(!(e instanceof InvalidTokenError));
    assert.equal(
      e.message,
      `jwtVerifier: the JWKS at ${jwks.url} answered 503; check the issuer's jwks_uri`,
    );
  }
  assert.equal(jwks.fetches(), 1, "concurrent requests share one fetch");
  // Later requests within the back-off do not fetch; each says so.
  for (let i = 0; i < 20; i++) {
    await assert.rejects(verify(await mint(key, claims({ jti: `${i}` }))), (
      e,
    ) => {
      assert.ok(e instanceof Error && !(e instanceof InvalidTokenError));
      assert.match(
        e.message,
        /^jwtVerifier: the JWKS at .* answered 503; check the issuer's jwks_uri; not fetched again for (29|30) s$/,
      );
      return true;
    });
  }
  assert.equal(jwks.fetches(), 1, "no refetch within the back-off");
});

Deno.test("JWKS back-off: doubles after each failure, and the set is used once the issuer answers again", async () => {
  // The back-off is read from Date.now, which stands still but for advance:
  // each window is probed at its last millisecond and its first.
  using clock = new FakeClock();
  let up = false;
  await using jwks = await jwksServer(() =>
    up ? Response.json({ keys: [key.jwk] }) : new Response("", { status: 500 })
  );
  const verify = verifier({ jwks: jwks.url, refetchInterval: 100 });
  const token = await mint(key, claims());
  const tryIt = () => verify(token).then(() => true, () => false);
  assert.equal(await tryIt(), false);
  assert.equal(jwks.fetches(), 1);
  for (const [backOff, fetched] of [[100, 2], [200, 3]]) {
    clock.advance(backOff - 1);
    assert.equal(await tryIt(), false);
    assert.equal(
      jwks.fetches(),
      fetched - 1,
      `within the ${backOff} ms back-off`,
    );
    clock.advance(1);
    assert.equal(await tryIt(), false);
    assert.equal(jwks.fetches(), fetched, `after the ${backOff} ms back-off`);
  }
  up = true;
  clock.advance(399);
  assert.equal(await tryIt(), false, "the 400 ms back-off holds");
  assert.equal(jwks.fetches(), 3);
  clock.advance(1);
  assert.equal(await tryIt(), true, "the set is used");
  assert.equal(jwks.fetches(), 4);
});

Deno.test("JWKS back-off with a set known: a refetch for an unknown kid that fails refuses the token (401) and is not repeated at once", async () => {
  let up = true;
  await using jwks = await jwksServer(() =>
    up ? Response.json({ keys: [key.jwk] }) : new Response("", { status: 500 })
  );
  using clock = new FakeClock();
  const verify = verifier({ jwks: jwks.url, refetchInterval: 300 });
  const stranger = await signer("RS256", "k2");
  await verify(await mint(key, claims()));
  assert.equal(jwks.fetches(), 1);
  clock.advance(300); // the refetch interval has passed
  up = false;
  for (let i = 0; i < 5; i++) {
    await assert.rejects(
      verify(await mint(stranger, claims())),
      refusedWith(`the issuer has no key "k2" for RS256`),
    );
  }
  assert.equal(jwks.fetches(), 2, "one refetch, then the back-off");
  // The known key still works, without a fetch.
  assert.equal((await verify(await mint(key, claims()))).clientId, "app-1");
  assert.equal(jwks.fetches(), 2);
});

Deno.test("remembered claims are deep-copied: a tool that mutates ctx.auth's claims, scopes and resource changes nothing for the next request", async () => {
  const verify = verifier();
  const { handler, reported } = handlerWith(verify);
  await using _ = handler;
  const token = await mint(
    key,
    claims({ roles: ["reader"], org: { id: "acme" } }),
  );
  const texts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await call(handler, token);
    assert.equal(res.status, 200);
    const text = await res.text();
    const line = text.split("\n").find((l) => l.startsWith("data: ")) ??
      `data: ${text}`;
    const message = JSON.parse(line.slice(6));
    texts.push(message.result.content[0].text);
  }
  assert.deepEqual(reported, []);
  const seen = JSON.parse(texts[0]);
  assert.equal(seen.scope, "mcp");
  assert.deepEqual(seen.roles, ["reader"]);
  assert.deepEqual(seen.org, { id: "acme" });
  assert.equal(texts[1], texts[0]);
  assert.equal(texts[2], texts[0]);
  // And directly: what one caller is handed is its own, to the last level.
  const a = await verify(token);
  (a.extra!.claims as { org: { id: string } }).org.id = "evil";
  a.resource!.pathname = "/elsewhere";
  const b = await verify(token);
  assert.deepEqual((b.extra!.claims as { org: unknown }).org, { id: "acme" });
  assert.equal(b.resource!.href, RESOURCE);
  // A claim named __proto__ stays a claim: no prototype for the copy.
  const proto = await mint(key, {
    ...claims(),
    ["__proto__"]: { admin: true },
  });
  await verify(proto);
  const copied = (await verify(proto)).extra!.claims as Record<string, unknown>;
  assert.equal(copied.admin, undefined);
  assert.deepEqual(
    Object.getOwnPropertyDescriptor(copied, "__proto__")?.value,
    {
      admin: true,
    },
  );
});

Deno.test("clock tolerance the right way round: nbf 10 s ahead and exp 10 s past pass with 30 s; nbf 60 s ahead and exp 60 s past do not", async () => {
  const verify = verifier({ clockTolerance: 30, cacheSize: 0 });
  const now = Math.floor(Date.now() / 1000);
  assert.equal(
    (await verify(await mint(key, claims({ nbf: now + 10 })))).clientId,
    "app-1",
  );
  assert.equal(
    (await verify(await mint(key, claims({ exp: now - 10 })))).clientId,
    "app-1",
  );
  await assert.rejects(
    verify(await mint(key, claims({ nbf: now + 60 }))),
    refusedWith("the token is not valid yet"),
  );
  await assert.rejects(
    verify(await mint(key, claims({ exp: now - 60 }))),
    refusedWith("the token expired"),
  );
  await assert.rejects(
    verify(await mint(key, claims({ nbf: String(now + 600) }))),
    refusedWith("the token's nbf is not a number"),
  );
});

Deno.test("a token without kid: verified by the only key that fits its alg; refused when several fit (never the first guessed); an unlisted key fails", async () => {
  const one = await signer("RS256", "one");
  const two = await signer("RS256", "two");
  const ec = await signer("ES256", "ec");
  const bare = (s: typeof one) => ({ ...s.jwk, kid: undefined });
  // Several RSA keys: a kid-less token is refused, whichever signed it.
  const several = verifier({ jwks: { keys: [bare(one), bare(two), ec.jwk] } });
  for (const signedBy of [one, two]) {
    await assert.rejects(
      several(await mint(signedBy, claims(), { kid: undefined })),
      refusedWith(
        "the token names no key (kid) and the issuer has several for RS256",
      ),
      signedBy.kid,
    );
  }
  // With a kid each verifies by its own key.
  const named = verifier({ jwks: { keys: [one.jwk, two.jwk] } });
  assert.equal((await named(await mint(two, claims()))).clientId, "app-1");
  // One key of the token's kind among others: that one, and only it.
  assert.equal(
    (await several(await mint(ec, claims(), { kid: undefined }))).clientId,
    "app-1",
  );
  const single = verifier({ jwks: { keys: [bare(two), ec.jwk] } });
  assert.equal(
    (await single(await mint(two, claims(), { kid: undefined }))).clientId,
    "app-1",
  );
  await assert.rejects(
    single(await mint(one, claims(), { kid: undefined })),
    refusedWith("the token's signature is not valid"),
  );
  // A key on another curve does not fit ES256.
  const p384 = { ...ec.jwk, crv: "P-384", kid: "p384" };
  await assert.rejects(
    verifier({ jwks: { keys: [p384] } })(
      await mint(ec, claims(), { kid: undefined }),
    ),
    refusedWith("no key of the issuer fits ES256"),
  );
});

Deno.test("options: an audience that is not a URL is refused when the verifier is made, not on every token", () => {
  assert.throws(
    () => verifier({ audience: "my-api" }),
    (e) =>
      e instanceof TypeError &&
      e.message ===
        `jwtVerifier: options.audience must be this resource's URL, got "my-api"`,
  );
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => verifier({ algorithms: ["toString" as any] }),
    TypeError,
  );
});

Deno.test("a refusal's reason that is not ASCII: the 401 still goes out, the header keeping printable ASCII, the body the whole text", async () => {
  const reason =
    "the token\u2019s owner \u201cZo\u00eb\u201d \u2603 is unknown";
  const { handler, reported } = handlerWith(() => {
    throw new InvalidTokenError(reason);
  });
  await using _ = handler;
  const res = await call(handler, "t");
  assert.equal(
    res.headers.get("www-authenticate"),
    `Bearer error="invalid_token", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", error_description="the tokens owner Zo  is unknown"`,
  );
  assert.deepEqual(await res.json(), {
    error: "invalid_token",
    error_description: reason,
  });
  assert.equal(reported.length, 1);
  assert.ok(reported[0] instanceof HttpRefusalError);
  assert.equal(reported[0].status, 401);
});

Deno.test("a token's own bytes quoted in a refusal are escaped to ASCII", async () => {
  const head = b64url(JSON.stringify({ alg: "RS\u00e9\u2603", typ: "at+jwt" }));
  await assert.rejects(
    verifier()(`${head}.${b64url("{}")}.`),
    refusedWith(`the token's algorithm "RS\\u00e9\\u2603" is not accepted`),
  );
});
