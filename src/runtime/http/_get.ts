/**
 * A GET to the HTTP server transport: the session's one standalone SSE
 * stream, or — with `Last-Event-ID` — a resumed stream, sent what it
 * missed from the event store and taking over the calls still running on
 * it.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type ConnectionInfo, sseEvent } from "./_sse_body.ts";
import { jsonRpcError, sessionNotFound } from "./guard.ts";
import type { RequestId } from "./_messages.ts";
import { checkRequest, decline, without } from "./_refusals.ts";
import {
  type EndListener,
  STANDALONE,
  type Stream,
  type StreamTable,
} from "./_stream_table.ts";

/** Answers a GET: the standalone stream, or a resumption. */
export async function get(
  table: StreamTable,
  req: Request,
  info: ConnectionInfo | undefined,
  onEnd: EndListener,
): Promise<Response> {
  if (!req.headers.get("accept")?.includes("text/event-stream")) {
    return decline(
      table,
      onEnd,
      406,
      -32000,
      "Not Acceptable: Client must accept text/event-stream",
    );
  }
  const refusal = checkRequest(table, req);
  if (refusal !== undefined) return without(onEnd, refusal);
  const events = table.options.events;
  const lastEventId = req.headers.get("last-event-id");
  if (events !== undefined && lastEventId) {
    return await resume(table, events, lastEventId, req, info, onEnd);
  }
  if (table.streams.has(STANDALONE)) {
    return decline(
      table,
      onEnd,
      409,
      -32000,
      "Conflict: Only one SSE stream is allowed per session",
    );
  }
  const stream = table.stream(STANDALONE, []);
  stream.onEnd = onEnd;
  table.streams.set(STANDALONE, stream);
  return new Response(table.open(stream, req, info), {
    headers: table.sseHeaders(),
  });
}

async function resume(
  table: StreamTable,
  events: EventStore,
  lastEventId: string,
  req: Request,
  info: ConnectionInfo | undefined,
  onEnd: EndListener,
): Promise<Response> {
  try {
    let streamId: StreamId | undefined;
    if (events.getStreamIdForEventId !== undefined) {
      streamId = await events.getStreamIdForEventId(lastEventId);
      if (!streamId) {
        return decline(table, onEnd, 400, -32000, "Invalid event ID format");
      }
      if (table.streams.has(streamId)) {
        return decline(
          table,
          onEnd,
          409,
          -32000,
          "Conflict: Stream already has an active connection",
        );
      }
    }
    let replay = "";
    const replayed = new Set<EventId>();
    const replayedId = await events.replayEventsAfter(lastEventId, {
      send: (eventId, message) => {
        replayed.add(eventId);
        replay += sseEvent(message, eventId);
        return Promise.resolve();
      },
    });
    if (table.closed) return without(onEnd, sessionNotFound());
    const previous = table.streams.get(replayedId);
    if (previous !== undefined) table.finish(previous);
    // The stream's calls that still run (their stream was dropped or
    // closed): this stream takes them over, and what held the session
    // for them lets go.
    const running: RequestId[] = [];
    const before = new Set<Stream>();
    for (const [id, s] of table.byRequest) {
      if (s.id === replayedId) {
        running.push(id);
        before.add(s);
      }
    }
    const stream = table.stream(replayedId, running);
    stream.resumable = true;
    stream.stored = true;
    stream.replayed = replayed;
    stream.body.write(replay);
    stream.onEnd = onEnd;
    table.streams.set(replayedId, stream);
    for (const id of running) table.byRequest.set(id, stream);
    for (const s of before) if (s.body.closed) table.ended(s, "dropped");
    if (running.length === 0 && replayedId !== STANDALONE) {
      // Nothing runs on it any more: what was kept is all there is.
      stream.body.finish();
    }
    return new Response(table.open(stream, req, info), {
      headers: table.sseHeaders(),
    });
  } catch (error) {
    table.fail(error instanceof Error ? error : new Error(String(error)));
    return without(
      onEnd,
      jsonRpcError(500, -32000, "Error replaying events"),
    );
  }
}
