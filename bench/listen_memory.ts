/**
 * The memory `subscriptions/listen` streams (2026-07-28) hold on the server,
 * and whether it comes back when they close: a server process
 * (`bench/_listen_memory_server.ts`, `maxListens` = N) on 127.0.0.1; this
 * process opens N listen streams (each read to its acknowledgement), checks
 * that one more is refused (503), closes them all from the client side, and
 * reads the server's RSS and V8 heap after a full GC at each stage: before,
 * with N open (and per stream), after all closed (and what stayed, per
 * stream), then the same again (a second round: RSS that the first round's
 * streams left is reused, not added to). Rows for the default (a server per
 * request), `reuseServers: true`, and `bare` — the floor: a plain
 * `Deno.serve` handler holding an SSE stream of one event per request, no
 * MCP.
 *
 *     deno run -A bench/listen_memory.ts [--n=2000]
 *
 * @module
 */

import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";

const n = Number(
  Deno.args.find((a) => a.startsWith("--n="))?.slice(4) ?? 2000,
);

interface Memory {
  rss: number;
  heapUsed: number;
  listens: number;
  gc: boolean;
}

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "subscriptions/listen",
  params: {
    notifications: { toolsListChanged: true },
    _meta: {
      [META.protocolVersion]: MODERN,
      [META.clientCapabilities]: {},
      [META.clientInfo]: { name: "listen-bench", version: "1" },
    },
  },
});

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": MODERN,
  "mcp-method": "subscriptions/listen",
};

async function memory(base: string): Promise<Memory> {
  return await (await fetch(`${base}/__memory`)).json();
}

/** Opens one stream, read to its acknowledgement; resolves to its closer. */
async function open(url: string): Promise<() => Promise<void>> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: BODY,
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`listen answered ${res.status}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("acknowledged")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before its acknowledgement");
    text += value;
  }
  return async () => {
    abort.abort();
    await reader.cancel().catch(() => {});
  };
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(1).padStart(7);
const kib = (bytes: number) => (bytes / 1024).toFixed(1).padStart(7);

type Mode = "fresh" | "reuse" | "bare";

async function round(
  mode: Mode,
  base: string,
  url: string,
  pass: number,
): Promise<void> {
  const before = await memory(base);
  if (!before.gc) throw new Error("the server runs without --expose-gc");
  const closers: (() => Promise<void>)[] = [];
  // Opened 100 at a time.
  for (let i = 0; i < n; i += 100) {
    closers.push(
      ...await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, () => open(url)),
      ),
    );
  }
  const held = await memory(base);
  const extra = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: BODY,
  });
  const refused = mode === "bare" ? "-" : String(extra.status);
  await extra.body?.cancel();
  await Promise.all(closers.map((close) => close()));
  let after = await memory(base);
  for (let i = 0; i < 100 && after.listens > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = await memory(base);
  }
  // Once more, after the servers' delayed closes ran.
  await new Promise((resolve) => setTimeout(resolve, 200));
  after = await memory(base);
  console.log(
    `${`${mode} ${pass}`.padEnd(8)} ${String(n).padStart(5)} ${
      mib(before.rss)
    } ${mib(before.heapUsed)} ${mib(held.rss)} ${mib(held.heapUsed)} ${
      kib((held.rss - before.rss) / n)
    } ${kib((held.heapUsed - before.heapUsed) / n)} ${refused.padStart(6)} ${
      mib(after.rss)
    } ${mib(after.heapUsed)} ${kib((after.heapUsed - before.heapUsed) / n)} ${
      String(after.listens).padStart(7)
    }`,
  );
}

async function measure(mode: Mode): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL("./_listen_memory_server.ts", import.meta.url).pathname,
      String(n),
      mode,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await lines.read();
  const port = Number(value!.trim());
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}/mcp`;
  try {
    await round(mode, base, url, 1);
    await round(mode, base, url, 2);
  } finally {
    child.kill();
    await child.status;
    await lines.cancel().catch(() => {});
  }
}

console.log(
  "                   before           open (N streams)    per stream      N+1  after closing all  kept/stream  open",
);
console.log(
  "mode         N  RSS MiB heap MiB  RSS MiB heap MiB  RSS KiB heap KiB status  RSS MiB heap MiB  heap KiB  after",
);
for (const mode of ["fresh", "reuse", "bare"] as const) await measure(mode);
