/**
 * A shared session's resumable events: the SDK event store that names and
 * stores them in the shared store, the event ids it gives (`parseEventId`),
 * and the stream a client resumes with `Last-Event-ID` on any instance.
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
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcError } from "./guard.ts";
import type { SessionRecord, StoreSessionBackend } from "./store_sessions.ts";

type RequestId = string | number;

/**
 * The event store of one session, over the backend. Priming events get an
 * id but no record.
 */
export class SharedEventStore implements EventStore {
  readonly #backend: StoreSessionBackend;
  readonly #id: string;
  readonly #ttl: number;
  #primed = 0;

  /** Builds the store of session `id`. */
  constructor(backend: StoreSessionBackend, id: string, ttl: number) {
    this.#backend = backend;
    this.#id = id;
    this.#ttl = ttl;
  }

  /** Stores an event in the shared store; resolves to its id. */
  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    if (Object.keys(message).length === 0) {
      // Priming: an id to resume from, nothing to replay.
      // Sorted below every event stored from this millisecond on.
      const before = (Date.now() - 1).toString().padStart(15, "0");
      const seq = `${before}.999999.p${this.#primed++}`;
      return Promise.resolve(`${streamId}/${seq}`);
    }
    return this.#backend.store(this.#id, streamId, message, this.#ttl);
  }

  /**
   * Names an event now and stores it when `commit` runs: the events of an
   * answer sent whole are written only if its delivery fails.
   */
  reserve(
    streamId: StreamId,
    message: JSONRPCMessage,
  ): { eventId: EventId; commit(): Promise<void> } {
    return this.#backend.reserve(this.#id, streamId, message, this.#ttl);
  }

  /** The stream an event id names. */
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(parseEventId(eventId)?.streamId);
  }

  /** Replays from the store (the handler serves resumptions itself, with `resumeShared`; kept for the interface). */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: {
      send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) throw new RangeError("unknown event id");
    const { events } = await this.#backend.after(
      this.#id,
      parsed.streamId,
      parsed.seq,
    );
    for (const [id, message] of events) await send(id, message);
    return parsed.streamId;
  }
}

/** An event id's stream and sequence, or `undefined` when it is not one of ours. */
export function parseEventId(
  eventId: string,
): { streamId: string; seq: string } | undefined {
  const slash = eventId.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const seq = eventId.slice(slash + 1);
  if (!/^[0-9]{15}\.[0-9]{6}\.(p[0-9]+|[0-9a-f]{8})$/.test(seq)) {
    return undefined;
  }
  return { streamId: eventId.slice(0, slash), seq };
}

/**
 * Serves a stream resumed with `Last-Event-ID` from the shared store, on
 * whichever instance the client reached: the stream's stored events after
 * that id, then — polling, woken sooner by the store's publish — the ones
 * stored later,
 * until a response ends a call's stream (a GET stream runs until the client
 * leaves). Pulled by the client, so nothing piles up for one that does not
 * read.
 */
export async function resumeShared(
  shared: StoreSessionBackend,
  record: SessionRecord,
  lastEventId: string,
): Promise<Response> {
  const parsed = parseEventId(lastEventId);
  if (parsed === undefined) {
    return jsonRpcError(400, -32000, "Invalid event ID format");
  }
  const stop = new AbortController();
  const encoder = new TextEncoder();
  let last = parsed.seq;
  let polls = 0;
  // Read once before answering: a store down now is a 503, not a 200
  // whose stream breaks.
  let first: Awaited<ReturnType<StoreSessionBackend["after"]>> | undefined =
    await shared.after(record.id, parsed.streamId, last);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (!stop.signal.aborted) {
        const found = first ??
          await shared.after(record.id, parsed.streamId, last);
        first = undefined;
        last = found.last;
        if (found.events.length > 0) {
          let answered = false;
          for (const [id, message] of found.events) {
            controller.enqueue(encoder.encode(
              `event: message\nid: ${id}\ndata: ${JSON.stringify(message)}\n\n`,
            ));
            if (answerId(message) !== undefined) answered = true;
          }
          if (answered && parsed.streamId !== "_GET_stream") {
            controller.close();
            stop.abort();
            await shared.dropStream(record.id, parsed.streamId).catch(() => {
              // Nothing lost: the answer was delivered; unmarked, its events expire with the session.
            });
          }
          return;
        }
        // Now and then: is the session still there?
        if (++polls % 20 === 0 && await shared.get(record.id) === undefined) {
          controller.close();
          return;
        }
        await shared.wait(record.id, shared.pollInterval, stop.signal);
      }
    },
    cancel() {
      stop.abort();
    },
  }, { highWaterMark: 0 });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "mcp-session-id": record.id,
    },
  });
}

function answerId(message: unknown): RequestId | undefined {
  const m = message as { id?: unknown; result?: unknown; error?: unknown };
  if (m.result === undefined && m.error === undefined) return undefined;
  return typeof m.id === "string" || typeof m.id === "number"
    ? m.id
    : undefined;
}
