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
 * (one per connection, both eras on it).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport";
import {
  CACHEABLE_METHODS,
  isModernVersion,
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
} from "./era.ts";

/**
 * The cache hints a server puts on its cacheable modern results
 * (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`, `resources/read`, `server/discover`): how
 * long a client may reuse the result, and whether a shared cache may.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 *
 * @example Lists cached for a minute by each caller
 * ```ts
 * import type { CacheHints } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const hints: CacheHints = { ttlMs: 60_000, scope: "private" };
 * assert.equal(hints.scope, "private");
 * ```
 */
export interface CacheHints {
  /** How long the result may be reused, in ms (`ttlMs`). Default 0: not at all. */
  readonly ttlMs?: number;
  /**
   * `"private"` (default): only the caller may reuse it. `"public"`: any
   * cache may — say it only when the lists are the same for every caller.
   */
  readonly scope?: "public" | "private";
}

/** Cache hints with their defaults applied. */
export interface ResolvedCacheHints {
  /** `ttlMs` of cacheable results. */
  readonly ttlMs: number;
  /** `cacheScope` of cacheable results. */
  readonly scope: "public" | "private";
}

/**
 * The hints stamped on cacheable results: `hints` with the safe defaults
 * (no reuse, private). The scope is the caller's word only: how the server
 * factory is written never narrows or widens it. Throws a `TypeError`
 * naming `where` on a `ttlMs` that is not a non-negative safe integer or an
 * unknown scope.
 */
export function resolveCacheHints(
  hints: CacheHints | undefined,
  where: string,
): ResolvedCacheHints {
  const ttlMs = hints?.ttlMs ?? 0;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    throw new TypeError(
      `${where}: cacheHints.ttlMs must be a non-negative integer of milliseconds, got ${
        String(ttlMs)
      }`,
    );
  }
  const scope = hints?.scope ?? "private";
  if (scope !== "public" && scope !== "private") {
    throw new TypeError(
      `${where}: cacheHints.scope must be "public" or "private", got ${
        JSON.stringify(scope)
      }`,
    );
  }
  return { ttlMs, scope };
}

/** Every version served, modern first: what `server/discover` and `-32022` list. */
export const SERVED_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

type RequestId = string | number;
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A message's `params._meta`, when it is an object. */
export function metaOf(message: unknown): Json | undefined {
  if (!isObject(message)) return undefined;
  const params = message.params;
  if (!isObject(params)) return undefined;
  return isObject(params._meta) ? params._meta : undefined;
}

/**
 * The modern protocol version a message's envelope names, when it is a
 * JSON-RPC request (or notification) whose `params._meta` names one; else
 * `undefined` (a legacy message).
 */
export function modernVersionOf(message: unknown): string | undefined {
  const version = metaOf(message)?.[META.protocolVersion];
  return isModernVersion(version) ? version : undefined;
}

/** The `-32022` error of a modern version this server does not serve. */
export function unsupportedVersionError(
  requested: string,
): { code: number; message: string; data: Json } {
  return {
    code: MODERN_ERROR.unsupportedVersion,
    message: `Unsupported protocol version: ${requested} (supported: ${
      SERVED_VERSIONS.join(", ")
    })`,
    data: { supported: [...SERVED_VERSIONS], requested },
  };
}

/** What the server's `initialize` answered: its capabilities, info, instructions. */
export interface ServerFacts {
  readonly capabilities: Json;
  readonly serverInfo: Json;
  readonly instructions?: string;
}

/** The facts of an `initialize` result: its capabilities, info and instructions, each when well-formed. */
export function factsOf(result: Json): ServerFacts {
  return {
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    serverInfo: isObject(result.serverInfo) ? result.serverInfo : {},
    ...(typeof result.instructions === "string" &&
      { instructions: result.instructions }),
  };
}

/** A modern request the server is handling. */
interface Pending {
  readonly method: string;
  readonly capabilities: Json;
  /** Answered already (with `-32021`): the server's own answer is dropped. */
  answered: boolean;
}

