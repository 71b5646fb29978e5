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

/** The four histograms of one meter provider, created once each. */
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

/**
 * The attribute sets of one model, built once: the chat span's and the
 * metrics' (the SDK's histograms key their series by the attribute set;
 * a set reused as is spares building it on every call).
 */
interface ModelSets {
  /** `gen_ai.operation.name` `chat` and the model's provider and name. */
  readonly chat: Attributes;
  /** By response model (`""`: none): the duration's set and the two token sets. */
  readonly byResponse: Map<string, ResponseSets>;
}

interface ResponseSets {
  readonly duration: Attributes;
  readonly input: Attributes;
  readonly output: Attributes;
}

const NO_MODEL: ModelSets = {
  chat: { "gen_ai.operation.name": "chat" },
  byResponse: new Map(),
};
/** By `provider\0name`: a model's sets (bounded by the models a process uses). */
const modelSets = new Map<string, ModelSets>();

function setsOf(model: ModelInfo | undefined): ModelSets {
  if (model === undefined) return NO_MODEL;
  const key = `${model.provider}\0${model.name}`;
  let found = modelSets.get(key);
  if (found === undefined) {
    found = {
      chat: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": model.provider,
        "gen_ai.request.model": model.name,
      },
      byResponse: new Map(),
    };
    modelSets.set(key, found);
  }
  return found;
}

function responseSets(
  sets: ModelSets,
  responseModel: string | undefined,
): ResponseSets {
  const key = responseModel ?? "";
  let found = sets.byResponse.get(key);
  if (found === undefined) {
    const duration: Attributes = responseModel === undefined
      ? sets.chat
      : { ...sets.chat, "gen_ai.response.model": responseModel };
    found = {
      duration,
      input: { ...duration, "gen_ai.token.type": "input" },
      output: { ...duration, "gen_ai.token.type": "output" },
    };
    // Bounded: a provider answers with a few model ids, not one per call.
    if (sets.byResponse.size < 64) sets.byResponse.set(key, found);
  }
  return found;
}

/** Sets the usage attributes on `span`. */
function setUsage(span: Span, usage: Usage): void {
  span.setAttribute("gen_ai.usage.input_tokens", usage.inputTokens);
  span.setAttribute("gen_ai.usage.output_tokens", usage.outputTokens);
  if (usage.cachedInputTokens !== undefined) {
    span.setAttribute(
      "gen_ai.usage.cache_read.input_tokens",
      usage.cachedInputTokens,
    );
  }
  if (usage.cacheWriteTokens !== undefined) {
    span.setAttribute(
      "gen_ai.usage.cache_creation.input_tokens",
      usage.cacheWriteTokens,
    );
  }
  if (usage.reasoningTokens !== undefined) {
    span.setAttribute(
      "gen_ai.usage.reasoning.output_tokens",
      usage.reasoningTokens,
    );
  }
}

const OTEL: Telemetry = {
  enabled: observed,
  run: (about, fn) => observed() ? RECORDING.run(about, fn) : fn(),
  chat: (about, fn, outcome) =>
    observed() ? RECORDING.chat(about, fn, outcome) : fn(),
  tool: (about, fn, failure) =>
    observed() ? RECORDING.tool(about, fn, failure) : fn(),
};

// The spans get their attributes at start (one object, no spreads: the
// SDK copies it), and the metrics reuse attribute sets built once.
const RECORDING: Omit<Telemetry, "enabled"> = {
  async run(about, fn) {
    const attributes: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "weft.run.id": about.runId,
    };
    if (about.agent !== "") attributes["gen_ai.agent.name"] = about.agent;
    if (about.model !== undefined) {
      attributes["gen_ai.provider.name"] = about.model.provider;
      attributes["gen_ai.request.model"] = about.model.name;
    }
    const span = tracer().startSpan(
      about.agent === "" ? "invoke_agent" : `invoke_agent ${about.agent}`,
      { kind: SpanKind.INTERNAL, attributes },
    );
    try {
      const result = await context.with(
        trace.setSpan(context.active(), span),
        fn,
      );
      if (span.isRecording()) setUsage(span, result.usage);
      return result;
    } catch (thrown) {
      fail(span, errorTypeOf(thrown), thrown);
      throw thrown;
    } finally {
      span.end();
    }
  },

  async chat(about, fn, outcome) {
    const sets = setsOf(about.model);
    const model = about.model?.name;
    const span = tracer().startSpan(model ? `chat ${model}` : "chat", {
      kind: SpanKind.CLIENT,
      attributes: sets.chat,
    });
    const started = performance.now();
    try {
      const value = await context.with(
        trace.setSpan(context.active(), span),
        fn,
      );
      recordChat(span, sets, outcome(value), started);
      return value;
    } catch (thrown) {
      const type = errorTypeOf(thrown);
      fail(span, type, thrown);
      histogram("gen_ai.client.operation.duration").record(
        (performance.now() - started) / 1000,
        { ...sets.chat, "error.type": type },
      );
      throw thrown;
    } finally {
      span.end();
    }
  },

  async tool(about, fn, failure) {
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": about.name,
      "gen_ai.tool.call.id": about.callId,
      "gen_ai.tool.type": "function",
    };
    if (about.description !== undefined && about.description !== "") {
      attributes["gen_ai.tool.description"] = about.description;
    }
    if (recordContent) attributes["gen_ai.tool.call.arguments"] = about.args;
    const span = tracer().startSpan(`execute_tool ${about.name}`, {
      kind: SpanKind.INTERNAL,
      attributes,
    });
    toolSpans.add(span);
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
  sets: ModelSets,
  seen: ChatOutcome,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  const response = seen.response;
  const metric = responseSets(sets, response?.modelId);
  if (span.isRecording()) {
    if (response?.modelId !== undefined) {
      span.setAttribute("gen_ai.response.model", response.modelId);
    }
    if (response?.id !== undefined) {
      span.setAttribute("gen_ai.response.id", response.id);
    }
    span.setAttribute("gen_ai.response.finish_reasons", [seen.reason]);
    setUsage(span, seen.usage);
  }
  histogram("gen_ai.client.operation.duration").record(
    seconds,
    metric.duration,
  );
  const tokens = histogram("gen_ai.client.token.usage");
  tokens.record(seen.usage.inputTokens, metric.input);
  tokens.record(seen.usage.outputTokens, metric.output);
}

installTelemetry(OTEL);
