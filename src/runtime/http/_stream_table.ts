/**
 * The state one HTTP server transport keeps, which every request kind
 * (POST, GET and its resumption, `send`) works on: the open streams, the
 * stream carrying each live request, and the ids the server sees in place
 * of the client's. One object, so the per-kind modules share it while
 * `HttpServerTransport` stays the one class the SDK connects to.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { DROPPED_REASON } from "./_requests.ts";
import { type ConnectionInfo, type ResponseEnd, SseBody } from "./_sse_body.ts";
import type { RequestId } from "./_messages.ts";
import { forgetWireId, noteWireId } from "../../core/telemetry.ts";

/** The stream id of a session's standalone GET stream (the SDK's). */
export const STANDALONE = "_GET_stream";

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** Options of `HttpServerTransport`. */
export interface HttpServerTransportOptions {
  /** Session mode: the id `initialize` gives the session. Absent: stateless. */
  readonly sessionId?: string;
  /** Session mode: the event store that makes streams resumable. */
  readonly events?: EventStore;
  /** The `retry` field of priming events, in ms. */
  readonly retry?: number;
  /**
   * The protocol version the session negotiated: a request without a newer
   * `MCP-Protocol-Version` is primed by it.
   */
  readonly protocol?: string;
  /** The bytes one stream may hold for a client that does not read. */
  readonly maxUnread: number;
  /**
   * A primed POST stream still open after this many ms is closed; its calls
   * run on and the client resumes. Never when absent.
   */
  readonly closeStreamsAfter?: number;
  /** Told when `initialize` made the session (before the server sees it). */
  readonly onInitialized?: (sessionId: string) => void;
  /** Told when a DELETE ends the session (awaited before it answers). */
  readonly onDeleted?: (sessionId: string) => Promise<void> | void;
  /** Told when a delivered stream's events can go. */
  readonly onDelivered?: (streamId: StreamId) => void;
  /** Told when a stream was closed by the unread cap. */
  readonly onOverflow?: () => void;
  /**
   * Modern requests (2026-07-28): their `MCP-Protocol-Version` was checked
   * against their envelope already, and names a version the SDK's list
   * does not have.
   */
  readonly modern?: boolean;
}

/** How a handled request ended, for whoever holds the session or server. */
export type EndListener = (end: ResponseEnd) => void;

/** Where client messages and failures go: what the SDK set on the transport. */
export interface Peer {
  /** The server's message handler. */
  readonly onmessage?: Transport["onmessage"];
  /** The server's error handler. */
  readonly onerror?: (error: Error) => void;
}

/**
 * The ids the server sees: every client request is given one of these,
 * unique in the process, in place of its own, and answered with its own
 * again. Clients number their requests alike (most start at 0 or 1), so a
 * server that outlives a request (a session's, or a stateless one that is
 * reused) could otherwise route a message a handler sends after its
 * request was answered onto another request that carries the same id —
 * another caller's stream. With ids of its own, such a message matches no
 * request and goes nowhere.
 */
let lastServerSideId = 0;

/** The next id the server sees in place of a client's (see {@link lastServerSideId}). */
export function nextServerSideId(): number {
  return ++lastServerSideId;
}

/** The headers of an SSE answer in stateless mode (no session id). */
export const STATELESS_SSE_HEADERS: Readonly<Record<string, string>> =
  SSE_HEADERS;

/** One POST's or GET's SSE stream: its requests, and the body they answer on. */
export class Stream {
  readonly id: StreamId;
  /** Request ids of this stream (to cancel or forget them). */
  readonly ids: RequestId[];
  /** Requests of the stream still unanswered (none for a GET). */
  pending: number;
  /** What the client reads. */
  body!: SseBody;
  /** Whether the client was given an event id to resume from. */
  resumable = false;
  /** Whether the stream began with a priming event. */
  primed = false;
  /** Whether some event of the stream is in the store (to drop once delivered). */
  stored = false;
  /** Writes of events named but not stored yet (see `DeferringEventStore`). */
  deferred?: (() => Promise<void>)[];
  /** Answers go nowhere (a restored session's replayed initialize). */
  discard = false;
  /** The timer of `closeStreamsAfter`. */
  closer?: ReturnType<typeof setTimeout>;
  /** Event ids already replayed to this stream (a resumed stream). */
  replayed?: Set<EventId>;
  /** How the client left, while the stream's calls run on. */
  dropped?: ResponseEnd;
  onEnd?: EndListener;
  /** Resolves the wait for the first turn's answers. */
  ready?: () => void;

  constructor(id: StreamId, ids: RequestId[]) {
    this.id = id;
    this.ids = ids;
    this.pending = ids.length;
  }
}

/** The streams of one transport, the requests they carry, and their ids. */
export class StreamTable {
  readonly options: HttpServerTransportOptions;
  /** Open streams, by id. */
  readonly streams = new Map<StreamId, Stream>();
  /** The stream each live request (by the id the server sees) answers on. */
  readonly byRequest = new Map<RequestId, Stream>();
  /** The session id, once `initialize` gave one (session mode). */
  sessionId?: string;
  initialized = false;
  closed = false;
  readonly #peer: Peer;
  /** A live request's id as the client gave it, by the id the server sees. */
  readonly #clientIds = new Map<RequestId, RequestId>();
  /** The id the server sees, by the client's id of a live request (for its cancellation). */
  readonly #serverIds = new Map<RequestId, RequestId>();

  constructor(options: HttpServerTransportOptions, peer: Peer) {
    this.options = options;
    this.#peer = peer;
  }

