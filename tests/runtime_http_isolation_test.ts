// Stateless httpHandler keeps callers apart whatever reuseServers says: a
// notification a handler sends after its request was answered reaches no
// one (not the next caller on the same pooled server), a server that saw
// per-client state is not reused; by default every request gets a server of
// its own from the factory, however the factory is written (plain, wrapped
// in a variadic helper, with a defaulted parameter). Each test is ordered by latches, not by timing: the
// late send happens while the other caller's request is running on the
// same server.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import {
  httpHandler,
  type HttpHandlerOptions,
} from "../src/runtime/http/handler.ts";
import { post } from "./fixtures/http_test_server.ts";
import type { AuthInfo } from "../src/core/auth.ts";
import { type Latch, latch, waitFor } from "./_helpers/wait.ts";

const DEADLINE = 10_000;

/** `l`'s promise, or a failure naming `what` once {@link DEADLINE} passes. */
function opened(l: Latch<void>, what: string): Promise<void> {
  const signal = AbortSignal.timeout(DEADLINE);
  return Promise.race([
    l.promise,
    new Promise<never>((_, reject) =>
      signal.addEventListener(
        "abort",
        () => reject(new Error(`never happened: ${what}`)),
        { once: true },
      )
    ),
  ]);
}

/**
 * Resolves once no server `servers` holds is connected: each request's
 * server closed (the SDK's path) or was never connected (the direct
 * route), so the pool has taken back what it reuses.
 */
function closed(servers: readonly Server[]): Promise<boolean> {
  return waitFor(
    () => servers.every((server) => server.transport === undefined),
    "every request's server closed",
  );
}

/**
 * What a test server's handlers do, keyed by tool name: each gets the
 * caller's `user` argument and the SDK's `extra`.
 */
type Tools = Record<
  string,
  (
    user: string,
    extra: { sendNotification(n: unknown): Promise<void> },
  ) => Promise<string> | string
>;

/** The number of each server `newServer` made, in order, and what it binds. */
interface Made {
  serial: number;
  bound?: string;
  server: Server;
}

function toolServer(tools: Tools, made: Made[], bound?: string): Server {
  const serial = made.length + 1;
  const server = new Server({ name: "iso", version: "1" }, {
    capabilities: { tools: {}, logging: {} },
  });
  made.push({ serial, bound, server });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.keys(tools).map((name) => ({
      name,
      inputSchema: { type: "object" as const },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const user = String(request.params.arguments?.user ?? bound ?? "?");
    const run = tools[request.params.name];
    const text = await run(
      user,
      extra as unknown as Parameters<Tools[string]>[1],
    );
    return { content: [{ type: "text", text: `${text} (server ${serial})` }] };
  });
  return server;
}

function serve(
  newServer: (request: Request, auth?: AuthInfo) => Server,
  options: HttpHandlerOptions = {},
) {
  const handler = httpHandler(newServer, options);
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    async [Symbol.asyncDispose]() {
      await handler.close();
      stop.abort();
      await listener.finished;
    },
  };
}

function call(id: number, name: string, user: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: { user } },
  };
}

async function postText(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await post(url, JSON.stringify(body), headers);
  return await res.text();
}

/** A log line as the handlers send it. */
function log(data: string) {
  return {
    method: "notifications/message",
    params: { level: "info", data },
  };
}

/**
 * Alice's calls answer and, once Bob's call runs, send an audit line; Bob's
 * call waits for Alice's late sends before it answers. What Bob reads must
 * hold nothing of Alice's. (A lone call's late send is usually stopped by
 * the SDK, which aborts a request's signal when the server closes before
 * it is done with the request; a batch's first answer is done with by then.)
 */
async function lateSendScenario(
  aliceBody: unknown,
  bobBody: unknown,
  lateSends: number,
  options: HttpHandlerOptions = {},
) {
  const bobRunning = latch();
  const lateDone = latch();
  const aliceStreaming = latch();
  const late: string[] = [];
  const made: Made[] = [];
  const tools: Tools = {
    async audit(user, extra) {
      (async () => {
        await bobRunning.promise;
        try {
          await extra.sendNotification(
            log(`audit: Bearer ${user} opened record 4711`),
          );
          late.push("sent");
        } catch {
          late.push("refused");
        }
        if (late.length === lateSends) lateDone.open();
      })();
      // An answer after the first turn goes out as a stream: the SDK is
      // done with the request (its signal no longer aborts on close) when
      // the server returns to the pool. It answers once Alice's response
      // began as a stream.
      await opened(aliceStreaming, "Alice's answer began as a stream");
      return `audited ${user}`;
    },
    async work(user, extra) {
      bobRunning.open();
      await opened(lateDone, "Alice's late sends ran");
      await extra.sendNotification(log(`working for ${user}`));
      return `done ${user}`;
    },
  };
  await using server = serve(() => toolServer(tools, made), {
    reuseServers: true,
    ...options,
  });
  const aliceResponse = await post(server.url, JSON.stringify(aliceBody));
  aliceStreaming.open();
  const alice = await aliceResponse.text();
  assert.match(alice, /audited alice/);
  // The server's close settles; it goes back to the pool.
  await closed(made.map((m) => m.server));
  const bob = await postText(server.url, bobBody);
  return { alice, bob, late, made };
}

