/**
 * `subscriptions/listen` on the server side: which of a listen's filter
 * the server honors, the listens open on one transport, and what they
 * deliver — list changes stamped with the listen's `subscriptionId`, and
 * `notifications/resources/updated` only to the listens that named the
 * URI — until each ends with its empty result (or an error).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { META } from "./era.ts";
import { isObject } from "./era_probe.ts";
import type { ServerFacts } from "./envelope.ts";

type RequestId = string | number;
type Json = Record<string, unknown>;

/** The list-change notifications a subscription delivers, by filter key. */
const LIST_CHANGED: Readonly<Record<string, string>> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

/** The notification of a changed resource, delivered to the listens subscribed to its URI. */
export const RESOURCE_UPDATED = "notifications/resources/updated";

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

/**
 * The list changes of a listen's `filter` the server honors: each asked
 * for whose capability declares `listChanged`.
 */
export function honoredListChanges(filter: Json, facts: ServerFacts): Json {
  const honored: Json = {};
  for (const [key, capability] of Object.entries(FILTER_CAPABILITY)) {
    const cap = facts.capabilities[capability];
    if (filter[key] === true && isObject(cap) && cap.listChanged === true) {
      honored[key] = true;
    }
  }
  return honored;
}

/**
 * The empty result that ends a listen gracefully (`resultType:
 * "complete"`, its `subscriptionId` and, when known, the server's info in
 * `_meta`): a client reads it as the server ending the listen on purpose.
 */
export function listenResult(
  clientId: RequestId,
  facts: ServerFacts | undefined,
): Json {
  return {
    resultType: "complete",
    _meta: {
      [META.subscriptionId]: clientId,
      ...(facts !== undefined && { [META.serverInfo]: facts.serverInfo }),
    },
  };
}

/** An open `subscriptions/listen`. */
export interface Subscription {
  /** The id the client gave the request: the notifications' `subscriptionId`. */
  readonly clientId: RequestId;
  /** What of its filter the server honors (as acknowledged). */
  readonly honored: Json;
  /** The resource URIs it delivers `notifications/resources/updated` of. */
  readonly uris?: ReadonlySet<string>;
}

/**
 * The listens open on one transport, by the id the server sees, and what
 * they deliver over `inner`. A failed send at their end is told to
 * `owner.onerror` (read when it fails).
 */
export class Listens {
  readonly #inner: Transport;
  readonly #owner: Pick<Transport, "onerror">;
  readonly #open = new Map<RequestId, Subscription>();

  /** Delivers over `inner`; failures at the end go to `owner.onerror`. */
  constructor(inner: Transport, owner: Pick<Transport, "onerror">) {
    this.#inner = inner;
    this.#owner = owner;
  }

  /** How many listens are open. */
  get size(): number {
    return this.#open.size;
  }

  /** Opens listen `id`: from now on it is delivered what it subscribed to. */
  open(id: RequestId, subscription: Subscription): void {
    this.#open.set(id, subscription);
  }

  /** Forgets listen `id` (its client cancelled it): whether it was open. */
  cancel(id: RequestId): boolean {
    return this.#open.delete(id);
  }

  /** Forgets every listen (the connection closed): nothing more is sent. */
  clear(): void {
    this.#open.clear();
  }

  /** Delivers a list-change notification to the listens that asked for it. */
  async notify(method: string): Promise<void> {
    const key = LIST_CHANGED[method];
    if (key === undefined) return;
    for (const [id, sub] of this.#open) {
      if (sub.honored[key] !== true) continue;
      await this.#inner.send({
        jsonrpc: "2.0",
        method,
        params: { _meta: { [META.subscriptionId]: sub.clientId } },
      }, { relatedRequestId: id });
    }
  }

  /** Delivers `notifications/resources/updated` to the listens subscribed to `uri`. */
  async notifyUpdated(uri: unknown): Promise<void> {
    if (typeof uri !== "string") return;
    for (const [id, sub] of this.#open) {
      if (sub.uris?.has(uri) !== true) continue;
      await this.#inner.send({
        jsonrpc: "2.0",
        method: RESOURCE_UPDATED,
        params: { uri, _meta: { [META.subscriptionId]: sub.clientId } },
      }, { relatedRequestId: id });
    }
  }

  /**
   * Ends every open listen: each gets its {@link listenResult}, or with
   * `error` that JSON-RPC error instead (the stream could not go on).
   */
  async end(
    facts: ServerFacts | undefined,
    error: { readonly code: number; readonly message: string } | undefined,
  ): Promise<void> {
    const ending = [...this.#open];
    this.#open.clear();
    await Promise.all(ending.map(([id, sub]) =>
      this.#inner.send(
        error !== undefined
          ? { jsonrpc: "2.0", id, error: { ...error } } as JSONRPCMessage
          : {
            jsonrpc: "2.0",
            id,
            result: listenResult(sub.clientId, facts),
          } as JSONRPCMessage,
        { relatedRequestId: id },
      ).catch((error) => this.#owner.onerror?.(error))
    ));
  }
}
