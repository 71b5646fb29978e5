/**
 * The modern era (2026-07-28) on the server side, at the message level: a
 * transport in front of the one an SDK `Server` (v1) is connected to, which
 * lets that server answer modern requests it knows nothing of. A modern
 * request (its `params._meta` names a modern protocol version) needs no
 * `initialize`: before the server sees it, an internal `initialize`
 * carrying the request's client capabilities and info is handed to the
 * server (its answer is kept, never sent). `server/discover` and
 * `subscriptions/listen` are answered here (a listen's `resourceSubscriptions`
 * subscribed on the server by internal `resources/subscribe` requests, its
 * updates delivered to the listens that named the URI); modern results are stamped
 * (`resultType`, the server's info in `_meta`, cache hints on cacheable
 * results); a server-to-client request the caller did not declare the
 * capability for answers the modern request with `-32021`. Every other
 * message passes through untouched, so a legacy client on the same
 * transport sees today's behaviour exactly.
 *
 * Shared by the HTTP handler (one per modern request) and `serveStdio`
 * (one per connection, both eras on it). This file routes messages; the
 * jobs it routes to are in their own files: the envelope and stamping
 * (`envelope.ts`), cache hints (`cache_hints.ts`), listens (`listen.ts`),
 * the internal requests (`_internal_requests.ts`) and the client
 * capability check (`_client_capabilities.ts`).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport";
import { META, MODERN_PROTOCOL_VERSIONS } from "./era.ts";
import { isObject } from "./era_probe.ts";
import type { ResolvedCacheHints } from "./cache_hints.ts";
import {
  discoverResult,
  type InitMemo,
  metaOf,
  modernVersionOf,
  type ServerFacts,
  stampResult,
  unsupportedVersionError,
} from "./envelope.ts";
import {
  honoredListChanges,
  isListChanged,
  listenResult,
  Listens,
  RESOURCE_UPDATED,
} from "./listen.ts";
import { InternalRequests } from "./_internal_requests.ts";
import { missingCapabilityError } from "./_client_capabilities.ts";

type RequestId = string | number;
type Json = Record<string, unknown>;

/** A modern request the server is handling. */
interface Pending {
  readonly method: string;
  readonly capabilities: Json;
  /** Answered already (with `-32021`): the server's own answer is dropped. */
  answered: boolean;
}

/** Options of {@link EraTransport}. */
export interface EraTransportOptions {
  /** The cache hints stamped on cacheable results. */
  readonly cacheHints: ResolvedCacheHints;
  /**
   * The id the client gave a request the server sees under `id` (the HTTP
   * transport gives the server ids of its own). Default: `id` itself.
   */
  readonly clientId?: (id: RequestId) => RequestId;
  /** Told when a `subscriptions/listen` opened on this transport. */
  readonly onListen?: () => void;
  /**
   * Whether everything on this transport comes from one client (stdio):
   * then a request the server sends outside a handler's context
   * (`server.listRoots()`) belongs to the one modern request in flight.
   * Where a pooled server moves from caller to caller (HTTP), such a
   * request may come from a handler whose call was answered and must not
   * reach the next caller: it fails at once. Default false.
   */
  readonly oneClient?: boolean;
  /**
   * What the server was last initialized with, kept across transports
   * (one per server a pool reuses): a server already initialized with the
   * same client capabilities and info is not initialized again.
   */
  readonly memo?: InitMemo;
}

/**
 * A transport in front of `inner` serving both eras to the server connected
 * to it: modern requests are answered without a client `initialize`,
 * everything legacy passes through unchanged.
 */
export class EraTransport implements Transport {
  /** Set by the server on connect. */
  onmessage?: Transport["onmessage"];
  /** Set by the server on connect. */
  onclose?: () => void;
  /** Set by the server on connect. */
  onerror?: (error: Error) => void;

  readonly #inner: Transport;
  readonly #options: EraTransportOptions;
  /** The internal `initialize` and `resources/subscribe` handed to the server. */
  readonly #internal: InternalRequests;
  readonly #pending = new Map<RequestId, Pending>();
  /** The open `subscriptions/listen`, made at the first one. */
  #listens?: Listens;
  /** A client sent its own `initialize`: list changes go to it as they are. */
  #legacyClient = false;

