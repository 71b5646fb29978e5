// connectServers' configuration: validation naming the server and the field,
// the document shapes, prefixes, per-server policy, duplicate names across
// servers, HTTP servers and their forgotten sessions, close.

import assert from "node:assert/strict";
import { connectServers } from "../mod.ts";
import {
  parseServersConfig,
  ServerConfigError,
  ToolNameTakenError,
} from "../servers.ts";
import { fixtureServer } from "./fixtures/npm_servers.ts";
import { listen } from "./fixtures/http_test_server.ts";
import { processGone, waitUntil } from "./fixtures/runtime_server_helpers.ts";

function refusal(config: unknown): string {
  try {
    parseServersConfig(config);
  } catch (error) {
    assert.ok(error instanceof ServerConfigError, String(error));
    return error.message;
  }
  assert.fail("accepted");
}

Deno.test("a wrong configuration is refused before anything starts, naming the server and the field", async () => {
  const cases: [unknown, string][] = [
    [
      [],
      "mcpServers: the configuration must be an object (the mcpServers object, or a document holding it)",
    ],
    [{ mcpServers: [] }, 'mcpServers: "mcpServers" must be an object'],
    [{ a: 3 }, 'mcpServers "a": must be an object'],
    [
      { a: {} },
      'mcpServers "a": needs "command" (a server process) or "url" (an HTTP endpoint)',
    ],
    [
      { a: { command: "" } },
      'mcpServers "a": "command" must be a non-empty string',
    ],
    [
      { a: { command: "x", args: "--y" } },
      'mcpServers "a": "args" must be an array of strings',
    ],
    [
      { a: { command: "x", args: [1] } },
      'mcpServers "a": "args" must be an array of strings',
    ],
    [
      { a: { command: "x", env: { N: 1 } } },
      'mcpServers "a": "env" value "N" must be a string, got number',
    ],
    [
      { a: { command: "x", arg: ["y"] } },
      'mcpServers "a": "arg" is not a field of a stdio server (type, command, args, env, cwd, prefix, policy, disabled, initializeTimeout, render)',
    ],
    [
      { a: { type: "websocket", url: "ws://x" } },
      'mcpServers "a": "type" must be "stdio", "http", "streamable-http" or "sse", got "websocket"',
    ],
    [{ a: { type: "http" } }, 'mcpServers "a": of type "http" needs "url"'],
    [
      { a: { url: "ftp://x" } },
      'mcpServers "a": "url" must be an http:// or https:// URL, got "ftp://x"',
    ],
    [
      { a: { url: "http://x", headers: { A: true } } },
      'mcpServers "a": "headers" value "A" must be a string, got boolean',
    ],
    [
      { a: { command: "x", prefix: 1 } },
      'mcpServers "a": "prefix" must be a string',
    ],
    [
      { a: { command: "x", initializeTimeout: -1 } },
      'mcpServers "a": "initializeTimeout" must be a positive number of milliseconds',
    ],
    [
      { a: { url: "http://x", protocol: "2026-07-28" } },
      'mcpServers "a": "protocol" must be "auto", "modern" or "legacy", got "2026-07-28"',
    ],
    [
      { a: { url: "http://x", render: "json" } },
      'mcpServers "a": "render" must be "structured", "text" or "both", got "json"',
    ],
    [
      { a: { command: "x", policy: { requireApproval: "yes" } } },
      'mcpServers "a": "policy.requireApproval" must be true, false, an array of tool names or a function, got "yes"',
    ],
    [
      { a: { command: "x", policy: { requireApproval: ["ok", 1] } } },
      'mcpServers "a": "policy.requireApproval" must be true, false, an array of tool names or a function, got ["ok",1]',
    ],
  ];
  for (const [config, message] of cases) {
    assert.equal(refusal(config), message);
  }
  // connectServers refuses the same way, synchronously with nothing started.
  await assert.rejects(
    connectServers({ a: { command: "x", args: "y" } } as never),
    ServerConfigError,
  );
});

Deno.test("the document shapes: mcpServers, VS Code's servers, the bare object; types, prefixes, disabled", () => {
  const entries = {
    files: { command: "npx", args: ["-y", "srv"] },
    web: {
      type: "streamable-http",
      url: "https://example.com/mcp",
      prefix: "",
    },
    old: { type: "sse", url: "http://127.0.0.1:1/sse", prefix: "legacy." },
    off: { command: "npx", disabled: true },
  };
  for (
    const config of [{ mcpServers: entries }, { servers: entries }, entries]
  ) {
    assert.deepEqual(
      parseServersConfig(config).map((s) => [s.name, s.kind, s.prefix]),
      [["files", "stdio", "files_"], ["web", "http", ""], [
        "old",
        "sse",
        "legacy.",
      ]],
    );
  }
  // A server named "servers" is a server, not VS Code's key.
  assert.deepEqual(
    parseServersConfig({ servers: { command: "x" } }).map((s) => s.name),
    ["servers"],
  );
});

