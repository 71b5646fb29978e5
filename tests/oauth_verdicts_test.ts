/**
 * The OAuth client's verdicts as pure functions, on a fake clock (no
 * sleeps, no `Date.now`): expiry and the refresh steps (`_tokens.ts`), the
 * guarded refresh against a second caller (`_refresh.ts`), the callback's
 * state, error, `iss` and code (`_callback.ts`), the grant and what is
 * registered (`_grant.ts`), the SEP-990 exchange (`_enterprise.ts`); and the
 * adapter (`OAuthClient`) refreshing exactly when its clock passes expiry
 * less the margin.
 */

import assert from "node:assert/strict";
import {
  type Clock,
  EXPIRY_MARGIN,
  leaseReleased,
  recordOf,
  REFRESH_LEASE,
  refreshDue,
  refreshedTokens,
  refreshStep,
  refusedGrant,
  type TokenRecord,
  withAskedScope,
} from "../src/auth/client/_tokens.ts";
import { refreshGuarded } from "../src/auth/client/_refresh.ts";
import {
  callbackDenial,
  callbackVerdict,
  discoveredIssuerRefusal,
  livePending,
  PENDING_TTL,
  pendingRecordOf,
} from "../src/auth/client/_callback.ts";
import {
  clientKeyOf,
  clientMetadataOf,
  grantOf,
  JWT_BEARER,
  ownScope,
  supportedScope,
  tokensKeyOf,
} from "../src/auth/client/_grant.ts";
import {
  idJagVerdict,
  idpExchangeRequest,
  jwtBearerParams,
} from "../src/auth/client/_enterprise.ts";
import { OAuthClient } from "../src/auth/client/oauth_client.ts";
import {
  endFlow,
  flowOutcome,
  idleFlow,
  startFlow,
} from "../src/auth/client/_flow.ts";
import { ClientRecords } from "../src/auth/client/_records.ts";
import {
  refusedBefore,
  stepUpVerdict,
  union,
} from "../src/auth/client/_scopes.ts";
import { AuthorizationError } from "../src/auth/client/authorization_error.ts";
import { memoryOAuthStore } from "../src/auth/client/oauth_store.ts";

/** A clock that moves only when told. */
function fakeClock(start: number): Clock & { set(t: number): void } {
  let t = start;
  return { now: () => t, set: (at) => void (t = at) };
}

const T0 = 1_800_000_000_000;

Deno.test("tokens: a long-lived token is due exactly at expiry less EXPIRY_MARGIN, not a millisecond before", () => {
  const record = recordOf(
    {
      access_token: "a",
      token_type: "bearer",
      refresh_token: "r",
      expires_in: 3600,
    },
    T0,
  );
  const due = T0 + 3600_000 - EXPIRY_MARGIN;
  assert.equal(record.refreshAt, due);
  assert.equal(refreshDue(record, due - 1), false);
  assert.equal(refreshDue(record, due), true);
  assert.equal(refreshDue(record, due + 1), true);
});

Deno.test("tokens: a short-lived token keeps a tenth of its lifetime as margin", () => {
  const record = recordOf(
    {
      access_token: "a",
      token_type: "bearer",
      refresh_token: "r",
      expires_in: 60,
    },
    T0,
  );
  assert.equal(record.refreshAt, T0 + 54_000);
  assert.equal(refreshDue(record, T0 + 53_999), false);
  assert.equal(refreshDue(record, T0 + 54_000), true);
});

Deno.test("tokens: without a lifetime or a refresh token, a token is never refreshed before use", () => {
  const unknown = recordOf(
    { access_token: "a", token_type: "bearer", refresh_token: "r" },
    T0,
  );
  assert.equal(unknown.refreshAt, undefined);
  assert.equal(refreshDue(unknown, Number.MAX_SAFE_INTEGER), false);
  const noRefresh = recordOf(
    { access_token: "a", token_type: "bearer", expires_in: 1 },
    T0,
  );
  assert.equal(refreshDue(noRefresh, T0 + 10_000), false);
});

