/**
 * The real v2 client (`@modelcontextprotocol/client` 2.4.0) against weft's
 * server in both protocol eras: version negotiation `auto`, pinned to
 * 2026-07-28, and `legacy`, each listing and calling the tools of an
 * `exportTools` server served by `httpHandler` (stateless and sessions, on
 * a real listener on 127.0.0.1) and by `serveStdio` (a real child process).
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { httpHandler } from "../../mod.ts";
import { eraServer } from "../fixtures/era_server.ts";

const MODERN = "2026-07-28";
const FIXTURE = new URL("../fixtures/era_server.ts", import.meta.url).pathname;

type Mode = "auto" | "legacy" | { pin: string };
const MODES: { name: string; mode: Mode; era: "modern" | "legacy" }[] = [
  { name: "auto", mode: "auto", era: "modern" },
  { name: "pinned modern", mode: { pin: MODERN }, era: "modern" },
  { name: "legacy", mode: "legacy", era: "legacy" },
];

function newClient(mode: Mode): Client {
  return new Client({ name: "v2-interop", version: "2.4.0" }, {
    versionNegotiation: { mode },
  });
}

async function listAndCall(client: Client, era: "modern" | "legacy") {
  const version = client.getNegotiatedProtocolVersion();
  if (era === "modern") assert.equal(version, MODERN);
  else assert.notEqual(version, MODERN);
  assert.deepEqual(client.getServerVersion(), {
    name: "era-fixture",
    version: "1.2.3",
  });
  const listed = await client.listTools(undefined, {
    signal: AbortSignal.timeout(10_000),
  });
  assert.deepEqual(listed.tools.map((t) => t.name), [
    "echo",
    "roots",
    "wait",
    "grow",
  ]);
  const result = await client.callTool({
    name: "echo",
    arguments: { text: "hé ✓" },
  }, { signal: AbortSignal.timeout(10_000) });
  assert.deepEqual(result.content, [{ type: "text", text: "echo: hé ✓" }]);
}

async function withHttp(
  sessions: boolean,
  body: (url: URL) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const handler = httpHandler(() => eraServer(), {
    sessions,
    signal: ac.signal,
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, handler);
  try {
    await body(new URL(`http://127.0.0.1:${server.addr.port}/mcp`));
  } finally {
    ac.abort();
    await server.finished;
  }
}

for (const sessions of [false, true]) {
  for (const { name, mode, era } of MODES) {
    Deno.test(
      `v2 client (${name}) lists and calls over httpHandler (${
        sessions ? "sessions" : "stateless"
      })`,
      async () => {
        await withHttp(sessions, async (url) => {
          const client = newClient(mode);
          await client.connect(new StreamableHTTPClientTransport(url), {
            signal: AbortSignal.timeout(10_000),
          } as never);
          try {
            await listAndCall(client, era);
          } finally {
            await client.close();
          }
        });
      },
    );
  }
}

for (const { name, mode, era } of MODES) {
  Deno.test(`v2 client (${name}) lists and calls over serveStdio`, async () => {
    const client = newClient(mode);
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", FIXTURE],
      stderr: "inherit",
    });
    await client.connect(transport);
    try {
      await listAndCall(client, era);
    } finally {
      await client.close();
    }
  });
}

/** A promise of the next `notifications/tools/list_changed` the client gets. */
function nextListChange(client: Client): Promise<unknown> {
  return new Promise((resolve) => {
    client.setNotificationHandler(
      "notifications/tools/list_changed",
      (notification) => resolve(notification),
    );
  });
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: timed out`)), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("v2 client (pinned modern) listens over httpHandler and hears handler.listChanged()", async () => {
  const ac = new AbortController();
  const handler = httpHandler(() => eraServer(), { signal: ac.signal });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, handler);
  const client = newClient({ pin: MODERN });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
      ),
    );
    const changed = nextListChange(client);
    const subscription = await client.listen({ toolsListChanged: true }, {
      signal: AbortSignal.timeout(10_000),
    });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
    await handler.listChanged("tools");
    await within(changed, "tools/list_changed");
    await subscription.close();
    assert.equal(await subscription.closed, "local");
    // Closing the handler ends a listen gracefully (its empty result).
    const second = await client.listen({ toolsListChanged: true }, {
      signal: AbortSignal.timeout(10_000),
    });
    await handler.close();
    assert.equal(await within(second.closed, "graceful end"), "graceful");
  } finally {
    await client.close();
    ac.abort();
    await server.finished;
  }
});

function stdioClient(
  mode: Mode,
): { client: Client; transport: StdioClientTransport } {
  return {
    client: newClient(mode),
    transport: new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", FIXTURE],
      stderr: "inherit",
    }),
  };
}

Deno.test("v2 client (pinned modern) listens over serveStdio and hears the server's own list change", async () => {
  const { client, transport } = stdioClient({ pin: MODERN });
  await client.connect(transport);
  try {
    const changed = nextListChange(client);
    const subscription = await client.listen({ toolsListChanged: true }, {
      signal: AbortSignal.timeout(10_000),
    });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
    const grew = await client.callTool({ name: "grow", arguments: {} });
    assert.deepEqual(grew.content, [{ type: "text", text: "grew" }]);
    await within(changed, "tools/list_changed");
    const listed = await client.listTools();
    assert.ok(listed.tools.some((t) => t.name === "grown"));
    await subscription.close();
  } finally {
    await client.close();
  }
});

Deno.test("v2 client (pinned modern) over serveStdio: a call needing roots it did not declare fails with -32021", async () => {
  const { client, transport } = stdioClient({ pin: MODERN });
  await client.connect(transport);
  try {
    await assert.rejects(
      client.callTool({ name: "roots", arguments: {} }, {
        signal: AbortSignal.timeout(10_000),
      }),
      (error: { code?: number; data?: unknown }) => {
        assert.equal(error.code, -32021);
        assert.deepEqual(error.data, { requiredCapabilities: { roots: {} } });
        return true;
      },
    );
  } finally {
    await client.close();
  }
});
