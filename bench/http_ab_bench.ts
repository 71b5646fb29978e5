/**
 * Server CPU per stateless request over sockets, this tree against another
 * checkout of weft (`--base`), side by side in one run: each round starts
 * `bench/_http_bench_server.ts weft fresh` (the default options: a server
 * per request) from each tree in turn, the order alternating, loads it
 * with 10 keep-alive clients sending one request shape back to back, and
 * reads the server process's CPU time from /proc; prints each tree's
 * median µs per request and after/before.
 *
 *     git archive main | tar -x -C /tmp/before && cp -r node_modules /tmp/before/
 *     deno run -A bench/http_ab_bench.ts --base=/tmp/before [--mode=modern|modern-list|legacy|legacy-list] [--requests=8000] [--rounds=5]
 *
 * Linux only (/proc); 127.0.0.1 only.
 *
 * @module
 */

import { statelessCall } from "./_stateless_call.ts";

function flag(name: string, fallback: string): string {
  const given = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : given.slice(name.length + 3);
}

const base = flag("base", "");
if (base === "") throw new Error("--base=<another checkout of weft> is needed");
const mode = flag("mode", "modern");
const requests = Number(flag("requests", "8000"));
const rounds = Number(flag("rounds", "5"));
const trees: Record<string, string> = {
  before: base,
  after: new URL("..", import.meta.url).pathname,
};
const { body, headers, expected: expect } = statelessCall(mode, {
  id: 2,
  legacyVersionHeader: true,
});

/** The CPU time a process has used (user + system), ms. */
function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function load(url: string, n: number): Promise<void> {
  await Promise.all(Array.from({ length: 10 }, async () => {
    for (let i = 0; i < n / 10; i++) {
      const res = await fetch(url, { method: "POST", headers, body });
      if (!(await res.text()).includes(expect)) throw new Error("no answer");
    }
  }));
}

async function round(tree: string): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "bench/_http_bench_server.ts",
      "weft",
      "fresh",
    ],
    cwd: tree,
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${tree}: the server exited`);
    text += value;
  }
  reader.releaseLock();
  const url = `http://127.0.0.1:${text.trim()}/mcp`;
  try {
    await load(url, 1000); // warm-up
    const before = cpuMs(child.pid);
    await load(url, requests);
    return (cpuMs(child.pid) - before) * 1000 / requests;
  } finally {
    child.kill("SIGTERM");
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
}

const cpu: Record<string, number[]> = { before: [], after: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ["before", "after"] : ["after", "before"];
  for (const side of order) cpu[side].push(await round(trees[side]));
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
};
const b = median(cpu.before);
const a = median(cpu.after);
console.log(
  `${mode}: server CPU µs/request before ${b.toFixed(0)} (${
    cpu.before.map((x) => x.toFixed(0)).join(", ")
  }), after ${a.toFixed(0)} (${
    cpu.after.map((x) => x.toFixed(0)).join(", ")
  }), after/before ${
    (a / b).toFixed(2)
  } (${rounds} rounds of ${requests}, 10 clients)`,
);