Deno.test("tokens: an answer without scope grants what was asked; a refresh keeps the grant's scope, refresh token and issuer", () => {
  assert.equal(
    withAskedScope({ access_token: "a", token_type: "bearer" }, "mcp read")
      .scope,
    "mcp read",
  );
  assert.equal(
    withAskedScope(
      { access_token: "a", token_type: "bearer", scope: "mcp" },
      "mcp read",
    ).scope,
    "mcp",
  );
  const kept = refreshedTokens(
    { access_token: "a2", token_type: "bearer" },
    {
      access_token: "a1",
      token_type: "bearer",
      scope: "mcp",
      issuer: "https://as",
    },
    "r1",
  );
  assert.deepEqual(kept, {
    access_token: "a2",
    token_type: "bearer",
    refresh_token: "r1",
    scope: "mcp",
    issuer: "https://as",
  });
  const rotated = refreshedTokens(
    {
      access_token: "a2",
      token_type: "bearer",
      refresh_token: "r2",
      scope: "x",
    },
    { access_token: "a1", token_type: "bearer", scope: "mcp" },
    "r1",
  );
  assert.equal(rotated.refresh_token, "r2");
  assert.equal(rotated.scope, "x");
});

Deno.test("refresh steps: nothing to refresh with, replaced elsewhere, a live lease waited for, a lapsed lease taken over", () => {
  const tokens = {
    access_token: "a1",
    token_type: "bearer",
    refresh_token: "r1",
  };
  assert.deepEqual(refreshStep(undefined, undefined, T0), { kind: "nothing" });
  assert.deepEqual(
    refreshStep({ tokens: { ...tokens, refresh_token: "" } }, undefined, T0),
    { kind: "nothing" },
  );
  assert.deepEqual(refreshStep({ tokens }, "a0", T0), { kind: "replaced" });
  assert.deepEqual(refreshStep({ tokens, lease: T0 + 1 }, "a1", T0), {
    kind: "wait",
    until: T0 + 1,
  });
  // A lease that ends now is lapsed: taken over, with a lease of its own.
  const step = refreshStep({ tokens, lease: T0 }, "a1", T0);
  assert.equal(step.kind, "lease");
  if (step.kind !== "lease") return;
  assert.equal(step.refreshToken, "r1");
  assert.equal(step.leased.lease, T0 + REFRESH_LEASE);
  assert.deepEqual(step.record, { tokens, lease: T0 });
  assert.equal(
    leaseReleased("v1", { version: "v2", value: { tokens } }),
    true,
  );
  assert.equal(
    leaseReleased("v1", { version: "v2", value: { tokens, lease: T0 } }),
    false,
  );
  assert.equal(
    leaseReleased("v1", { version: "v1", value: { tokens } }),
    false,
  );
});

Deno.test("refused grants: an OAuth error code other than a server-side one; nothing else", () => {
  const coded = (code: unknown) =>
    Object.assign(new Error("x"), { errorCode: code });
  assert.equal(refusedGrant(coded("invalid_grant")), true);
  assert.equal(refusedGrant(coded("invalid_client")), true);
  assert.equal(refusedGrant(coded("server_error")), false);
  assert.equal(refusedGrant(coded("temporarily_unavailable")), false);
  assert.equal(refusedGrant(coded(400)), false);
  assert.equal(refusedGrant(new Error("network")), false);
  assert.equal(refusedGrant({ errorCode: "invalid_grant" }), false);
});

const KEY = ["tokens", "https://as", "agent", "default", "https://mcp/"];
const STALE: TokenRecord = {
  tokens: { access_token: "a1", token_type: "bearer", refresh_token: "r1" },
  refreshAt: T0,
};