Deno.test({
  name:
    "isolation: a notification sent after its call was answered reaches no later caller",
  sanitizeOps: true,
  async fn() {
    const { bob, late, made } = await lateSendScenario(
      call(1, "audit", "alice"),
      call(1, "work", "bob"),
      1,
    );
    // Bob ran on Alice's pooled server: the case that leaked.
    assert.equal(made.length, 1, "one pooled server served both callers");
    assert.match(bob, /working for bob/);
    assert.match(bob, /done bob/);
    assert.doesNotMatch(bob, /alice/);
    // Sent, not refused: it went out while Bob's call ran, and reached no one.
    assert.deepEqual(
      late,
      ["sent"],
      "Alice's late send ran while Bob's call did",
    );
  },
});

Deno.test("isolation: the late notifications of a batch reach no later batch", async () => {
  const { bob, late, made } = await lateSendScenario(
    [call(1, "audit", "alice"), call(2, "audit", "alice")],
    [call(1, "work", "bob"), call(2, "work", "bob")],
    2,
  );
  assert.equal(made.length, 1);
  assert.equal(bob.match(/done bob/g)?.length, 2);
  assert.doesNotMatch(bob, /alice/);
  assert.deepEqual(late, ["sent", "sent"]);
});

Deno.test("isolation: with reuseServers: false a late notification reaches no one either", async () => {
  const { bob, late, made } = await lateSendScenario(
    call(1, "audit", "alice"),
    call(1, "work", "bob"),
    1,
    { reuseServers: false },
  );
  assert.equal(made.length, 2);
  assert.doesNotMatch(bob, /alice/);
  assert.deepEqual(late, ["sent"]);
});

Deno.test("isolation: a server that saw logging/setLevel or initialize is never reused", async () => {
  const made: Made[] = [];
  const tools: Tools = { whoami: (user) => `you are ${user}` };
  await using server = serve(() => toolServer(tools, made), {
    reuseServers: true,
  });
  const settle = () => closed(made.map((m) => m.server));
  const setLevel = {
    jsonrpc: "2.0",
    id: 1,
    method: "logging/setLevel",
    params: { level: "emergency" },
  };
  assert.match(await postText(server.url, setLevel), /"result"/);
  await settle();
  assert.match(
    await postText(server.url, call(2, "whoami", "bob")),
    /server 2/,
  );
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "alice", version: "1" },
    },
  };
  await postText(server.url, initialize);
  await settle();
  // Server 2 went back to the pool; server 3 saw initialize and did not.
  assert.match(
    await postText(server.url, call(3, "whoami", "bob")),
    /server 2/,
  );
  assert.match(
    await postText(server.url, call(4, "whoami", "bob")),
    /server 2/,
  );
  assert.equal(made.length, 3);
});

Deno.test("isolation: twenty callers alternating on pooled servers each read only their own notifications and answers", async () => {
  const made: Made[] = [];
  let lateSent = 0;
  const tools: Tools = {
    async chatty(user, extra) {
      for (let i = 0; i < 2; i++) {
        await extra.sendNotification(log(`${user} step ${i}`));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
      }
      // After the answer, while other callers run on this server: must
      // reach no one.
      setTimeout(() => {
        extra.sendNotification(log(`${user} after`)).catch(() => {
          // Refused: the request is over; reaching no one is the point.
        }).finally(() => lateSent++);
      }, Math.random() * 15);
      return `done ${user}`;
    },
  };
  await using server = serve(() => toolServer(tools, made), {
    reuseServers: true,
  });
  const signal = AbortSignal.timeout(DEADLINE);
  const callers = Array.from({ length: 20 }, (_, i) => `caller${i}`);
  let calls = 0;
  await Promise.all(callers.map(async (user, i) => {
    // Each caller posts five batches of two calls, one after another,
    // starting at its own time: the callers' requests interleave.
    await new Promise((resolve) => setTimeout(resolve, i));
    for (let round = 0; round < 5; round++) {
      const res = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify([
          call(1, "chatty", user),
          call(2, "chatty", user),
        ]),
        signal,
      });
      const text = await res.text();
      const seen = [...text.matchAll(/caller\d+/g)].map((m) => m[0]);
      assert.equal(text.match(/done caller/g)?.length, 2, text);
      assert.deepEqual([...new Set(seen)], [user], `${user} read: ${text}`);
      calls += 2;
    }
  }));
  assert.equal(calls, 200);
  assert.ok(made.length < 100, `servers were pooled (${made.length} made)`);
  // The late sends fire within 15 ms of each answer: all of them ran.
  await waitFor(() => lateSent === calls, () => `${lateSent} late sends ran`);
});

/** A 2026-07-28 `tools/call` and its headers, declaring `capabilities`. */
function modernCall(name: string, capabilities: Record<string, unknown>) {
  return {
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
          [META.clientCapabilities]: capabilities,
        },
      },
    },
    headers: {
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
  };
}

