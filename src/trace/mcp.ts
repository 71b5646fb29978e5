/**
 * MCP's side of the tracing (semantic-conventions v1.39.0, `gen-ai/mcp.md`):
 * the client puts the active context in `params._meta` (`traceparent`,
 * `tracestate`, `baggage`, through the global propagator, as SEP-414
 * reserves them) and enriches the `execute_tool` span it runs under — or,
 * called outside a run, opens its own CLIENT span `tools/call {tool}`; the
 * server reads the caller's context back and runs the tool under a SERVER
 * span `tools/call {tool}` whose parent is the caller's span.
 *
 * @module
 */

import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  trace,
} from "@opentelemetry/api";
import {
  errorTypeOf,
  fail,
  histogram,
  observed,
  recordsContent,
  toolSpans,
  tracer,
} from "./otel.ts";

const TOOLS_CALL = "tools/call";
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** What a client transport tells of its peer (read structurally: the bridge names no transport). */
interface PeerFacts {
  readonly era?: { readonly version?: unknown };
  readonly peer?: { readonly transport?: unknown; readonly key?: unknown };
  readonly sessionId?: unknown;
}

function peerAttributes(client: object): Attributes {
  const transport = (client as { transport?: PeerFacts }).transport;
  if (transport === undefined || transport === null) return {};
  const out: Attributes = {};
  const version = transport.era?.version;
  if (typeof version === "string") out["mcp.protocol.version"] = version;
  if (typeof transport.sessionId === "string") {
    out["mcp.session.id"] = transport.sessionId;
  }
  const peer = transport.peer;
  if (peer?.transport === "stdio") out["network.transport"] = "pipe";
  if (peer?.transport === "http") {
    out["network.transport"] = "tcp";
    out["network.protocol.name"] = "http";
    if (typeof peer.key === "string") {
      try {
        const url = new URL(peer.key);
        out["server.address"] = url.hostname;
        out["server.port"] = url.port !== ""
          ? Number(url.port)
          : url.protocol === "https:"
          ? 443
          : 80;
      } catch {
        // Not a URL: no address to report.
      }
    }
  }
  return out;
}

/**
 * Sends one `tools/call` through `send` with the active context injected
 * in `params._meta`, under the `execute_tool` span in force (enriched with
 * the MCP attributes) or, outside a run, a CLIENT span of its own.
 * `isError` reads the result: an `isError` one is `error.type` `tool_error`.
 */
export function tracedCall<T>(
  client: object,
  params: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<T>,
  isError: (result: T) => boolean,
): Promise<T> {
  // Unobserved: no extra promise, no extra tick.
  return observed() ? recordCall(client, params, send, isError) : send(params);
}

async function recordCall<T>(
  client: object,
  params: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<T>,
  isError: (result: T) => boolean,
): Promise<T> {
  const tool = String(params.name);
  const active = trace.getActiveSpan();
  let span: Span;
  let own = false;
  let ctx: Context = context.active();
  if (active !== undefined && toolSpans.has(active)) {
    span = active;
  } else {
    span = tracer().startSpan(`${TOOLS_CALL} ${tool}`, {
      kind: SpanKind.CLIENT,
    });
    own = true;
    ctx = trace.setSpan(ctx, span);
  }
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const sent = Object.keys(carrier).length === 0 ? params : {
    ...params,
    _meta: { ...metaOf(params), ...carrier },
  };
  const attributes: Attributes = {
    "mcp.method.name": TOOLS_CALL,
    "gen_ai.tool.name": tool,
    ...peerAttributes(client),
  };
  if (span.isRecording()) {
    // An enriched execute_tool span keeps the tool's name as the model called it.
    const { "gen_ai.tool.name": _, ...mcp } = attributes;
    span.setAttributes(
      own ? { ...attributes, "gen_ai.operation.name": "execute_tool" } : mcp,
    );
  }
  const started = performance.now();
  let errorType: string | undefined;
  try {
    const result =
      await (own ? context.with(ctx, send, undefined, sent) : send(sent));
    if (isError(result)) {
      errorType = "tool_error";
      if (own) fail(span, errorType, new Error("the tool reported an error"));
    }
    return result;
  } catch (thrown) {
    errorType = errorTypeOf(thrown);
    if (own) fail(span, errorType, thrown);
    throw thrown;
  } finally {
    if (own) span.end();
    histogram("mcp.client.operation.duration").record(
      (performance.now() - started) / 1000,
      errorType === undefined
        ? attributes
        : { ...attributes, "error.type": errorType },
    );
  }
}

