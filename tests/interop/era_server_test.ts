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
  assert.deepEqual(listed.tools.map((t) => t.name), ["echo", "roots", "wait", "grow"]);
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
    Deno.test(`v2 client (${name}) lists and calls over httpHandler (${
      sessions ? "sessions" : "stateless"
    })`, async () => {
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
    });
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
