// exploration: CPU per call of parent and child, weft and echo
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
const CHILD = new URL("./_stdio_bench_child.ts", import.meta.url).pathname;
const base = Deno.args.find((a) => a.startsWith("--base="))?.slice(7);
function cpu(pid: number | "self"): number {
  const s = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // ms
}
function kids(): number[] {
  const out: number[] = [];
  for (const t of Deno.readDirSync("/proc/self/task")) {
    const c = Deno.readTextFileSync(`/proc/self/task/${t.name}/children`).trim();
    if (c) out.push(...c.split(" ").map(Number));
  }
  return out;
}
const CALLS = 20000;
for (const side of (Deno.args.find((a) => a.startsWith("--sides="))?.slice(8) ?? "weft").split(",")) {
  for (let round = 0; round < 3; round++) {
    const before = new Set(kids());
    if (side === "echo") { await echo(); continue; }
    const mod = side === "base" ? await import(`${base}/src/runtime/process/connect_stdio.ts`) : { connectStdio };
    const client = await mod.connectStdio(Deno.execPath(), { args: ["run", "-A", "--quiet", side === "base" ? `${base}/bench/_stdio_bench_child.ts` : CHILD, "weft"] });
    const pid = kids().find((k) => !before.has(k))!;
    const call = () => client.callTool({ name: "echo", arguments: { text: "hello" } });
    for (let i = 0; i < 500; i++) await call();
    const c0 = cpu(pid), p0 = cpu("self"), t0 = performance.now();
    let left = CALLS;
    await Promise.all(Array.from({ length: 64 }, async () => { while (left-- > 0) await call(); }));
    const wall = performance.now() - t0, c1 = cpu(pid), p1 = cpu("self");
    console.log(`${side} ${(CALLS / wall * 1000).toFixed(0)} calls/s  wall/call ${(wall * 1000 / CALLS).toFixed(1)}us  parent cpu/call ${((p1 - p0) * 1000 / CALLS).toFixed(1)}us  child cpu/call ${((c1 - c0) * 1000 / CALLS).toFixed(1)}us`);
    await client.close();
  }
}

async function echo() {
  const before = new Set(kids());
  const child = new Deno.Command(Deno.execPath(), { args: ["run", "-A", "--quiet", CHILD, "echo"], stdin: "piped", stdout: "piped" }).spawn();
  const pid = kids().find((k) => !before.has(k))!;
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const waiting = new Map<number, (value: unknown) => void>();
  let next = 0;
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of child.stdout) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) { const m = JSON.parse(line); waiting.get(m.id)?.(m.result); waiting.delete(m.id); }
    }
  })();
  const call = () => { const id = ++next; const p = new Promise((r) => waiting.set(id, r)); void writer.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } }) + "\n")); return p; };
  for (let i = 0; i < 500; i++) await call();
  const c0 = cpu(pid), p0 = cpu("self"), t0 = performance.now();
  let left = CALLS;
  await Promise.all(Array.from({ length: 64 }, async () => { while (left-- > 0) await call(); }));
  const wall = performance.now() - t0, c1 = cpu(pid), p1 = cpu("self");
  console.log(`echo ${(CALLS / wall * 1000).toFixed(0)} calls/s  wall/call ${(wall * 1000 / CALLS).toFixed(1)}us  parent cpu/call ${((p1 - p0) * 1000 / CALLS).toFixed(1)}us  child cpu/call ${((c1 - c0) * 1000 / CALLS).toFixed(1)}us`);
  await writer.close(); await child.status;
}
