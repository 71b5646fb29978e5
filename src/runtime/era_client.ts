/**
 * The client side of both protocol eras, at the message level: a
 * `Transport` wrapper that lets the v1 SDK `Client` (which only knows the
 * `initialize` handshake) talk to a 2026-07-28 server as well.
 *
 * The `Client`'s `initialize` is intercepted. Unless an era is pinned or a
 * verdict is cached, a `server/discover` probe goes first; a modern answer
 * is turned into a local `InitializeResult` (the `Client` never knows), and
 * from then on every request carries the `_meta` envelope; any other
 * answer is legacy evidence and the original `initialize` goes through.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport";
import {
  isModernVersion,
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
  type ProtocolEra,
} from "./era.ts";
import { type EraStore, readVerdict, writeVerdict } from "./era_store.ts";

/** Which era a connection speaks: found out (`"auto"`, the default) or pinned. */
export type ProtocolPreference = "auto" | ProtocolEra;

/** What a `server/discover` probe got back, before it is judged. */
export type ProbeOutcome =
  | { readonly kind: "result"; readonly result: unknown }
  | {
    readonly kind: "rpc-error";
    readonly code: number;
    readonly message: string;
    readonly data?: unknown;
  }
  | {
    readonly kind: "http-error";
    readonly status: number;
    readonly body: string;
  }
  | { readonly kind: "network-error"; readonly error: unknown }
  | { readonly kind: "timeout"; readonly ms: number }
  | { readonly kind: "closed" };

/** The verdict on one probe outcome. */
export type ProbeVerdict =
  | {
    readonly kind: "modern";
    readonly version: string;
    readonly discover: DiscoverResult;
  }
  | { readonly kind: "legacy" }
  | { readonly kind: "error"; readonly error: Error };

/** The parts of a `server/discover` result the client uses. */
export interface DiscoverResult {
  /** The modern revisions the server serves. */
  readonly supportedVersions: readonly string[];
  /** The server's capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's name and version (from the result's `_meta`, else its body). */
  readonly serverInfo?: { name: string; version: string };
  /** The server's instructions, when it gives any. */
  readonly instructions?: string;
}

/**
 * The era probe could not tell a server's era, or the server does not speak
 * the era the connection was pinned to. `reason` says which: `"refused"`
 * (401/403), `"server-error"` (HTTP 5xx), `"unreachable"` (the request
 * failed), `"closed"` (a stdio server exited on the probe), `"not-modern"`
 * (pinned to `"modern"`, the server gave legacy evidence). The connect
 * rejects with a `ServerConnectError` (phase `initialize`) whose cause is
 * this error.
 *
 * @example Tell a pinned era the server does not speak
 * ```ts
 * import { ProtocolNegotiationError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * const error = new ProtocolNegotiationError("not-modern", "the server did not answer server/discover");
 * assert.equal(error.reason, "not-modern");
 * ```
 */
export class ProtocolNegotiationError extends Error {
  /** Why the negotiation failed. */
  readonly reason:
    | "refused"
    | "server-error"
    | "unreachable"
    | "closed"
    | "not-modern";

  /** Builds the error from its reason, a sentence and the underlying cause. */
  constructor(
    reason: ProtocolNegotiationError["reason"],
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`protocol negotiation failed: ${detail}`, options);
    this.name = "ProtocolNegotiationError";
    this.reason = reason;
  }
}

/** Reads a `server/discover` result, or `undefined` when it is not one. */
export function parseDiscoverResult(
  result: unknown,
): DiscoverResult | undefined {
  if (!isObject(result)) return undefined;
  const versions = result.supportedVersions;
  if (
    !Array.isArray(versions) || !versions.every((v) => typeof v === "string")
  ) return undefined;
  const capabilities = isObject(result.capabilities) ? result.capabilities : {};
  const meta = isObject(result._meta) ? result._meta : {};
  const info = implementationOf(meta[META.serverInfo]) ??
    implementationOf(result.serverInfo);
  return {
    supportedVersions: versions,
    capabilities,
    ...(info === undefined ? {} : { serverInfo: info }),
    ...(typeof result.instructions === "string"
      ? { instructions: result.instructions }
      : {}),
  };
}