/** An open `subscriptions/listen`. */
interface Subscription {
  /** The id the client gave the request: the notifications' `subscriptionId`. */
  readonly clientId: RequestId;
  readonly honored: Json;
  /** The resource URIs it delivers `notifications/resources/updated` of. */
  readonly uris?: ReadonlySet<string>;
}

/** The list-change notifications a subscription delivers, by filter key. */
const LIST_CHANGED: Readonly<Record<string, string>> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

/** The notification of a changed resource, delivered to the listens subscribed to its URI. */
const RESOURCE_UPDATED = "notifications/resources/updated";

/** Whether `method` is a list-change notification (what a modern request's stream never carries). */
export function isListChanged(method: string): boolean {
  return LIST_CHANGED[method] !== undefined;
}

/** The filter keys and the server capability each needs (`<cap>.listChanged`). */
const FILTER_CAPABILITY: Readonly<Record<string, string>> = {
  toolsListChanged: "tools",
  promptsListChanged: "prompts",
  resourcesListChanged: "resources",
};

/** The client capability a server-to-client request needs. */
function requiredCapability(method: string, params: unknown): Json | undefined {
  switch (method) {
    case "roots/list":
      return { roots: {} };
    case "sampling/createMessage":
      return isObject(params) &&
          (params.tools !== undefined || params.toolChoice !== undefined)
        ? { sampling: { tools: {} } }
        : { sampling: {} };
    case "elicitation/create":
      return isObject(params) && params.mode === "url"
        ? { elicitation: { url: {} } }
        : { elicitation: {} };
    default:
      return undefined;
  }
}

/** Whether `declared` covers `required` (top-level keys and named members). */
function declares(declared: Json, required: Json): boolean {
  for (const [key, members] of Object.entries(required)) {
    const value = declared[key];
    if (!isObject(value)) return false;
    for (const member of Object.keys(members as Json)) {
      if (value[member] === undefined) return false;
    }
  }
  return true;
}

/**
 * A modern result as it leaves: `resultType` (default `"complete"`), the
 * server's info in `_meta`, and on a cacheable method's result the cache
 * hints (unless the result set its own).
 */
export function stampResult(
  method: string,
  result: unknown,
  facts: ServerFacts,
  hints: ResolvedCacheHints,
): Json {
  const out: Json = isObject(result) ? { ...result } : {};
  if (out.resultType === undefined) out.resultType = "complete";
  const meta = isObject(out._meta) ? out._meta : {};
  out._meta = { ...meta, [META.serverInfo]: facts.serverInfo };
  if (CACHEABLE_METHODS.has(method)) {
    if (out.ttlMs === undefined) out.ttlMs = hints.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hints.scope;
  }
  return out;
}

/**
 * The client capabilities and info a modern request's envelope (`_meta`)
 * declares, as the internal `initialize` carries them: `{}` and
 * `{ name: "unknown", version: "0" }` when absent or malformed.
 */
export function envelopeClient(
  meta: Json,
): { capabilities: Json; clientInfo: Json } {
  const declared = meta[META.clientCapabilities];
  const capabilities = isObject(declared) ? declared : {};
  const info = meta[META.clientInfo];
  const clientInfo = isObject(info) && typeof info.name === "string" &&
      typeof info.version === "string"
    ? info
    : { name: "unknown", version: "0" };
  return { capabilities, clientInfo };
}

let internalIds = 0;

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

/** The internal `initialize` a server last saw, and what it answered. */
export interface InitMemo {
  /** The client capabilities and info it carried, as JSON. */
  key?: string;
  /** The server's answer (settled). */
  facts?: Promise<ServerFacts>;
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
  /** The internal `initialize` last handed to the server, by its params. */
  readonly #init: InitMemo;
  readonly #initAnswers = new Map<
    RequestId,
    (message: JSONRPCMessage) => void
  >();
  readonly #pending = new Map<RequestId, Pending>();
  readonly #subscriptions = new Map<RequestId, Subscription>();
  /** A client sent its own `initialize`: list changes go to it as they are. */
  #legacyClient = false;

