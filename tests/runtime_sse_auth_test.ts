/**
 * The legacy HTTP+SSE client (`connectSse`, and `connectServers` for a
 * `type: "sse"` entry) with OAuth, against a real listener on 127.0.0.1: an
 * SDK `SSEServerTransport` behind a bearer check, its Protected Resource
 * Metadata, and an authorization server granting client credentials. The
 * event stream and every message carry the OAuth client's token; without
 * `auth` a 401 rejects as an `AuthorizationError`, as `connectHttp` does.
 */

import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connectServers } from "../mod.ts";
import { ConnectionLostError, connectSse } from "../runtime.ts";
import { AuthorizationError, oauthClient } from "../auth.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";

interface Guarded extends AsyncDisposable {
  /** The legacy endpoint: `GET` opens the event stream. */
  readonly url: string;
  /** Requests to the token endpoint. */
  readonly tokenRequests: number;
  /** Each request to the MCP endpoints: method, path, and whether its bearer token was one we issued. */
  readonly seen: { method: string; path: string; authorized: boolean }[];
}

/** Reads a node request's body as text. */
async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return new TextDecoder().decode(
    chunks.length === 1 ? chunks[0] : new Uint8Array(
      chunks.flatMap((c) => [...c]),
    ),
  );
}

/** An HTTP+SSE MCP server at `/sse` that wants a bearer token issued by its `/as`. */
async function guarded(): Promise<Guarded> {
  const { createServer } = await import("node:http");
  // @ts-types="@modelcontextprotocol/sdk/server/sse"
  const { SSEServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/sse.js"
  );
  const transports = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const issued = new Set<string>();
  const seen: Guarded["seen"] = [];
  let tokenRequests = 0;
  let origin = "";
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(
      JSON.stringify(value),
    );
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      return json(res, 200, {
        resource: `${origin}/sse`,
        authorization_servers: [`${origin}/as`],
        scopes_supported: ["mcp"],
      });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server/as") {
      return json(res, 200, {
        issuer: `${origin}/as`,
        authorization_endpoint: `${origin}/as/authorize`,
        token_endpoint: `${origin}/as/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      });
    }
    if (url.pathname === "/as/token") {
      tokenRequests++;
      const form = new URLSearchParams(await bodyOf(req));
      const basic = `Basic ${btoa("agent:s3cret")}`;
      if (
        form.get("grant_type") !== "client_credentials" ||
        req.headers.authorization !== basic
      ) {
        return json(res, 401, { error: "invalid_client" });
      }
      const token = crypto.randomUUID();
      issued.add(token);
      return json(res, 200, {
        access_token: token,
        token_type: "Bearer",
        expires_in: 300,
        scope: "mcp",
      });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const authorized = bearer !== undefined && issued.has(bearer);
    seen.push({ method: req.method ?? "", path: url.pathname, authorized });
    if (!authorized) {
      res.writeHead(401, {
        "content-type": "application/json",
        "www-authenticate":
          `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/sse", scope="mcp"`,
      }).end('{"error":"invalid_token"}');
      return;
    }
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      await buildToolServer().connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method !== "POST" || transport === undefined) {
      res.writeHead(404).end();
      return;
    }
    await transport.handlePostMessage(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/sse`,
    get tokenRequests() {
      return tokenRequests;
    },
    seen,
    async [Symbol.asyncDispose]() {
      for (const transport of transports.values()) await transport.close();
      // Idle keep-alive connections would hold close() until they time out.
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const agent = () => oauthClient({ clientId: "agent", clientSecret: "s3cret" });

Deno.test("connectSse honours auth: after the first 401 the event stream and every message carry the OAuth client's token", async () => {
  await using server = await guarded();
  {
    await using client = await connectSse(server.url, {
      auth: agent(),
      name: "old",
      signal: AbortSignal.timeout(20_000),
    });
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "echo"));
    const result = await client.callTool({
      name: "echo",
      arguments: { x: 1 },
    });
    assert.deepEqual(result.content, [{ type: "text", text: '{"x":1}' }]);
  }
  assert.equal(server.tokenRequests, 1);
  // The first request (the event stream, no token yet) was refused; every
  // one after it carried the token: the stream again, then the messages.
  assert.deepEqual(server.seen[0], {
    method: "GET",
    path: "/sse",
    authorized: false,
  });
  const after = server.seen.slice(1);
  assert.deepEqual(after[0], { method: "GET", path: "/sse", authorized: true });
  assert.ok(after.filter((r) => r.method === "POST").length >= 3);
  assert.ok(after.every((r) => r.authorized), JSON.stringify(server.seen));
});

Deno.test("connectSse without auth: the 401 rejects as an AuthorizationError naming the server, status and scope, as connectHttp's", async () => {
  await using server = await guarded();
  const error = await connectSse(server.url, {
    name: "old",
    signal: AbortSignal.timeout(20_000),
  }).then(
    () => assert.fail("connected without a token"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AuthorizationError, String(error));
  assert.equal(error.status, 401);
  assert.equal(error.scope, "mcp");
  assert.equal(error.server, "old");
  assert.equal(server.tokenRequests, 0);
});

Deno.test("connectServers: a type sse entry saying auth oauth connects with the client its auth option names", async () => {
  await using server = await guarded();
  await using servers = await connectServers({
    old: { type: "sse", url: server.url, auth: "oauth" },
  }, { auth: { old: agent() }, signal: AbortSignal.timeout(20_000) });
  assert.equal(servers.error, undefined, servers.error?.message);
  const echo = servers.tools.find((t) => t.name === "old_echo");
  assert.ok(echo);
  assert.equal(await echo.invoke('{"x":2}'), '{"x":2}');
  assert.equal(server.tokenRequests, 1);
});

Deno.test("connectSse: a message whose POST fails at the network loses its call (ConnectionLostError, the fetch's TypeError as cause), as connectHttp's", async () => {
  await using server = await guarded();
  let down = false;
  // The network going away under the connection: fetch rejects a POST the
  // way Deno's does (a TypeError), once `down`.
  const fetch = (input: RequestInfo | URL, init?: RequestInit) =>
    down && init?.method === "POST"
      ? Promise.reject(new TypeError("fetch failed"))
      : globalThis.fetch(input, init);
  await using client = await connectSse(server.url, {
    auth: agent(),
    name: "old",
    fetch,
    signal: AbortSignal.timeout(20_000),
  });
  down = true;
  const error = await client.callTool({ name: "echo", arguments: {} }).then(
    () => assert.fail("answered with the network down"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConnectionLostError, String(error));
  assert.ok(error.cause instanceof TypeError);
  down = false;
});
