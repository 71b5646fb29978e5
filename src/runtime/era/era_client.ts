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
  MODERN_PROTOCOL_VERSIONS,
  type ProtocolEra,
} from "./era.ts";

export {
  classifyProbe,
  type DiscoverResult,
  parseDiscoverResult,
  type ProbeOutcome,
  type ProbeVerdict,
  ProtocolNegotiationError,
  type ProtocolPreference,
} from "./era_probe.ts";
import {
  classifyProbe,
  type DiscoverResult,
  implementationOf,
  isObject,
  parseDiscoverResult,
  type ProbeOutcome,
  ProtocolNegotiationError,
  type ProtocolPreference,
} from "./era_probe.ts";
import {
  type EraStore,
  forgetVerdict,
  readVerdict,
  writeVerdict,
} from "./era_store.ts";

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

/**
 * What a connection learnt of its server's era: `McpClient.getProtocolEra()`.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example The era of a weft server
 * ```ts
 * import { connectHttp, httpHandler, Server } from "@weft/mcp";
 * import { type EraInfo, memoryEraStore } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const http = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   httpHandler(() => new Server({ name: "demo", version: "1.0.0" })),
 * );
 * const url = `http://127.0.0.1:${http.addr.port}/mcp`;
 * await using client = await connectHttp(url, { eraStore: memoryEraStore() });
 * const era: EraInfo | undefined = client.getProtocolEra();
 * assert.equal(era?.cached, false);
 * assert.ok(era?.era === "modern" || era?.era === "legacy");
 * await client.close();
 * await http.shutdown();
 * ```
 */
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
      for (const resolve of this.#probes.values()) resolve({ kind: "closed" });
      this.#probes.clear();
      this.onclose?.();
    };
  }

  /** The era spoken, once the handshake is done. */
  get era(): EraInfo | undefined {
    return this.#info;
  }

  /** Which transport this wraps, and the server's key (its URL, its command line): what tracing reports of the peer. */
  get peer(): { transport: "http" | "stdio"; key: string } {
    return { transport: this.#options.transport, key: this.#options.key };
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
      try {
        return await this.#goLegacy(initialize, options, true);
      } catch (error) {
        // A kept verdict the server refutes (it moved to the modern era,
        // or the address serves another server now): find out again.
        if (this.#closed.signal.aborted) throw error;
        return await this.#probeAndGo(initialize, options, preference, {
          error,
        });
      }
    }
    // A kept modern verdict spares an HTTP server the probe. A stdio server
    // is asked anyway: its answer is the one sign that the process just
    // started is alive (a modern connect has no other round trip), and a
    // local pipe's round trip costs little next to the start; a kept legacy
    // verdict still spares it the wait for silence.
    if (
      cached?.era === "modern" && cached.discover !== undefined &&
      this.#options.transport === "http"
    ) {
      const discover = parseDiscoverResult(cached.discover);
      if (discover !== undefined && isModernVersion(cached.version)) {
        this.#unconfirmed = true;
        return this.#goModern(initialize, cached.version, discover, true);
      }
    }
    return await this.#probeAndGo(initialize, options, preference);
  }

  // Sends the probe and goes the way its verdict says. `contradicted` is
  // the failure of a kept legacy verdict: rethrown when legacy it stays.
  async #probeAndGo(
    initialize: JSONRPCRequest,
    options: TransportSendOptions | undefined,
    preference: ProtocolPreference,
    contradicted?: { error: unknown },
  ): Promise<void> {
    const store = this.#options.store;
    this.#state = { kind: "probing" };
    const probeId = `${PROBE_ID_PREFIX}${++sequence}`;
    const request: JSONRPCRequest = {
      jsonrpc: "2.0",
      id: probeId,
      method: "server/discover",
      params: { _meta: { ...this.#envelope } },
    };
    // Pinned to the modern era, silence is no evidence of the legacy one:
    // the probe waits for its answer (the connect's own deadline bounds it).
    const outcome = await this.#probe(request, preference !== "modern");
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
    if (contradicted !== undefined) throw contradicted.error;
    return this.#goLegacy(initialize, options, false);
  }

  #probe(
    request: JSONRPCRequest,
    silenceIsLegacy: boolean,
  ): Promise<ProbeOutcome> {
    const signal = this.#closed.signal;
    if (this.#options.probe !== undefined) {
      return this.#options.probe(request, signal);
    }
    const ms = this.#options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT;
    return new Promise<ProbeOutcome>((resolve) => {
      const id = String(request.id);
      const timer = silenceIsLegacy
        ? setTimeout(() => {
          this.#probes.delete(id);
          resolve({ kind: "timeout", ms });
        }, ms)
        : undefined;
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
    if (cached) this.#recheck = initialize;
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
    }).catch(() => {
      // Nothing lost: the verdict is a cache; the next connection probes again.
    });
  }

  #dropId?: string | number;
  /** The `initialize` sent on a kept legacy verdict, until it is answered. */
  #recheck?: JSONRPCRequest;
  /** A kept modern verdict no result has confirmed yet: a failure forgets it. */
  #unconfirmed = false;

  #forgetUnconfirmed(): void {
    if (!this.#unconfirmed) return;
    this.#unconfirmed = false;
    void forgetVerdict(this.#options.store, this.#options.key);
  }

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
    try {
      await this.#inner.send(this.#enveloped(m), options);
    } catch (error) {
      this.#forgetUnconfirmed();
      throw error;
    }
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
      if (this.#recheck !== undefined && id === this.#recheck.id) {
        const initialize = this.#recheck;
        this.#recheck = undefined;
        if ("error" in m) {
          // The kept legacy verdict is refuted: probe; legacy after all
          // means the error stands.
          this.#probeAndGo(initialize, undefined, "auto", { error: m.error })
            .catch(() => this.onmessage?.(message));
          return;
        }
      }
      if (this.#dropId !== undefined && id === this.#dropId) {
        this.#dropId = undefined;
        return;
      }
      if (this.#lateProbe !== undefined && id === this.#lateProbe.initId) {
        const late = this.#lateProbe;
        this.#probes.delete(late.probeId);
        this.#lateProbe = undefined;
        if ("error" in m) {
          // The handshake refused after the probe went unanswered: a
          // modern-only server that was still starting (it lost the probe,
          // then refused `initialize`). Ask again, waiting for the answer;
          // anything but a modern one and the refusal stands.
          this.#probeAndGo(late.initialize, undefined, "modern")
            .catch(() => this.onmessage?.(message));
          return;
        }
        // `initialize` answered first: legacy it is.
        void writeVerdict(this.#options.store, this.#options.key, {
          era: "legacy",
        }).catch(() => {
          // Nothing lost: the verdict is a cache; the next connection probes again.
        });
      }
      if (this.#state.kind === "modern") {
        if ("error" in m) this.#forgetUnconfirmed();
        else this.#unconfirmed = false;
        this.#noteResult(id, m.result);
      }
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

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
