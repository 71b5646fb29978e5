/**
 * Enterprise-managed authorization (SEP-990) end to end on 127.0.0.1: an
 * enterprise identity provider that exchanges a user's ID token for an
 * ID-JAG (RFC 8693), the MCP server's authorization server that takes the
 * ID-JAG as a JWT bearer grant (RFC 7523) from an authenticated client and
 * issues a JWT access token (both test-local, `jose`), and weft's own
 * resource server (`httpHandler` with `jwtVerifier`) in front of a tool
 * that names its caller. The conformance suite's
 * `auth/cross-app-access-complete-flow` checks the same wire; this adds
 * the resource server, a re-exchange once the access token expired (the
 * ID token asked for again), and an identity provider's refusal.
 */

import assert from "node:assert/strict";
import { movableClock } from "../_helpers/clock.ts";
import {
  exportJWK,
  generateKeyPair,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import {
  connectHttp,
  exportTools,
  httpHandler,
  rawTool,
  Server,
} from "../../mod.ts";
import { jwtVerifier } from "../../auth.ts";
import {
  AuthorizationError,
  oauthClient,
} from "../../src/runtime/client/oauth_client.ts";

const CLIENT = { id: "crm-agent", secret: "crm-agent-secret" };
const IDP_CLIENT = "crm-agent-at-idp";
// Long: a token expires when the test moves the clock, never on its own.
const ACCESS_TTL = 300;
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

const whoami = rawTool({
  name: "whoami",
  description: "Names the caller.",
  run: (_args, ctx) =>
    JSON.stringify({
      clientId: ctx.auth?.clientId,
      scopes: ctx.auth?.scopes,
      sub: ctx.auth?.extra?.["sub"],
    }),
});

interface Fixture extends AsyncDisposable {
  readonly idp: string;
  readonly as: string;
  readonly resource: string;
  /** An ID token the IdP issued for `user`. */
  idToken(user: string): Promise<string>;
  /** The token exchanges the IdP answered, and the bodies it was sent. */
  readonly exchanges: URLSearchParams[];
  /** The JWT bearer grants the authorization server answered. */
  readonly grants: JWTPayload[];
}

function serve(
  signal: AbortSignal,
  handler: Deno.ServeHandler,
): { url: string; finished: Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    finished: server.finished,
  };
}

const oauthError = (error: string, status = 400): Response =>
  Response.json({ error }, { status });

async function start(): Promise<Fixture> {
  const stop = new AbortController();
  const idpKeys = await generateKeyPair("ES256");
  const asKeys = await generateKeyPair("ES256", { extractable: true });
  const asJwk = { ...(await exportJWK(asKeys.publicKey)), kid: "as-1" };
  const exchanges: URLSearchParams[] = [];
  const grants: JWTPayload[] = [];
  const late: {
    resource?: string;
    handler?: (
      req: Request,
      info?: Deno.ServeHandlerInfo,
    ) => Promise<Response>;
  } = {};

  const idp = serve(stop.signal, async (req) => {
    const body = new URLSearchParams(await req.text());
    if (new URL(req.url).pathname !== "/token") return oauthError("nope", 404);
    if (body.get("grant_type") !== TOKEN_EXCHANGE) {
      return oauthError("unsupported_grant_type");
    }
    exchanges.push(body);
    try {
      const { payload } = await jwtVerify(
        body.get("subject_token") ?? "",
        idpKeys.publicKey,
        { issuer: idp.url, audience: IDP_CLIENT },
      );
      const jag = await new SignJWT({
        client_id: CLIENT.id,
        resource: body.get("resource"),
        ...(body.has("scope") ? { scope: body.get("scope") } : {}),
      })
        .setProtectedHeader({ alg: "ES256", typ: "oauth-id-jag+jwt" })
        .setIssuer(idp.url)
        .setSubject(String(payload.sub))
        .setAudience(body.get("audience") ?? "")
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(idpKeys.privateKey);
      return Response.json({
        access_token: jag,
        issued_token_type: ID_JAG,
        token_type: "N_A",
      });
    } catch {
      return oauthError("invalid_grant");
    }
  });

  const as = serve(stop.signal, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: as.url,
        authorization_endpoint: `${as.url}/authorize`,
        token_endpoint: `${as.url}/token`,
        jwks_uri: `${as.url}/jwks`,
        response_types_supported: ["code"],
        grant_types_supported: [JWT_BEARER],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      });
    }
    if (url.pathname === "/jwks") return Response.json({ keys: [asJwk] });
    if (url.pathname !== "/token") return oauthError("nope", 404);
    const body = new URLSearchParams(await req.text());
    const basic = `Basic ${btoa(`${CLIENT.id}:${CLIENT.secret}`)}`;
    if (req.headers.get("authorization") !== basic) {
      return oauthError("invalid_client", 401);
    }
    if (body.get("grant_type") !== JWT_BEARER) {
      return oauthError("unsupported_grant_type");
    }
    let jag: JWTPayload;
    try {
      ({ payload: jag } = await jwtVerify(
        body.get("assertion") ?? "",
        idpKeys.publicKey,
        { issuer: idp.url, audience: as.url, typ: "oauth-id-jag+jwt" },
      ));
    } catch {
      return oauthError("invalid_grant");
    }
    if (
      jag.client_id !== CLIENT.id || jag.resource !== late.resource ||
      body.get("resource") !== late.resource
    ) {
      return oauthError("invalid_grant");
    }
    grants.push(jag);
    const scope = body.get("scope") ?? "mcp";
    // Times from Date.now, the clock the test moves and the resource server
    // reads (jose's defaults read new Date(), which it does not move).
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ client_id: CLIENT.id, scope })
      .setProtectedHeader({ alg: "ES256", kid: "as-1", typ: "at+jwt" })
      .setIssuer(as.url)
      .setSubject(String(jag.sub))
      .setAudience(late.resource!)
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TTL)
      .sign(asKeys.privateKey);
    return Response.json({
      access_token: token,
      token_type: "Bearer",
      expires_in: ACCESS_TTL,
      scope,
    });
  });
  const rs = serve(stop.signal, (req, info) => late.handler!(req, info));
  const resource = `${rs.url}/mcp`;
  late.resource = resource;
  late.handler = httpHandler(() => {
    const server = new Server({ name: "crm", version: "1" });
    exportTools(server, whoami);
    return server;
  }, {
    onerror: () => {},
    dnsRebindingProtection: false,
    auth: {
      resource,
      authorizationServers: [as.url],
      scopes: ["mcp"],
      verify: jwtVerifier({
        issuer: as.url,
        audience: resource,
        jwks: { keys: [asJwk] },
        clockTolerance: 0,
      }),
    },
  });

  return {
    idp: idp.url,
    as: as.url,
    resource,
    exchanges,
    grants,
    idToken: (user) =>
      new SignJWT({ email: user })
        .setProtectedHeader({ alg: "ES256" })
        .setIssuer(idp.url)
        .setSubject(user)
        .setAudience(IDP_CLIENT)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(idpKeys.privateKey),
    async [Symbol.asyncDispose]() {
      stop.abort();
      await Promise.all([idp.finished, as.finished, rs.finished]);
    },
  };
}

