/**
 * `jwtVerifier` on its own: each accepted algorithm verifies (RS256,
 * PS256, ES256, EdDSA), the allow-list is enforced both ways, the clock
 * tolerance holds, the result's fields, and the JWKS fetched from a real
 * listener on 127.0.0.1 — cached, fetched again for an unknown `kid`, at
 * most once per `refetchInterval`, a failing JWKS a plain Error.
 */

import assert from "node:assert/strict";
import { InvalidTokenError, jwtVerifier } from "../auth.ts";
import { mint, type MintAlg, signer } from "./_helpers/jwt_mint.ts";
import { FakeClock } from "./_helpers/fake_clock.ts";

const ISSUER = "https://as.example";
const AUDIENCE = "https://rs.example/mcp";

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: [AUDIENCE, "other"],
    sub: "s",
    client_id: "c",
    scope: "a b",
    exp: now + 60,
    ...extra,
  };
}

for (const alg of ["RS256", "PS256", "ES256", "EdDSA"] as MintAlg[]) {
  Deno.test(`${alg}: a token signed with the set's key verifies; the result carries the claims`, async () => {
    const key = await signer(alg, `k-${alg}`);
    const verify = jwtVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks: { keys: [key.jwk] },
    });
    const token = await mint(key, claims());
    const auth = await verify(token);
    assert.equal(auth.token, token);
    assert.equal(auth.clientId, "c");
    assert.deepEqual(auth.scopes, ["a", "b"]);
    assert.equal(auth.resource?.href, AUDIENCE);
    assert.equal(auth.extra?.sub, "s");
    assert.equal(auth.extra?.iss, ISSUER);
    assert.equal(typeof auth.expiresAt, "number");
  });
}

Deno.test("the allow-list: a listed-out algorithm is refused; none and HMAC cannot be listed", async () => {
  const key = await signer("ES256", "k");
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.jwk] },
    algorithms: ["RS256"],
  });
  await assert.rejects(
    verify(await mint(key, claims())),
    (e) =>
      e instanceof InvalidTokenError &&
      e.message === `the token's algorithm "ES256" is not accepted`,
  );
  for (const alg of ["none", "HS256"]) {
    assert.throws(
      () =>
        jwtVerifier({
          issuer: ISSUER,
          audience: AUDIENCE,
          jwks: { keys: [] },
          // deno-lint-ignore no-explicit-any
          algorithms: [alg as any],
        }),
      TypeError,
    );
  }
});

Deno.test("a key whose alg differs from the token's is not used (RS256 key, PS256 token)", async () => {
  const key = await signer("PS256", "k");
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [{ ...key.jwk, alg: "RS256" }] },
  });
  await assert.rejects(
    verify(await mint(key, claims())),
    (e) =>
      e instanceof InvalidTokenError &&
      e.message === `the issuer has no key "k" for PS256`,
  );
});

Deno.test("clock tolerance: expired within it passes, beyond it fails; scp arrays and azp are read", async () => {
  const key = await signer("RS256", "k");
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.jwk] },
    clockTolerance: 10,
  });
  const now = Math.floor(Date.now() / 1000);
  const auth = await verify(
    await mint(
      key,
      claims({
        exp: now - 5,
        client_id: undefined,
        azp: "z",
        scope: undefined,
        scp: ["x"],
      }),
    ),
  );
  assert.equal(auth.clientId, "z");
  assert.deepEqual(auth.scopes, ["x"]);
  await assert.rejects(
    verify(await mint(key, claims({ exp: now - 11 }))),
    (e) => e instanceof InvalidTokenError && e.message === "the token expired",
  );
});

Deno.test("JWKS by URL: fetched once, cached, fetched again for an unknown kid at most once per interval", async () => {
  using clock = new FakeClock(); // the interval is read from Date.now
  const first = await signer("RS256", "one");
  const second = await signer("RS256", "two");
  let keys = [first.jwk];
  let fetches = 0;
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () => {
      fetches++;
      return Response.json({ keys });
    },
  );
  try {
    const verify = jwtVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks: `http://127.0.0.1:${server.addr.port}/jwks`,
      refetchInterval: 200,
    });
    await verify(await mint(first, claims()));
    await verify(await mint(first, claims()));
    assert.equal(fetches, 1, "cached");
    // The issuer rotates: the new kid triggers one more fetch... but not
    // within the interval of the last one.
    keys = [first.jwk, second.jwk];
    await assert.rejects(
      verify(await mint(second, claims())),
      InvalidTokenError,
    );
    assert.equal(fetches, 1, "rate-limited");
    clock.advance(200); // the refetch interval has passed
    const unknown = await signer("RS256", "three");
    const tokens = await Promise.all([
      mint(second, claims()),
      mint(second, claims()),
    ]);
    const results = await Promise.all(tokens.map((t) => verify(t)));
    assert.equal(results.length, 2);
    assert.equal(fetches, 2, "one fetch for concurrent unknown kids");
    await assert.rejects(
      verify(await mint(unknown, claims())),
      InvalidTokenError,
    );
    assert.equal(fetches, 2, "an unknown kid right after a fetch waits");
  } finally {
    stop.abort();
    await server.finished;
  }
});

Deno.test("JWKS by URL: an issuer answering 500 rejects with a plain Error naming the URL", async () => {
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () => new Response("down", { status: 500 }),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/jwks`;
    const verify = jwtVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks: url,
    });
    const key = await signer("RS256", "k");
    await assert.rejects(
      verify(await mint(key, claims())),
      (e) =>
        e instanceof Error && !(e instanceof InvalidTokenError) &&
        e.message ===
          `jwtVerifier: the JWKS at ${url} answered 500; check the issuer's jwks_uri`,
    );
  } finally {
    stop.abort();
    await server.finished;
  }
});

Deno.test("a remembered token: its expiry is checked again on every use; each caller gets its own copy", async () => {
  const key = await signer("ES256", "k");
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.jwk] },
    clockTolerance: 0,
  });
  const exp = Math.floor(Date.now() / 1000) + 1;
  const token = await mint(key, claims({ exp }));
  const first = await verify(token);
  first.scopes.push("admin");
  const second = await verify(token);
  assert.deepEqual(second.scopes, ["a", "b"]);
  await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
  await assert.rejects(
    verify(token),
    (e) => e instanceof InvalidTokenError && e.message === "the token expired",
  );
});
