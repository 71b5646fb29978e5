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
import { wireIdOf } from "../core/telemetry.ts";
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

function peerAttributes(transport: PeerFacts | undefined): Attributes {
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
 * The attribute sets of one tool on one connection, built once: the
 * metric's, the enriched `execute_tool` span's (the tool's name as the
 * model called it stays), and an own CLIENT span's.
 */
interface CallSets {
  readonly metric: Attributes;
  readonly enrich: Attributes;
  readonly own: Attributes;
}

/** What is known of one client transport: its peer's attributes and each tool's sets. */
interface Peer {
  /** The era version and session id the sets were built with (both may come late). */
  readonly version: unknown;
  readonly sessionId: unknown;
  readonly attributes: Attributes;
  /** Whether the peer is reached over HTTP: a fetch span may then be a child of the call's. */
  readonly http: boolean;
  readonly tools: Map<string, CallSets>;
  /**
   * The spans waiting for the JSON-RPC id of the `tools/call` they send,
   * by the `traceparent` the request carries; undefined when the transport
   * could not be watched.
   */
  readonly waiting?: Map<string, Span>;
}

const peers = new WeakMap<object, Peer>();
const NO_TRANSPORT: Peer = {
  version: undefined,
  sessionId: undefined,
  attributes: {},
  http: false,
  tools: new Map(),
};

function peerOf(client: object): Peer {
  const transport = (client as { transport?: PeerFacts & object }).transport;
  if (typeof transport !== "object" || transport === null) return NO_TRANSPORT;
  let peer = peers.get(transport);
  if (
    peer === undefined || peer.version !== transport.era?.version ||
    peer.sessionId !== transport.sessionId
  ) {
    peer = {
      version: transport.era?.version,
      sessionId: transport.sessionId,
      attributes: peerAttributes(transport),
      http: transport.peer?.transport === "http",
      tools: new Map(),
      waiting: peer?.waiting ?? watchIds(transport),
    };
    peers.set(transport, peer);
  }
  return peer;
}

/**
 * Watches what `transport` sends, to learn the id the SDK gives each
 * `tools/call` (the id is the client's, never the caller's): its `send`
 * is wrapped once, and a request whose `params._meta.traceparent` is
 * awaited sets `jsonrpc.request.id` on the span awaiting it. Nothing is
 * read while nothing is awaited.
 */
function watchIds(transport: object): Map<string, Span> | undefined {
  const target = transport as { send?: unknown };
  const send = target.send;
  if (typeof send !== "function") return undefined;
  const waiting = new Map<string, Span>();
  target.send = function (this: unknown, ...args: unknown[]): unknown {
    if (waiting.size !== 0) noteSent(waiting, args[0]);
    return send.apply(this, args);
  };
  return waiting;
}

function noteSent(waiting: Map<string, Span>, message: unknown): void {
  const m = message as {
    method?: unknown;
    id?: unknown;
    params?: { _meta?: { traceparent?: unknown } };
  };
  if (m.method !== TOOLS_CALL) return;
  const traceparent = m.params?._meta?.traceparent;
  if (typeof traceparent !== "string") return;
  const span = waiting.get(traceparent);
  if (
    span !== undefined && (typeof m.id === "number" || typeof m.id === "string")
  ) {
    span.setAttribute("jsonrpc.request.id", String(m.id));
  }
}

function callSets(peer: Peer, tool: string): CallSets {
  let found = peer.tools.get(tool);
  if (found === undefined) {
    const metric: Attributes = {
      "mcp.method.name": TOOLS_CALL,
      "gen_ai.tool.name": tool,
      ...peer.attributes,
    };
    found = {
      metric,
      enrich: { "mcp.method.name": TOOLS_CALL, ...peer.attributes },
      own: { ...metric, "gen_ai.operation.name": "execute_tool" },
    };
    // Bounded: a server lists its tools; a caller naming others gets no cache.
    if (peer.tools.size < 256) peer.tools.set(tool, found);
  }
  return found;
}

/** A setter that notes whether the propagator wrote anything. */
let injected = false;
const SETTER = {
  set(carrier: Record<string, unknown>, key: string, value: string): void {
    carrier[key] = value;
    injected = true;
  },
};

/**
 * Sends one `tools/call` through `send` with the active context injected
 * in `params._meta`, under the `execute_tool` span in force (enriched with
 * the MCP attributes and the request's JSON-RPC id) or, outside a run, a
 * CLIENT span of its own. `isError` reads the result: an `isError` one is
 * `error.type` `tool_error`.
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
  const peer = peerOf(client);
  const sets = callSets(peer, tool);
  const active = trace.getActiveSpan();
  let span: Span;
  let own = false;
  let ctx: Context = context.active();
  if (active !== undefined && toolSpans.has(active)) {
    span = active;
    if (span.isRecording()) span.setAttributes(sets.enrich);
  } else {
    span = tracer().startSpan(`${TOOLS_CALL} ${tool}`, {
      kind: SpanKind.CLIENT,
      attributes: sets.own,
    });
    own = true;
    ctx = trace.setSpan(ctx, span);
  }
  // The context goes straight into the copy of `_meta` the request sends.
  const meta: Record<string, unknown> = { ...metaOf(params) };
  injected = false;
  propagation.inject(ctx, meta, SETTER);
  const sent = injected ? { ...params, _meta: meta } : params;
  const traceparent = meta.traceparent;
  const waiting = typeof traceparent === "string" && span.isRecording()
    ? peer.waiting
    : undefined;
  waiting?.set(traceparent as string, span);
  const started = performance.now();
  let errorType: string | undefined;
  try {
    // The own span is made active only where a child may come (an HTTP
    // peer's fetch span): the context already travels in `_meta`, and an
    // AsyncLocalStorage run is among the dearest steps here.
    const result = await (own && peer.http
      ? context.with(ctx, send, undefined, sent)
      : send(sent));
    if (isError(result)) {
      errorType = "tool_error";
      if (own) {
        fail(span, errorType, new Error("the tool reported an error"));
      }
    }
    return result;
  } catch (thrown) {
    errorType = errorTypeOf(thrown);
    if (own) fail(span, errorType, thrown);
    throw thrown;
  } finally {
    waiting?.delete(traceparent as string);
    if (own) span.end();
    histogram("mcp.client.operation.duration").record(
      (performance.now() - started) / 1000,
      errorType === undefined
        ? sets.metric
        : { ...sets.metric, "error.type": errorType },
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

/** By tool, era version and transport: the served call's metric set and span set. */
const servedSets = new Map<string, { metric: Attributes; span: Attributes }>();

function servedSetsOf(
  tool: string,
  version: unknown,
  http: boolean,
): { metric: Attributes; span: Attributes } {
  const key = `${tool}\0${typeof version === "string" ? version : ""}\0${
    http ? "h" : ""
  }`;
  let found = servedSets.get(key);
  if (found === undefined) {
    const metric: Attributes = {
      "mcp.method.name": TOOLS_CALL,
      "gen_ai.tool.name": tool,
    };
    if (typeof version === "string") metric["mcp.protocol.version"] = version;
    if (http) {
      metric["network.transport"] = "tcp";
      metric["network.protocol.name"] = "http";
    }
    found = {
      metric,
      span: { ...metric, "gen_ai.operation.name": "execute_tool" },
    };
    // Bounded: the tools a server exports, times a few eras.
    if (servedSets.size < 1024) servedSets.set(key, found);
  }
  return found;
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
  const sets = servedSetsOf(
    tool,
    meta[PROTOCOL_VERSION_META],
    extra.requestInfo !== undefined,
  );
  const attributes: Attributes = { ...sets.span };
  if (
    typeof extra.requestId === "string" || typeof extra.requestId === "number"
  ) {
    // The id the client sent (a transport may hand requests on under ids of its own).
    attributes["jsonrpc.request.id"] = String(
      wireIdOf(extra.requestId) ?? extra.requestId,
    );
  }
  if (typeof extra.sessionId === "string") {
    attributes["mcp.session.id"] = extra.sessionId;
  }
  if (recordsContent() && params.arguments !== undefined) {
    attributes["gen_ai.tool.call.arguments"] = JSON.stringify(
      params.arguments,
    );
  }
  const span = tracer().startSpan(
    `${TOOLS_CALL} ${tool}`,
    linked
      ? {
        kind: SpanKind.SERVER,
        attributes,
        links: [{ context: local.spanContext() }],
      }
      : { kind: SpanKind.SERVER, attributes },
    parent,
  );
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
        ? sets.metric
        : { ...sets.metric, "error.type": errorType },
    );
  }
}
