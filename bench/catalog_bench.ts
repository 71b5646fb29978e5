/**
 * Time to the first model request on a cold start: `connectServers` over
 * five stdio servers (each a `deno run` process) and one Streamable HTTP
 * server on 127.0.0.1, then `new Agent(...).generate(...)` up to the
 * model's first request; today's path (every server connected and listed)
 * against a warm catalog in Deno KV (no process spawned, no request sent).
 * Each start counts the processes spawned and HTTP requests sent before the
 * first model request. Alternating rounds, medians.
 *
 *   deno run -A bench/catalog_bench.ts [--rounds=5]
 */

import { Agent, connectServers } from "../mod.ts";
import type { Model, ModelEvent } from "../core.ts";
import { denoKvStore } from "../store.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { toolCorpus } from "./_tool_corpus.ts";

const rounds = Number(
  Deno.args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 5,
);
const STDIO = 5;
const fixture =
  new URL("../tests/fixtures/catalog_stdio_server.ts", import.meta.url)
    .pathname;

// The HTTP server lists GitHub's 99 tools of the corpus fixture.
const github = toolCorpus().find((s) => s.name === "github")!.tools;
let httpRequests = 0;
const handler = httpHandler(() => {
  const server = new Server({ name: "github", version: "1" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: github as unknown as {
      name: string;
      inputSchema: { type: "object" };
    }[],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
  return server;
});
const listener = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => {
    httpRequests++;
    return handler(request);
  },
);

const log = await Deno.makeTempFile();
const spawns = async () =>
  (await Deno.readTextFile(log)).split("\n").filter((l) => l !== "").length;
const env: Record<string, string> = { NO_COLOR: "1" };
for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) {
  const value = Deno.env.get(name);
  if (value !== undefined) env[name] = value;
}
const config: Record<string, unknown> = {
  github: { url: `http://127.0.0.1:${listener.addr.port}/mcp` },
};
for (let i = 0; i < STDIO; i++) {
  config[`local${i}`] = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", fixture, log],
    env,
  };
}

const kvPath = await Deno.makeTempFile();
const kv = await Deno.openKv(kvPath);
const store = denoKvStore(kv);

/** One cold start: ms to the first model request, processes and requests before it. */
async function coldStart(
  withCatalog: boolean,
): Promise<{ ms: number; spawned: number; requests: number }> {
  const spawnedBefore = await spawns();
  httpRequests = 0;
  let at = 0;
  let spawned = 0;
  let requests = 0;
  const model: Model = {
    async *stream(): AsyncGenerator<ModelEvent> {
      at = performance.now();
      requests = httpRequests;
      yield { type: "text", text: "ok" };
      yield {
        type: "finish",
        reason: "stop",
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    },
  };
  const start = performance.now();
  const servers = await connectServers(
    config as Parameters<typeof connectServers>[0],
    {
      stderr: "ignore",
      signal: AbortSignal.timeout(60_000),
      ...(withCatalog ? { catalog: store } : {}),
    },
  );
  await new Agent(model, {
    toolSource: servers.toolSource,
    toolSearch: { serverOf: servers.serverOf },
  }).generate("hi");
  spawned = (await spawns()) - spawnedBefore;
  await servers.close();
  return { ms: at - start, spawned, requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// Warm the catalog once.
await (await connectServers(config as Parameters<typeof connectServers>[0], {
  catalog: store,
  stderr: "ignore",
})).close();

const today: number[] = [];
const warm: number[] = [];
let last = {
  today: { spawned: 0, requests: 0 },
  warm: { spawned: 0, requests: 0 },
};
for (let r = 0; r < rounds; r++) {
  const a = await coldStart(false);
  const b = await coldStart(true);
  today.push(a.ms);
  warm.push(b.ms);
  last = { today: a, warm: b };
}
console.log(
  `${STDIO} stdio servers + 1 HTTP server (99 tools), ${rounds} alternating rounds, medians:\n`,
);
console.log(
  "| cold start | ms to first model request | processes spawned | HTTP requests |",
);
console.log(
  "| ---------- | ------------------------- | ----------------- | ------------- |",
);
console.log(
  `| today (no catalog) | ${
    median(today).toFixed(1)
  } | ${last.today.spawned} | ${last.today.requests} |`,
);
console.log(
  `| warm catalog (Deno KV) | ${
    median(warm).toFixed(1)
  } | ${last.warm.spawned} | ${last.warm.requests} |`,
);
console.log(`\nratio warm/today: ${(median(warm) / median(today)).toFixed(3)}`);

await store.close();
kv.close();
await handler.close();
await listener.shutdown();
await Deno.remove(log);
await Deno.remove(kvPath).catch(() => {});