for (const seen of ["a1", undefined]) {
  Deno.test(`guarded refresh: a second caller waits for the lease holder's result and posts nothing (seen: ${seen})`, async () => {
    const store = memoryOAuthStore();
    await store.set(KEY, STALE);
    const clock = fakeClock(T0);
    const posted: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const exchanger = () =>
      Promise.resolve(async (refreshToken: string) => {
        posted.push(refreshToken);
        await held;
        return { access_token: "a2", token_type: "bearer", expires_in: 100 };
      });
    const first = refreshGuarded(store, KEY, { seen, clock, exchanger });
    // The second caller's pause is where the first finishes: no timer, no sleep.
    let pauses = 0;
    const second = refreshGuarded(store, KEY, {
      seen,
      clock,
      exchanger,
      pause: async () => {
        pauses++;
        release();
        await first;
      },
    });
    assert.deepEqual(await Promise.all([first, second]), [true, true]);
    assert.deepEqual(posted, ["r1"]);
    assert.equal(pauses, 1);
    const stored = (await store.get(KEY))?.value as TokenRecord;
    assert.equal(stored.tokens.access_token, "a2");
    assert.equal(stored.tokens.refresh_token, "r1");
    assert.equal(stored.lease, undefined);
    assert.equal(stored.refreshAt, T0 + 90_000);
  });
}

Deno.test("guarded refresh: a refused refresh token deletes the entry; another failure restores it and is thrown", async () => {
  const store = memoryOAuthStore();
  const clock = fakeClock(T0);
  await store.set(KEY, STALE);
  const refused = await refreshGuarded(store, KEY, {
    clock,
    exchanger: () =>
      Promise.resolve(() =>
        Promise.reject(
          Object.assign(new Error("spent"), { errorCode: "invalid_grant" }),
        )
      ),
  });
  assert.equal(refused, false);
  assert.equal(await store.get(KEY), undefined);

  await store.set(KEY, STALE);
  const outage = new Error("the authorization server is down");
  await assert.rejects(
    refreshGuarded(store, KEY, {
      clock,
      exchanger: () => Promise.resolve(() => Promise.reject(outage)),
    }),
    (e) => e === outage,
  );
  assert.deepEqual((await store.get(KEY))?.value, STALE);

  // A client that cannot refresh (nothing discovered) puts the entry back.
  assert.equal(
    await refreshGuarded(store, KEY, {
      clock,
      exchanger: () => Promise.resolve(undefined),
    }),
    false,
  );
  assert.deepEqual((await store.get(KEY))?.value, STALE);
});

Deno.test("callback: a pending authorization lives PENDING_TTL and is refused from its expiry on; a used one is refused", () => {
  const pending = pendingRecordOf(
    {
      serverUrl: "https://mcp/",
      principal: "p",
      verifier: "v",
      scope: undefined,
    },
    T0,
  );
  assert.deepEqual(pending, {
    serverUrl: "https://mcp/",
    principal: "p",
    verifier: "v",
    expires: T0 + PENDING_TTL,
  });
  assert.deepEqual(livePending(pending, T0 + PENDING_TTL - 1), pending);
  assert.equal(livePending(pending, T0 + PENDING_TTL), undefined);
  assert.equal(livePending(null, T0), undefined);
  assert.equal(livePending(undefined, T0), undefined);
  assert.equal(livePending({ ...pending, verifier: 1 }, T0), undefined);
});

Deno.test("callback: an error is denied with the server's words; iss must be the flow's issuer when present or required; a code is needed", () => {
  const denial = callbackDenial(
    new URLSearchParams({ error: "access_denied", error_description: "no" }),
  );
  assert.ok(denial instanceof AuthorizationError);
  assert.equal(denial.reason, "denied");
  assert.equal(
    denial.message,
    "OAuth: the authorization server refused: access_denied (no)",
  );
  assert.equal(callbackDenial(new URLSearchParams({ code: "c" })), undefined);

  const discovery = {
    authorizationServerUrl: "https://as",
    authorizationServerMetadata: {
      issuer: "https://as",
      authorization_endpoint: "https://as/authorize",
      token_endpoint: "https://as/token",
      response_types_supported: ["code"],
    },
  };
  const ok = callbackVerdict(
    new URLSearchParams({ code: "c", iss: "https://as" }),
    discovery,
  );
  assert.deepEqual(ok, { kind: "exchange", code: "c" });
  // Absent and not required: accepted.
  assert.deepEqual(
    callbackVerdict(new URLSearchParams({ code: "c" }), discovery),
    { kind: "exchange", code: "c" },
  );
  const mixUp = callbackVerdict(
    new URLSearchParams({ code: "c", iss: "https://evil" }),
    discovery,
  );
  assert.equal(mixUp.kind, "refused");
  if (mixUp.kind === "refused") {
    assert.equal(mixUp.error.reason, "issuer-mismatch");
    assert.equal(
      mixUp.error.message,
      'OAuth: the callback names issuer "https://evil", the flow started with "https://as" (RFC 9207: a mix-up); start the authorization again',
    );
  }
  const required = {
    ...discovery,
    authorizationServerMetadata: {
      ...discovery.authorizationServerMetadata,
      authorization_response_iss_parameter_supported: true,
    },
  };
  const missing = callbackVerdict(new URLSearchParams({ code: "c" }), required);
  assert.equal(
    missing.kind === "refused" && missing.error.reason,
    "issuer-mismatch",
  );
  const noCode = callbackVerdict(
    new URLSearchParams({ iss: "https://as" }),
    discovery,
  );
  assert.equal(noCode.kind === "refused" && noCode.error.reason, "denied");
});

