/**
 * The cost of the cross-server shadowing check at 5,000 tools, before and
 * after it was made near-linear: the 458-tool, 25-server corpus plus one
 * server listing 5,000 tools, checked as `connectServers` does on every
 * list change (grouping the merged list by server, then `findShadowing`).
 * "before" is the check as it was (bench/_shadow_before.ts, and the
 * grouping that copied each server's list per tool); "after" is
 * src/servers/_shadow.ts, given new definitions (the same texts) for the
 * big server every round, as a server listing again gives them; the
 * listings are built before the timing. Rounds alternate which side goes
 * first; the medians are printed. Then the new check's worst case: every
 * description of the big server new.
 *
 *   deno run -A bench/shadow_bench.ts [rounds=7] [tools=5000]
 *
 * @module
 */

import { rawTool, type ToolDef } from "../core.ts";
import { findShadowing } from "../src/servers/_shadow.ts";
import { findShadowing as findShadowingBefore } from "./_shadow_before.ts";
import { toolCorpus } from "./_tool_corpus.ts";
import { interleavedMedians, median } from "./_medians.ts";

const rounds = Number(Deno.args[0] ?? 7);
const size = Number(Deno.args[1] ?? 5000);

interface Server {
  server: string;
  prefix: string;
  tools: ToolDef[];
}

const corpus: Server[] = toolCorpus().map((s) => ({
  server: s.name,
  prefix: `${s.name}_`,
  tools: s.tools.map((t) =>
    rawTool({
      name: `${s.name}_${t.name}`,
      description: t.description,
      run: () => "",
    })
  ),
}));
const texts = corpus.flatMap((s) => s.tools.map((t) => t.description));

// The big server as one listing makes it: new definitions every time;
// with `edition`, every description is new too (the worst case).
function bigServer(edition?: number): Server {
  const tools: ToolDef[] = [];
  for (let i = 0; i < size; i++) {
    const text = texts[i % texts.length];
    tools.push(rawTool({
      name: `big_record_${i}_action`,
      description: edition === undefined ? text : `${text} (v${edition})`,
      run: () => "",
    }));
  }
  return { server: "big", prefix: "big_", tools };
}

// As connectServers did: each tool appended by copying its server's list.
function groupBefore(servers: Server[]): Server[] {
  const owner = new Map<ToolDef, Server>();
  const merged: ToolDef[] = [];
  for (const s of servers) {
    for (const t of s.tools) {
      owner.set(t, s);
      merged.push(t);
    }
  }
  const byServer = new Map<Server, ToolDef[]>();
  for (const tool of merged) {
    const s = owner.get(tool)!;
    byServer.set(s, [...(byServer.get(s) ?? []), tool]);
  }
  return servers.map((s) => ({ ...s, tools: byServer.get(s) ?? [] }));
}

function groupAfter(servers: Server[]): Server[] {
  const owner = new Map<ToolDef, Server>();
  const merged: ToolDef[] = [];
  for (const s of servers) {
    for (const t of s.tools) {
      owner.set(t, s);
      merged.push(t);
    }
  }
  const byServer = new Map<Server, ToolDef[]>();
  for (const tool of merged) {
    const s = owner.get(tool)!;
    const list = byServer.get(s);
    if (list === undefined) byServer.set(s, [tool]);
    else list.push(tool);
  }
  return servers.map((s) => ({ ...s, tools: byServer.get(s) ?? [] }));
}

// Listings made ahead: the timed sides check them, they do not build them.
const pool = Array.from(
  { length: 2 * (rounds + Math.ceil(rounds / 10)) },
  () => bigServer(),
);
const listed = (): Server => pool.pop()!;

let findingsBefore = 0;
let findingsAfter = 0;
const [result] = await interleavedMedians([{
  label: `shadowing check, ${corpus.length + 1} servers, ${
    texts.length + size
  } tools (one server of ${size}) listing again`,
  n: rounds,
  sdk: () => {
    findingsBefore =
      findShadowingBefore(groupBefore([...corpus, listed()])).length;
    return Promise.resolve();
  },
  weft: () => {
    findingsAfter = findShadowing(groupAfter([...corpus, listed()])).length;
    return Promise.resolve();
  },
}]);
console.log(result.label);
console.log(
  `before: ${result.sdk.toFixed(1)} ms (${findingsBefore} findings)`,
);
console.log(
  `after:  ${result.weft.toFixed(1)} ms (${findingsAfter} findings)`,
);
console.log(`ratio:  ${(result.sdk / result.weft).toFixed(1)}×`);

// The worst case for the new check: every description of the big server
// changed (nothing derived before applies). Its own median.
const fresh: number[] = [];
for (let round = 0; round < rounds; round++) {
  const big = bigServer(round);
  const started = performance.now();
  findShadowing(groupAfter([...corpus, big]));
  fresh.push(performance.now() - started);
}
console.log(
  `after, every description of the ${size} new: ${median(fresh).toFixed(1)} ms`,
);