/**
 * Judges a probe outcome the way the spec's backward-compatibility rules
 * do: a discover result naming a modern revision this client speaks is
 * modern; every other answer the server gave (an error of any code, an
 * HTTP 4xx other than 401/403, a body that is no discover result, a stdio
 * server silent for the probe's wait) is legacy evidence. No single error
 * code decides. What tells nothing about the era (401/403, 5xx, a failed
 * request) is an error.
 */
export function classifyProbe(
  outcome: ProbeOutcome,
  transport: "http" | "stdio",
): ProbeVerdict {
  switch (outcome.kind) {
    case "result": {
      const discover = parseDiscoverResult(outcome.result);
      const version = discover === undefined
        ? undefined
        : MODERN_PROTOCOL_VERSIONS.find((v) =>
          discover.supportedVersions.includes(v)
        );
      return discover === undefined || version === undefined
        ? { kind: "legacy" }
        : { kind: "modern", version, discover };
    }
    case "rpc-error":
      return classifyRpcError(outcome.code, outcome.data);
    case "http-error":
      return classifyHttpError(outcome.status, outcome.body);
    case "network-error":
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "unreachable",
          `the server/discover request failed: ${describe(outcome.error)}`,
          { cause: outcome.error },
        ),
      };
    case "timeout":
      if (transport === "stdio") return { kind: "legacy" };
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "unreachable",
          `no answer to server/discover within ${outcome.ms} ms`,
        ),
      };
    case "closed":
      return {
        kind: "error",
        error: new ProtocolNegotiationError(
          "closed",
          "the server closed the connection on server/discover",
        ),
      };
  }
}

function classifyRpcError(code: number, data: unknown): ProbeVerdict {
  if (code === MODERN_ERROR.unsupportedVersion && isObject(data)) {
    const supported = Array.isArray(data.supported) ? data.supported : [];
    const version = MODERN_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
    // The server names a modern revision we speak but refused ours: it
    // speaks the modern era, yet we sent it already; take it as legacy
    // only when no modern revision is named.
    if (version !== undefined) {
      return {
        kind: "modern",
        version,
        discover: {
          supportedVersions: supported.map(String),
          capabilities: {},
        },
      };
    }
  }
  return { kind: "legacy" };
}

function classifyHttpError(status: number, body: string): ProbeVerdict {
  if (status === 401 || status === 403) {
    return {
      kind: "error",
      error: new ProtocolNegotiationError(
        "refused",
        `the server answered server/discover with HTTP ${status}`,
      ),
    };
  }
  if (status >= 500) {
    return {
      kind: "error",
      error: new ProtocolNegotiationError(
        "server-error",
        `the server answered server/discover with HTTP ${status}`,
      ),
    };
  }
  const error = jsonRpcErrorIn(body);
  return error === undefined
    ? { kind: "legacy" }
    : classifyRpcError(error.code, error.data);
}

function jsonRpcErrorIn(
  body: string,
): { code: number; data?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (!isObject(parsed) || !isObject(parsed.error)) return undefined;
    const { code, data } = parsed.error;
    return typeof code === "number" ? { code, data } : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link EraClientTransport}. */
export interface EraClientOptions {
  /** The era: found out (default) or pinned. */
  readonly protocol?: ProtocolPreference;
  /** Which transport this is (stdio waits `probeTimeout` for silence). */
  readonly transport: "http" | "stdio";
  /**
   * Sends the probe by itself (HTTP: its own POST, to see the status);
   * absent, the probe goes over the inner transport.
   */
  readonly probe?: (
    request: JSONRPCRequest,
    signal: AbortSignal,
  ) => Promise<ProbeOutcome>;
  /** Drops a request in flight without sending anything (HTTP: aborts its stream). */
  readonly dropCall?: (id: string | number) => void;
  /** Where verdicts are kept; the process-wide memory store when absent. */
  readonly store?: EraStore;
  /** The server's key in the store (its URL, its command line). */
  readonly key: string;
  /** How long a stdio probe waits for an answer before taking silence as legacy, ms. */
  readonly probeTimeout?: number;
}

/** The default wait for a stdio server's answer to `server/discover`: 1.5 s. */
export const DEFAULT_PROBE_TIMEOUT = 1_500;

/** What a connection learnt of its server's era. */
export interface EraInfo {
  /** The era spoken. */
  readonly era: ProtocolEra;
  /** The protocol revision spoken. */
  readonly version: string;
  /** Whether the verdict came from the store (no probe was sent). */
  readonly cached: boolean;
}

