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
 * This file is that negotiation; the connection once modern is
 * `_modern_session.ts`, a probe over the inner transport `_inner_probes.ts`.
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
  isObject,
  ownRequestId,
  parseDiscoverResult,
  type ProbeOutcome,
  ProtocolNegotiationError,
  type ProtocolPreference,
} from "./era_probe.ts";
import {
  discoverToStore,
  type EraStore,
  forgetVerdict,
  readVerdict,
  writeVerdict,
} from "./era_store.ts";
import { type ModernConnection, ModernSession } from "./_modern_session.ts";
import { InnerProbes } from "./_inner_probes.ts";

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
  | { kind: "modern"; session: ModernSession };

const PROBE_ID_PREFIX = "weft-discover-";

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
  /** The probes sent over the inner transport. */
  readonly #probes = new InnerProbes();
  /** A stdio probe that timed out: a modern answer arriving before `initialize`'s still wins. */
  #lateProbe?: {
    probeId: string;
    initId: string | number;
    initialize: JSONRPCRequest;
  };
  /** The id of the `initialize` a late modern answer overtook: its answer is dropped. */
  #dropId?: string | number;
  /** The `initialize` sent on a kept legacy verdict, until it is answered. */
  #recheck?: JSONRPCRequest;

  /** Wraps `inner`. */
  constructor(inner: Transport, options: EraClientOptions) {
    this.#inner = inner;
    this.#options = options;
    inner.onmessage = (message) => this.#receive(message);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.#closed.abort(new Error("the connection closed"));
      this.#probes.close();
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
    return this.#state.kind === "modern"
      ? this.#state.session.serverInfo
      : undefined;
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
    return await this.#state.session.send(m, message, options);
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
    const probeId = ownRequestId(PROBE_ID_PREFIX);
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
      this.#probes.waitLate(probeId, (late) => this.#lateAnswer(late));
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
    if (this.#options.probe !== undefined) {
      return this.#options.probe(request, this.#closed.signal);
    }
    const ms = this.#options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT;
    return this.#probes.send(
      this.#inner,
      request,
      silenceIsLegacy ? ms : undefined,
    );
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
    const session = new ModernSession(this.#connection(), {
      envelope: this.#envelope,
      version,
      discover,
      cached,
    });
    this.#state = { kind: "modern", session };
    this.#info = { era: "modern", version, cached };
    const answer = session.answerToInitialize(initialize);
    queueMicrotask(() => this.onmessage?.(answer));
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

  // What the modern session uses of this connection.
  #connection(): ModernConnection {
    return {
      inner: this.#inner,
      dropCall: this.#options.dropCall,
      deliver: (message) => this.onmessage?.(message),
      fail: (error) => {
        if (!this.#closed.signal.aborted) this.onerror?.(asError(error));
      },
      forgetVerdict: () =>
        void forgetVerdict(this.#options.store, this.#options.key),
    };
  }

  #receive(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = m.id;
    const isResponse = !("method" in m) && ("result" in m || "error" in m);
    const answers =
      isResponse && (typeof id === "string" || typeof id === "number")
        ? id
        : undefined;
    if (answers !== undefined && this.#answersHandshake(m, answers, message)) {
      return;
    }
    const state = this.#state;
    if (state.kind === "modern" && state.session.receive(m, answers)) return;
    this.onmessage?.(message);
  }

  // A response `m` (to `id`) the negotiation waits for: a probe's answer,
  // the answer to an `initialize` sent on a kept legacy verdict, or to one
  // a late probe overtook. Returns whether it ends here.
  #answersHandshake(
    m: Record<string, unknown>,
    id: string | number,
    message: JSONRPCMessage,
  ): boolean {
    if (this.#probes.answer(m, id)) return true;
    if (this.#recheck !== undefined && id === this.#recheck.id) {
      const initialize = this.#recheck;
      this.#recheck = undefined;
      if ("error" in m) {
        // The kept legacy verdict is refuted: probe; legacy after all
        // means the error stands.
        this.#probeAndGo(initialize, undefined, "auto", { error: m.error })
          .catch(() => this.onmessage?.(message));
        return true;
      }
    }
    if (this.#dropId !== undefined && id === this.#dropId) {
      this.#dropId = undefined;
      return true;
    }
    if (this.#lateProbe !== undefined && id === this.#lateProbe.initId) {
      const late = this.#lateProbe;
      this.#probes.forget(late.probeId);
      this.#lateProbe = undefined;
      if ("error" in m) {
        // The handshake refused after the probe went unanswered: a
        // modern-only server that was still starting (it lost the probe,
        // then refused `initialize`). Ask again, waiting for the answer;
        // anything but a modern one and the refusal stands.
        this.#probeAndGo(late.initialize, undefined, "modern")
          .catch(() => this.onmessage?.(message));
        return true;
      }
      // `initialize` answered first: legacy it is.
      void writeVerdict(this.#options.store, this.#options.key, {
        era: "legacy",
      }).catch(() => {
        // Nothing lost: the verdict is a cache; the next connection probes again.
      });
    }
    return false;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