function metaOf(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta)
    ? meta as Record<string, unknown>
    : {};
}

/** What the server side reads of the SDK's handler context (structurally). */
interface ServedExtra {
  readonly requestId?: unknown;
  readonly sessionId?: unknown;
  readonly requestInfo?: unknown;
}

const GETTER = {
  keys: (carrier: Record<string, unknown>): string[] => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string): string | undefined => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/**
 * Runs a served `tools/call` under a SERVER span `tools/call {tool}` whose
 * parent is the context the caller put in `params._meta` (the span in force
 * here, e.g. the HTTP server's, is linked), started before `run` and ended
 * when its answer is ready; `run` executes inside it.
 */
export function tracedServe<T>(
  params: Record<string, unknown>,
  handlerExtra: unknown,
  run: () => Promise<T>,
  isError: (result: T) => boolean,
): Promise<T> {
  return observed() ? recordServe(params, handlerExtra, run, isError) : run();
}

async function recordServe<T>(
  params: Record<string, unknown>,
  handlerExtra: unknown,
  run: () => Promise<T>,
  isError: (result: T) => boolean,
): Promise<T> {
  const extra = (handlerExtra ?? {}) as ServedExtra;
  const tool = String(params.name);
  const meta = metaOf(params);
  const here = context.active();
  const local = trace.getSpan(here);
  const parent = propagation.extract(here, meta, GETTER);
  const remote = trace.getSpan(parent);
  const linked = local !== undefined && remote !== undefined &&
    remote !== local;
  const attributes: Attributes = {
    "mcp.method.name": TOOLS_CALL,
    "gen_ai.tool.name": tool,
    ...(typeof meta[PROTOCOL_VERSION_META] === "string"
      ? { "mcp.protocol.version": meta[PROTOCOL_VERSION_META] as string }
      : {}),
    ...(extra.requestInfo !== undefined
      ? { "network.transport": "tcp", "network.protocol.name": "http" }
      : {}),
  };
  const span = tracer().startSpan(`${TOOLS_CALL} ${tool}`, {
    kind: SpanKind.SERVER,
    ...(linked ? { links: [{ context: local.spanContext() }] } : {}),
  }, parent);
  if (span.isRecording()) {
    span.setAttributes({
      ...attributes,
      "gen_ai.operation.name": "execute_tool",
      ...(typeof extra.requestId === "string" ||
          typeof extra.requestId === "number"
        ? { "jsonrpc.request.id": String(extra.requestId) }
        : {}),
      ...(typeof extra.sessionId === "string"
        ? { "mcp.session.id": extra.sessionId }
        : {}),
      ...(recordsContent() && params.arguments !== undefined
        ? {
          "gen_ai.tool.call.arguments": JSON.stringify(
            params.arguments,
          ),
        }
        : {}),
    });
  }
  const started = performance.now();
  let errorType: string | undefined;
  try {
    const result = await context.with(trace.setSpan(parent, span), run);
    if (isError(result)) {
      errorType = "tool_error";
      fail(span, errorType, new Error("the tool answered an error result"));
    }
    if (recordsContent() && span.isRecording()) {
      span.setAttribute("gen_ai.tool.call.result", JSON.stringify(result));
    }
    return result;
  } catch (thrown) {
    errorType = errorTypeOf(thrown);
    fail(span, errorType, thrown);
    throw thrown;
  } finally {
    span.end();
    histogram("mcp.server.operation.duration").record(
      (performance.now() - started) / 1000,
      errorType === undefined
        ? attributes
        : { ...attributes, "error.type": errorType },
    );
  }
}
