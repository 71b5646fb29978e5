/**
 * A stateless `httpHandler` answering `tools/call` in process (no
 * sockets), one request after another, for a CPU profile of the success
 * path: the ten tools of `bench/_http_bench_server.ts`, a server per
 * request (the default options), 2026-07-28 requests or, with `legacy`,
 * 2025-11-25 ones (`-list`: `tools/list` instead). Prints the time per request (noisy: for profiles, not
 * figures).
 *
 *     deno run -A --cpu-prof --cpu-prof-dir=prof bench/_prof_handler.ts [modern|legacy|modern-list|legacy-list] [requests] [weft|floor|both] [rounds]
 *
 * The third argument picks the handler: `weft` (default), `floor` (the
 * minimal correct server of `bench/_floor_handler.ts`, in process), or
 * `both`: `rounds` rounds (default 3) of each, alternating which goes
 * first, printing each one's median CPU per request and weft/floor.
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { z } from "zod";
import { Server } from "../src/runtime/sdk.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { floorHandler } from "./_floor_handler.ts";
import { median } from "./_medians.ts";
import { statelessCall } from "./_stateless_call.ts";

const input = z.object({ text: z.string() });
const tools = Array.from({ length: 10 }, (_, i) =>
  tool({
    name: i === 0 ? "echo" : `tool_${i}`,
    description: `Echo the text (${i}).`,
    input,
    run: ({ text }) => "heard: " + text,
  }));
const handler = httpHandler(() => {
  const server = new Server({ name: "bench", version: "1" });
  exportTools(server, ...tools);
  return server;
});
const mode = Deno.args[0] ?? "modern";
const { body, headers, expected } = statelessCall(mode, {
  id: 7,
  legacyVersionHeader: false,
});
headers.host = "localhost";
const n = Number(Deno.args[1] ?? 20000);
const side = Deno.args[2] ?? "weft";
const floor = floorHandler();

/** Runs `n` requests on `serve`: wall and CPU µs per request. */
async function run(
  serve: (req: Request) => Promise<Response>,
): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await serve(
      new Request("http://localhost/mcp", { method: "POST", headers, body }),
    );
    if (!(await res.text()).includes(expected)) throw new Error("no answer");
  }
  const used = cpuUsage(cpu);
  return {
    wall: (performance.now() - started) * 1000 / n,
    cpu: (used.user + used.system) / n,
  };
}

if (side === "both") {
  const rounds = Number(Deno.args[3] ?? 3);
  const cpu: Record<string, number[]> = { weft: [], floor: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ["weft", "floor"] : ["floor", "weft"];
    for (const s of order) {
      cpu[s].push((await run(s === "weft" ? handler : floor)).cpu);
    }
  }
  const w = median(cpu.weft);
  const f = median(cpu.floor);
  console.log(
    `${mode}: weft ${w.toFixed(1)} µs CPU, floor ${
      f.toFixed(1)
    } µs CPU, weft/floor ${
      (w / f).toFixed(2)
    }x (medians of ${rounds} rounds of ${n}, the requests built here included)`,
  );
} else {
  const { wall, cpu } = await run(side === "floor" ? floor : handler);
  console.log(
    `${wall.toFixed(1)} µs a request, ${
      cpu.toFixed(1)
    } µs CPU (the process's, with the requests built here)`,
  );
}