Deno.test("discovery: metadata naming another issuer is refused (a trailing slash aside), except on the 2025-03-26 fallback", () => {
  const state = (issuer: string, withResource: boolean) => ({
    authorizationServerUrl: "https://as/",
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: "https://as/authorize",
      token_endpoint: "https://as/token",
      response_types_supported: ["code"],
    },
    ...(withResource ? { resourceMetadata: { resource: "https://mcp/" } } : {}),
  });
  assert.equal(discoveredIssuerRefusal(state("https://as", true)), undefined);
  const refusal = discoveredIssuerRefusal(state("https://other", true));
  assert.equal(refusal?.reason, "issuer-mismatch");
  assert.equal(
    discoveredIssuerRefusal(state("https://other", false)),
    undefined,
  );
});

Deno.test("grant: a redirectUrl means the authorization code grant, else enterprise means the JWT bearer grant, else client credentials", () => {
  const enterprise = { idpTokenEndpoint: "https://idp/token", idToken: "t" };
  assert.equal(
    grantOf({ redirectUrl: "http://127.0.0.1/cb", enterprise }),
    "authorization_code",
  );
  assert.equal(grantOf({ clientId: "a", enterprise }), "jwt_bearer");
  assert.equal(grantOf({ clientId: "a" }), "client_credentials");
  assert.deepEqual(
    clientMetadataOf({ clientId: "a", enterprise }).grant_types,
    [JWT_BEARER],
  );
  assert.deepEqual(
    clientMetadataOf({ clientId: "a", privateKey: "k", scope: "mcp" }),
    {
      client_name: "weft-mcp",
      redirect_uris: [],
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "private_key_jwt",
      scope: "mcp",
    },
  );
  const native = clientMetadataOf({ redirectUrl: "http://localhost:8976/cb" });
  assert.equal(
    (native as { application_type?: string }).application_type,
    "native",
  );
  const web = clientMetadataOf({
    redirectUrl: "https://app.example/cb",
    clientSecret: "s",
  });
  assert.equal((web as { application_type?: string }).application_type, "web");
  assert.equal(web.token_endpoint_auth_method, "client_secret_basic");
});

Deno.test("grant: the scope asked is the wanted one, else the option, else scopes_supported; keys name issuer, client and principal", () => {
  assert.equal(ownScope("a b", "opt"), "a b");
  assert.equal(ownScope("", "opt"), "opt");
  assert.equal(ownScope(undefined, undefined), undefined);
  assert.equal(supportedScope(["x", "y"]), "x y");
  assert.equal(supportedScope([]), undefined);
  assert.deepEqual(
    clientKeyOf({ redirectUrl: "http://127.0.0.1/cb" }, "https://as"),
    [
      "client",
      "https://as",
      "dcr:http://127.0.0.1/cb",
    ],
  );
  assert.deepEqual(
    tokensKeyOf({ clientId: "configured" }, {
      issuer: "https://as",
      registered: { client_id: "registered" },
      principal: "alice",
      serverUrl: "https://mcp/",
    }),
    ["tokens", "https://as", "registered", "alice", "https://mcp/"],
  );
});

