/**
 * Past one machine, measured: three instances of one server (real
 * processes, `tests/fixtures/scaleout_instance.ts`) on one store — Redis,
 * Postgres, Deno KV (one SQLite file the three processes open) — side by
 * side in one run, with one instance on a memory store of its own as the
 * floor (no sharing: what one process does).
 *
 * - **requests per second**: `--clients` keep-alive clients, each with a
 *   legacy session of its own, send `tools/call` (a trivial tool) for
 *   `--seconds`, each request to the next instance in turn (round robin,
 *   the client doing the balancing, so no proxy process takes CPU from the
 *   instances): every request finds its session in the store. Reported in
 *   total and per instance.
 * - **listen notification latency**: a `subscriptions/listen` stream open
 *   on instance C; `--changes` tool-list changes made on instance A
 *   (`POST /changed`, answered once A published), one at a time; the time
 *   from sending the change to C's stream carrying it, median and p99.
 *   Deno KV's `watch` does not fire across processes: there the bus polls
 *   (`pollInterval`, default 100 ms).
 *
 *     deno run -A bench/scaleout_bench.ts [--seconds=3] [--clients=24] [--changes=60]
 *
 * @module
 */

import { type RigStore, startRig } from "../tests/_helpers/scaleout_rig.ts";
import {
  type RunningServer,
  startPostgres,
  startRedis,
} from "../tests/_helpers/store_servers.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";

const arg = (name: string, fallback: number) =>
  Number(
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ??
      fallback,
  );
const SECONDS = arg("seconds", 3);
const CLIENTS = arg("clients", 24);
const CHANGES = arg("changes", 60);
const LEGACY = "2025-11-25";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function session(url: string): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "scaleout-bench", version: "1" },
      },
    }),
  });
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = {
    ...HEADERS,
    "mcp-session-id": sid,
    "mcp-protocol-version": LEGACY,
  };
  await (await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }),
  })).text();
  return headers;
}

/** Requests per second over `urls` (round robin per client), and per URL. */
async function load(
  urls: readonly string[],
): Promise<{ total: number; perInstance: number[]; errors: number }> {
  const counts = urls.map(() => 0);
  let errors = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const headers = await session(urls[c % urls.length]);
      let k = c;
      for (let id = 1; Date.now() < end; id++) {
        const i = k++ % urls.length;
        const res = await fetch(urls[i], {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "echo", arguments: { id } },
          }),
        });
        await res.text();
        if (res.status === 200) counts[i]++;
        else errors++;
      }
    }),
  );
  const total = counts.reduce((a, b) => a + b, 0) / SECONDS;
  return { total, perInstance: counts.map((n) => n / SECONDS), errors };
}

/** Listen latency: change on `changed()`, heard on the stream at `listenUrl`. */
async function latency(
  listenUrl: string,
  changed: () => Promise<void>,
): Promise<{ median: number; p99: number }> {
  const close = new AbortController();
  const res = await fetch(listenUrl, {
    method: "POST",
    headers: {
      ...HEADERS,
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "bench",
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "scaleout-bench", version: "1" },
        },
      },
    }),
    signal: close.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let heard = 0;
  let wake: (() => void) | undefined;
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({
        value: undefined,
        done: true,
      }));
      if (done) return;
      buffer += value;
      const parts = buffer.split("\n\n");
      buffer = parts.pop()!;
      for (const part of parts) {
        if (part.includes("notifications/tools/list_changed")) {
          heard++;
          wake?.();
        }
      }
    }
  })();
  const until = async (count: number, ms: number) => {
    const end = Date.now() + ms;
    while (heard < count && Date.now() < end) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 10);
      });
    }
    return heard >= count;
  };
  // Warm-up: the stream's bus subscription comes into force just after
  // its acknowledgement; changes until one is heard.
  while (!(await until(1, 0))) {
    await changed();
    await until(1, 250);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const times: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const target = heard + 1;
    const started = performance.now();
    await changed();
    if (!(await until(target, 5_000))) throw new Error("a change was lost");
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  close.abort();
  await reader.cancel().catch(() => {});
  times.sort((a, b) => a - b);
  return {
    median: times[times.length >> 1],
    p99: times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)],
  };
}

interface Row {
  readonly store: string;
  readonly total: number;
  readonly perInstance: number[];
  readonly errors: number;
  readonly median?: number;
  readonly p99?: number;
}

async function measure(
  store: RigStore,
  target: string,
  label: string,
): Promise<Row> {
  await using rig = await startRig(store, target);
  const urls = store === "memory"
    ? [rig.instances[0].url]
    : rig.instances.map((instance) => instance.url);
  await load(urls.slice(0, 1)); // warm-up
  const { total, perInstance, errors } = await load(urls);
  if (store === "memory") return { store: label, total, perInstance, errors };
  const { median, p99 } = await latency(
    rig.instances[2].url,
    () => rig.changed(0),
  );
  return { store: label, total, perInstance, errors, median, p99 };
}

const rows: Row[] = [];
const servers: RunningServer[] = [];
const dir = await Deno.makeTempDir({ prefix: "weft-scaleout-bench-" });
try {
  rows.push(await measure("memory", "", "memory, 1 instance (floor)"));
  const redis = await startRedis();
  servers.push(redis);
  rows.push(await measure("redis", redis.url, "Redis, 3 instances"));
  const postgres = await startPostgres();
  servers.push(postgres);
  rows.push(await measure("postgres", postgres.url, "Postgres, 3 instances"));
  rows.push(
    await measure("kv", `${dir}/sessions.kv`, "Deno KV file, 3 instances"),
  );
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

const floor = rows[0].total;
console.log(
  `scale-out: ${CLIENTS} clients, ${SECONDS} s of tools/call, ${CHANGES} list changes\n`,
);
console.log(
  "| store | req/s (all) | req/s per instance | ÷ floor | errors | listen latency median | p99 |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) {
  const ms = (v: number | undefined) =>
    v === undefined ? "–" : `${v.toFixed(1)} ms`;
  console.log(
    `| ${row.store} | ${row.total.toFixed(0)} | ${
      row.perInstance.map((n) => n.toFixed(0)).join(" / ")
    } | ${(row.total / floor).toFixed(2)} | ${row.errors} | ${
      ms(row.median)
    } | ${ms(row.p99)} |`,
  );
}