type State =
  | { kind: "new" }
  | { kind: "probing" }
  | { kind: "legacy" }
  | { kind: "modern"; version: string; discover: DiscoverResult };

/** Tool lists a modern server allowed to keep for a while. */
interface CachedList {
  readonly result: Record<string, unknown>;
  readonly until: number;
}

const PROBE_ID_PREFIX = "weft-discover-";
const LISTEN_ID_PREFIX = "weft-listen-";
let sequence = 0;

/** See the module doc. */
export class EraClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #inner: Transport;
  readonly #options: EraClientOptions;
  readonly #closed = new AbortController();
  #state: State = { kind: "new" };
  #closedOnProbe = false;
  #info?: EraInfo;
  #envelope: Record<string, unknown> = {};
  #serverInfo?: { name: string; version: string };
  /** Answers to a probe sent over the inner transport, by id. */
  readonly #probes = new Map<string, (outcome: ProbeOutcome) => void>();
  /** A stdio probe that timed out: a modern answer arriving before `initialize`'s still wins. */
  #lateProbe?: {
    probeId: string;
    initId: string | number;
    initialize: JSONRPCRequest;
  };
  #listenId?: string;
  /** The ids of `tools/list` requests (first page) whose result may be kept. */
  readonly #listing = new Set<string | number>();
  #tools?: CachedList;

  /** Wraps `inner`. */
  constructor(inner: Transport, options: EraClientOptions) {
    this.#inner = inner;
    this.#options = options;
    inner.onmessage = (message) => this.#receive(message);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.#closed.abort(new Error("the connection closed"));
      if (this.#state.kind === "probing") this.#closedOnProbe = true;
      for (const resolve of this.#probes.values()) resolve({ kind: "closed" });
      this.#probes.clear();
      this.onclose?.();
    };
  }

  /** Whether the server closed the connection while the probe waited (a stdio server that exits on it). */
  get closedOnProbe(): boolean {
    return this.#closedOnProbe;
  }

  /** The era spoken, once the handshake is done. */
  get era(): EraInfo | undefined {
    return this.#info;
  }

  /** The server's name and version: from the latest modern result's `_meta`. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.#serverInfo;
  }

  /** The inner transport's session id, if any (legacy HTTP). */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    if (this.#state.kind !== "modern") {
      this.#inner.setProtocolVersion?.(version);
    }
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    const m = message as Record<string, unknown>;
    if (this.#state.kind === "new" && m.method === "initialize" && "id" in m) {
      return await this.#handshake(message as JSONRPCRequest, options);
    }
    if (this.#state.kind !== "modern") {
      return await this.#inner.send(message, options);
    }
    return await this.#sendModern(m, message, options);
  }

  close(): Promise<void> {
    this.#closed.abort(new Error("the client closed"));
    return this.#inner.close();
  }

  async #handshake(
    initialize: JSONRPCRequest,
    options: TransportSendOptions | undefined,
  ): Promise<void> {
    const params = isObject(initialize.params) ? initialize.params : {};
    this.#envelope = {
      [META.protocolVersion]: MODERN_PROTOCOL_VERSIONS[0],
      [META.clientCapabilities]: isObject(params.capabilities)
        ? params.capabilities
        : {},
      ...(isObject(params.clientInfo)
        ? { [META.clientInfo]: params.clientInfo }
        : {}),
    };
    const preference = this.#options.protocol ?? "auto";
    if (preference === "legacy") {
      return this.#goLegacy(initialize, options, false);
    }
    const store = this.#options.store;
    const cached = await readVerdict(store, this.#options.key);
    if (cached?.era === "legacy" && preference === "auto") {
      return this.#goLegacy(initialize, options, true);
    }
    if (cached?.era === "modern" && cached.discover !== undefined) {
      const discover = parseDiscoverResult(cached.discover);
      if (discover !== undefined && isModernVersion(cached.version)) {
        return this.#goModern(initialize, cached.version, discover, true);
      }
    }
    this.#state = { kind: "probing" };
    const probeId = `${PROBE_ID_PREFIX}${++sequence}`;
    const request: JSONRPCRequest = {
      jsonrpc: "2.0",
      id: probeId,
      method: "server/discover",
      params: { _meta: { ...this.#envelope } },
    };
    const outcome = await this.#probe(request);
    const verdict = classifyProbe(outcome, this.#options.transport);
    if (verdict.kind === "error") throw verdict.error;
    if (verdict.kind === "modern") {
      await writeVerdict(store, this.#options.key, {
        era: "modern",
        version: verdict.version,
        discover: discoverToStore(verdict.discover),
      });
      return this.#goModern(
        initialize,
        verdict.version,
        verdict.discover,
        false,
      );
    }
    if (preference === "modern") {
      throw new ProtocolNegotiationError(
        "not-modern",
        `the server does not speak ${
          MODERN_PROTOCOL_VERSIONS[0]
        } (protocol is pinned to "modern")`,
      );
    }
    if (outcome.kind === "timeout") {
      this.#lateProbe = { probeId, initId: initialize.id, initialize };
      this.#probes.set(probeId, (late) => this.#lateAnswer(late));
    } else {
      await writeVerdict(store, this.#options.key, { era: "legacy" });
    }
    return this.#goLegacy(initialize, options, false);
  }

  #probe(request: JSONRPCRequest): Promise<ProbeOutcome> {
    const signal = this.#closed.signal;
    if (this.#options.probe !== undefined) {
      return this.#options.probe(request, signal);
    }
    const ms = this.#options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT;
    return new Promise<ProbeOutcome>((resolve) => {
      const id = String(request.id);
      const timer = setTimeout(() => {
        this.#probes.delete(id);
        resolve({ kind: "timeout", ms });
      }, ms);
      this.#probes.set(id, (outcome) => {
        clearTimeout(timer);
        this.#probes.delete(id);
        resolve(outcome);
      });
      this.#inner.send(request).catch((error) => {
        this.#probes.get(id)?.({ kind: "network-error", error });
      });
    });
  }

  async #goLegacy(
    initialize: JSONRPCRequest,
    options: TransportSendOptions | undefined,
    cached: boolean,
  ): Promise<void> {
    this.#state = { kind: "legacy" };
    const params = isObject(initialize.params) ? initialize.params : {};
    this.#info = {
      era: "legacy",
      version: typeof params.protocolVersion === "string"
        ? params.protocolVersion
        : "",
      cached,
    };
    await this.#inner.send(initialize, options);
  }

  #goModern(
    initialize: JSONRPCRequest,
    version: string,
    discover: DiscoverResult,
    cached: boolean,
  ): void {
    this.#state = { kind: "modern", version, discover };
    this.#envelope[META.protocolVersion] = version;
    this.#info = { era: "modern", version, cached };
    this.#serverInfo = discover.serverInfo;
    const params = isObject(initialize.params) ? initialize.params : {};
    // The v1 Client accepts only its own revisions: it gets the one it
    // asked for; the real one is `era.version`.
    const result = {
      protocolVersion: params.protocolVersion,
      capabilities: discover.capabilities,
      serverInfo: discover.serverInfo ?? { name: "", version: "" },
      ...(discover.instructions === undefined
        ? {}
        : { instructions: discover.instructions }),
    };
    const id = initialize.id;
    queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id, result }));
  }

  // A stdio probe answered after its wait, while `initialize` is pending.
  #lateAnswer(outcome: ProbeOutcome): void {
    const late = this.#lateProbe;
    this.#lateProbe = undefined;
    if (late === undefined || this.#state.kind !== "legacy") return;
    const verdict = classifyProbe(outcome, this.#options.transport);
    if (verdict.kind !== "modern") return;
    // The initialize answer still to come is dropped (its id is marked).
    this.#dropId = late.initId;
    this.#goModern(late.initialize, verdict.version, verdict.discover, false);
    void writeVerdict(this.#options.store, this.#options.key, {
      era: "modern",
      version: verdict.version,
      discover: discoverToStore(verdict.discover),
    }).catch(() => {});
  }

  #dropId?: string | number;

  async #sendModern(
    m: Record<string, unknown>,
    message: JSONRPCMessage,
    options: TransportSendOptions | undefined,
  ): Promise<void> {
    if (m.method === "notifications/initialized") {
      this.#listen();
      return;
    }
    if (m.method === "notifications/cancelled") {
      const params = isObject(m.params) ? m.params : {};
      const id = params.requestId;
      if (
        this.#options.dropCall !== undefined &&
        (typeof id === "string" || typeof id === "number")
      ) {
        // Closing the request's stream is the modern cancellation.
        this.#options.dropCall(id);
        return;
      }
    }
    if (typeof m.method !== "string" || !("id" in m)) {
      return await this.#inner.send(message, options);
    }
    const id = m.id as string | number;
    const params = isObject(m.params) ? m.params : {};
    if (m.method === "tools/list" && params.cursor === undefined) {
      const kept = this.#tools;
      if (kept !== undefined && kept.until > Date.now()) {
        queueMicrotask(() =>
          this.onmessage?.({ jsonrpc: "2.0", id, result: kept.result })
        );
        return;
      }
      this.#listing.add(id);
    }
    await this.#inner.send(this.#enveloped(m), options);
  }

  #enveloped(m: Record<string, unknown>): JSONRPCMessage {
    const params = isObject(m.params) ? m.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    return {
      ...m,
      params: { ...params, _meta: { ...meta, ...this.#envelope } },
    } as JSONRPCMessage;
  }

  // Tool-list changes come through a `subscriptions/listen` request that
  // stays open (an SSE stream on HTTP, the shared channel on stdio).
  #listen(): void {
    const state = this.#state;
    if (state.kind !== "modern") return;
    const tools = state.discover.capabilities.tools;
    if (!isObject(tools) || tools.listChanged !== true) return;
    const id = `${LISTEN_ID_PREFIX}${++sequence}`;
    this.#listenId = id;
    const request = {
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true } },
    };
    this.#inner.send(this.#enveloped(request)).catch((error) => {
      if (!this.#closed.signal.aborted) this.onerror?.(asError(error));
    });
  }

  #receive(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = m.id;
    const isResponse = !("method" in m) && ("result" in m || "error" in m);
    if (isResponse && (typeof id === "string" || typeof id === "number")) {
      const probe = this.#probes.get(String(id));
      if (probe !== undefined && typeof id === "string") {
        probe(outcomeOf(m));
        return;
      }
      if (id === this.#listenId) return; // the listen ended; nothing waits on it
      if (this.#dropId !== undefined && id === this.#dropId) {
        this.#dropId = undefined;
        return;
      }
      if (this.#lateProbe !== undefined && id === this.#lateProbe.initId) {
        // `initialize` answered first: legacy it is.
        this.#probes.delete(this.#lateProbe.probeId);
        this.#lateProbe = undefined;
        void writeVerdict(this.#options.store, this.#options.key, {
          era: "legacy",
        }).catch(() => {});
      }
      if (this.#state.kind === "modern") this.#noteResult(id, m.result);
    } else if (this.#state.kind === "modern") {
      if (m.method === "notifications/subscriptions/acknowledged") return;
      if (m.method === "notifications/tools/list_changed") {
        this.#tools = undefined;
      }
    }
    this.onmessage?.(message);
  }

  #noteResult(id: string | number, result: unknown): void {
    const listing = this.#listing.delete(id);
    if (!isObject(result)) return;
    const meta = isObject(result._meta) ? result._meta : undefined;
    const info = meta === undefined
      ? undefined
      : implementationOf(meta[META.serverInfo]);
    if (info !== undefined) this.#serverInfo = info;
    const ttl = result.ttlMs;
    if (
      listing && typeof ttl === "number" && ttl > 0 &&
      result.nextCursor === undefined
    ) {
      this.#tools = { result, until: Date.now() + Math.min(ttl, MAX_TTL) };
    }
  }
}

/** The longest a kept list is believed, whatever `ttlMs` says: 1 hour. */
const MAX_TTL = 3_600_000;

function outcomeOf(m: Record<string, unknown>): ProbeOutcome {
  if ("result" in m) return { kind: "result", result: m.result };
  const error = isObject(m.error) ? m.error : {};
  return {
    kind: "rpc-error",
    code: typeof error.code === "number" ? error.code : 0,
    message: typeof error.message === "string" ? error.message : "",
    data: error.data,
  };
}

function discoverToStore(discover: DiscoverResult): Record<string, unknown> {
  return {
    supportedVersions: [...discover.supportedVersions],
    capabilities: discover.capabilities,
    ...(discover.serverInfo === undefined
      ? {}
      : { serverInfo: discover.serverInfo }),
    ...(discover.instructions === undefined
      ? {}
      : { instructions: discover.instructions }),
  };
}

function implementationOf(
  value: unknown,
): { name: string; version: string } | undefined {
  if (!isObject(value) || typeof value.name !== "string") return undefined;
  return {
    ...value,
    name: value.name,
    version: typeof value.version === "string" ? value.version : "",
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
