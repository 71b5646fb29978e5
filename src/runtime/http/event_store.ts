/**
 * The event store behind session-mode resumability (SEP-1699): every SSE
 * event the transport writes for a session is kept, up to a cap, so a
 * client that lost a stream can reconnect with `Last-Event-ID` and get what
 * it missed.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The default number of SSE events one session keeps for replay: 100
 * . Older events are dropped first.
 */
export const DEFAULT_SESSION_EVENTS = 100;

/** What one kept event holds. */
interface Kept {
  readonly seq: number;
  readonly streamId: StreamId;
  readonly message: JSONRPCMessage;
  /** The event's JSON text length: what it costs of the byte budget. */
  readonly bytes: number;
}

type RequestId = string | number;

/**
 * One session's events, the newest kept within two budgets — a count and
 * the bytes of their JSON text — oldest first out. An event id is
 * `<stream id>/<sequence number>`: the sequence counts every event of the
 * session, so ids are unique across its streams and ordered, and the stream
 * an id belongs to is known even after its events were dropped.
 *
 * Priming events (the empty event a resumable stream starts with) get an
 * id but take no room: there is nothing in them to replay. A stream whose
 * answers were delivered has its events dropped ({@link dropAnswered}).
 *
 * @example Using `SessionEventStore`
 * ```ts
 * import { SessionEventStore } from "./event_store.ts";
 * import assert from "node:assert/strict";
 * const store = new SessionEventStore(2);
 * const first = await store.storeEvent("s", { jsonrpc: "2.0", method: "a" });
 * await store.storeEvent("s", { jsonrpc: "2.0", method: "b" });
 * const replayed: string[] = [];
 * await store.replayEventsAfter(first, {
 *   send: async (_id, message) => void replayed.push((message as { method: string }).method),
 * });
 * assert.equal(replayed.join(), "b");
 * ```
 */
export class SessionEventStore implements EventStore {
  readonly #limit: number;
  readonly #maxBytes: number;
  /** Kept events by sequence number, oldest first (insertion order). */
  #kept = new Map<number, Kept>();
  #bytes = 0;
  #next = 0;

  /**
   * Builds a store keeping at most `limit` events (at least one) and at
   * most `maxBytes` of their JSON text.
   */
  constructor(
    limit: number = DEFAULT_SESSION_EVENTS,
    maxBytes: number = Infinity,
  ) {
    this.#limit = Math.max(1, Math.floor(limit));
    this.#maxBytes = maxBytes;
  }

  /** The number of events kept now. */
  get size(): number {
    return this.#kept.size;
  }

  /** The bytes of JSON text kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps `message` as the next event of `streamId`; resolves to its id. */
  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = this.#next++;
    if (!isPriming(message)) {
      const bytes = JSON.stringify(message).length;
      this.#kept.set(seq, { seq, streamId, message, bytes });
      this.#bytes += bytes;
      this.#evict();
    }
    return Promise.resolve(`${streamId}/${seq}`);
  }

  #evict(): void {
    for (const [seq, kept] of this.#kept) {
      if (this.#kept.size <= this.#limit && this.#bytes <= this.#maxBytes) {
        return;
      }
      this.#kept.delete(seq);
      this.#bytes -= kept.bytes;
    }
  }

  /** The stream an event id names, or `undefined` for an id this store never gave. */
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.#parse(eventId)?.streamId);
  }

  /**
   * Sends, in order, the kept events of the stream `lastEventId` belongs to
   * that came after it; resolves to that stream's id. Events dropped for a
   * budget are not sent. Rejects for an id this store never gave.
   */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: {
      send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<StreamId> {
    const last = this.#parse(lastEventId);
    if (last === undefined) throw new RangeError("unknown event id");
    const due: Kept[] = [];
    for (const kept of this.#kept.values()) {
      if (kept.seq > last.seq && kept.streamId === last.streamId) {
        due.push(kept);
      }
    }
    for (const kept of due) {
      await send(`${kept.streamId}/${kept.seq}`, kept.message);
    }
    return last.streamId;
  }

  /**
   * Drops the events of the streams that carried the answers to `ids`: the
   * client got those streams to their end, so nothing of them is resumed.
   */
  dropAnswered(ids: readonly RequestId[]): void {
    if (this.#kept.size === 0 || ids.length === 0) return;
    const streams = new Set<StreamId>();
    for (const kept of this.#kept.values()) {
      const m = kept.message as { id?: RequestId; method?: unknown };
      if (m.method === undefined && m.id !== undefined && ids.includes(m.id)) {
        streams.add(kept.streamId);
      }
    }
    if (streams.size > 0) this.dropStreams(streams);
  }

  /** Drops every kept event of the given streams. */
  dropStreams(streams: ReadonlySet<StreamId>): void {
    for (const [seq, kept] of this.#kept) {
      if (streams.has(kept.streamId)) {
        this.#kept.delete(seq);
        this.#bytes -= kept.bytes;
      }
    }
  }

  /** Drops every kept event (the session ended). Ids keep counting. */
  clear(): void {
    this.#kept = new Map();
    this.#bytes = 0;
  }

  #parse(eventId: string): { streamId: string; seq: number } | undefined {
    const slash = eventId.lastIndexOf("/");
    if (slash <= 0) return undefined;
    const digits = eventId.slice(slash + 1);
    if (!/^(0|[1-9][0-9]*)$/.test(digits)) return undefined;
    const seq = Number(digits);
    if (seq >= this.#next) return undefined;
    return { streamId: eventId.slice(0, slash), seq };
  }
}

function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}

/**
 * The first protocol revision whose clients read a priming event (an SSE
 * event with an id and empty data): streams are primed only for it and
 * later ones.
 */
export const PRIMING_VERSION = "2025-11-25";

/**
 * The protocol version a session's server settles on for its initialize
 * request (the SDK's rule: the client's version when supported, else the
 * latest).
 */
export function negotiatedVersion(initialize: unknown): string {
  const params = (initialize as { params?: { protocolVersion?: unknown } })
    .params;
  const asked = params?.protocolVersion;
  return typeof asked === "string" &&
      SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
    ? asked
    : LATEST_PROTOCOL_VERSION;
}
