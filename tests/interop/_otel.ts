/**
 * A real OpenTelemetry SDK for the tracing tests, registered globally: a
 * `BasicTracerProvider` with an in-memory exporter (or one that appends
 * each finished span to a file as a JSON line, for a child process), the
 * W3C trace-context and baggage propagators and the AsyncLocalStorage
 * context manager; `sdk-metrics` with an in-memory metric exporter.
 *
 * @module
 */

import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";

/** A finished span as the tests compare them (the same shape from a child's file). */
export interface SpanRecord {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly links: readonly string[];
  readonly attributes: Record<string, unknown>;
  readonly status: number;
}

/** The record of `span`. */
export function recordOf(span: ReadableSpan): SpanRecord {
  const parent = span.parentSpanContext?.spanId;
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    ...(parent !== undefined ? { parentSpanId: parent } : {}),
    links: span.links.map((l) => l.context.spanId),
    attributes: { ...span.attributes },
    status: span.status.code,
  };
}

/** What `installSdk` set up. */
export interface Sdk {
  readonly spans: () => SpanRecord[];
  readonly metricNames: () => Promise<string[]>;
  readonly shutdown: () => Promise<void>;
}

/** Writes each finished span to `path` as a JSON line. */
class FileExporter implements SpanExporter {
  constructor(readonly path: string) {}
  export(
    spans: ReadableSpan[],
    done: (result: { code: number }) => void,
  ): void {
    const lines = spans.map((s) => JSON.stringify(recordOf(s)) + "\n").join("");
    Deno.writeTextFileSync(this.path, lines, { append: true });
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers the SDK globally; spans go to memory, or to `file` as JSON lines. */
export function installSdk(file?: string): Sdk {
  const memory = new InMemorySpanExporter();
  const exporter: SpanExporter = file === undefined
    ? memory
    : new FileExporter(file);
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [
        new W3CTraceContextPropagator(),
        new W3CBaggagePropagator(),
      ],
    }),
  );
  context.setGlobalContextManager(
    new AsyncLocalStorageContextManager().enable(),
  );
  const metricExporter = new InMemoryMetricExporter(
    AggregationTemporality.CUMULATIVE,
  );
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meters = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meters);
  return {
    spans: () => memory.getFinishedSpans().map(recordOf),
    metricNames: async () => {
      await reader.forceFlush();
      const names = new Set<string>();
      for (const batch of metricExporter.getMetrics()) {
        for (const scope of batch.scopeMetrics) {
          for (const m of scope.metrics) names.add(m.descriptor.name);
        }
      }
      return [...names].sort();
    },
    shutdown: async () => {
      await provider.shutdown();
      await meters.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      metrics.disable();
    },
  };
}
