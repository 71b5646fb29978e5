/**
 * exportTools against the SDK's own McpServer, side by side over the
 * in-memory transport, through the SDK's real Client:
 *
 * - `tools/call` of a typed (zod) tool, text result;
 * - `tools/call` of a typed tool with an output schema (structuredContent);
 * - `tools/list` of 1,000 typed tools.
 *
 *     deno bench -A bench/export_bench.ts
 *     deno run -A bench/export_bench.ts --medians
 *
 * Each group's baseline is the SDK's path, so the ratios read as "times
 * faster than McpServer.registerTool". `deno bench` reports means and
 * percentiles; `--medians` times each operation on its own, the pairs
 * interleaved one for one (SDK, weft, weft, SDK, … so load from other
 * processes hits both alike), and prints each side's median time per
 * operation and the throughput ratio weft/SDK (SDK median / weft median).
 * Target: every ratio ≥ 1.00.
 *
 * @module
 */

import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { interleavedMedians } from "./_medians.ts";

const LIST_SIZE = 1000;

const echoInput = z.object({
  text: z.string(),
  times: z.number().int().optional(),
});
const orderInput = z.object({ order_id: z.string() });
const orderOutput = z.object({ id: z.string(), status: z.string() });

function weftServer(): Server {
  const server = new Server({ name: "weft", version: "0" });
  exportTools(
    server,
    tool({
      name: "echo",
      description: "Echo the text.",
      input: echoInput,
      run: ({ text }) => "heard: " + text,
    }),
    tool({
      name: "lookup_order",
      description: "Look up an order by ID.",
      input: orderInput,
      output: orderOutput,
      run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
    }),
  );
  const many = [];
  for (let i = 0; i < LIST_SIZE; i++) {
    many.push(
      tool({
        name: `tool_${i}`,
        description: `Tool ${i}.`,
        input: echoInput,
        run: ({ text }) => text,
      }),
    );
  }
  const listing = new Server({ name: "weft-list", version: "0" });
  exportTools(listing, ...many);
  weftListing = listing;
  return server;
}

let weftListing: Server | undefined;
let sdkListing: McpServer | undefined;

function sdkServer(): McpServer {
  const server = new McpServer({ name: "sdk", version: "0" });
  server.registerTool(
    "echo",
    { description: "Echo the text.", inputSchema: echoInput.shape },
    ({ text }) => ({ content: [{ type: "text", text: "heard: " + text }] }),
  );
  server.registerTool(
    "lookup_order",
    {
      description: "Look up an order by ID.",
      inputSchema: orderInput.shape,
      outputSchema: orderOutput.shape,
    },
    ({ order_id }) => {
      const value = { id: order_id, status: "shipped" };
      return {
        content: [{ type: "text", text: JSON.stringify(value) }],
        structuredContent: value,
      };
    },
  );
  const listing = new McpServer({ name: "sdk-list", version: "0" });
  for (let i = 0; i < LIST_SIZE; i++) {
    listing.registerTool(
      `tool_${i}`,
      { description: `Tool ${i}.`, inputSchema: echoInput.shape },
      ({ text }) => ({ content: [{ type: "text", text }] }),
    );
  }
  sdkListing = listing;
  return server;
}

async function connect(server: Server | McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(clientTransport);
  await client.listTools(); // caches output validators, as a real client does
  return client;
}

const weftClient = await connect(weftServer());
const sdkClient = await connect(sdkServer());
const weftListClient = await connect(weftListing!);
const sdkListClient = await connect(sdkListing!);

// Sanity: both sides answer the same, or the comparison means nothing.
for (const client of [weftClient, sdkClient]) {
  const echo = await client.callTool({
    name: "echo",
    arguments: { text: "hi" },
  });
  const order = await client.callTool({
    name: "lookup_order",
    arguments: { order_id: "1" },
  });
  if (JSON.stringify(echo.content) !== '[{"type":"text","text":"heard: hi"}]') {
    throw new Error("echo differs");
  }
  if (
    JSON.stringify(order.structuredContent) !== '{"id":"1","status":"shipped"}'
  ) throw new Error("order differs");
}
for (const client of [weftListClient, sdkListClient]) {
  if ((await client.listTools()).tools.length !== LIST_SIZE) {
    throw new Error("listing differs");
  }
}

Deno.bench("McpServer.registerTool: tools/call", {
  group: "tools/call",
  baseline: true,
}, async () => {
  await sdkClient.callTool({
    name: "echo",
    arguments: { text: "hello", times: 2 },
  });
});

Deno.bench("exportTools: tools/call", { group: "tools/call" }, async () => {
  await weftClient.callTool({
    name: "echo",
    arguments: { text: "hello", times: 2 },
  });
});

Deno.bench("McpServer.registerTool: tools/call, output schema", {
  group: "tools/call structured",
  baseline: true,
}, async () => {
  await sdkClient.callTool({
    name: "lookup_order",
    arguments: { order_id: "1234" },
  });
});

Deno.bench("exportTools: tools/call, output schema", {
  group: "tools/call structured",
}, async () => {
  await weftClient.callTool({
    name: "lookup_order",
    arguments: { order_id: "1234" },
  });
});

Deno.bench("McpServer.registerTool: tools/list of 1,000", {
  group: "tools/list 1000",
  baseline: true,
}, async () => {
  await sdkListClient.listTools();
});

Deno.bench(
  "exportTools: tools/list of 1,000",
  { group: "tools/list 1000" },
  async () => {
    await weftListClient.listTools();
  },
);

// Each operation timed on its own, the two sides interleaved (bench/_medians.ts).
async function medians(): Promise<void> {
  const results = await interleavedMedians([
    {
      label: "tools/call",
      sdk: () =>
        sdkClient.callTool({
          name: "echo",
          arguments: { text: "hello", times: 2 },
        }),
      weft: () =>
        weftClient.callTool({
          name: "echo",
          arguments: { text: "hello", times: 2 },
        }),
      n: 20000,
    },
    {
      label: "tools/call structured",
      sdk: () =>
        sdkClient.callTool({
          name: "lookup_order",
          arguments: { order_id: "1234" },
        }),
      weft: () =>
        weftClient.callTool({
          name: "lookup_order",
          arguments: { order_id: "1234" },
        }),
      n: 20000,
    },
    {
      label: "tools/list 1000",
      sdk: () => sdkListClient.listTools(),
      weft: () => weftListClient.listTools(),
      n: 200,
    },
  ]);
  console.log(
    "| group | McpServer median | exportTools median | throughput weft/SDK |",
  );
  console.log("| --- | --- | --- | --- |");
  for (const { label, sdk, weft } of results) {
    console.log(
      `| ${label} | ${(sdk * 1000).toFixed(1)} µs | ${
        (weft * 1000).toFixed(1)
      } µs | ${(sdk / weft).toFixed(2)}× |`,
    );
  }
}

if (Deno.args.includes("--medians")) {
  await medians();
  await Promise.all(
    [weftClient, sdkClient, weftListClient, sdkListClient].map((c) =>
      c.close()
    ),
  );
}
