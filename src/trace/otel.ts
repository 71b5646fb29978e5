/**
 * The OpenTelemetry side of the core's tracing hook (`src/core/telemetry.ts`):
 * `invoke_agent`, `chat` and `execute_tool` spans after the GenAI semantic
 * conventions (semantic-conventions v1.39.0, Development status), and the
 * GenAI client metrics. Installed when this module loads. Through
 * `@opentelemetry/api` only: with no provider registered every span is the
 * API's non-recording one and nothing is built for it.
 *
 * @module
 */

import {
  type Attributes,
  context,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  type ChatOutcome,
  installTelemetry,
  type Telemetry,
} from "../core/telemetry.ts";
import type { ModelInfo, Usage } from "../core/model.ts";
import { errorText } from "../core/errors.ts";

/** The instrumentation scope's name. */
export const SCOPE = "@weft/mcp";
/** The instrumentation scope's version. */
export const SCOPE_VERSION = "0.1.0";

/** The API's no-op tracer provider, what its proxy delegates to until a provider is registered. */
const NO_TRACERS = new ProxyTracerProvider().getDelegate();
/** The API's no-op meter class, what its global gives until a meter provider is registered. */
const NO_METER = createNoopMeter().constructor;

/**
 * Whether anyone listens: a tracer provider or a meter provider is
 * registered. When not, every wrapper just runs its function: no span,
 * no attributes, no clock read.
 */
export function observed(): boolean {
  const provider = trace.getTracerProvider();
  if (
    !(provider instanceof ProxyTracerProvider) ||
    provider.getDelegate() !== NO_TRACERS
  ) {
    return true;
  }
  return meters().meter.constructor !== NO_METER;
}

let tracing: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The tracer of the provider in force: fetched again only when the global
 * provider changed (`trace.disable()` then a new registration replaces the
 * API's proxy, which a tracer kept from before would not follow).
 */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracing === undefined || tracing.provider !== provider) {
    tracing = { provider, tracer: provider.getTracer(SCOPE, SCOPE_VERSION) };
  }
  return tracing.tracer;
}

/** Options of the tracing; see {@linkcode configureTracing}. */
export interface TracingOptions {
  /**
   * Record tool arguments and results on the `execute_tool` and
   * `tools/call` spans (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`). Off by default: they may hold personal data.
   */
  readonly recordContent?: boolean;
}

let recordContent = false;

/**
 * Sets the tracing options for the whole process (the last call wins). The
 * spans themselves need no setup: they are recorded as soon as the host
 * registers an OpenTelemetry provider (`OTEL_DENO=true`, or any SDK).
 *
 * @example Record tool arguments and results on the spans
 * ```ts
 * import { configureTracing } from "@weft/mcp";
 *
 * configureTracing({ recordContent: true });
 * configureTracing({ recordContent: false });
 * ```
 */
export function configureTracing(options: TracingOptions): void {
  recordContent = options.recordContent === true;
}

/** Whether arguments and results go on the spans. */
export function recordsContent(): boolean {
  return recordContent;
}

/** The spans that are weft's `execute_tool` spans: an MCP call enriches them instead of adding its own. */
export const toolSpans: WeakSet<Span> = new WeakSet();

interface Instruments {
  readonly provider: MeterProvider;
  readonly meter: Meter;
  readonly histograms: Map<string, Histogram>;
}

let instruments: Instruments | undefined;

const HISTOGRAMS: Record<string, { unit: string; description: string }> = {
  "gen_ai.client.operation.duration": {
    unit: "s",
    description: "GenAI operation duration.",
  },
  "gen_ai.client.token.usage": {
    unit: "{token}",
    description: "Number of input and output tokens used.",
  },
  "mcp.client.operation.duration": {
    unit: "s",
    description:
      "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
  },
  "mcp.server.operation.duration": {
    unit: "s",
    description:
      "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
  },
};

/** The instruments of the meter provider in force. */
function meters(): Instruments {
  const provider = metrics.getMeterProvider();
  if (instruments === undefined || instruments.provider !== provider) {
    instruments = {
      provider,
      meter: provider.getMeter(SCOPE, SCOPE_VERSION),
      histograms: new Map(),
    };
  }
  return instruments;
}

/**
 * The histogram `name` of the meter provider in force (the metrics API has
 * no proxy: a provider registered later is picked up here).
 */
export function histogram(name: string): Histogram {
  const instruments = meters();
  let found = instruments.histograms.get(name);
  if (found === undefined) {
    const about = HISTOGRAMS[name];
    found = instruments.meter.createHistogram(name, about);
    instruments.histograms.set(name, found);
  }
  return found;
}

/** Marks `span` failed with `type` as `error.type`, and ends nothing. */
export function fail(span: Span, type: string, thrown: unknown): void {
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(thrown) });
}

/** The `error.type` of a thrown value: its class name. */
export function errorTypeOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.constructor.name : "_OTHER";
}

