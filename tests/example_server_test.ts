/**
 * examples/server.ts (go-mcp §6.3): in memory (TestServerServesAgentAndTools)
 * and as a child process driven by a client nobody here wrote — the SDK's
 * own Client over its StdioClientTransport — which must exit when the client
 * closes.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { newServer } from "../examples/server.ts";
import { onlyText } from "./_helpers/export_pair.ts";

const EXAMPLE = new URL("../examples/server.ts", import.meta.url).pathname;

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), [
    "getting-started",
    "lookup_order",
  ]);
  assert.equal(tools[0].description, "Answer where a customer's order is.");
  const answer = await client.callTool({
    name: "getting-started",
    arguments: { prompt: "Where is order 1234?" },
  });
  assert.notEqual(answer.isError, true);
  assert.equal(
    onlyText(answer as never),
    "Order 1234 shipped and is on its way.",
  );
  const order = await client.callTool({
    name: "lookup_order",
    arguments: { order_id: "5678" },
  });
  assert.deepEqual(JSON.parse(onlyText(order as never)), {
    id: "5678",
    status: "shipped",
  });
  assert.deepEqual(order.structuredContent, { id: "5678", status: "shipped" });
}

Deno.test("example server: serves the agent and its tools (in memory)", async () => {
  const server = newServer();
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "example-test", version: "0" });
  await client.connect(clientTransport);
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
});

Deno.test("example server: the SDK's stdio client lists and calls it as a child process, which exits on close", async () => {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", EXAMPLE],
    stderr: "pipe",
  });
  const logs: string[] = [];
  transport.stderr?.on(
    "data",
    (chunk: Uint8Array) => logs.push(new TextDecoder().decode(chunk)),
  );
  const client = new Client({ name: "stdio-test", version: "0" });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null && pid > 0);
  try {
    assert.deepEqual(client.getServerVersion(), {
      name: "weft-getting-started",
      version: "0",
    });
    await exercise(client);
  } finally {
    await client.close();
  }
  assert.throws(() => Deno.kill(pid!, "SIGCONT"), "the child process is gone");
  // The client gives the child 2 s after closing stdin before SIGTERM; the
  // example exits on its own: it logs its exit when serveStdio returns,
  // which a SIGTERM (no handler: the process ends at once) never lets it do.
  assert.match(logs.join(""), /server exited/);
});
