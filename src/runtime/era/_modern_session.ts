/**
 * A client connection once it speaks the 2026-07-28 era: every request
 * sent with the `_meta` envelope, a cancellation sent as the dropping of
 * its request, the `subscriptions/listen` request that brings tool-list
 * changes, the tool list a server lets the client keep for a while, and
 * the server's info as each result gives it. The negotiation that leads
 * here is `EraClientTransport`'s (era_client.ts).
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
import { META } from "./era.ts";
import {
  type DiscoverResult,
  implementationOf,
  isObject,
  ownRequestId,
} from "./era_probe.ts";

/** What a {@link ModernSession} uses of the connection it belongs to. */
export interface ModernConnection {
  /** The transport requests go out on. */
  readonly inner: Transport;
  /** Drops a request in flight without sending anything (HTTP: aborts its stream). */
  readonly dropCall?: (id: string | number) => void;
  /** Hands a message to the `Client`. */
  deliver(message: JSONRPCMessage): void;
  /** Reports a failure of the connection's own (unless it is closing). */
  fail(error: unknown): void;
  /** Forgets the kept modern verdict (the server refuted it). */
  forgetVerdict(): void;
}

/** What the negotiation settled on. */
export interface ModernTerms {
  /** The envelope every request carries (its protocol version set here). */
  readonly envelope: Record<string, unknown>;
  /** The protocol revision spoken. */
  readonly version: string;
  /** The server's answer to `server/discover` (kept or fresh). */
  readonly discover: DiscoverResult;
  /** Whether the verdict came from the store: unconfirmed until a result comes. */
  readonly cached: boolean;
}

/** A tool list a modern server allowed the client to keep for a while. */
interface CachedList {
  readonly result: Record<string, unknown>;
  readonly until: number;
}

/** The longest a kept list is believed, whatever `ttlMs` says: 1 hour. */
const MAX_TTL = 3_600_000;

const LISTEN_ID_PREFIX = "weft-listen-";

/** See the module doc. */
export class ModernSession {
  readonly #connection: ModernConnection;
  readonly #envelope: Record<string, unknown>;
  readonly #discover: DiscoverResult;
  #serverInfo: { name: string; version: string } | undefined;
  /** A kept modern verdict no result has confirmed yet: a failure forgets it. */
  #unconfirmed: boolean;
  #listenId?: string;
  /** The ids of `tools/list` requests (first page) whose result may be kept. */
  readonly #listing = new Set<string | number>();
  #tools?: CachedList;

  /** Begins the session on `connection` with the `terms` negotiated. */
  constructor(connection: ModernConnection, terms: ModernTerms) {
    this.#connection = connection;
    this.#envelope = terms.envelope;
    this.#envelope[META.protocolVersion] = terms.version;
    this.#discover = terms.discover;
    this.#serverInfo = terms.discover.serverInfo;
    this.#unconfirmed = terms.cached;
  }

  /** The server's name and version: from the latest result's `_meta`. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.#serverInfo;
  }

  /**
   * The answer the `Client`'s `initialize` gets in the modern era, made
   * from the server's `server/discover` answer. The v1 `Client` accepts
   * only its own revisions: it gets the one it asked for; the real one is
   * the connection's `era.version`.
   */
  answerToInitialize(initialize: JSONRPCRequest): JSONRPCMessage {
    const discover = this.#discover;
    const params = isObject(initialize.params) ? initialize.params : {};
    const result = {
      protocolVersion: params.protocolVersion,
      capabilities: discover.capabilities,
      serverInfo: discover.serverInfo ?? { name: "", version: "" },
      ...(discover.instructions === undefined
        ? {}
        : { instructions: discover.instructions }),
    };
    return { jsonrpc: "2.0", id: initialize.id, result } as JSONRPCMessage;
  }

  /** Sends `m` (the `Client`'s `message`) the modern way. */
  async send(
    m: Record<string, unknown>,
    message: JSONRPCMessage,
    options: TransportSendOptions | undefined,
  ): Promise<void> {
    const connection = this.#connection;
    if (m.method === "notifications/initialized") {
      this.#listen();
      return;
    }
    if (m.method === "notifications/cancelled") {
      const params = isObject(m.params) ? m.params : {};
      const id = params.requestId;
      if (
        connection.dropCall !== undefined &&
        (typeof id === "string" || typeof id === "number")
      ) {
        // Closing the request's stream is the modern cancellation.
        connection.dropCall(id);
        return;
      }
    }
    if (typeof m.method !== "string" || !("id" in m)) {
      return await connection.inner.send(message, options);
    }
    const id = m.id as string | number;
    const params = isObject(m.params) ? m.params : {};
    if (m.method === "tools/list" && params.cursor === undefined) {
      const kept = this.#tools;
      if (kept !== undefined && kept.until > Date.now()) {
        queueMicrotask(() =>
          connection.deliver({ jsonrpc: "2.0", id, result: kept.result })
        );
        return;
      }
      this.#listing.add(id);
    }
    try {
      await connection.inner.send(this.#enveloped(m), options);
    } catch (error) {
      this.#forgetUnconfirmed();
      throw error;
    }
  }

  /**
   * Notes what the server's message `m` tells (`responseId`: the id it
   * answers, when it is a response); returns whether it ends here instead
   * of reaching the `Client`.
   */
  receive(
    m: Record<string, unknown>,
    responseId: string | number | undefined,
  ): boolean {
    if (responseId !== undefined) {
      if (responseId === this.#listenId) return true; // the listen ended; nothing waits on it
      if ("error" in m) this.#forgetUnconfirmed();
      else this.#unconfirmed = false;
      this.#noteResult(responseId, m.result);
      return false;
    }
    if (m.method === "notifications/subscriptions/acknowledged") return true;
    if (m.method === "notifications/tools/list_changed") {
      this.#tools = undefined;
    }
    return false;
  }

  #forgetUnconfirmed(): void {
    if (!this.#unconfirmed) return;
    this.#unconfirmed = false;
    this.#connection.forgetVerdict();
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
    const tools = this.#discover.capabilities.tools;
    if (!isObject(tools) || tools.listChanged !== true) return;
    const id = ownRequestId(LISTEN_ID_PREFIX);
    this.#listenId = id;
    const request = {
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true } },
    };
    const connection = this.#connection;
    connection.inner.send(this.#enveloped(request)).catch((error) =>
      connection.fail(error)
    );
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
