/**
 * Calls per second over stdio, a Deno parent and a Deno child: weft's
 * `connectStdio` client and `serveStdio` server, the SDK's `Client` on its
 * `StdioClientTransport` and an `McpServer` on its `StdioServerTransport`,
 * and the floor — a parent writing JSON-RPC request lines and a child
 * answering each (`bench/_stdio_bench_child.ts echo`), no MCP library at
 * all. `tools/call` of a one-line tool, with 1 call in flight and with 64
 * (`--inflight`), each contender in a child of its own started per round,
 * the order rotating from round to round; medians of `--rounds`.
 *
 *     deno run -A bench/stdio_bench.ts
 *     deno run -A bench/stdio_bench.ts --calls=20000 --rounds=5 --inflight=1,64
 *
 * `--prof=<dir>` has each child write a CPU profile to `<dir>` (run the
 * parent with `deno run -A --cpu-prof --cpu-prof-dir=<dir>` for its side).
 *
 * `--base=<dir>` adds a side `base`: weft's client and server from another
 * checkout of this repository (e.g. `git archive main | tar -x -C <dir>`
 * then `deno install --frozen` there), for a before/after in one run.
 *
 * The machine is shared: read the ratios to the floor, not the absolute
 * numbers.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
import { median } from "./_medians.ts";

const CHILD = new URL("./_stdio_bench_child.ts", import.meta.url).pathname;

function flag(name: string, fallback: string): string {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : arg.slice(name.length + 3);
}

const CALLS = Number(flag("calls", "10000"));
const ROUNDS = Number(flag("rounds", "3"));
const INFLIGHT = flag("inflight", "1,64").split(",").map(Number);
const BASE = flag("base", "");
const SIDES = flag(
  "sides",
  BASE === "" ? "echo,sdk,weft" : "echo,sdk,base,weft",
)
  .split(",");
const PROF = flag("prof", "");
/** `--prof=<dir>`: each child writes a CPU profile there (`--cpu-prof`). */
const CHILD_FLAGS = PROF === ""
  ? []
  : ["--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${PROF}`];
const PROF_ARG = PROF === "" ? [] : ["prof"];
const ARGS = ["run", "-A", "--quiet", ...CHILD_FLAGS, CHILD];
const CALL = { name: "echo", arguments: { text: "hello" } };

interface Contender {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

/** The floor's parent: request lines out, answer lines matched by id. */
function echoContender(): Contender {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...ARGS, "echo"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const waiting = new Map<number, (value: unknown) => void>();
  let next = 0;
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of child.stdout) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split(
        "\n",
      );
      rest = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line);
        waiting.get(m.id)?.(m.result);
        waiting.delete(m.id);
      }
    }
  })();
  return {
    call() {
      const id = ++next;
      const answered = new Promise((resolve) => waiting.set(id, resolve));
      void writer.write(encoder.encode(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: CALL,
        }) + "\n",
      ));
      return answered;
    },
    async close() {
      await writer.close();
      await child.status;
    },
  };
}

async function sdkContender(): Promise<Contender> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: [...ARGS, "sdk", ...PROF_ARG],
    }),
  );
  return { call: () => client.callTool(CALL), close: () => client.close() };
}

async function weftContender(): Promise<Contender> {
  const client = await connectStdio(Deno.execPath(), {
    args: [...ARGS, "weft", ...PROF_ARG],
    ...(PROF !== "" && { killGrace: 30_000 }),
  });
  return { call: () => client.callTool(CALL), close: () => client.close() };
}

/** weft from the checkout at `--base`: its `connectStdio` and its bench child. */
async function baseContender(): Promise<Contender> {
  const module = await import(`${BASE}/src/runtime/process/connect_stdio.ts`);
  const client = await (module.connectStdio as typeof connectStdio)(
    Deno.execPath(),
    {
      args: [
        "run",
        "-A",
        "--quiet",
        ...CHILD_FLAGS,
        `${BASE}/bench/_stdio_bench_child.ts`,
        "weft",
        ...PROF_ARG,
      ],
      cwd: BASE,
    },
  );
  return { call: () => client.callTool(CALL), close: () => client.close() };
}

async function start(side: string): Promise<Contender> {
  return side === "echo"
    ? echoContender()
    : side === "sdk"
    ? await sdkContender()
    : side === "base"
    ? await baseContender()
    : await weftContender();
}

/** Calls per second of `CALLS` calls, `inflight` at a time. */
async function measure(side: string, inflight: number): Promise<number> {
  const contender = await start(side);
  try {
    for (let i = 0; i < 200; i++) await contender.call(); // warm-up
    let left = CALLS;
    const started = performance.now();
    await Promise.all(Array.from({ length: inflight }, async () => {
      while (left > 0) {
        left--;
        await contender.call();
      }
    }));
    return CALLS / ((performance.now() - started) / 1000);
  } finally {
    await contender.close();
  }
}

console.log(
  `stdio: ${CALLS} tools/call per round, ${ROUNDS} rounds, order rotating; medians`,
);
console.log("in flight  side      calls/s   /echo");
for (const inflight of INFLIGHT) {
  const results: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < SIDES.length; i++) {
      const side = SIDES[(i + r) % SIDES.length];
      (results[side] ??= []).push(await measure(side, inflight));
    }
  }
  const floor = median(results.echo ?? [NaN]);
  for (const side of SIDES) {
    const m = median(results[side]);
    console.log(
      `${String(inflight).padStart(9)}  ${side.padEnd(6)} ${
        m.toFixed(0).padStart(10)
      }   ${(m / floor).toFixed(2)}x`,
    );
  }
}