  /** Hands a client message to the server. */
  deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.#peer.onmessage?.(message, extra);
  }

  /** Tells the server of a failure. */
  fail(error: Error): void {
    this.#peer.onerror?.(error);
  }

  /** Closes the stream carrying `requestId`; its calls run on, the client resumes. */
  closeStream(requestId: RequestId): void {
    const stream = this.byRequest.get(requestId);
    if (stream !== undefined && this.streams.get(stream.id) === stream) {
      this.finish(stream);
    }
  }

  /** Closes the standalone GET stream; the client reconnects. */
  closeStandalone(): void {
    const stream = this.streams.get(STANDALONE);
    if (stream !== undefined) this.finish(stream);
  }

  /** Ends every stream and forgets every request. */
  clear(): void {
    for (const stream of this.streams.values()) this.finish(stream);
    this.streams.clear();
    this.byRequest.clear();
    for (const id of this.#clientIds.keys()) forgetWireId(id);
    this.#clientIds.clear();
    this.#serverIds.clear();
  }

  /** The headers of an SSE answer. */
  sseHeaders(): Record<string, string> {
    return this.sessionId === undefined
      ? SSE_HEADERS
      : { ...SSE_HEADERS, "mcp-session-id": this.sessionId };
  }

  /** A stream of this transport, its body reporting back to it. */
  stream(id: StreamId, ids: RequestId[]): Stream {
    const stream = new Stream(id, ids);
    stream.body = new SseBody(this.options.maxUnread, {
      delivered: () => this.#delivered(stream),
      lost: (end) => this.#drop(stream, end),
    });
    return stream;
  }

  /** The response body of a stream that must go out before its end. */
  open(
    stream: Stream,
    req: Request,
    info: ConnectionInfo | undefined,
  ): ReadableStream<Uint8Array> {
    const body = stream.body.open(req, info);
    const closeAfter = this.options.closeStreamsAfter;
    if (
      stream.primed && stream.pending > 0 && closeAfter !== undefined &&
      !stream.body.closed
    ) {
      // The client resumes with Last-Event-ID after the retry interval.
      stream.closer = setTimeout(() => this.finish(stream), closeAfter);
    }
    return body;
  }

  /** No more writes: the stream closes once the client took what waits. */
  finish(stream: Stream): void {
    if (this.streams.get(stream.id) === stream) {
      this.streams.delete(stream.id);
    }
    clearTimeout(stream.closer);
    stream.body.finish();
  }

  /** Tells the stream's holder, once, how its request ended. */
  ended(stream: Stream, end: ResponseEnd): void {
    const onEnd = stream.onEnd;
    stream.onEnd = undefined;
    onEnd?.(end);
  }

  /** Forgets a stream that failed before it answered, and its requests. */
  forget(stream: Stream): void {
    if (this.streams.get(stream.id) === stream) {
      this.streams.delete(stream.id);
    }
    for (const id of stream.ids) {
      if (this.byRequest.get(id) === stream) {
        this.byRequest.delete(id);
        this.#forgetId(id);
      }
    }
  }

  /** Stores the events named but not stored yet. */
  async commit(stream: Stream): Promise<void> {
    const writes = stream.deferred;
    if (writes === undefined) return;
    stream.deferred = undefined;
    stream.stored = true;
    await Promise.all(writes.map((write) => write()));
  }

  /**
   * A client message as the server sees it: a request under an id of its
   * own (see {@link lastServerSideId}), a cancellation naming that id.
   */
  admit(m: JSONRPCMessage): JSONRPCMessage {
    if (!("method" in m)) return m;
    if ("id" in m) {
      const id = nextServerSideId();
      this.#clientIds.set(id, m.id as RequestId);
      this.#serverIds.set(m.id as RequestId, id);
      // Tracing names the request by the client's id (a no-op unrecorded).
      noteWireId(id, m.id as RequestId);
      return { ...m, id };
    }
    if (m.method === "notifications/cancelled") {
      const params = m.params as { requestId?: RequestId } | undefined;
      const id = params?.requestId === undefined
        ? undefined
        : this.#serverIds.get(params.requestId);
      if (id !== undefined) {
        return { ...m, params: { ...params, requestId: id } };
      }
    }
    return m;
  }

  /** An answer as the client sees it: its own id again, the request forgotten. */
  release(answer: JSONRPCMessage, id: RequestId): JSONRPCMessage {
    const clientId = this.#clientIds.get(id);
    if (clientId === undefined) return answer;
    this.#forgetId(id);
    return { ...answer, id: clientId } as JSONRPCMessage;
  }

  #forgetId(id: RequestId): void {
    const clientId = this.#clientIds.get(id);
    if (clientId === undefined) return;
    this.#clientIds.delete(id);
    forgetWireId(id);
    if (this.#serverIds.get(clientId) === id) this.#serverIds.delete(clientId);
  }

  #delivered(stream: Stream): void {
    if (stream.pending === 0 && stream.stored) {
      this.options.onDelivered?.(stream.id);
    }
    this.ended(stream, "delivered");
  }

  /**
   * The client went away (or stopped reading): a resumable stream's calls
   * run on, their answers kept for a resumption; a stream that gave no id
   * to resume from has its calls cancelled.
   */
  #drop(stream: Stream, end: ResponseEnd): void {
    if (end === "overflow") this.options.onOverflow?.();
    clearTimeout(stream.closer);
    if (this.streams.get(stream.id) === stream) {
      this.streams.delete(stream.id);
    }
    const running = stream.ids.filter((id) =>
      this.byRequest.get(id) === stream
    );
    if (running.length > 0 && stream.resumable && !this.closed) {
      // Ended when the last answer is stored (or a resumption takes over).
      stream.dropped = end;
      return;
    }
    for (const id of running) {
      this.byRequest.delete(id);
      this.#forgetId(id);
    }
    for (const requestId of running) {
      this.deliver({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: DROPPED_REASON },
      });
    }
    this.ended(stream, end);
  }
}