Deno.test("per-server prefix and policy; a name two servers share is refused by name, the first keeps it", async () => {
  await using servers = await connectServers({
    a: { ...fixtureServer(), prefix: "" },
    b: { ...fixtureServer(), prefix: "", policy: { requireApproval: true } },
    c: { ...fixtureServer(), policy: { requireApproval: true } },
  }, { stderr: "ignore" });
  const error = servers.error;
  assert.ok(error !== undefined);
  assert.deepEqual(error.failures, []);
  // Every tool of b collides with a's.
  assert.equal(error.skipped.length, 9);
  assert.ok(error.skipped.every((s) => s.server === "b"));
  const echo = error.skipped.find((s) => s.name === "echo");
  assert.ok(echo?.error instanceof ToolNameTakenError);
  assert.equal(echo.error.message, 'name "echo" is already server "a"\'s tool');
  assert.ok(
    error.message.startsWith(
      'mcp: 9 tool(s) not imported: server "b", tool "echo": name "echo" is already server "a"\'s tool; ',
    ),
    error.message,
  );
  const names = servers.tools.map((t) => t.name);
  assert.deepEqual(names.slice(0, 2), ["echo", "big"]);
  assert.ok(names.includes("c_echo"));
  assert.equal(
    servers.tools.find((t) => t.name === "echo")?.requiresApproval,
    false,
  );
  assert.equal(
    servers.tools.find((t) => t.name === "c_echo")?.requiresApproval,
    true,
  );
  assert.equal(servers.tools.find((t) => t.name === "c_echo")?.origin, "mcp");
});

Deno.test("close (and await using) ends every server process", async () => {
  const pids: number[] = [];
  {
    await using servers = await connectServers({
      one: fixtureServer(),
      two: fixtureServer(),
    }, { stderr: "ignore" });
    for (const name of ["one_pid", "two_pid"]) {
      const tool = servers.tools.find((t) => t.name === name);
      pids.push(Number(await tool?.invoke("{}")));
    }
    assert.ok(pids.every((pid) => pid > 0 && !processGone(pid)));
  }
  for (const pid of pids) {
    assert.ok(await waitUntil(() => processGone(pid)), `pid ${pid} alive`);
  }
});

Deno.test("HTTP: a server that forgets the session (404) is reconnected and the call runs", async () => {
  const listening = listen({ sessions: true });
  // Every response the client got: its method, status and session.
  const seen: { method: string; status: number; session: string | null }[] = [];
  const fetchSeen: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push({
      method: init?.method ?? "GET",
      status: response.status,
      session: new Headers(init?.headers).get("mcp-session-id"),
    });
    return response;
  };
  try {
    const errors: Error[] = [];
    await using servers = await connectServers({
      // Sessions (and their 404) are the 2025 era's.
      web: { type: "http", url: listening.url, protocol: "legacy" },
    }, {
      onError: (e) => errors.push(e),
      fetch: fetchSeen,
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(servers.error, undefined);
    const echo = servers.tools.find((t) => t.name === "web_echo");
    assert.ok(echo);
    const call = (text: string) =>
      echo.invoke(text, { signal: AbortSignal.timeout(10_000) });
    assert.equal(await call('{"a":1}'), '{"a":1}');
    const first = seen.find((r) => r.session !== null)?.session;
    assert.ok(first, "the server gave a session");
    // The server forgets the session (as a restart or an expiry would).
    const gone = await fetch(listening.url, {
      method: "DELETE",
      headers: { "mcp-session-id": first },
    });
    await gone.body?.cancel();
    assert.equal(gone.status, 200);
    seen.length = 0;
    assert.equal(await call('{"a":2}'), '{"a":2}');
    // The call was refused with 404 on the old session, then ran on a new one.
    const posts = seen.filter((r) => r.method === "POST");
    assert.deepEqual(posts[0], { method: "POST", status: 404, session: first });
    const fresh = posts.at(-1)?.session;
    assert.ok(fresh && fresh !== first, `${first} -> ${fresh}`);
    assert.equal(posts.at(-1)?.status, 200);
    assert.equal(listening.servers.length, 2, "a new session was opened");
    assert.deepEqual(errors, []);
    assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
  } finally {
    await listening.close();
  }
});

Deno.test("HTTP: a URL nothing listens on fails initialize, named with the URL", async () => {
  const listening = listen();
  const url = listening.url;
  await listening.close();
  await using servers = await connectServers({ gone: { url } }, {});
  const failure = servers.error?.failures[0];
  assert.equal(failure?.phase, "initialize");
  assert.equal(failure?.server, "gone");
  assert.equal(failure?.target, new URL(url).href);
  assert.ok(
    failure?.message.startsWith(
      `server "gone" (${new URL(url).href}): initialize failed: `,
    ),
  );
});

Deno.test("SSE: a legacy endpoint nothing listens on fails initialize, named with the URL", async () => {
  const listening = listen();
  const url = listening.url.replace(/\/mcp$/, "/sse");
  await listening.close();
  await using servers = await connectServers({ old: { type: "sse", url } });
  const failure = servers.error?.failures[0];
  assert.equal(failure?.phase, "initialize");
  assert.equal(failure?.server, "old");
  assert.ok(
    failure?.message.startsWith(`server "old" (${url}): initialize failed: `),
    failure?.message,
  );
  assert.deepEqual(servers.tools, []);
});

Deno.test("SSE: a legacy HTTP+SSE server's tools import and run", async () => {
  const { createServer } = await import("node:http");
  // @ts-types="@modelcontextprotocol/sdk/server/sse"
  const { SSEServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/sse.js"
  );
  const { buildToolServer } = await import("./fixtures/tool_server.ts");
  const transports = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const http = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      await buildToolServer().connect(transport);
      return;
    }
    const id = new URL(req.url ?? "", "http://x").searchParams.get("sessionId");
    const transport = transports.get(id ?? "");
    if (transport === undefined) {
      res.writeHead(404).end();
      return;
    }
    await transport.handlePostMessage(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  try {
    await using servers = await connectServers({
      old: { type: "sse", url: `http://127.0.0.1:${port}/sse` },
    });
    assert.equal(servers.error, undefined, servers.error?.message);
    const echo = servers.tools.find((t) => t.name === "old_echo");
    assert.ok(echo);
    assert.equal(await echo.invoke('{"x":1}'), '{"x":1}');
  } finally {
    for (const transport of transports.values()) await transport.close();
    await new Promise((resolve) => http.close(resolve));
  }
});
