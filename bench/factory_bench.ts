/**
 * The server factory `httpHandler` calls per request with its default
 * options, in a loop, in process: `new Server({ name, version })` from
 * `@weft/mcp` and `exportTools` of ten tools built once (the factory of
 * `bench/_http_bench_server.ts`). Three rows: `new Server` alone, the
 * whole factory, and the factory's server answering a `tools/list`
 * through the fast path's lookup (what a stateless request reads from
 * it), and the factory with each server kept until 100 more are made
 * (as a server lives while 100 requests are in flight). Each round times `--n` calls of a row on one side, back to back,
 * then a full garbage collection (so each round pays for its own garbage,
 * not the next round's side; the CPU of a collection with no garbage of
 * the round, measured the same way, is taken off), as the CPU time of the
 * process (`process.cpuUsage()`: user + system, every thread, so the
 * collector's helper threads count and other processes' load does not);
 * the sides alternate,
 * the order rotating from round to round; medians of `--rounds`.
 *
 *     deno run -A --v8-flags=--expose-gc bench/factory_bench.ts
 *     deno run -A --v8-flags=--expose-gc bench/factory_bench.ts --base=/tmp/before --n=20000 --rounds=9
 *
 * `--base=<dir>` adds a side `base`: the same rows from another checkout
 * of this repository (e.g. `git archive main | tar -x -C <dir>` then copy
 * `node_modules` there), for a before/after in one run.
 *
 * The machine is shared: compare the sides within one run.
 *
 * @module
 */

import { z } from "zod";
import process from "node:process";
import { median } from "./_medians.ts";

function flag(name: string, fallback: string): string {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : arg.slice(name.length + 3);
}

const N = Number(flag("n", "10000"));
const ROUNDS = Number(flag("rounds", "7"));
const BASE = flag("base", "");

interface Side {
  readonly name: string;
  /** `new Server(...)` alone. */
  server(): unknown;
  /** The whole factory. */
  factory(): unknown;
  /** The factory, then the `tools/list` the fast path answers from it. */
  listed(): unknown;
  /** The factory, each server kept until 100 more are made (requests in flight). */
  inflight(): unknown;
}

type ServedToolsOf = (server: object) => { list(): unknown } | undefined;

async function side(name: string, root: string): Promise<Side> {
  const sdk = await import(`${root}/src/runtime/sdk.ts`);
  // The bridge's folder was `src/mcp` before it was named `src/bridge`.
  const exported = await import(`${root}/src/bridge/export.ts`).catch(() =>
    import(`${root}/src/mcp/export.ts`)
  );
  const core = await import(`${root}/src/core/tool.ts`);
  const served = await import(`${root}/src/core/served_tools.ts`);
  const Server = sdk.Server as new (
    info: { name: string; version: string },
  ) => object;
  const exportTools = exported.exportTools as (
    server: object,
    ...tools: unknown[]
  ) => void;
  const servedToolsOf = served.servedToolsOf as ServedToolsOf;
  const input = z.object({ text: z.string() });
  const tools = Array.from({ length: 10 }, (_, i) =>
    core.tool({
      name: i === 0 ? "echo" : `tool_${i}`,
      description: `Echo the text (${i}).`,
      input,
      run: ({ text }: { text: string }) => "heard: " + text,
    }));
  const factory = (): object => {
    const server = new Server({ name: "bench", version: "1" });
    exportTools(server, ...tools);
    return server;
  };
  let _kept: object | undefined;
  const alive: object[] = new Array(100);
  let next = 0;
  return {
    name,
    // Kept past the call, as a request keeps its server: the compiler
    // cannot drop the allocations of a server that escapes.
    server: () => _kept = new Server({ name: "bench", version: "1" }),
    factory,
    listed: () => servedToolsOf(factory())?.list(),
    inflight: () => {
      alive[next] = factory();
      next = (next + 1) % alive.length;
      return alive[next] ?? alive[0];
    },
  };
}

const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const sides: Side[] = [];
if (BASE !== "") sides.push(await side("base", BASE.replace(/\/$/, "")));
sides.push(await side("weft", here));

const rows = ["server", "factory", "listed", "inflight"] as const;
type Row = typeof rows[number];

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  throw new Error("run with --v8-flags=--expose-gc (see the header)");
}

/** CPU time of this process (all its threads, the collector's too), µs. */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** µs of CPU of a full collection of a heap with no new garbage. */
function idleCollection(): number {
  gc!();
  const started = cpu();
  gc!();
  return cpu() - started;
}

/** CPU µs per call of `N` calls of `row` on `s`, and their garbage's collection. */
function round(s: Side, row: Row): number {
  const op = s[row];
  let sink: unknown;
  const idle = idleCollection();
  const started = cpu();
  for (let i = 0; i < N; i++) sink = op();
  gc!();
  const spent = cpu() - started - idle;
  if (sink === undefined) throw new Error(`${s.name} ${row}: no result`);
  return spent / N;
}

// Warm-up: every row on every side.
for (const s of sides) for (const row of rows) round(s, row);

const times = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const row of rows) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      const key = `${s.name} ${row}`;
      times.set(key, [...times.get(key) ?? [], round(s, row)]);
    }
  }
}

console.log(
  `factory_bench: ${N} calls a round, ${ROUNDS} rounds, medians (CPU µs per call)`,
);
const header = ["row", ...sides.map((s) => s.name)];
if (BASE !== "") header.push("weft/base");
console.log(header.join("\t"));
for (const row of rows) {
  const cells = sides.map((s) => median(times.get(`${s.name} ${row}`)!));
  const line = [row, ...cells.map((c) => c.toFixed(2))];
  if (BASE !== "") line.push((cells[1] / cells[0]).toFixed(2));
  console.log(line.join("\t"));
}
