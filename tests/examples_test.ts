/**
 * The runnable examples, each run the way a reader runs it: hello.ts (both
 * directions in memory), server.ts over our stdio and --http, deploy.ts's
 * fetch handler on real Requests, client.ts against two live servers, and
 * eras.ts (both protocol eras on one endpoint, input asked mid-call), and
 * approval.ts (a call parked, then approved or denied).
 */

import assert from "node:assert/strict";
import { importTools } from "../mod.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
import deploy, { authOptions, kvSessions } from "../examples/deploy.ts";
import { mint, signer } from "./_helpers/jwt_mint.ts";
import { FINAL_TEXT, logSkipped, run } from "../examples/client.ts";
import { hello } from "../examples/hello.ts";
import { decide } from "../examples/approval.ts";
import { run as runEras } from "../examples/eras.ts";
import { serveHttp } from "../examples/server.ts";
import { entry, listedServer } from "./_helpers/mcp_servers.ts";
import { runExample } from "./_helpers/run_example.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SERVER = new URL("../examples/server.ts", import.meta.url).pathname;

type DeployFetch = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Promise<Response>;

// What Deno Deploy hands the handler: a public peer, the deployment's Host.
const DEPLOY_INFO = {
  remoteAddr: { transport: "tcp", hostname: "203.0.113.7", port: 40000 },
  completed: Promise.resolve(),
} as const satisfies Deno.ServeHandlerInfo<Deno.NetAddr>;

/** Posts one JSON-RPC request to the deploy handler; returns the JSON-RPC response. */
async function rpc(
  fetch: DeployFetch,
  id: number,
  method: string,
  params?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(
    new Request("https://weft-example.deno.dev/mcp", {
      method: "POST",
      headers: {
        host: "weft-example.deno.dev",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    }),
    DEPLOY_INFO,
  );
  assert.equal(res.status, 200, `${method}: HTTP ${res.status}`);
  const body = await res.text();
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const data = body.split("\n").filter((l) => l.startsWith("data: ")).map((
      l,
    ) => JSON.parse(l.slice(6)));
    const answer = data.find((m) => m.id === id);
    assert.ok(
      answer !== undefined,
      `${method}: no response in the stream: ${body}`,
    );
    return answer;
  }
  return JSON.parse(body);
}

Deno.test("hello.ts: exports a tool, imports it back in memory, prints what the model sees", async (t) => {
  await t.step("as a function", async () => {
    assert.equal(await hello(), "hello_greet -> Hello, weft!");
  });
  await t.step("as a program", async () => {
    const ran = await runExample("examples/hello.ts");
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, "hello_greet -> Hello, weft!\n");
  });
});

Deno.test("server.ts over our connectStdio: serves the scripted agent through serveStdio", async () => {
  await using client = await connectStdio(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SERVER],
    cwd: ROOT,
    stderr: "ignore",
  });
  assert.deepEqual(client.getServerVersion(), {
    name: "weft-getting-started",
    version: "0",
  });
  const { tools, skipped } = await importTools(client);
  assert.equal(skipped, undefined);
  const agent = tools.find((tool) => tool.name === "getting-started");
  assert.ok(agent);
  assert.equal(
    await agent.invoke('{"prompt":"Where is order 1234?"}'),
    "Order 1234 shipped and is on its way.",
  );
});

Deno.test("server.ts serveHttp: a fresh server per request, at /mcp only", async () => {
  const stop = new AbortController();
  const listening = Promise.withResolvers<URL>();
  const serving = serveHttp({
    signal: stop.signal,
    onListen: listening.resolve,
  });
  try {
    const url = await listening.promise;
    assert.equal(url.hostname, "127.0.0.1");
    assert.equal(url.pathname, "/mcp");
    assert.notEqual(url.port, "0");
    const other = await fetch(new URL("/", url));
    assert.equal(other.status, 404);
    await other.body?.cancel();
    await using client = await connectHttp(url);
    const { tools } = await importTools(client, { prefix: "h_" });
    assert.deepEqual(tools.map((tool) => tool.name), [
      "h_getting-started",
      "h_lookup_order",
    ]);
    // The script is single-use; two calls work because each request gets a new server.
    for (let i = 0; i < 2; i++) {
      assert.equal(
        await tools[0].invoke('{"prompt":"where?"}'),
        "Order 1234 shipped and is on its way.",
      );
    }
    assert.equal(
      await tools[1].invoke('{"order_id":"9"}'),
      '{"id":"9","status":"shipped"}',
    );
  } finally {
    stop.abort();
    await serving;
  }
});

