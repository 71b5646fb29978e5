/**
 * `connectHttp` against the SDK v2's `Client` (`@modelcontextprotocol/client`
 * 2.4.0), per call, in both protocol eras, against a weft server
 * (`exportTools` + `httpHandler`, stateless) and against the SDK v2's own
 * (`createMcpHandler`, `bench/_v2_bench_server.ts`), each in its own process
 * on 127.0.0.1: sequential `tools/list` and `tools/call`, interleaved one for
 * one, alternating which goes first (medians). Also: what the first connect
 * costs a legacy server (the probe's round trip) and what a kept verdict
 * saves.
 *
 *     deno run -A --config tests/interop/deno.json bench/era_client_bench.ts
 *     deno run -A --config tests/interop/deno.json bench/era_client_bench.ts --calls=300
 *
 * Runs with tests/interop's import map: the SDK v2 is a test-only package.
 *
 * @module
 */

import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { memoryEraStore } from "../src/runtime/era/era_store.ts";
import { interleavedMedians } from "./_medians.ts";

const calls = Number(
  Deno.args.find((a) => a.startsWith("--calls="))?.slice(8) ?? 300,
);

const HERE = new URL(".", import.meta.url).pathname;
const INTEROP = new URL("../tests/interop/deno.json", import.meta.url).pathname;

interface Running {
  url: string;
  stop(): Promise<void>;
}

/** weft: both eras; v2: the SDK v2, both eras; legacy: the v1 SDK's transport, 2025 only. */
async function start(kind: "weft" | "v2" | "legacy"): Promise<Running> {
  const args = kind === "v2"
    ? [
      "run",
      "-A",
      "--quiet",
      "--config",
      INTEROP,
      `${HERE}_v2_bench_server.ts`,
    ]
    : [
      "run",
      "-A",
      "--quiet",
      "--unstable-kv",
      `${HERE}_http_bench_server.ts`,
      kind === "weft" ? "weft" : "sdk",
      "stateless",
    ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${kind} server exited`);
    text += value;
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${text.trim()}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

const args = { name: "echo", arguments: { text: "hello" } };

async function v2Client(
  url: string,
  era: "modern" | "legacy",
): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" }, {
    versionNegotiation: {
      mode: era === "modern" ? { pin: "2026-07-28" } : "legacy",
    },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

console.log(
  `client: connectHttp vs the SDK v2 Client, ${calls} sequential pairs per row; medians (speed above 1: connectHttp is faster)`,
);
for (const kind of ["weft", "v2"] as const) {
  const server = await start(kind);
  try {
    for (const era of ["modern", "legacy"] as const) {
      const weft = await connectHttp(server.url, { protocol: era });
      const sdk = await v2Client(server.url, era);
      const results = await interleavedMedians([
        {
          label: "tools/list",
          sdk: () => sdk.listTools(),
          weft: () => weft.listTools(),
          n: calls,
        },
        {
          label: "tools/call",
          sdk: () => sdk.callTool(args),
          weft: () => weft.callTool(args),
          n: calls,
        },
      ]);
      for (const r of results) {
        console.log(
          `${kind.padEnd(5)} server  ${era.padEnd(7)} ${
            r.label.padEnd(11)
          } v2 ${r.sdk.toFixed(3)} ms  weft ${r.weft.toFixed(3)} ms  speed ${
            (r.sdk / r.weft).toFixed(2)
          }x`,
        );
      }
      await weft.close();
      await sdk.close();
    }
  } finally {
    await server.stop();
  }
}

// The first connect to a legacy-only server (the v1 SDK's transport): the
// probe's round trip once; a kept verdict (a memory store here, as a
// Deno.Kv would across restarts) spares it.
const legacy = await start("legacy");
try {
  const kept = memoryEraStore();
  await connectHttp(legacy.url, { eraStore: kept }).then((c) => c.close());
  const variants: [string, () => Promise<{ close(): Promise<void> }>][] = [
    [
      "pinned legacy (no probe)",
      () => connectHttp(legacy.url, { protocol: "legacy" }),
    ],
    [
      "auto, nothing kept (probe, then initialize)",
      () => connectHttp(legacy.url, { eraStore: memoryEraStore() }),
    ],
    [
      "auto, verdict kept (no probe)",
      () => connectHttp(legacy.url, { eraStore: kept }),
    ],
  ];
  // Round robin, the order rotating each round; 5 rounds of warm-up.
  const times: number[][] = variants.map(() => []);
  for (let round = 0; round < 55; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (round + k) % variants.length;
      const t = performance.now();
      const client = await variants[i][1]();
      if (round >= 5) times[i].push(performance.now() - t);
      await client.close();
    }
  }
  console.log(
    "\nconnect: connectHttp to a legacy-only server (the v1 SDK's transport), median of 50, round robin",
  );
  variants.forEach(([label], i) => {
    const sorted = times[i].sort((a, b) => a - b);
    console.log(`connect    ${label.padEnd(44)} ${sorted[25].toFixed(3)} ms`);
  });
} finally {
  await legacy.stop();
}
