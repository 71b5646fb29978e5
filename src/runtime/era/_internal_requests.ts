/**
 * The requests `EraTransport` hands the server of its own, and their
 * answers, taken before they leave (never sent to a client): the internal
 * `initialize` carrying a modern request's envelope (memoized per server:
 * not sent again for the same client capabilities and info), and a
 * listen's `resources/subscribe`, answered as a legacy client's would be.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { isObject } from "./era_probe.ts";
import {
  envelopeClient,
  factsOf,
  type InitMemo,
  type ServerFacts,
} from "./envelope.ts";

type RequestId = string | number;
type Json = Record<string, unknown>;

let internalIds = 0;

/**
 * The internal requests of one transport: handed to the server through
 * `server.onmessage` (read at each request), their answers taken by
 * {@link InternalRequests.take}.
 */
export class InternalRequests {
  readonly #server: Pick<Transport, "onmessage">;
  /** The internal `initialize` last handed to the server, by its params. */
  readonly #memo: InitMemo;
  readonly #answers = new Map<RequestId, (message: JSONRPCMessage) => void>();

  /** Hands requests to `server`; `memo` is shared by the transports of one server. */
  constructor(server: Pick<Transport, "onmessage">, memo: InitMemo) {
    this.#server = server;
    this.#memo = memo;
  }

  /** Takes the server's answer `message` to request `id`: whether it was an internal one. */
  take(id: RequestId, message: JSONRPCMessage): boolean {
    const answer = this.#answers.get(id);
    if (answer === undefined) return false;
    this.#answers.delete(id);
    answer(message);
    return true;
  }

  /** The facts of the last internal `initialize`, or none when it failed. */
  async facts(): Promise<ServerFacts | undefined> {
    try {
      return await this.#memo.facts;
    } catch {
      return undefined;
    }
  }

  /**
   * Hands the server an `initialize` carrying the envelope's client
   * capabilities and info, unless the last one carried the same.
   */
  initialize(meta: Json): Promise<ServerFacts> {
    const { capabilities, clientInfo } = envelopeClient(meta);
    const key = JSON.stringify([capabilities, clientInfo]);
    const memo = this.#memo;
    if (memo.key === key && memo.facts !== undefined) return memo.facts;
    const id = `weft-era-initialize-${++internalIds}`;
    const facts = new Promise<ServerFacts>((resolve, reject) => {
      this.#answers.set(id, (answer) => {
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
    this.#server.onmessage?.({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities,
        clientInfo,
      },
    } as JSONRPCMessage);
    this.#server.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    return facts;
  }

  /**
   * The URIs of a listen's `resourceSubscriptions` the server subscribed
   * to (an internal `resources/subscribe` each): none when the server does
   * not declare `resources.subscribe`, and not one it refused (an unknown
   * URI).
   */
  async subscribeResources(
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
      const answer = await this.#request("resources/subscribe", { uri });
      if ("result" in answer) uris.add(uri);
    }));
    return uris;
  }

  /** Hands the server a request of its own; resolves to its answer (never sent). */
  #request(method: string, params: Json): Promise<JSONRPCMessage> {
    const id = `weft-era-internal-${++internalIds}`;
    const answer = new Promise<JSONRPCMessage>((resolve) =>
      this.#answers.set(id, resolve)
    );
    this.#server.onmessage?.(
      { jsonrpc: "2.0", id, method, params } as JSONRPCMessage,
    );
    return answer;
  }
}