Deno.test("enterprise: the exchange authenticates to the IdP as told; an answer without an ID-JAG is refused with the IdP's words", () => {
  const enterprise = {
    idpTokenEndpoint: "https://idp/token",
    idToken: "id",
    idpClientId: "c d",
    idpClientSecret: "s:t",
  };
  const target = {
    audience: "https://as",
    resource: "https://mcp/",
    scope: "mcp",
    idToken: "id",
  };
  const basic = idpExchangeRequest(enterprise, target);
  const headers = basic.init.headers as Headers;
  assert.equal(headers.get("authorization"), `Basic ${btoa("c%20d:s%3At")}`);
  const body = basic.init.body as URLSearchParams;
  assert.equal(body.get("client_id"), null);
  assert.equal(body.get("scope"), "mcp");
  assert.equal(body.get("audience"), "https://as");
  const publicClient = idpExchangeRequest(
    { idpTokenEndpoint: "https://idp/token", idToken: "id", idpClientId: "c" },
    { ...target, scope: "" },
  );
  const publicBody = publicClient.init.body as URLSearchParams;
  assert.equal(publicBody.get("client_id"), "c");
  assert.equal(publicBody.get("scope"), null);

  const at = { endpoint: new URL("https://idp/token"), audience: "https://as" };
  const jag = "urn:ietf:params:oauth:token-type:id-jag";
  assert.deepEqual(
    idJagVerdict(200, { access_token: "j", issued_token_type: jag }, at),
    { kind: "assertion", assertion: "j" },
  );
  const wrongType = idJagVerdict(200, {
    access_token: "j",
    issued_token_type: "x",
  }, at);
  assert.equal(wrongType.kind, "refused");
  const refused = idJagVerdict(400, {
    error: "invalid_grant",
    error_description: "expired",
  }, at);
  assert.equal(
    refused.kind === "refused" && refused.error.reason,
    "idp-refused",
  );
  assert.equal(
    refused.kind === "refused" && refused.error.message,
    "OAuth: the identity provider at https://idp/token refused to exchange the ID token for an ID-JAG for https://as: invalid_grant (expired); check the ID token (expired?) and that the IdP trusts this client for that authorization server",
  );
  const bare = idJagVerdict(502, undefined, at);
  assert.match(
    bare.kind === "refused" ? bare.error.message : "",
    /HTTP 502 without an ID-JAG/,
  );
  const grant = jwtBearerParams("j", "mcp");
  assert.equal(grant.get("grant_type"), JWT_BEARER);
  assert.equal(grant.get("assertion"), "j");
});

Deno.test("OAuthClient on a fake clock: the token is refreshed exactly when the clock passes expiry less the margin, once", async () => {
  const clock = fakeClock(T0);
  const client = new OAuthClient({ clientId: "agent" }, memoryOAuthStore(), {
    serverUrl: "https://mcp.example/mcp",
    clock,
  });
  await client.saveDiscoveryState({
    authorizationServerUrl: "https://as.example",
    authorizationServerMetadata: {
      issuer: "https://as.example",
      authorization_endpoint: "https://as.example/authorize",
      token_endpoint: "https://as.example/token",
      response_types_supported: ["code"],
    },
  });
  await client.saveTokens({
    access_token: "a1",
    token_type: "bearer",
    refresh_token: "r1",
    expires_in: 100,
  });
  const posts: string[] = [];
  const fetchFn = (input: string | URL, init?: RequestInit) => {
    posts.push(
      `${String(input)} ${
        (init?.body as URLSearchParams).get("refresh_token")
      }`,
    );
    return Promise.resolve(Response.json({
      access_token: `a${posts.length + 1}`,
      token_type: "bearer",
      expires_in: 100,
    }));
  };
  // 100 s lifetime: a margin of 10 s, due at T0 + 90 s.
  clock.set(T0 + 89_999);
  assert.equal(await client.accessToken(fetchFn), "a1");
  assert.deepEqual(posts, []);
  clock.set(T0 + 90_000);
  assert.equal(await client.accessToken(fetchFn), "a2");
  assert.deepEqual(posts, ["https://as.example/token r1"]);
  // The fresh token is due 90 s after its own issue, not before.
  assert.equal(await client.accessToken(fetchFn), "a2");
  clock.set(T0 + 90_000 + 89_999);
  assert.equal(await client.accessToken(fetchFn), "a2");
  assert.equal(posts.length, 1);
  assert.deepEqual(await client.grantedScopes(), []);
});

