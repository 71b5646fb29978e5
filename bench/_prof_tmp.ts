import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { Session } from "node:inspector";
const root = Deno.args[0] ?? "/work/wt/otel2/";
const mode = Deno.args[1] ?? "call";
const m = await import(new URL("mod.ts", "file://" + root).href);
const t = await import(new URL("testing.ts", "file://" + root).href);
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(0), exportIntervalMillis: 3_600_000 })] }));
const server = new m.Server({ name: "bench", version: "1.0.0" });
m.exportTools(server, m.rawTool({ name: "lookup", description: "d", inputSchema: { type: "object" }, run: () => "found" }));
const [c, s] = m.InMemoryTransport.createLinkedPair();
await server.connect(s);
const client = new m.Client({ name: "bench", version: "1.0.0" });
await client.connect(c);
const { tools } = await m.importTools(client);
const op = mode === "call" ? () => tools[0].invoke("{}") : () => new m.Agent(t.script(t.callTools({ name: "lookup", args: {} }), t.say("done")), { name: "bench", tools }).generate("go");
for (let i = 0; i < 5000; i++) { await op(); if (i % 500 === 0) spans.reset(); }
const session = new Session(); session.connect();
const post = (method: string, params?: object) => new Promise<any>((res, rej) => session.post(method, params ?? {}, (e: any, r: any) => e ? rej(e) : res(r)));
await post("Profiler.enable"); await post("Profiler.setSamplingInterval", { interval: 50 }); await post("Profiler.start");
for (let i = 0; i < 20000; i++) { await op(); if (i % 500 === 0) spans.reset(); }
const { profile } = await post("Profiler.stop");
const self = new Map<string, number>();
const byId = new Map<number, any>(); for (const n of profile.nodes) byId.set(n.id, n);
const counts = new Map<number, number>(); for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
let total = 0;
for (const [id, c] of counts) { const n = byId.get(id); const f = n.callFrame; const k = `${f.functionName || "(anon)"} ${f.url.replace(/.*node_modules\/\.deno\//, "nm:").replace(/.*\/(src|bench)\//, "$1/")}:${f.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); total += c; }
const byFile = new Map<string, number>();
for (const [k, c] of self) { const f = k.split(" ")[1].replace(/:\d+$/, "").replace(/^nm:([^/]+)\/.*/, "nm:$1"); byFile.set(f, (byFile.get(f) ?? 0) + c); }
console.log("total samples", total);
for (const [k, c] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * c / total).toFixed(1).padStart(5), k);
console.log("---");
for (const [k, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((100 * c / total).toFixed(1).padStart(5), k);
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: any) => { const f = n.callFrame; return `${f.functionName || "(anon)"} ${f.url.replace(/.*node_modules\/\.deno\//, "nm:").replace(/.*\/(src|bench)\//, "$1/")}:${f.lineNumber}`; };
const incl = new Map<string, number>();
for (const [id, c] of counts) { const seen = new Set<string>(); let cur: number | undefined = id; while (cur !== undefined) { const k = keyOf(byId.get(cur)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + c); } cur = parent.get(cur); } }
console.log("--- inclusive");
for (const [k, c] of [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => /trace|opentelemetry|src\/|async_hooks|timers|collector/.test(k)).slice(0, 45)) console.log((100 * c / total).toFixed(1).padStart(5), k);
Deno.exit(0);
