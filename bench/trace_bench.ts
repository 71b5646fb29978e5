/**
 * What tracing costs (issue 20): a checkout without it (`--base`, e.g. a
 * `git archive` of the commit before) against this one, in one process,
 * interleaved one for one — first with no OpenTelemetry provider
 * registered, then with the SDK's `BasicTracerProvider`, an in-memory
 * exporter, the W3C propagator, the AsyncLocalStorage context manager and
 * an in-memory metric reader (the base records nothing either way).
 *
 *     git archive <before> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/
 *     deno run -A --config tests/interop/deno.json bench/trace_bench.ts --base=/tmp/base
 *
 * Two operations over the in-memory transport (`exportTools` and
 * `importTools`, so both the client and the server side are traced): one
 * imported tool's `invoke`, and an agent run (a scripted model: two model
 * calls, one tool call). Targets: within 2 % unregistered, 10 % registered.
 *
 * @module
 */

import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { interleavedMedians, type MedianPair } from "./_medians.ts";

type Mod = typeof import("../mod.ts");
type Testing = typeof import("../testing.ts");

interface Ops {
  readonly call: () => Promise<unknown>;
  readonly run: () => Promise<unknown>;
}

async function opsOf(root: string): Promise<Ops> {
  const m: Mod = await import(new URL("mod.ts", root).href);
  const t: Testing = await import(new URL("testing.ts", root).href);
  const server = new m.Server({ name: "bench", version: "1.0.0" });
  m.exportTools(
    server,
    m.rawTool({
      name: "lookup",
      description: "Looks a key up.",
      inputSchema: { type: "object" },
      run: () => "found",
    }),
  );
  const [clientSide, serverSide] = m.InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new m.Client({ name: "bench", version: "1.0.0" });
  await client.connect(clientSide);
  const { tools } = await m.importTools(client);
  return {
    call: () => tools[0].invoke("{}"),
    run: () =>
      new m.Agent(
        t.script(t.callTools({ name: "lookup", args: {} }), t.say("done")),
        { name: "bench", tools },
      ).generate("go"),
  };
}

function arg(name: string): string | undefined {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found?.slice(name.length + 3);
}

const basePath = arg("base");
if (basePath === undefined) {
  console.error(
    "usage: bench/trace_bench.ts --base=<a checkout without tracing>",
  );
  Deno.exit(2);
}
const n = Number(arg("n") ?? 2000);
const base = await opsOf(
  new URL(`file://${basePath.replace(/\/?$/, "/")}`).href,
);
// `--traced=<checkout>`: another checkout in place of this one (an A/A run calibrates).
const tracedPath = arg("traced");
const traced = await opsOf(
  tracedPath === undefined
    ? new URL("../", import.meta.url).href
    : `file://${tracedPath.replace(/\/?$/, "/")}`,
);

function pairs(): MedianPair[] {
  return [
    { label: "imported tool call", sdk: base.call, weft: traced.call, n },
    {
      label: "agent run (2 model calls, 1 tool call)",
      sdk: base.run,
      weft: traced.run,
      n: n / 4,
    },
  ];
}

function print(
  title: string,
  results: Awaited<ReturnType<typeof interleavedMedians>>,
): void {
  console.log(title);
  for (const r of results) {
    console.log(
      `  ${r.label}: without ${(r.sdk * 1000).toFixed(1)} µs, with ${
        (r.weft * 1000).toFixed(1)
      } µs, ratio ${(r.weft / r.sdk).toFixed(3)}x`,
    );
  }
}

await interleavedMedians(pairs()); // warm-up: both copies compiled hot
print("no provider registered", await interleavedMedians(pairs()));

const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
metrics.setGlobalMeterProvider(
  new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(0),
        exportIntervalMillis: 3_600_000,
      }),
    ],
  }),
);
// The exporter keeps every span: empty it now and then.
const reset = setInterval(() => spans.reset(), 200);
await interleavedMedians(pairs()); // warm-up
const registered = await interleavedMedians(pairs());
print("the SDK registered (in-memory exporter)", registered);
// The floor: what the SDK itself takes for one span (started, ended,
// exported to memory), timed the same way against an empty operation.
const bare = trace.getTracer("floor");
const floorHistogram = metrics.getMeter("floor").createHistogram("floor");
const [floor] = await interleavedMedians([{
  label: "tracer.startSpan().end()",
  sdk: () => Promise.resolve(),
  weft: () => {
    bare.startSpan("floor").end();
    return Promise.resolve();
  },
  n,
}]);
const perSpan = floor.weft - floor.sdk;
console.log(
  `  the floor, one startSpan().end(): ${(perSpan * 1000).toFixed(1)} µs`,
);
// The same calls to the API as an imported call's tracing, with nothing of
// weft's around them: a CLIENT span, its context injected into a carrier
// and extracted on the other side, a SERVER span active while the handler
// runs, a duration recorded on each side.
const shaped = await interleavedMedians([{
  label: "the API calls of one traced imported call",
  sdk: () => Promise.resolve(),
  weft: async () => {
    const attributes = { "mcp.method.name": "tools/call" };
    const client = bare.startSpan("tools/call x", { kind: 2, attributes });
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), client), carrier);
    const parent = propagation.extract(context.active(), carrier);
    const server = bare.startSpan(
      "tools/call x",
      { kind: 1, attributes },
      parent,
    );
    await context.with(trace.setSpan(parent, server), () => Promise.resolve());
    server.end();
    client.end();
    floorHistogram.record(0.001, attributes);
    floorHistogram.record(0.001, attributes);
  },
  n,
}]);
console.log(
  `  the API calls of one traced imported call, alone: ${
    ((shaped[0].weft - shaped[0].sdk) * 1000).toFixed(1)
  } µs`,
);
// An imported call records 2 spans (CLIENT, SERVER); an agent run 5
// (invoke_agent, 2 chat, execute_tool, the served tools/call).
for (const [r, count] of [[registered[0], 2], [registered[1], 5]] as const) {
  const added = r.weft - r.sdk;
  console.log(
    `  ${r.label}: +${
      (added * 1000).toFixed(1)
    } µs, of which ${count} spans' floor ${
      (count * perSpan * 1000).toFixed(1)
    } µs, weft's own ${((added - count * perSpan) * 1000).toFixed(1)} µs`,
  );
}
clearInterval(reset);
console.log(
  `(${spans.getFinishedSpans().length} spans in the last 200 ms: recorded)`,
);
