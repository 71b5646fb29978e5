/**
 * `httpHandler` against the SDK's own `WebStandardStreamableHTTPServerTransport`
 * under load, and `connectHttp` against the SDK's
 * `StreamableHTTPClientTransport`, side by side on 127.0.0.1.
 *
 *     deno run -A bench/http_bench.ts
 *     deno run -A bench/http_bench.ts --seconds=2 --rounds=3 --clients=10,100,500
 *     deno run -A bench/http_bench.ts --skip-client --skip-calls  # the server table only
 *
 * Server table: for each mode (stateless, with `reuseServers: true`, whose
 * pooled servers serve request after request; `fresh`, weft's default
 * stateless mode (no `reuseServers`), a server built per request as the
 * SDK's stateless pattern does;
 * sessions; kv, sessions in a Deno KV file, against the SDK's in-memory
 * sessions; `modern`, weft's stateless endpoint answering 2026-07-28
 * requests — no session, the `_meta` envelope, the `Mcp-Method`/`Mcp-Name`
 * headers — against the SDK v2's `createMcpHandler` on the same ten tools
 * (`bench/_v2_bench_server.ts`, run with tests/interop's import map); `v2`,
 * the same two answering legacy stateless requests) and each load (10, 100,
 * 500 concurrent clients, each sending `tools/call` back to back over
 * keep-alive connections), every round starts each contender in its own
 * process (`bench/_http_bench_server.ts`) and loads it for `--seconds`; the
 * contenders alternate which goes first from round to round, and the table
 * prints each one's median over `--rounds` rounds: requests per second,
 * p50 and p99 latency, the server process's peak RSS, its CPU time per
 * answered request (from /proc: steadier than requests per second when
 * other work shares the machine), and the ratios weft/SDK of requests per
 * second (above 1: weft serves more) and of CPU per request (below 1:
 * weft spends less). Session-mode clients
 * each open a session first (not timed).
 *
 * Call table: the SDK's own `Client` on its
 * `StreamableHTTPClientTransport` calls `tools/call` on a weft server
 * (`exportTools` + `httpHandler`) and on a plain SDK server (`McpServer`
 * with `registerTool`, on the SDK's transport), stateless and with
 * sessions: one call at a time, and 16 in flight (the time of the batch,
 * per call), interleaved one for one (medians).
 *
 * Client table: sequential `tools/list` and `tools/call` through
 * `connectHttp` and through the SDK v1 `Client` on its own transport,
 * against one stateless SDK v1 server (`McpServer` on the SDK's
 * transport), interleaved one for one (medians).
 *
 * Loads are bounded: at most `--clients` connections, `--seconds` each
 * round, only 127.0.0.1. On a shared machine the numbers are noisy; rerun
 * quietly for figures worth quoting.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { interleavedMedians } from "./_medians.ts";
import { median } from "./_medians.ts";

interface Flags {
  seconds: number;
  rounds: number;
  clients: number[];
  modes: string[];
  skipClient: boolean;
  skipServer: boolean;
  skipCalls: boolean;
  calls: number;
}

function flags(args: string[]): Flags {
  const get = (name: string): string | undefined =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    seconds: Number(get("seconds") ?? 2),
    rounds: Number(get("rounds") ?? 3),
    clients: (get("clients") ?? "10,100,500").split(",").map(Number),
    modes: (get("modes") ??
      "stateless,fresh,sessions,kv,modern,modern-list,v2,v2-list").split(","),
    skipClient: args.includes("--skip-client"),
    skipServer: args.includes("--skip-server"),
    skipCalls: args.includes("--skip-calls"),
    calls: Number(get("calls") ?? 300),
  };
}

const SERVER = new URL("./_http_bench_server.ts", import.meta.url).pathname;
// The SDK v2 contender runs with tests/interop's import map (test-only packages).
const V2_SERVER = new URL("./_v2_bench_server.ts", import.meta.url).pathname;
const INTEROP_CONFIG =
  new URL("../tests/interop/deno.json", import.meta.url).pathname;
const PROTOCOL = "2025-11-25";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hello" } },
});
// The modern era (2026-07-28): no session, the envelope in `_meta`, the
// method and name mirrored in headers.
const MODERN = "2026-07-28";
const MODERN_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: {
    name: "echo",
    arguments: { text: "hello" },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    },
  },
});
const LIST = JSON.stringify({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/list",
  params: {},
});
const MODERN_LIST = JSON.stringify({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/list",
  params: { _meta: JSON.parse(MODERN_CALL).params._meta },
});
const MODERN_HEADERS = {
  ...HEADERS,
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
});

interface Running {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function start(side: string, mode: string): Promise<Running> {
  const args = side === "v2"
    ? ["run", "-A", "--quiet", "--config", INTEROP_CONFIG, V2_SERVER]
    : ["run", "-A", "--quiet", "--unstable-kv", SERVER, side, mode];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${side} ${mode} server exited`);
    text += value;
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${text.trim()}/mcp`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** The CPU time the process has used (user + system), ms. */
function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The fields after the command name (which may hold spaces).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // 100 ticks a second
}