async function whoamiOver(
  url: string,
  auth: ReturnType<typeof oauthClient>,
  protocol: "legacy" | "modern",
): Promise<Record<string, unknown>> {
  await using client = await connectHttp(url, {
    auth,
    protocol,
    signal: AbortSignal.timeout(10_000),
  });
  const result = await client.callTool({ name: "whoami", arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0].text);
}

Deno.test("oauthClient enterprise (SEP-990): the ID token is exchanged for an ID-JAG, the ID-JAG for an access token weft's resource server accepts; an expired access token is replaced by a new exchange", async () => {
  using clock = movableClock();
  await using fx = await start();
  let asked = 0;
  const auth = oauthClient({
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    enterprise: {
      idpTokenEndpoint: `${fx.idp}/token`,
      idToken: () => {
        asked++;
        return fx.idToken("ada@example.com");
      },
      idpClientId: IDP_CLIENT,
    },
  });
  const caller = {
    clientId: CLIENT.id,
    scopes: ["mcp"],
    sub: "ada@example.com",
  };
  assert.deepEqual(await whoamiOver(fx.resource, auth, "modern"), caller);
  assert.equal(asked, 1);
  assert.equal(fx.exchanges.length, 1);
  const exchange = fx.exchanges[0];
  assert.equal(
    exchange.get("subject_token_type"),
    "urn:ietf:params:oauth:token-type:id_token",
  );
  assert.equal(exchange.get("requested_token_type"), ID_JAG);
  assert.equal(exchange.get("audience"), fx.as);
  assert.equal(exchange.get("resource"), fx.resource);
  assert.equal(exchange.get("client_id"), IDP_CLIENT);
  assert.equal(exchange.get("scope"), "mcp");
  assert.equal(fx.grants.length, 1);

  // Expired: no refresh token, so the next connection exchanges again.
  clock.advance((ACCESS_TTL + 1) * 1000);
  assert.deepEqual(await whoamiOver(fx.resource, auth, "legacy"), caller);
  assert.equal(asked, 2);
  assert.equal(fx.exchanges.length, 2);
  assert.equal(fx.grants.length, 2);
});

Deno.test("oauthClient enterprise (SEP-990): an ID token the identity provider refuses fails the connection with AuthorizationError idp-refused", async () => {
  await using fx = await start();
  const auth = oauthClient({
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    enterprise: {
      idpTokenEndpoint: `${fx.idp}/token`,
      idToken: "not-a-jwt",
      idpClientId: IDP_CLIENT,
    },
  });
  const error = await whoamiOver(fx.resource, auth, "modern").then(
    () => assert.fail("connected without a valid ID token"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "idp-refused");
  assert.equal(
    error.message,
    `OAuth: the identity provider at ${fx.idp}/token refused to exchange the ID token for an ID-JAG for ${fx.as}: invalid_grant; check the ID token (expired?) and that the IdP trusts this client for that authorization server`,
  );
  assert.equal(fx.exchanges.length, 1);
  assert.equal(fx.grants.length, 0);
});
