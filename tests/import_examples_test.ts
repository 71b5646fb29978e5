/**
 * The seed's import examples (go-mcp §6.1: ExampleTools,
 * ExampleTools_toolSource), run with their printed output asserted.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Agent, importTools, type ToolDef } from "../mod.ts";
import { say, script } from "../testing.ts";

/** Stands up a remote server with one tool answering `answer`, and a client connected to it. */
async function remote(
  tool: Record<string, unknown>,
  answer: string,
): Promise<Client> {
  const server = new Server({ name: "remote", version: "0" }, {
    capabilities: { tools: { listChanged: true } },
  });
  server.setRequestHandler(
    ListToolsRequestSchema,
    () => ({ tools: [tool] }) as never,
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    () => ({ content: [{ type: "text", text: answer }] }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "demo", version: "0" });
  await client.connect(clientSide);
  return client;
}

Deno.test("ExampleTools: arch_search -> 3 hits", async () => {
  const printed: string[] = [];
  const client = await remote({
    name: "search",
    description: "Search the archive.",
    inputSchema: {
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    },
    annotations: { readOnlyHint: true },
  }, "3 hits");
  try {
    const { tools } = await importTools(client, { prefix: "arch_" });
    const out = await tools[0].invoke('{"q":"denim"}');
    printed.push(`${tools[0].name} -> ${out}`);
  } finally {
    await client.close();
  }
  assert.deepEqual(printed, ["arch_search -> 3 hits"]);
});

Deno.test("ExampleTools_toolSource: ready tools fetched: 1", async () => {
  const printed: string[] = [];
  const client = await remote({
    name: "search",
    description: "Search.",
    inputSchema: { type: "object" },
  }, "ok");
  try {
    // JavaScript runs the SDK's list-changed handler and the loop on one
    // thread, so no mutex: refresh replaces the list, the source reads it.
    let current: ToolDef[] = [];
    const refresh = async (): Promise<void> => {
      const { tools, skipped } = await importTools(client);
      if (skipped) console.warn(skipped.message); // the good tools still serve
      current = tools;
    };
    await refresh();
    // A real client passes `listChanged: { tools: { autoRefresh: false, onChanged: refresh } }`
    // to `new Client`; the served list is whatever the last refresh produced.
    const agent = new Agent(script(say("ready")), {
      name: "importer",
      toolSource: () => current,
    });
    const result = await agent.generate("status?");
    printed.push(`${result.text} tools fetched: ${current.length}`);
  } finally {
    await client.close();
  }
  assert.deepEqual(printed, ["ready tools fetched: 1"]);
});