Deno.test("isolation (2026-07-28): a request a handler sends after its call was answered reaches no later caller", async () => {
  let bobRunning = latch();
  let lateDone = latch();
  let late = "";
  const made: Server[] = [];
  await using served = serve(() => {
    const server = new Server({ name: "iso", version: "1" }, {
      capabilities: { tools: {} },
    });
    made.push(server);
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === "audit") {
        // After answering, outside any handler's context.
        const running = bobRunning;
        const done = lateDone;
        (async () => {
          await running.promise;
          try {
            await server.listRoots(undefined, { timeout: 1_000 });
            late = "answered";
          } catch (error) {
            late = (error as Error).message;
          }
          done.open();
        })();
        return { content: [{ type: "text", text: "audited alice" }] };
      }
      bobRunning.open();
      await opened(lateDone, "Alice's late request ran");
      return { content: [{ type: "text", text: "done bob" }] };
    });
    return server;
  }, { reuseServers: true });
  // Bob declares no roots: were Alice's late request taken for his call,
  // his call would fail with -32021; declaring them, he would be asked.
  for (const capabilities of [{}, { roots: {} }]) {
    bobRunning = latch();
    lateDone = latch();
    late = "";
    const alice = modernCall("audit", {});
    assert.match(
      await postText(served.url, alice.body, alice.headers),
      /audited alice/,
    );
    await closed(made);
    const bob = modernCall("work", capabilities);
    const text = await postText(served.url, bob.body, bob.headers);
    assert.doesNotMatch(text, /-32021|roots\/list/);
    assert.match(text, /done bob/);
    // Refused at once, saying why.
    assert.equal(
      late,
      "MCP error -32603: a request sent outside a call's handler reaches no client here: send it from the handler's context",
    );
  }
  assert.equal(made.length, 1, "one pooled server served every caller");
});

/** The caller a token names: `Bearer alice` is Alice. */
const byName = {
  resource: "http://127.0.0.1/mcp",
  authorizationServers: ["http://127.0.0.1:9/issuer"],
  verify: (token: string): AuthInfo => ({
    token,
    clientId: token,
    scopes: [],
  }),
};

const ANON: AuthInfo = { token: "", clientId: "anonymous", scopes: [] };

/** What a logging or tracing helper does to a function: `(...args) => f(...args)`. */
function wrapped<A extends unknown[], R>(f: (...args: A) => R) {
  return (...args: A): R => f(...args);
}

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  const factories: [
    string,
    (
      made: Made[],
      tools: Tools,
    ) => (request: Request, auth?: AuthInfo) => Server,
  ][] = [
    [
      "plain",
      (made, tools) => (_req, auth) => toolServer(tools, made, auth?.clientId),
    ],
    [
      "wrapped (variadic)",
      (made, tools) =>
        wrapped((_req: Request, auth?: AuthInfo) =>
          toolServer(tools, made, auth?.clientId)
        ),
    ],
    [
      "defaulted",
      (made, tools) => (_req: Request, auth: AuthInfo = ANON) =>
        toolServer(tools, made, auth.clientId),
    ],
  ];
  for (const [shape, factory] of factories) {
    Deno.test(`isolation (${era}): a ${shape} factory, default options — alice sees alice, bob sees bob, concurrently`, async () => {
      const made: Made[] = [];
      const tools: Tools = {
        async whoami(user) {
          // Calls overlap: each waits a little before it answers.
          await new Promise((resolve) =>
            setTimeout(resolve, Math.random() * 5)
          );
          return `you are ${user}`;
        },
      };
      await using server = serve(factory(made, tools), {
        auth: byName,
        onerror: () => {},
      });
      const signal = AbortSignal.timeout(DEADLINE);
      const users = Array.from(
        { length: 16 },
        (_, i) => i % 2 ? "bob" : "alice",
      );
      const texts = await Promise.all(users.map(async (user, i) => {
        const { body, headers } = era === "2025-11-25"
          ? {
            body: {
              jsonrpc: "2.0",
              id: i,
              method: "tools/call",
              params: { name: "whoami" },
            },
            headers: {},
          }
          : modernCall("whoami", {});
        const res = await fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${user}`,
            ...headers,
          },
          body: JSON.stringify(body),
          signal,
        });
        assert.equal(res.status, 200);
        return await res.text();
      }));
      texts.forEach((text, i) => {
        assert.match(
          text,
          new RegExp(`you are ${users[i]} \\(server \\d+\\)`),
          text,
        );
      });
      assert.equal(made.length, users.length, "a server per request");
      assert.deepEqual(
        made.map((m) => m.bound).sort(),
        users.slice().sort(),
        "every server was made for its own caller",
      );
    });
  }
}

Deno.test("httpHandler: a server instead of a factory is refused, naming reuseServers", () => {
  const made: Made[] = [];
  assert.throws(
    () => httpHandler(toolServer({}, made) as unknown as () => Server),
    {
      name: "TypeError",
      message:
        "httpHandler(newServer): newServer must be a function making a server, (request, auth) => new Server(…); to share servers between requests, pass reuseServers: true",
    },
  );
});