Deno.test("flow: auth() authorized ends the flow; a redirect the authorize hook answered is finished; one nobody answered is redirect-required", () => {
  const started = idleFlow();
  startFlow(started, {
    scope: "mcp",
    resourceMetadataUrl: new URL(
      "https://mcp/.well-known/oauth-protected-resource",
    ),
    fetchFn: fetch,
  });
  assert.equal(started.hidden, true);
  assert.equal(started.scope, "mcp");
  endFlow(started);
  assert.equal(started.hidden, false);
  assert.equal(started.fetch, undefined);

  assert.deepEqual(flowOutcome("AUTHORIZED", {}, "https://mcp/"), {
    kind: "authorized",
  });
  const back = new URL("http://127.0.0.1/cb?code=c&state=s");
  assert.deepEqual(
    flowOutcome("REDIRECT", { callback: back }, "https://mcp/"),
    {
      kind: "finish",
      callback: back,
    },
  );
  const page = new URL("https://as/authorize?x=1");
  const outcome = flowOutcome("REDIRECT", { redirect: page }, "https://mcp/");
  assert.equal(outcome.kind, "refused");
  if (outcome.kind !== "refused") return;
  assert.equal(outcome.error.reason, "redirect-required");
  assert.equal(outcome.error.authorizationUrl, page);
  assert.equal(
    outcome.error.message,
    "OAuth: https://mcp/ needs the user to authorize at the authorization URL; send them there and finish with oauthCallback, or give oauthClient an authorize function",
  );
});

Deno.test("records: a pending authorization is taken once; a replay, a second taker and an expired one find none", async () => {
  const store = memoryOAuthStore();
  const records = new ClientRecords({}, store, {
    serverUrl: "https://mcp/",
    principal: "p",
  });
  const pending = pendingRecordOf(
    { serverUrl: "https://mcp/", principal: "p", verifier: "v" },
    T0,
  );
  await records.savePending("s1", pending);
  const [a, b] = await Promise.all([
    records.takePending("s1", T0 + 1),
    records.takePending("s1", T0 + 1),
  ]);
  assert.deepEqual([a, b].filter((x) => x !== undefined), [pending]);
  assert.equal(await records.takePending("s1", T0 + 2), undefined);
  await records.savePending("s2", pending);
  assert.equal(await records.takePending("s2", T0 + PENDING_TTL), undefined);
  assert.equal(await records.takePending("forged", T0), undefined);
});

Deno.test("scopes: a 403 steps up to the union of held, wanted and named, until nothing is new or the limit is reached", () => {
  assert.deepEqual(
    stepUpVerdict(["a"], "a", "b c", { taken: 0, limit: 2 }),
    { kind: "step-up", scope: "a b c" },
  );
  assert.deepEqual(
    stepUpVerdict(["a", "b"], "a", "b", { taken: 0, limit: 2 }),
    { kind: "stands" },
  );
  assert.deepEqual(
    stepUpVerdict(["a"], undefined, "b", { taken: 2, limit: 2 }),
    { kind: "stands" },
  );
  assert.deepEqual(
    stepUpVerdict([], undefined, "b", { taken: 1, limit: 2 }),
    { kind: "step-up", scope: "b" },
  );
  assert.deepEqual(union(["x"], "y  x", undefined, "z"), ["x", "y", "z"]);
});

Deno.test("scopes: a set the authorization server refused is refused again for it or more, not for less", () => {
  const refused = [{ scopes: ["admin", "read"], cause: "invalid_scope" }];
  assert.equal(refusedBefore(refused, "read admin")?.cause, "invalid_scope");
  assert.equal(
    refusedBefore(refused, "read admin write")?.cause,
    "invalid_scope",
  );
  assert.equal(refusedBefore(refused, "read"), undefined);
  assert.equal(refusedBefore([{ scopes: [], cause: 1 }], "read"), undefined);
});
