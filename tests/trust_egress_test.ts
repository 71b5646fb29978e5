// Egress for HTTP servers with allowedHosts, over real listeners on
// 127.0.0.1: a redirect to a host outside them is refused naming the host
// (and nothing reaches it), a redirect to an allowed host of another origin
// arrives without the credentials, an OAuth metadata URL on another host is
// refused before it is fetched.

import assert from "node:assert/strict";
import { connectServers } from "../mod.ts";
import { oauthClient } from "../auth.ts";
import { EgressRefusedError, parseServersConfig } from "../servers.ts";
import { egressFetch, hostAllowed } from "../src/servers/_egress.ts";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** A listener on 127.0.0.1 that records each request and answers with `answer`. */
function recorder(answer: (req: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    async (req) => {
      seen.push({
        method: req.method,
        url: req.url,
        headers: Object.fromEntries(req.headers),
      });
      await req.body?.cancel();
      return await answer(req);
    },
  );
  return {
    port: server.addr.port,
    seen,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

const redirectTo = (target: string) => () =>
  new Response(null, { status: 307, headers: { location: target } });

Deno.test("egress: a redirect to a host outside allowedHosts is refused naming the host; nothing reaches it", async () => {
  await using sink = recorder(() => new Response("stolen"));
  // "localhost" is another host than the server's 127.0.0.1.
  const target = `http://localhost:${sink.port}/collect`;
  await using front = recorder(redirectTo(target));
  const url = `http://127.0.0.1:${front.port}/mcp`;
  await using servers = await connectServers({
    docs: {
      url,
      headers: { Authorization: "Bearer secret-token" },
      allowedHosts: [],
      protocol: "legacy",
    },
  }, { signal: AbortSignal.timeout(15_000), reconnect: false });
  const failure = servers.error?.failures[0];
  assert.ok(failure !== undefined);
  const cause = failure.cause;
  assert.ok(cause instanceof EgressRefusedError, String(cause));
  assert.equal(cause.host, `localhost:${sink.port}`);
  assert.equal(cause.redirectedFrom, url);
  assert.equal(
    cause.message,
    `server "docs": refused to reach host "localhost:${sink.port}" (redirected from ${url}): it is not the server's host nor in its allowedHosts (over plain http only when its entry is written "http://localhost:${sink.port}")`,
  );
  assert.deepEqual(sink.seen, []);
  assert.equal(front.seen[0].headers.authorization, "Bearer secret-token");
});

Deno.test("egress: a redirect to an allowed host of another origin is followed without the credentials or the entry's headers", async () => {
  await using target = recorder(() => Response.json({ ok: true }));
  await using front = recorder(
    (req) =>
      new Response(null, {
        status: req.method === "POST" ? 308 : 302,
        headers: { location: `http://127.0.0.1:${target.port}/meta` },
      }),
  );
  const own = new URL(`http://127.0.0.1:${front.port}/mcp`);
  const fetch = egressFetch(
    "docs",
    own,
    [`http://127.0.0.1:${target.port}`],
    globalThis.fetch,
    ["X-Api-Key"],
  );
  const response = await fetch(`http://127.0.0.1:${front.port}/meta`, {
    headers: {
      Authorization: "Basic c2VjcmV0",
      Cookie: "session=1",
      "X-Api-Key": "k-1",
      Accept: "application/json",
    },
  });
  assert.deepEqual(await response.json(), { ok: true });
  assert.equal(front.seen[0].headers.authorization, "Basic c2VjcmV0");
  assert.equal(front.seen[0].headers["x-api-key"], "k-1");
  const arrived = target.seen[0].headers;
  assert.equal(arrived.authorization, undefined);
  assert.equal(arrived.cookie, undefined);
  assert.equal(arrived["x-api-key"], undefined);
  assert.equal(arrived.accept, "application/json");
  // A body (a token request's client secret) is not resent to another origin.
  await assert.rejects(
    fetch(`http://127.0.0.1:${front.port}/token`, {
      method: "POST",
      body: "client_secret=s3cret",
    }),
    EgressRefusedError,
  );
  assert.equal(target.seen.length, 1);
});

Deno.test("egress: the SDK's own redirect handling is told only of allowed hosts", async () => {
  await using sink = recorder(() => new Response("x"));
  await using front = recorder(
    redirectTo(`http://127.0.0.1:${sink.port}/mcp`),
  );
  // Another port of 127.0.0.1 is another host, unless listed.
  await using servers = await connectServers({
    docs: {
      url: `http://127.0.0.1:${front.port}/mcp`,
      allowedHosts: ["example.com"],
      protocol: "legacy",
    },
  }, { signal: AbortSignal.timeout(15_000), reconnect: false });
  const cause = servers.error?.failures[0].cause;
  assert.ok(cause instanceof EgressRefusedError, String(cause));
  assert.equal(cause.host, `127.0.0.1:${sink.port}`);
  assert.deepEqual(sink.seen, []);
});

Deno.test("egress: OAuth discovery pointed at another host is refused before the metadata is fetched", async () => {
  await using metadata = recorder(() =>
    Response.json({ resource: "x", authorization_servers: ["http://x"] })
  );
  const metadataUrl =
    `http://localhost:${metadata.port}/.well-known/oauth-protected-resource`;
  await using front = recorder(() =>
    new Response("unauthorized", {
      status: 401,
      headers: {
        "www-authenticate": `Bearer resource_metadata="${metadataUrl}"`,
      },
    })
  );
  await using servers = await connectServers({
    docs: {
      url: `http://127.0.0.1:${front.port}/mcp`,
      auth: "oauth",
      allowedHosts: [],
      protocol: "legacy",
    },
  }, {
    signal: AbortSignal.timeout(15_000),
    reconnect: false,
    auth: {
      docs: oauthClient({
        redirectUrl: "http://127.0.0.1:1/callback",
        authorize: () => Promise.reject(new Error("no browser in tests")),
      }),
    },
  });
  const failure = servers.error?.failures[0];
  assert.ok(failure !== undefined);
  const refused = causes(failure).find((e) => e instanceof EgressRefusedError);
  assert.ok(refused instanceof EgressRefusedError, failure.message);
  assert.equal(refused.host, `localhost:${metadata.port}`);
  assert.deepEqual(metadata.seen, []);
});

Deno.test("allowedHosts: own host always, host:port exactly, a bare hostname on any port, *.domain for subdomains", () => {
  const own = new URL("https://mcp.example.com/mcp");
  const ok = (url: string, allowed: string[]) =>
    hostAllowed(new URL(url), own, allowed);
  assert.equal(ok("https://mcp.example.com/other", []), true);
  assert.equal(ok("https://mcp.example.com:8443/", []), false);
  assert.equal(ok("http://mcp.example.com/", []), false);
  assert.equal(ok("https://auth.example.com/", ["auth.example.com"]), true);
  assert.equal(ok("https://auth.example.com:9/", ["auth.example.com"]), true);
  assert.equal(
    ok("https://auth.example.com:9/", ["auth.example.com:8"]),
    false,
  );
  assert.equal(ok("https://a.b.example.com/", ["*.example.com"]), true);
  assert.equal(ok("https://example.com.evil.io/", ["*.example.com"]), false);
  assert.equal(ok("https://evilexample.com/", ["*.example.com"]), false);
  assert.throws(() =>
    parseServersConfig({ d: { url: "https://x", allowedHosts: ["a/b"] } })
  );
  assert.throws(() =>
    parseServersConfig({ d: { command: "x", allowedHosts: ["a"] } })
  );
});

function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && out.length < 16;) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

Deno.test("egress: endless redirects stop at the limit with an Error naming the server — not a TypeError, which the HTTP client would read as a lost connection", async () => {
  let hops = 0;
  const fetch = egressFetch(
    "docs",
    new URL("https://docs.example/mcp"),
    [],
    (request) => {
      hops++;
      return Promise.resolve(
        new Response(null, {
          status: 302,
          headers: { location: new Request(request).url },
        }),
      );
    },
  );
  const error = await fetch("https://docs.example/mcp").then(
    () => assert.fail("followed forever"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof Error && !(error instanceof TypeError));
  assert.equal(
    error.message,
    'server "docs": more than 20 redirects from https://docs.example',
  );
  assert.equal(hops, 21);
});