  /** Serves both eras over `inner`. */
  constructor(inner: Transport, options: EraTransportOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#internal = new InternalRequests(this, options.memo ?? {});
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => {
      this.#listens?.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  /** The inner transport's session id (legacy sessions). */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Whether a `subscriptions/listen` is open on this transport. */
  get listening(): boolean {
    return this.#listens !== undefined && this.#listens.size > 0;
  }

  /** Starts the inner transport. */
  start(): Promise<void> {
    return this.#inner.start();
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.#inner.close();
  }

  /**
   * Delivers a list-change notification (`notifications/tools/list_changed`,
   * …) to this transport's open subscriptions that asked for it.
   */
  async notify(method: string): Promise<void> {
    if (this.#listens !== undefined) await this.#listens.notify(method);
  }

  /**
   * Ends every open `subscriptions/listen` gracefully: each gets its empty
   * result (`resultType: "complete"`, its `subscriptionId` and the
   * server's info in `_meta`), which a client reads as the server ending
   * it on purpose (shutting down), not as a lost connection. With `error`,
   * each gets that JSON-RPC error instead (the stream could not go on).
   */
  async endListens(
    error?: { readonly code: number; readonly message: string },
  ): Promise<void> {
    const facts = await this.#internal.facts();
    if (this.#listens !== undefined) await this.#listens.end(facts, error);
  }

  /** A server message, on its way to the client. */
  async send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    if ("method" in message) {
      if ("id" in message) return this.#sendRequest(message, options);
      if (isListChanged(message.method)) {
        await this.notify(message.method);
        if (!this.#legacyClient) return;
      } else if (message.method === RESOURCE_UPDATED) {
        await this.#listens?.notifyUpdated(message.params?.uri);
        if (!this.#legacyClient) return;
      }
      return this.#inner.send(message, options);
    }
    const id = (message as { id?: RequestId }).id;
    if (id === undefined) return this.#inner.send(message, options);
    if (this.#internal.take(id, message)) return;
    const pending = this.#pending.get(id);
    if (pending === undefined) return this.#inner.send(message, options);
    this.#pending.delete(id);
    if (pending.answered) return;
    if ("result" in message) {
      const facts = await this.#internal.facts();
      if (facts === undefined) return this.#inner.send(message, options);
      const result = this.#stamp(pending.method, message.result, facts);
      return this.#inner.send(
        { ...message, result } as JSONRPCMessage,
        options,
      );
    }
    return this.#inner.send(message, options);
  }

  // A server-to-client request: refused with -32021 when its modern
  // request's caller did not declare the capability it needs.
  #sendRequest(
    message: JSONRPCMessage & {
      method: string;
      id: RequestId;
      params?: unknown;
    },
    options: TransportSendOptions | undefined,
  ): Promise<void> {
    // A request sent outside a handler's context (`server.listRoots()`)
    // names no request: it belongs to the one modern request in flight.
    let related = options?.relatedRequestId;
    if (related === undefined && !this.#legacyClient) {
      if (this.#options.oneClient !== true) {
        // No request carries it: it may come from a handler whose call was
        // answered, and must not reach the caller now on this server.
        const error = {
          code: -32603,
          message:
            "a request sent outside a call's handler reaches no client here: send it from the handler's context",
        };
        queueMicrotask(() =>
          this.onmessage?.({ jsonrpc: "2.0", id: message.id, error })
        );
        return Promise.resolve();
      }
      if (this.#pending.size === 1) related = this.#pending.keys().next().value;
    }
    const pending = related === undefined
      ? undefined
      : this.#pending.get(related);
    const error = pending === undefined
      ? undefined
      : missingCapabilityError(pending, message);
    if (pending === undefined || related === undefined || error === undefined) {
      return this.#inner.send(message, options);
    }
    // The server's own request fails at once; the caller gets -32021.
    queueMicrotask(() =>
      this.onmessage?.({ jsonrpc: "2.0", id: message.id, error })
    );
    if (pending.answered) return Promise.resolve();
    pending.answered = true;
    return this.#inner.send(
      { jsonrpc: "2.0", id: related, error } as JSONRPCMessage,
      { relatedRequestId: related },
    );
  }

  // A client message, on its way to the server.
  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const isRequest = "method" in message && "id" in message;
    const version = isRequest ? modernVersionOf(message) : undefined;
    if (version === undefined) {
      if ("method" in message) {
        if (message.method === "initialize" && isRequest) {
          this.#legacyClient = true;
        } else if (message.method === "notifications/cancelled") {
          const id = (message.params as Json | undefined)?.requestId;
          if (this.#listens?.cancel(id as RequestId) === true) return;
        }
      }
      this.onmessage?.(message, extra);
      return;
    }
    const request = message as JSONRPCMessage & {
      method: string;
      id: RequestId;
    };
    const id = request.id;
    if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
      this.#reply(id, { error: unsupportedVersionError(version) });
      return;
    }
    const meta = metaOf(request) ?? {};
    switch (request.method) {
      case "server/discover":
        void this.#discover(id, meta);
        return;
      case "subscriptions/listen":
        void this.#listen(request, meta);
        return;
    }
    const declared = meta[META.clientCapabilities];
    this.#pending.set(id, {
      method: request.method,
      capabilities: isObject(declared) ? declared : {},
      answered: false,
    });
    void this.#internal.initialize(meta).catch(() => {
      // Nothing lost: the internal initialize reports its own failures; the request still goes on.
    });
    this.onmessage?.(message, extra);
  }

  #reply(id: RequestId, answer: { result: Json } | { error: Json }): void {
    this.#inner.send(
      { jsonrpc: "2.0", id, ...answer } as JSONRPCMessage,
      { relatedRequestId: id },
    ).catch((error) => this.onerror?.(error));
  }

  #stamp(method: string, result: unknown, facts: ServerFacts): Json {
    return stampResult(method, result, facts, this.#options.cacheHints);
  }

  // The server's facts for this envelope, or undefined once `id` was
  // answered with an internal error (its internal initialize failed).
  async #factsFor(id: RequestId, meta: Json): Promise<ServerFacts | undefined> {
    try {
      return await this.#internal.initialize(meta);
    } catch {
      this.#reply(id, { error: { code: -32603, message: "Internal error" } });
      return undefined;
    }
  }

  async #discover(id: RequestId, meta: Json): Promise<void> {
    const facts = await this.#factsFor(id, meta);
    if (facts === undefined) return;
    this.#reply(id, {
      result: discoverResult(facts, this.#options.cacheHints),
    });
  }

  async #listen(
    request: JSONRPCMessage & { id: RequestId },
    meta: Json,
  ): Promise<void> {
    const id = request.id;
    const filter = (request as { params?: Json }).params?.notifications;
    if (!isObject(filter)) {
      this.#reply(id, {
        error: {
          code: -32602,
          message:
            "Invalid params: subscriptions/listen needs a 'notifications' filter object",
        },
      });
      return;
    }
    const facts = await this.#factsFor(id, meta);
    if (facts === undefined) return;
    const honored = honoredListChanges(filter, facts);
    const uris = await this.#internal.subscribeResources(
      filter.resourceSubscriptions,
      facts,
    );
    if (uris.size > 0) honored.resourceSubscriptions = [...uris];
    const clientId = this.#options.clientId?.(id) ?? id;
    const delivers = Object.keys(honored).length > 0;
    // Subscribed before the ack leaves: a change the client causes once it
    // has the ack is delivered.
    if (delivers) {
      this.#listens ??= new Listens(this.#inner, this);
      this.#listens.open(id, { clientId, honored, uris });
    }
    await this.#inner.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: honored,
        _meta: { [META.subscriptionId]: clientId },
      },
    } as JSONRPCMessage, { relatedRequestId: id });
    if (!delivers) {
      // Nothing to deliver: the subscription ends at once, gracefully.
      this.#reply(id, { result: listenResult(clientId, facts) });
      return;
    }
    this.#options.onListen?.();
  }
}