  /** Serves both eras over `inner`. */
  constructor(inner: Transport, options: EraTransportOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#init = options.memo ?? {};
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => {
      this.#subscriptions.clear();
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
    return this.#subscriptions.size > 0;
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
    const key = LIST_CHANGED[method];
    if (key === undefined) return;
    for (const [id, sub] of this.#subscriptions) {
      if (sub.honored[key] !== true) continue;
      await this.#inner.send({
        jsonrpc: "2.0",
        method,
        params: { _meta: { [META.subscriptionId]: sub.clientId } },
      }, { relatedRequestId: id });
    }
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
    const facts = await this.#facts();
    const ending = [...this.#subscriptions];
    this.#subscriptions.clear();
    await Promise.all(ending.map(([id, sub]) =>
      this.#inner.send(
        error !== undefined
          ? { jsonrpc: "2.0", id, error: { ...error } } as JSONRPCMessage
          : {
            jsonrpc: "2.0",
            id,
            result: {
              resultType: "complete",
              _meta: {
                [META.subscriptionId]: sub.clientId,
                ...(facts !== undefined &&
                  { [META.serverInfo]: facts.serverInfo }),
              },
            },
          } as JSONRPCMessage,
        { relatedRequestId: id },
      ).catch((error) => this.onerror?.(error))
    ));
  }

  /** A server message, on its way to the client. */
  async send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    if ("method" in message) {
      if ("id" in message) return this.#sendRequest(message, options);
      if (LIST_CHANGED[message.method] !== undefined) {
        await this.notify(message.method);
        if (!this.#legacyClient) return;
      } else if (message.method === RESOURCE_UPDATED) {
        await this.#notifyUpdated(message.params?.uri);
        if (!this.#legacyClient) return;
      }
      return this.#inner.send(message, options);
    }
    const id = (message as { id?: RequestId }).id;
    if (id === undefined) return this.#inner.send(message, options);
    const init = this.#initAnswers.get(id);
    if (init !== undefined) {
      this.#initAnswers.delete(id);
      init(message);
      return;
    }
    const pending = this.#pending.get(id);
    if (pending === undefined) return this.#inner.send(message, options);
    this.#pending.delete(id);
    if (pending.answered) return;
    if ("result" in message) {
      const facts = await this.#facts();
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
    const required = pending === undefined
      ? undefined
      : requiredCapability(message.method, message.params);
    if (
      pending === undefined || related === undefined ||
      required === undefined || declares(pending.capabilities, required)
    ) {
      return this.#inner.send(message, options);
    }
    const error = {
      code: MODERN_ERROR.missingCapability,
      message: `Missing required client capability: serving ${
        JSON.stringify(pending.method)
      } needs ${message.method}, which the request's clientCapabilities do not declare`,
      data: { requiredCapabilities: required },
    };
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
          if (this.#subscriptions.delete(id as RequestId)) return;
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
    void this.#initialize(meta).catch(() => {
      // Nothing lost: #initialize reports its own failures; the request still goes on.
    });
    this.onmessage?.(message, extra);
  }

  #reply(id: RequestId, answer: { result: Json } | { error: Json }): void {
    this.#inner.send(
      { jsonrpc: "2.0", id, ...answer } as JSONRPCMessage,
      { relatedRequestId: id },
    ).catch((error) => this.onerror?.(error));
  }

  /** The facts of the last internal `initialize`, or none when it failed. */
  async #facts(): Promise<ServerFacts | undefined> {
    try {
      return await this.#init.facts;
    } catch {
      return undefined;
    }
  }

  // Hands the server an `initialize` carrying the envelope's client
  // capabilities and info, unless the last one carried the same.
  #initialize(meta: Json): Promise<ServerFacts> {
    const { capabilities, clientInfo } = envelopeClient(meta);
    const key = JSON.stringify([capabilities, clientInfo]);
    const memo = this.#init;
    if (memo.key === key && memo.facts !== undefined) return memo.facts;
    const id = `weft-era-initialize-${++internalIds}`;
    const facts = new Promise<ServerFacts>((resolve, reject) => {
      this.#initAnswers.set(id, (answer) => {
        if (!("result" in answer) || !isObject(answer.result)) {
          reject(new Error("the server refused the internal initialize"));
          return;
        }
        resolve(factsOf(answer.result as Json));
      });
    });
    memo.key = key;
    memo.facts = facts;
    // A failed initialize is not kept: the next request tries again.
    facts.catch(() => {
      if (memo.facts === facts) memo.key = memo.facts = undefined;
    });
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities,
        clientInfo,
      },
    } as JSONRPCMessage);
    this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    return facts;
  }

  #stamp(method: string, result: unknown, facts: ServerFacts): Json {
    return stampResult(method, result, facts, this.#options.cacheHints);
  }

  // The server's facts for this envelope, or undefined once `id` was
  // answered with an internal error (its internal initialize failed).
  async #factsFor(id: RequestId, meta: Json): Promise<ServerFacts | undefined> {
    try {
      return await this.#initialize(meta);
    } catch {
      this.#reply(id, { error: { code: -32603, message: "Internal error" } });
      return undefined;
    }
  }

  async #discover(id: RequestId, meta: Json): Promise<void> {
    const facts = await this.#factsFor(id, meta);
    if (facts === undefined) return;
    const result = this.#stamp("server/discover", {
      supportedVersions: [...SERVED_VERSIONS],
      capabilities: facts.capabilities,
      ...(facts.instructions !== undefined &&
        { instructions: facts.instructions }),
    }, facts);
    this.#reply(id, { result });
  }

  /**
   * The URIs of a listen's `resourceSubscriptions` the server subscribed
   * to (an internal `resources/subscribe` each, answered by the server as
   * a legacy client's would be): none when the server does not declare
   * `resources.subscribe`, and not one it refused (an unknown URI).
   */
  async #subscribeResources(
    wanted: unknown,
    facts: ServerFacts,
  ): Promise<Set<string>> {
    const uris = new Set<string>();
    const cap = facts.capabilities.resources;
    if (!Array.isArray(wanted) || !isObject(cap) || cap.subscribe !== true) {
      return uris;
    }
    const asked = [...new Set(wanted)].filter((u) => typeof u === "string");
    await Promise.all(asked.map(async (uri) => {
      const answer = await this.#internal("resources/subscribe", { uri });
      if ("result" in answer) uris.add(uri);
    }));
    return uris;
  }

  /** Hands the server a request of its own; resolves to its answer (never sent). */
  #internal(method: string, params: Json): Promise<JSONRPCMessage> {
    const id = `weft-era-internal-${++internalIds}`;
    const answer = new Promise<JSONRPCMessage>((resolve) =>
      this.#initAnswers.set(id, resolve)
    );
    this.onmessage?.({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage);
    return answer;
  }

  /** Delivers `notifications/resources/updated` to the listens subscribed to `uri`. */
  async #notifyUpdated(uri: unknown): Promise<void> {
    if (typeof uri !== "string") return;
    for (const [id, sub] of this.#subscriptions) {
      if (sub.uris?.has(uri) !== true) continue;
      await this.#inner.send({
        jsonrpc: "2.0",
        method: RESOURCE_UPDATED,
        params: { uri, _meta: { [META.subscriptionId]: sub.clientId } },
      }, { relatedRequestId: id });
    }
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
    const honored: Json = {};
    for (const [key, capability] of Object.entries(FILTER_CAPABILITY)) {
      const cap = facts.capabilities[capability];
      if (filter[key] === true && isObject(cap) && cap.listChanged === true) {
        honored[key] = true;
      }
    }
    const uris = await this.#subscribeResources(
      filter.resourceSubscriptions,
      facts,
    );
    if (uris.size > 0) honored.resourceSubscriptions = [...uris];
    const clientId = this.#options.clientId?.(id) ?? id;
    const delivers = Object.keys(honored).length > 0;
    // Subscribed before the ack leaves: a change the client causes once it
    // has the ack is delivered.
    if (delivers) this.#subscriptions.set(id, { clientId, honored, uris });
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
      this.#reply(id, {
        result: {
          resultType: "complete",
          _meta: {
            [META.subscriptionId]: clientId,
            [META.serverInfo]: facts.serverInfo,
          },
        },
      });
      return;
    }
    this.#options.onListen?.();
  }
}