/** The process's peak resident set (VmHWM), MiB. */
function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function openSession(url: string): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: INIT,
  });
  const sid = res.headers.get("mcp-session-id");
  await res.text();
  if (res.status !== 200 || sid === null) {
    throw new Error(`initialize answered ${res.status}`);
  }
  const headers = {
    ...HEADERS,
    "mcp-session-id": sid,
    "mcp-protocol-version": PROTOCOL,
  };
  const done = await fetch(url, {
    method: "POST",
    headers,
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  await done.text();
  return headers;
}

interface Round {
  rps: number;
  /** The server's CPU time per answered request, µs. */
  cpu: number;
  p50: number;
  p99: number;
  rss: number;
  errors: number;
}

/** What a mode sends: the body, whether it is modern, and the text its answer holds. */
function workload(
  mode: string,
): { body: string; modern: boolean; expect: string } {
  switch (mode) {
    case "modern":
      return { body: MODERN_CALL, modern: true, expect: '"heard: hello"' };
    case "modern-list":
      return { body: MODERN_LIST, modern: true, expect: '"tool_9"' };
    case "v2-list":
      return { body: LIST, modern: false, expect: '"tool_9"' };
    default:
      return { body: CALL, modern: false, expect: '"heard: hello"' };
  }
}

/**
 * The server mode a row's contenders run in: the era rows run weft with
 * its default options (a server per request, no pooling), as the SDK v2's
 * `createMcpHandler` makes an instance per request.
 */
function servedMode(mode: string): string {
  return mode.startsWith("modern") || mode.startsWith("v2") ? "fresh" : mode;
}

async function load(
  side: string,
  mode: string,
  clients: number,
  seconds: number,
): Promise<Round> {
  // `modern` and `v2` rows: weft's stateless endpoint against the SDK v2's
  // createMcpHandler, in the modern era and in the legacy one.
  const { body, modern, expect } = workload(mode);
  const served = servedMode(mode);
  const server = await start(side, served);
  const headersOf: Record<string, string> | undefined = !modern
    ? undefined
    : mode === "modern-list"
    ? { ...HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }
    : MODERN_HEADERS;
  try {
    const headers = headersOf !== undefined
      ? Array.from({ length: clients }, () => ({ ...headersOf }))
      : served === "stateless" || served === "fresh"
      ? await Promise.all(
        Array.from({ length: clients }, () => ({
          ...HEADERS,
          "mcp-protocol-version": PROTOCOL,
        })),
      )
      : await Promise.all(
        Array.from({ length: clients }, () => openSession(server.url)),
      );
    // Warm-up: one call per client.
    await Promise.all(headers.map((h) => call(server.url, h, body, expect)));
    const latencies: number[] = [];
    let errors = 0;
    const cpuBefore = cpuMs(server.pid);
    const until = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(headers.map(async (h) => {
      while (performance.now() < until) {
        const t = performance.now();
        if (await call(server.url, h, body, expect)) {
          latencies.push(performance.now() - t);
        } else errors++;
      }
    }));
    const elapsed = (performance.now() - started) / 1000;
    const cpu = (cpuMs(server.pid) - cpuBefore) * 1000 / latencies.length;
    latencies.sort((a, b) => a - b);
    return {
      rps: latencies.length / elapsed,
      cpu,
      p50: pick(latencies, 0.5),
      p99: pick(latencies, 0.99),
      rss: peakRss(server.pid),
      errors,
    };
  } finally {
    await server.stop();
  }
}

async function call(
  url: string,
  headers: Record<string, string>,
  body: string,
  expect: string,
) {
  try {
    const res = await fetch(url, { method: "POST", headers, body });
    const text = await res.text();
    return res.status === 200 && text.includes(expect);
  } catch {
    return false;
  }
}

function pick(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summarize(rounds: Round[]): Round {
  return {
    rps: median(rounds.map((r) => r.rps)),
    cpu: median(rounds.map((r) => r.cpu)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rss: median(rounds.map((r) => r.rss)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(8);

async function serverTable(f: Flags): Promise<void> {
  console.log(
    `server: ${f.rounds} rounds of ${f.seconds} s per contender, order rotating; medians`,
  );
  console.log(
    "weft/floor and weft/SDK: CPU µs per request (below 1: weft spends less) and req/s",
  );
  console.log(
    "mode         clients  side     req/s   p50 ms   p99 ms  RSS MiB  errors  CPU µs/req   CPU/floor  CPU/SDK  req/s/SDK",
  );
  for (const mode of f.modes) {
    for (const clients of f.clients) {
      // The SDK's transport has no shared store: KV rows compare with its sessions.
      // `fresh` is weft's default stateless mode, a server per request: the
      // SDK's stateless pattern is its baseline too.
      const sdkMode = mode === "kv"
        ? "sessions"
        : mode === "fresh"
        ? "stateless"
        : mode;
      // The era rows' baseline is the SDK v2's createMcpHandler.
      const era = mode.startsWith("modern") || mode.startsWith("v2");
      const sdkSide = era ? "v2" : "sdk";
      // Stateless rows have the floor beside them.
      const served = servedMode(mode);
      const sides = served === "stateless" || served === "fresh"
        ? ["weft", "sdk", "floor"]
        : ["weft", "sdk"];
      const rounds: Record<string, Round[]> = { weft: [], sdk: [], floor: [] };
      for (let r = 0; r < f.rounds; r++) {
        // Each round starts with another contender.
        const order = sides.map((_, i) => sides[(i + r) % sides.length]);
        for (const side of order) {
          const result = side === "weft"
            ? await load("weft", mode, clients, f.seconds)
            : side === "floor"
            ? await load("floor", era ? mode : "stateless", clients, f.seconds)
            : await load(sdkSide, era ? mode : sdkMode, clients, f.seconds);
          rounds[side].push(result);
        }
      }
      const w = summarize(rounds.weft);
      const s = summarize(rounds.sdk);
      const fl = rounds.floor.length > 0 ? summarize(rounds.floor) : undefined;
      const rows: [string, Round][] = [["weft", w], ["sdk", s]];
      if (fl !== undefined) rows.push(["floor", fl]);
      for (const [side, m] of rows) {
        console.log(
          `${mode.padEnd(12)} ${fmt(clients)}  ${side.padEnd(5)}${fmt(m.rps)} ${
            fmt(m.p50, 1)
          } ${fmt(m.p99, 1)} ${fmt(m.rss)} ${fmt(m.errors)} ${fmt(m.cpu)}    ` +
            (side === "weft"
              ? `${
                fl === undefined ? "       -" : fmt(w.cpu / fl.cpu, 2) + "x"
              } ${fmt(w.cpu / s.cpu, 2)}x ${fmt(w.rps / s.rps, 2)}x`
              : ""),
        );
      }
    }
  }
}

async function callTable(f: Flags): Promise<void> {
  console.log(
    `\ncalls: the SDK's Client, weft (exportTools + httpHandler) vs a plain SDK McpServer on the SDK's transport, ${f.calls} pairs; medians`,
  );
  const args = { name: "echo", arguments: { text: "hello" } };
  for (const mode of ["stateless", "sessions"]) {
    const weftServer = await start("weft", mode);
    const plainServer = await start("plain", mode);
    try {
      const connect = async (url: string) => {
        const client = new Client({ name: "bench", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        return client;
      };
      const weft = await connect(weftServer.url);
      const sdk = await connect(plainServer.url);
      const batch = (client: Client) => () =>
        Promise.all(Array.from({ length: 16 }, () => client.callTool(args)));
      const [one, sixteen] = await interleavedMedians([
        {
          label: "sequential",
          sdk: () => sdk.callTool(args),
          weft: () => weft.callTool(args),
          n: f.calls,
        },
        {
          label: "16 in flight",
          sdk: batch(sdk),
          weft: batch(weft),
          n: Math.max(10, Math.round(f.calls / 4)),
        },
      ]);
      for (const [r, per] of [[one, 1], [sixteen, 16]] as const) {
        console.log(
          `${mode.padEnd(10)} ${r.label.padEnd(13)} SDK ${
            (r.sdk / per).toFixed(3)
          } ms/call  weft ${(r.weft / per).toFixed(3)} ms/call  weft/SDK time ${
            (r.weft / r.sdk).toFixed(2)
          }x`,
        );
      }
      await weft.close();
      await sdk.close();
    } finally {
      await weftServer.stop();
      await plainServer.stop();
    }
  }
}

async function clientTable(f: Flags): Promise<void> {
  // An SDK v1 server (McpServer on the SDK's transport): only the clients differ.
  const server = await start("plain", "stateless");
  try {
    const weft = await connectHttp(server.url);
    const sdk = new Client({ name: "bench", version: "1" });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const args = { name: "echo", arguments: { text: "hello" } };
    const results = await interleavedMedians([
      {
        label: "tools/list",
        sdk: () => sdk.listTools(),
        weft: () => weft.listTools(),
        n: f.calls,
      },
      {
        label: "tools/call",
        sdk: () => sdk.callTool(args),
        weft: () => weft.callTool(args),
        n: f.calls,
      },
    ]);
    console.log(
      `\nclient: connectHttp vs the SDK v1 Client on its StreamableHTTPClientTransport, against an SDK v1 server (McpServer, stateless), ${f.calls} sequential pairs; medians`,
    );
    for (const r of results) {
      console.log(
        `${r.label.padEnd(12)} SDK ${r.sdk.toFixed(3)} ms  weft ${
          r.weft.toFixed(3)
        } ms  weft/SDK speed ${(r.sdk / r.weft).toFixed(2)}x`,
      );
    }
    await weft.close();
    await sdk.close();
  } finally {
    await server.stop();
  }
}

const f = flags(Deno.args);
if (!f.skipServer) await serverTable(f);
if (!f.skipCalls) await callTable(f);
if (!f.skipClient) await clientTable(f);