function modelAttributes(model: ModelInfo | undefined): Attributes {
  if (model === undefined) return {};
  return {
    "gen_ai.provider.name": model.provider,
    "gen_ai.request.model": model.name,
  };
}

function usageAttributes(usage: Usage): Attributes {
  const out: Attributes = {
    "gen_ai.usage.input_tokens": usage.inputTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
  };
  if (usage.cachedInputTokens !== undefined) {
    out["gen_ai.usage.cache_read.input_tokens"] = usage.cachedInputTokens;
  }
  if (usage.cacheWriteTokens !== undefined) {
    out["gen_ai.usage.cache_creation.input_tokens"] = usage.cacheWriteTokens;
  }
  if (usage.reasoningTokens !== undefined) {
    out["gen_ai.usage.reasoning.output_tokens"] = usage.reasoningTokens;
  }
  return out;
}

const OTEL: Telemetry = {
  enabled: observed,
  run: (about, fn) => observed() ? RECORDING.run(about, fn) : fn(),
  chat: (about, fn, outcome) =>
    observed() ? RECORDING.chat(about, fn, outcome) : fn(),
  tool: (about, fn, failure) =>
    observed() ? RECORDING.tool(about, fn, failure) : fn(),
};

const RECORDING: Omit<Telemetry, "enabled"> = {
  async run(about, fn) {
    const span = tracer().startSpan(
      about.agent === "" ? "invoke_agent" : `invoke_agent ${about.agent}`,
      { kind: SpanKind.INTERNAL },
    );
    if (span.isRecording()) {
      span.setAttributes({
        "gen_ai.operation.name": "invoke_agent",
        ...(about.agent !== "" ? { "gen_ai.agent.name": about.agent } : {}),
        "weft.run.id": about.runId,
        ...modelAttributes(about.model),
      });
    }
    try {
      const result = await context.with(
        trace.setSpan(context.active(), span),
        fn,
      );
      if (span.isRecording()) span.setAttributes(usageAttributes(result.usage));
      return result;
    } catch (thrown) {
      fail(span, errorTypeOf(thrown), thrown);
      throw thrown;
    } finally {
      span.end();
    }
  },

  async chat(about, fn, outcome) {
    const model = about.model?.name;
    const span = tracer().startSpan(model ? `chat ${model}` : "chat", {
      kind: SpanKind.CLIENT,
    });
    const base: Attributes = {
      "gen_ai.operation.name": "chat",
      ...modelAttributes(about.model),
    };
    if (span.isRecording()) span.setAttributes(base);
    const started = performance.now();
    try {
      const value = await context.with(
        trace.setSpan(context.active(), span),
        fn,
      );
      const seen = outcome(value);
      recordChat(span, base, seen, started);
      return value;
    } catch (thrown) {
      const type = errorTypeOf(thrown);
      fail(span, type, thrown);
      histogram("gen_ai.client.operation.duration").record(
        (performance.now() - started) / 1000,
        { ...base, "error.type": type },
      );
      throw thrown;
    } finally {
      span.end();
    }
  },

  async tool(about, fn, failure) {
    const span = tracer().startSpan(`execute_tool ${about.name}`, {
      kind: SpanKind.INTERNAL,
    });
    toolSpans.add(span);
    if (span.isRecording()) {
      span.setAttributes({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": about.name,
        "gen_ai.tool.call.id": about.callId,
        "gen_ai.tool.type": "function",
        ...(about.description !== undefined && about.description !== ""
          ? { "gen_ai.tool.description": about.description }
          : {}),
        ...(recordContent ? { "gen_ai.tool.call.arguments": about.args } : {}),
      });
    }
    try {
      const text = await context.with(
        trace.setSpan(context.active(), span),
        fn,
      );
      if (recordContent) span.setAttribute("gen_ai.tool.call.result", text);
      return text;
    } catch (thrown) {
      const type = failure(thrown);
      if (type !== undefined) fail(span, type, thrown);
      throw thrown;
    } finally {
      span.end();
    }
  },
};

function recordChat(
  span: Span,
  base: Attributes,
  seen: ChatOutcome,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  const response = seen.response;
  const metric: Attributes = {
    ...base,
    ...(response?.modelId !== undefined
      ? { "gen_ai.response.model": response.modelId }
      : {}),
  };
  if (span.isRecording()) {
    span.setAttributes({
      ...(response?.modelId !== undefined
        ? { "gen_ai.response.model": response.modelId }
        : {}),
      ...(response?.id !== undefined
        ? { "gen_ai.response.id": response.id }
        : {}),
      "gen_ai.response.finish_reasons": [seen.reason],
      ...usageAttributes(seen.usage),
    });
  }
  histogram("gen_ai.client.operation.duration").record(seconds, metric);
  const tokens = histogram("gen_ai.client.token.usage");
  tokens.record(seen.usage.inputTokens, {
    ...metric,
    "gen_ai.token.type": "input",
  });
  tokens.record(seen.usage.outputTokens, {
    ...metric,
    "gen_ai.token.type": "output",
  });
}

installTelemetry(OTEL);
