// connectServers' per-server and set-wide options reach importTools: render
// (what the model reads of a structured result) and a requireApproval that
// picks tools.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../mod.ts";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { httpHandler } from "../src/runtime/http/handler.ts";

// A server whose `lookup` answers a summary line and, beside it, the
// structured value; `remove` answers text only.
function catalogServer(): Server {
  const server = new Server({ name: "catalog", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ["lookup", "remove"].map((name) => ({
      name,
      inputSchema: { type: "object" as const },
    })),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (request) =>
      request.params.name === "lookup"
        ? {
          content: [{ type: "text" as const, text: "1 hit: denim jacket" }],
          structuredContent: { hits: 1 },
        }
        : { content: [{ type: "text" as const, text: "removed" }] },
  );
  return server;
}

async function withCatalog(
  run: (url: string) => Promise<void>,
): Promise<void> {
  const handler = httpHandler(catalogServer);
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  try {
    await run(`http://127.0.0.1:${listener.addr.port}/mcp`);
  } finally {
    await handler.close();
    await listener.shutdown();
  }
}

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("render: the option reaches every server, a server's own render wins, the default reads the JSON", async () => {
  await withCatalog(async (url) => {
    await using servers = await connectServers({
      plain: { url },
      texts: { url, render: "text" },
      both: { url, render: "both" },
    }, { signal: AbortSignal.timeout(10_000) });
    assert.equal(servers.error, undefined, servers.error?.message);
    const read = (name: string) =>
      byName(servers.tools, name).invoke("{}", {
        signal: AbortSignal.timeout(10_000),
      });
    assert.equal(await read("plain_lookup"), '{"hits":1}');
    assert.equal(await read("texts_lookup"), "1 hit: denim jacket");
    assert.equal(await read("both_lookup"), '1 hit: denim jacket\n{"hits":1}');

    await using textual = await connectServers({
      a: { url },
      b: { url, render: "structured" },
    }, { render: "text", signal: AbortSignal.timeout(10_000) });
    const readText = (name: string) => byName(textual.tools, name).invoke("{}");
    assert.equal(await readText("a_lookup"), "1 hit: denim jacket");
    assert.equal(await readText("b_lookup"), '{"hits":1}');
  });
});

Deno.test("policy.requireApproval per server: a list, a function, true; the other tools run without asking", async () => {
  await withCatalog(async (url) => {
    await using servers = await connectServers({
      listed: { url, policy: { requireApproval: ["remove"] } },
      picked: {
        url,
        policy: { requireApproval: (name) => name.startsWith("rem") },
      },
      prefixed: { url, policy: { requireApproval: ["prefixed_remove"] } },
      all: { url, policy: { requireApproval: true } },
      none: { url },
    }, { signal: AbortSignal.timeout(10_000) });
    assert.equal(servers.error, undefined, servers.error?.message);
    assert.deepEqual(
      servers.tools.filter((t) => t.requiresApproval).map((t) => t.name),
      [
        "listed_remove",
        "picked_remove",
        "prefixed_remove",
        "all_lookup",
        "all_remove",
      ],
    );
  });
});
