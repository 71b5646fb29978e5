/**
 * importTools against the raw SDK, side by side, over the in-memory
 * transport: listing a 1,000-tool server (10 pages of 100) and one call.
 *
 *   deno bench -A bench/import_bench.ts           (averages, ratios per group)
 *   deno run -A bench/import_bench.ts --medians   (interleaved medians, ratios)
 *
 * Targets: listing ≤ 1.10×, one call ≤ 1.05× the SDK's own.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { importTools } from "../mod.ts";
import { interleavedMedians } from "./_medians.ts";

const TOOLS = 1000;
const PAGE = 100;

function listing(): Record<string, unknown>[] {
  const tools: Record<string, unknown>[] = [];
  for (let i = 0; i < TOOLS; i++) {
    tools.push({
      name: `tool_${i}`,
      description:
        `Tool number ${i}: searches the archive for documents matching a query.`,
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          q: { type: "string", description: "the query" },
          limit: { type: "integer", minimum: 1, maximum: 100 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["q"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: i % 2 === 0 },
    });
  }
  return tools;
}

async function connect(): Promise<Client> {
  const tools = listing();
  const server = new Server({ name: "bench", version: "0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const end = start + PAGE;
    return end < tools.length
      ? { tools: tools.slice(start, end) as never, nextCursor: String(end) }
      : { tools: tools.slice(start, end) as never };
  });
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{
      type: "text",
      text: `3 hits for ${String(request.params.arguments?.q)}`,
    }],
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench-client", version: "0" });
  await client.connect(clientSide);
  return client;
}

const client = await connect();
const { tools } = await importTools(client);
if (tools.length !== TOOLS) throw new Error(`imported ${tools.length} tools`);
const imported = tools[0];
const args = '{"q":"weft","limit":5}';

async function sdkListAll(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(
      cursor === undefined ? undefined : { cursor },
    );
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}

Deno.bench({
  name: "SDK client.listTools loop (1,000 tools, 10 pages)",
  group: "list",
  baseline: true,
  async fn() {
    if (await sdkListAll() !== TOOLS) throw new Error("short listing");
  },
});

Deno.bench({
  name: "importTools (1,000 tools, 10 pages)",
  group: "list",
  async fn() {
    const { tools } = await importTools(client);
    if (tools.length !== TOOLS) throw new Error("short import");
  },
});

Deno.bench({
  name: "SDK client.callTool",
  group: "call",
  baseline: true,
  async fn() {
    const result = await client.callTool({
      name: "tool_0",
      arguments: { q: "weft", limit: 5 },
    });
    if (!Array.isArray(result.content)) throw new Error("no content");
  },
});

// One long-lived signal per side, as a run's signal is: the SDK adds an abort
// listener per request and never removes it (ADR 0022), so the SDK side
// slows as its listeners pile up; the bridge unlinks its per-call child.
const sdkRunSignal = new AbortController().signal;
const bridgeRunSignal = new AbortController().signal;

Deno.bench({
  name: "imported tool invoke",
  group: "call",
  async fn() {
    const text = await imported.invoke(args);
    if (text !== "3 hits for weft") throw new Error(text);
  },
});

Deno.bench({
  name: "imported tool invoke under a long-lived signal",
  group: "call",
  async fn() {
    const text = await imported.invoke(args, { signal: bridgeRunSignal });
    if (text !== "3 hits for weft") throw new Error(text);
  },
});

// Last: the SDK's never-removed listeners pile up on sdkRunSignal (each
// keeping its request's closure alive), which grows the heap and slows
// whatever deno bench runs after it.
Deno.bench({
  name:
    "SDK client.callTool with a signal (the cancellation wiring invoke does)",
  group: "call",
  async fn() {
    const result = await client.callTool(
      { name: "tool_0", arguments: { q: "weft", limit: 5 } },
      undefined,
      {
        signal: sdkRunSignal,
      },
    );
    if (!Array.isArray(result.content)) throw new Error("no content");
  },
});

// `deno run -A bench/import_bench.ts --medians`: interleaved medians (deno bench prints
// averages and p75; on a shared machine the median of A/B pairs taken side
// by side is the steadier ratio). Deno.bench registrations are inert here.
if (import.meta.main && Deno.args.includes("--medians")) {
  await medians();
  await client.close();
}

async function medians(): Promise<void> {
  const results = await interleavedMedians([
    {
      label: "list (1,000 tools)",
      sdk: sdkListAll,
      weft: () => importTools(client),
      n: 300,
    },
    {
      label: "call",
      sdk: () =>
        client.callTool({ name: "tool_0", arguments: { q: "weft", limit: 5 } }),
      weft: () => imported.invoke(args),
      n: 20000,
    },
    {
      label: "call, SDK given a signal too",
      sdk: () =>
        client.callTool(
          { name: "tool_0", arguments: { q: "weft", limit: 5 } },
          undefined,
          { signal: sdkRunSignal },
        ),
      weft: () => imported.invoke(args, { signal: bridgeRunSignal }),
      n: 20000,
    },
  ]);
  for (const { label, sdk, weft } of results) {
    console.log(
      `${label}: SDK median ${format(sdk)}, bridge median ${
        format(weft)
      }, ratio ${(weft / sdk).toFixed(2)}x`,
    );
  }
}

function format(ms: number): string {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}