Deno.test("server.ts --http as a program: URL on stderr, nothing on stdout, stops on SIGTERM", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SERVER, "--http", "--port", "0"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!stderr.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  const found = stderr.match(
    /^weft-getting-started: serving on (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/,
  );
  try {
    assert.ok(found, `first stderr line: ${stderr}`);
    await using client = await connectHttp(found[1]);
    const { tools } = await importTools(client);
    assert.equal(tools.length, 2);
  } finally {
    child.kill("SIGTERM");
  }
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    stderr += r.value;
  }
  const status = await child.status;
  assert.equal(status.code, 0);
  assert.match(stderr, /\nserver exited\n$/);
  assert.equal(await stdout, "");
});

Deno.test("deploy.ts: its fetch serves initialize, tools/list and tools/call statelessly", async () => {
  const fetch = deploy.fetch as DeployFetch;
  const init = await rpc(fetch, 1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "deploy-test", version: "0" },
  });
  const result = init.result as {
    serverInfo: unknown;
    capabilities: { tools?: unknown };
  };
  assert.deepEqual(result.serverInfo, {
    name: "weft-getting-started",
    version: "0",
  });
  assert.ok(result.capabilities.tools !== undefined);
  const list = await rpc(fetch, 2, "tools/list");
  const names = (list.result as { tools: { name: string }[] }).tools.map((
    tool,
  ) => tool.name);
  assert.deepEqual(names, ["getting-started", "lookup_order"]);
  for (const id of [3, 4]) {
    const call = await rpc(fetch, id, "tools/call", {
      name: "getting-started",
      arguments: { prompt: "Where is order 1234?" },
    });
    assert.deepEqual(call.result, {
      content: [{
        type: "text",
        text: "Order 1234 shipped and is on its way.",
      }],
    });
  }
  const order = await rpc(fetch, 5, "tools/call", {
    name: "lookup_order",
    arguments: { order_id: "77" },
  });
  assert.deepEqual(order.result, {
    content: [{ type: "text", text: '{"id":"77","status":"shipped"}' }],
    structuredContent: { id: "77", status: "shipped" },
  });
});

Deno.test("deploy.ts kvSessions: a session opened on one instance is served by another", async () => {
  const kv = await Deno.openKv(":memory:");
  const one = kvSessions(kv).fetch as DeployFetch;
  const two = kvSessions(kv).fetch as DeployFetch;
  const send = async (
    fetch: DeployFetch,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    await fetch(
      new Request("https://weft-example.deno.dev/mcp", {
        method: "POST",
        headers: {
          host: "weft-example.deno.dev",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      }),
      DEPLOY_INFO,
    );
  try {
    const init = await send(one, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "deploy-test", version: "0" },
      },
    });
    assert.equal(init.status, 200);
    const sid = init.headers.get("mcp-session-id");
    assert.ok(sid !== null);
    await init.text();
    const list = await send(two, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
    }, { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" });
    assert.equal(list.status, 200);
    assert.match(await list.text(), /"name":"lookup_order"/);
  } finally {
    kv.close();
  }
});

Deno.test("client.ts: two servers at once, prefixed, one call on each, then the final text", async (t) => {
  await t.step("as a function", async () => {
    const logs: string[] = [];
    const result = await run({
      signal: AbortSignal.timeout(30_000),
      log: (line) => logs.push(line),
    });
    assert.equal(result.text, FINAL_TEXT);
    const step = result.steps[0];
    assert.deepEqual(step.toolCalls.map((call) => call.name), [
      "stdio_lookup_order",
      "http_getting-started",
    ]);
    assert.deepEqual(step.results.map((r) => [r.name, r.content, r.isError]), [
      ["stdio_lookup_order", '{"id":"1234","status":"shipped"}', false],
      ["http_getting-started", "Order 1234 shipped and is on its way.", false],
    ]);
    // The HTTP child was stopped and waited for before run() settled.
    assert.equal(logs.at(-1), "[http] server exited");
    assert.ok(
      !logs.some((line) => line.startsWith("mcp: ")),
      "nothing was skipped",
    );
  });
  await t.step(
    "as a program: the final text on stdout, the tool results on stderr",
    async () => {
      const ran = await runExample("examples/client.ts");
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, `${FINAL_TEXT}\n`);
      assert.match(
        ran.stderr,
        /^stdio_lookup_order -> \{"id":"1234","status":"shipped"\}$/m,
      );
      assert.match(
        ran.stderr,
        /^http_getting-started -> Order 1234 shipped and is on its way\.$/m,
      );
      // The stdio child may log its own exit after the HTTP child's: both
      // are stopped before the program ends, in no fixed order.
      assert.match(ran.stderr, /^\[http\] server exited$/m);
    },
  );
});

