/**
 * A server message through the HTTP server transport (`send`): on the
 * stream of the request it belongs to, under the client's own id again,
 * stored for resuming in session mode; nowhere when that request was
 * answered or cancelled already.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { sseEvent } from "./_sse_body.ts";
import { isAnswer, type RequestId } from "./_messages.ts";
import { STANDALONE, type Stream, type StreamTable } from "./_stream_table.ts";

/**
 * An event store that can name an event now and store it later: the events
 * of an answer sent whole are needed only if its delivery fails, so they are
 * written then (KV, where each write costs a round trip).
 */
export interface DeferringEventStore extends EventStore {
  /** The id `message` gets, and the write that stores it under that id. */
  reserve(
    streamId: StreamId,
    message: JSONRPCMessage,
  ): { eventId: EventId; commit(): Promise<void> };
}

function defers(events: EventStore): events is DeferringEventStore {
  return typeof (events as Partial<DeferringEventStore>).reserve ===
    "function";
}

/** Sends a server message on the stream of the request it belongs to. */
export async function send(
  table: StreamTable,
  serverMessage: JSONRPCMessage,
  options?: TransportSendOptions,
): Promise<void> {
  const answer = isAnswer(serverMessage);
  const requestId = answer
    ? (serverMessage as { id: RequestId }).id
    : options?.relatedRequestId;
  const message = answer
    ? table.release(serverMessage, requestId!)
    : serverMessage;
  const events = table.options.events;
  if (requestId === undefined) {
    if (answer) {
      throw new Error(
        "Cannot send a response on a standalone SSE stream unless resuming a previous client request",
      );
    }
    const eventId = events === undefined
      ? undefined
      : await events.storeEvent(STANDALONE, message);
    const stream = table.streams.get(STANDALONE);
    if (stream !== undefined && !stream.replayed?.has(eventId!)) {
      stream.body.write(sseEvent(message, eventId));
    }
    return;
  }
  let stream = table.byRequest.get(requestId);
  if (stream === undefined) {
    throw new Error(
      "The request this message belongs to was answered or cancelled: a message sent after that goes nowhere",
    );
  }
  if (stream.discard) {
    if (answer) answered(table, stream, requestId);
    return;
  }
  let eventId: EventId | undefined;
  if (events !== undefined && stream.ready !== undefined && defers(events)) {
    // In the POST's first turn: maybe sent whole, stored only if lost.
    const reserved = events.reserve(stream.id, message);
    eventId = reserved.eventId;
    (stream.deferred ??= []).push(reserved.commit);
    stream.resumable = true;
  } else if (events !== undefined) {
    eventId = await events.storeEvent(stream.id, message);
    // A resumption may have taken the stream over meanwhile.
    stream = table.byRequest.get(requestId) ?? stream;
    stream.resumable = true;
    stream.stored = true;
  }
  if (eventId === undefined || !stream.replayed?.has(eventId)) {
    stream.body.write(sseEvent(message, eventId));
  }
  if (answer) answered(table, stream, requestId);
}

/** A request of `stream` was answered: the stream ends with its last one. */
function answered(
  table: StreamTable,
  stream: Stream,
  requestId: RequestId,
): void {
  if (table.byRequest.get(requestId) === stream) {
    table.byRequest.delete(requestId);
  }
  stream.pending--;
  if (stream.pending > 0) return;
  if (stream.ready !== undefined) {
    // Still in the POST's first turn: it answers with the whole text.
    stream.ready();
    return;
  }
  if (stream.discard || stream.body.closed) {
    // Dropped while its calls ran on: their answers are stored now.
    table.ended(stream, stream.dropped ?? "dropped");
    return;
  }
  table.finish(stream);
}
