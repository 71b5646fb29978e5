// allowedHosts checks the scheme: an https server's requests (a token URL
// its metadata names, a redirect) are not sent to an allowed host over plain
// http unless that host's entry is written "http://…". The allowed host is
// a real listener on 127.0.0.1 serving plain http: a refused request never
// reaches it.

import assert from "node:assert/strict";
import { EgressRefusedError, parseServersConfig } from "../servers.ts";
import { egressFetch, hostAllowed } from "../src/servers/_egress.ts";

/** A plain-http listener on 127.0.0.1 counting what reaches it. */
function listener() {
  const seen: string[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    async (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname}`);
      await req.body?.cancel();
      return Response.json({ access_token: "t" });
    },
  );
  return {
    host: `127.0.0.1:${server.addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

const OWN = new URL("https://mcp.example.com/mcp");

/** The https server itself (faked: it redirects `/go` to `to`); anything else goes out for real. */
function base(to: string) {
  return (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (new URL(request.url).host === OWN.host) {
      return Promise.resolve(
        new Response(null, { status: 302, headers: { location: to } }),
      );
    }
    return fetch(request);
  };
}

Deno.test("egress scheme: an allowed host is reached over https only; its plain http needs an http:// entry", () => {
  const ok = (url: string, allowed: string[], own = OWN) =>
    hostAllowed(new URL(url), own, allowed);
  assert.equal(ok("https://auth.example.com/t", ["auth.example.com"]), true);
  assert.equal(ok("http://auth.example.com/t", ["auth.example.com"]), false);
  assert.equal(
    ok("http://auth.example.com:80/", ["auth.example.com:80"]),
    false,
  );
  assert.equal(ok("http://a.example.com/", ["*.example.com"]), false);
  assert.equal(
    ok("http://auth.example.com/t", ["https://auth.example.com"]),
    false,
  );
  assert.equal(
    ok("https://auth.example.com/", ["https://auth.example.com"]),
    true,
  );
  assert.equal(
    ok("http://auth.example.com/", ["http://auth.example.com"]),
    true,
  );
  assert.equal(
    ok("https://auth.example.com/", ["HTTP://auth.example.com"]),
    true,
  );
  assert.equal(ok("http://a.example.com:8/", ["http://*.example.com"]), true);
  assert.equal(
    ok("http://a.example.com:8/", ["http://a.example.com:9"]),
    false,
  );
  assert.equal(
    ok("ws://auth.example.com/", ["http://auth.example.com"]),
    false,
  );
  // The server's own origin, plain http included when it is its own.
  assert.equal(ok("http://mcp.example.com/mcp", []), false);
  const plain = new URL("http://127.0.0.1:8080/mcp");
  assert.equal(ok("http://127.0.0.1:8080/token", [], plain), true);
  assert.equal(
    ok("http://127.0.0.1:9090/token", ["127.0.0.1:9090"], plain),
    false,
  );
  // The config takes the scheme, and nothing else beyond the host.
  parseServersConfig({
    d: {
      url: "https://x",
      allowedHosts: ["http://a:1", "https://b", "HTTP://*.c"],
    },
  });
  for (const bad of ["ftp://a", "http://a/b", "http://", "https://a?x"]) {
    assert.throws(
      () =>
        parseServersConfig({ d: { url: "https://x", allowedHosts: [bad] } }),
      (error: Error) => error.name === "ServerConfigError",
      bad,
    );
  }
});

Deno.test("egress scheme: an https server's token request to a listed host over plain http is refused; nothing reaches it", async () => {
  await using auth = listener();
  const token = `http://${auth.host}/token`;
  const refused: EgressRefusedError[] = [];
  const bare = egressFetch(
    "docs",
    OWN,
    [auth.host],
    base(token),
    [],
    (e) => refused.push(e),
  );
  // Named directly (a token_endpoint in the metadata), and by a redirect.
  await assert.rejects(
    bare(token, { method: "POST", body: "client_secret=s3cret" }),
    (error: unknown) => {
      assert.ok(error instanceof EgressRefusedError, String(error));
      assert.equal(error.url, token);
      assert.equal(
        error.message,
        `server "docs": refused to reach host "${auth.host}": it is not the server's host nor in its allowedHosts (over plain http only when its entry is written "http://${auth.host}")`,
      );
      return true;
    },
  );
  await assert.rejects(bare(`${OWN.origin}/go`), EgressRefusedError);
  assert.equal(refused.length, 2);
  assert.deepEqual(auth.seen, [], "nothing reached the listed host over http");
  // Written with its scheme, the same host is reached over plain http.
  const explicit = egressFetch(
    "docs",
    OWN,
    [`http://${auth.host}`],
    base(token),
  );
  const answer = await explicit(token, { method: "POST", body: "x=1" });
  assert.deepEqual(await answer.json(), { access_token: "t" });
  const followed = await explicit(`${OWN.origin}/go`);
  await followed.body?.cancel();
  assert.deepEqual(auth.seen, ["POST /token", "GET /token"]);
});
