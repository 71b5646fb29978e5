/**
 * An authorization server whose RFC 8414 metadata has no
 * `authorization_endpoint` (allowed when it supports no grant that uses
 * one: a client-credentials-only server), on 127.0.0.1: `oauthClient`'s
 * client credentials get a token and connect, in both eras; a client that
 * needs the authorization code grant fails with a typed `AuthorizationError`
 * (`metadata-unusable`) saying so, before any redirect; metadata that does
 * not parse fails the same way, not as a protocol negotiation failure.
 */

import assert from "node:assert/strict";
import { connectHttp, exportTools, httpHandler, Server } from "../mod.ts";
import {
  AuthorizationError,
  oauthClient,
} from "../src/auth/client/oauth_client.ts";
// @ts-types="@modelcontextprotocol/sdk/client/auth-extensions"
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

/** The metadata document of a client-credentials-only authorization server. */
function ccOnlyMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: `${origin}/as`,
    token_endpoint: `${origin}/as/token`,
    grant_types_supported: ["client_credentials"],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ["client_secret_basic"],
  };
}

/** A resource on `/mcp` whose authorization server (`/as`) publishes `metadata`. */
function fake(metadata: (origin: string) => unknown = ccOnlyMetadata) {
  const closer = new AbortController();
  const grants: string[] = [];
  const authorizations: string[] = [];
  let minted = 0;
  const issued = new Set<string>();
  const mcp = httpHandler(() => {
    const server = new Server({ name: "cc-only", version: "1" });
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
        return Response.json(metadata(origin));
      case "/as/authorize":
        authorizations.push(url.search);
        return new Response("no", { status: 400 });
      case "/as/token": {
        const form = new URLSearchParams(await request.text());
        grants.push(form.get("grant_type") ?? "");
        if (
          request.headers.get("authorization") !==
            `Basic ${btoa("agent:s3cret")}`
        ) {
          return Response.json({ error: "invalid_client" }, { status: 401 });
        }
        const token = `t${++minted}`;
        issued.add(token);
        return Response.json({
          access_token: token,
          token_type: "Bearer",
          expires_in: 3600,
        });
      }
    }
    const token = request.headers.get("authorization")?.slice(7);
    if (token === undefined || !issued.has(token)) {
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
      });
    }
    return await mcp(request, info);
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    mcpUrl: `${base}/mcp`,
    issuer: `${base}/as`,
    grants,
    authorizations,
    async [Symbol.asyncDispose]() {
      closer.abort();
      await mcp.close();
      await server.finished;
    },
  };
}

for (const protocol of ["auto", "legacy"] as const) {
  Deno.test(`client credentials work against metadata without authorization_endpoint (protocol ${protocol})`, async () => {
    await using fx = fake();
    await using client = await connectHttp(fx.mcpUrl, {
      auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
      protocol,
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(client.getServerVersion()?.name, "cc-only");
    const { tools } = await client.listTools();
    assert.deepEqual(tools, []);
    assert.deepEqual(fx.grants, ["client_credentials"]);
  });
}

Deno.test("the SDK's own ClientCredentialsProvider (no discovery state of its own) works against that metadata too", async () => {
  await using fx = fake();
  await using client = await connectHttp(fx.mcpUrl, {
    auth: new ClientCredentialsProvider({
      clientId: "agent",
      clientSecret: "s3cret",
      expectedIssuer: fx.issuer,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(client.getServerVersion()?.name, "cc-only");
  assert.deepEqual(fx.grants, ["client_credentials"]);
});

Deno.test("the authorization code grant without authorization_endpoint fails with a typed error, before any redirect", async () => {
  await using fx = fake();
  const asked: URL[] = [];
  const error = await connectHttp(fx.mcpUrl, {
    auth: oauthClient({
      clientId: "c",
      redirectUrl: "http://127.0.0.1:1/callback",
      authorize: (url) => {
        asked.push(url);
        return Promise.reject(new Error("not reached"));
      },
    }),
    name: "orders",
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), (e: unknown) => e);
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "metadata-unusable");
  assert.equal(error.server, "orders");
  assert.equal(error.status, 401);
  assert.match(
    error.message,
    /^OAuth: the authorization server http:\/\/127\.0\.0\.1:\d+\/as publishes no authorization_endpoint in its metadata, and this client uses the authorization code grant \(it has a redirectUrl\), which needs one; give oauthClient a clientId and clientSecret without a redirectUrl \(client credentials\), or use an authorization server that supports the authorization code grant$/,
  );
  assert.equal(asked.length, 0);
  assert.deepEqual(fx.authorizations, []);
  assert.deepEqual(fx.grants, []);
});

Deno.test("metadata that does not parse fails with a typed error naming the document, not a negotiation failure", async () => {
  await using fx = fake((origin) => ({ issuer: `${origin}/as` }));
  const error = await connectHttp(fx.mcpUrl, {
    auth: oauthClient({ clientId: "agent", clientSecret: "s3cret" }),
    signal: AbortSignal.timeout(10_000),
  }).then(() => assert.fail("connected"), (e: unknown) => e);
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.reason, "metadata-unusable");
  assert.match(
    error.message,
    /^OAuth: the authorization server metadata at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server\/as is not usable: token_endpoint: /,
  );
  assert.deepEqual(fx.grants, []);
});