Deno.test("client.ts logSkipped: one line per import that skipped tools, none otherwise", async () => {
  await using bad = await listedServer({
    tools: [
      entry("fine"),
      entry("nullable_root", { inputSchema: { type: ["object", "null"] } }),
      entry(""),
    ],
  });
  await using good = await listedServer({ tools: [entry("fine")] });
  const imports = [
    await importTools(good.client, { prefix: "good_" }),
    await importTools(bad.client, { prefix: "bad_" }),
  ];
  assert.deepEqual(imports.map((i) => i.tools.map((t) => t.name)), [
    ["good_fine"],
    ["bad_fine"],
  ]);
  const logs: string[] = [];
  logSkipped(imports, (line) => logs.push(line));
  assert.deepEqual(logs, [
    "mcp: 2 tool(s) not imported: " +
    '"nullable_root": weft: parseSchema: top-level type must be "object", got ""; ' +
    "entry 2: empty name",
  ]);
  const none: string[] = [];
  logSkipped([imports[0]], (line) => none.push(line));
  assert.deepEqual(none, []);
});

Deno.test("examples/eras.ts: one endpoint, both eras; the question parks the modern call, onInput answers the legacy one", async () => {
  const report = await runEras(AbortSignal.timeout(30_000));
  assert.deepEqual(report, {
    found: "modern",
    pinned: "legacy",
    question: "Which seat on WF 18?",
    modern: "WF 18: seat 3C booked",
    legacy: "WF 25: seat 7F booked",
  });
});

Deno.test("examples/approval.ts: the call parks, then approve runs it and deny tells the model why", async () => {
  const approved = await decide(true);
  assert.deepEqual(approved.parked, {
    name: "refund",
    args: '{"order_id":"1234","amount":20}',
  });
  assert.equal(approved.read.content, "refunded 20 on order 1234");
  assert.equal(approved.read.isError, false);
  const denied = await decide(false);
  assert.equal(denied.read.content, "DENIED: over the limit");
  assert.equal(denied.text, "Done.");
});

Deno.test("deploy.ts with auth (MCP_AUTH_ISSUER): metadata, 401 without a token, a token for the resource served in a KV session, another principal refused", async () => {
  const issuer = "https://auth.example.com";
  const resource = "https://weft-example.deno.dev/mcp";
  const key = await signer("ES256", "deploy-key");
  const kv = await Deno.openKv(":memory:");
  const options = authOptions({ issuer, resource, jwks: { keys: [key.jwk] } });
  const fetch = kvSessions(kv, { ...options, onerror: () => {} })
    .fetch as DeployFetch;
  const now = Math.floor(Date.now() / 1000);
  const tokenFor = (sub: string) =>
    mint(key, {
      iss: issuer,
      aud: resource,
      sub,
      client_id: "claude",
      scope: "mcp",
      exp: now + 60,
    });
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(
      new Request(resource, {
        method: "POST",
        headers: {
          host: "weft-example.deno.dev",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(body),
      }),
      DEPLOY_INFO,
    );
  try {
    const meta = await fetch(
      new Request(
        "https://weft-example.deno.dev/.well-known/oauth-protected-resource/mcp",
      ),
      DEPLOY_INFO,
    );
    assert.deepEqual(await meta.json(), {
      resource,
      authorization_servers: [issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp"],
    });
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "deploy-test", version: "0" },
      },
    };
    const bare = await send(init);
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get("www-authenticate"),
      'Bearer scope="mcp", resource_metadata="https://weft-example.deno.dev/.well-known/oauth-protected-resource/mcp"',
    );
    await bare.body?.cancel();
    const alice = { authorization: `Bearer ${await tokenFor("alice")}` };
    const opened = await send(init, alice);
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
    const sid = opened.headers.get("mcp-session-id")!;
    const session = {
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-11-25",
    };
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "lookup_order", arguments: { order_id: "9" } },
    };
    const served = await send(call, { ...alice, ...session });
    assert.equal(served.status, 200);
    assert.match(await served.text(), /\\"status\\":\\"shipped\\"/);
    const bob = { authorization: `Bearer ${await tokenFor("bob")}` };
    const refused = await send(call, { ...bob, ...session });
    assert.equal(refused.status, 404);
    await refused.body?.cancel();
  } finally {
    kv.close();
  }
});
