/**
 * The server side of Streamable HTTP for one session (or one stateless
 * request): the SDK's `Transport` interface, so an SDK `Server` connects to
 * it, answering the handler's already-read requests. It keeps the SDK
 * transport's wire behaviour — its status codes and error texts, SSE framing,
 * priming events, event ids, `Last-Event-ID` replay, one standalone GET
 * stream — and does less per request: messages are checked by their shape
 * (no schema library), a POST whose answers are ready by the end of the
 * event-loop turn is answered with its whole SSE text at once (no stream),
 * and a streamed answer is one pull-based stream that counts what waits
 * for a client that does not read.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
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
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type {
  EventId,
  EventStore,
  StreamId,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { DROPPED_REASON } from "./_requests.ts";
import {
  type ConnectionInfo,
  type ResponseEnd,
  SseBody,
  sseEvent,
} from "./_sse_body.ts";
import { afterThisTurn } from "./_turn.ts";
import { jsonRpcError, sessionNotFound } from "./guard.ts";
import { PRIMING_VERSION } from "./event_store.ts";
import {
  isAnswer,
  isInitialize,
  isJsonRpcMessage,
  type RequestId,
} from "./_messages.ts";

/** The stream id of a session's standalone GET stream (the SDK's). */
const STANDALONE = "_GET_stream";
/** The SDK's cap on messages in one batch. */
const MAX_BATCH = 100;
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

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

/** Options of {@link HttpServerTransport}. */
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

/** How a handled request ended, for whoever holds the session or server. */
export type EndListener = (end: ResponseEnd) => void;

/** One POST's or GET's SSE stream: its requests, and the body they answer on. */
class Stream {
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
  /** Writes of events named but not stored yet (see {@link DeferringEventStore}). */
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

/**
 * Streamable HTTP over web-standard `Request`/`Response` for one SDK server:
 * `handle` answers a request whose body the caller already read.
 */
export class HttpServerTransport implements Transport {
  /** The session id, once `initialize` gave one (session mode). */
  sessionId?: string;
  /** Set by the server on connect. */
  onmessage?: Transport["onmessage"];
  /** Set by the server on connect. */
  onclose?: () => void;
  /** Set by the server on connect. */
  onerror?: (error: Error) => void;

  readonly #options: HttpServerTransportOptions;
  readonly #streams = new Map<StreamId, Stream>();
  readonly #byRequest = new Map<RequestId, Stream>();
  /** A live request's id as the client gave it, by the id the server sees. */
  readonly #clientIds = new Map<RequestId, RequestId>();
  /** The id the server sees, by the client's id of a live request (for its cancellation). */
  readonly #serverIds = new Map<RequestId, RequestId>();
  #initialized = false;
  #started = false;
  #closed = false;

  /** A transport answering as `options` say. */
  constructor(options: HttpServerTransportOptions) {
    this.#options = options;
  }

  /** Called by the server on connect. */
  start(): Promise<void> {
    if (this.#started) throw new Error("Transport already started");
    this.#started = true;
    return Promise.resolve();
  }

  /** Ends every stream and tells the server. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const stream of this.#streams.values()) this.#finish(stream);
    this.#streams.clear();
    this.#byRequest.clear();
    this.#clientIds.clear();
    this.#serverIds.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  /**
   * Brings a fresh transport and its server to an initialized session
   * without a client: `initialize` (answer discarded) and `initialized`.
   */
  async restore(sessionId: string, initialize: JSONRPCMessage): Promise<void> {
    this.sessionId = sessionId;
    this.#initialized = true;
    const admitted = this.#admit(initialize);
    const id = (admitted as { id: RequestId }).id;
    const sink = this.#stream("_restore", [id]);
    sink.discard = true;
    const answered = new Promise<void>((resolve) => {
      sink.onEnd = () => resolve();
    });
    this.#byRequest.set(id, sink);
    this.onmessage?.(admitted);
    await answered;
    this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /**
   * Answers one request. `body` is the parsed POST body (`undefined` when
   * the content type was not JSON, and for GET and DELETE). `onEnd` is told
   * once when the request no longer holds anything: its answers were
   * delivered, or the client went away (a resumable stream's calls first
   * run to their end).
   */
  handle(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
    onEnd: EndListener,
  ): Promise<Response> | Response {
    if (this.#closed) return this.#without(onEnd, sessionNotFound());
    switch (req.method) {
      case "POST":
        return this.#post(req, body, info, onEnd);
      case "GET":
        return this.#get(req, info, onEnd);
      case "DELETE":
        return this.#delete(req, onEnd);
      default:
        return this.#without(
          onEnd,
          jsonRpcError(405, -32000, "Method not allowed.", null, {
            allow: "GET, POST, DELETE",
          }),
        );
    }
  }

  /** A request answered with no stream: it holds nothing once answered. */
  #without(onEnd: EndListener, response: Response): Response {
    onEnd("delivered");
    return response;
  }

  /** A refusal, as an answer that holds nothing. */
  #decline(
    onEnd: EndListener,
    status: number,
    code: number,
    message: string,
  ): Response {
    return this.#without(onEnd, this.#refuse(status, code, message));
  }

  #refuse(status: number, code: number, message: string): Response {
    this.onerror?.(new Error(message));
    return jsonRpcError(status, code, message);
  }

  #checkSession(req: Request): Response | undefined {
    if (this.#options.sessionId === undefined) return undefined;
    if (!this.#initialized) {
      return this.#refuse(400, -32000, "Bad Request: Server not initialized");
    }
    const id = req.headers.get("mcp-session-id");
    if (!id) {
      return this.#refuse(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required",
      );
    }
    if (id !== this.sessionId) {
      return this.#refuse(404, -32001, "Session not found");
    }
    return undefined;
  }

  #checkVersion(header: string | null): Response | undefined {
    if (header === null || SUPPORTED_PROTOCOL_VERSIONS.includes(header)) {
      return undefined;
    }
    const list = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
    return this.#refuse(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${header} (supported versions: ${list})`,
    );
  }

  async #post(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
    onEnd: EndListener,
  ): Promise<Response> {
    const accept = req.headers.get("accept");
    if (
      !accept?.includes("application/json") ||
      !accept.includes("text/event-stream")
    ) {
      return this.#decline(
        onEnd,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (body === undefined) {
      return this.#decline(
        onEnd,
        415,
        -32000,
        "Unsupported Media Type: Content-Type must be application/json",
      );
    }
    const batch = Array.isArray(body);
    if (batch && body.length > MAX_BATCH) {
      return this.#decline(
        onEnd,
        400,
        -32600,
        `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`,
      );
    }
    const messages = (batch ? body : [body]) as JSONRPCMessage[];
    if (!messages.every(isJsonRpcMessage)) {
      return this.#decline(
        onEnd,
        400,
        -32700,
        "Parse error: Invalid JSON-RPC message",
      );
    }
    let init: { params: { protocolVersion: string } } | undefined;
    let requests = 0;
    for (const m of messages) {
      if (!("method" in m) || !("id" in m)) continue;
      requests++;
      if (m.method === "initialize" && isInitialize(m)) init ??= m;
    }
    const version = req.headers.get("mcp-protocol-version");
    if (init !== undefined) {
      if (this.#initialized && this.sessionId !== undefined) {
        return this.#decline(
          onEnd,
          400,
          -32600,
          "Invalid Request: Server already initialized",
        );
      }
      if (messages.length > 1) {
        return this.#decline(
          onEnd,
          400,
          -32600,
          "Invalid Request: Only one initialization request is allowed",
        );
      }
      this.sessionId = this.#options.sessionId;
      this.#initialized = true;
      if (this.sessionId !== undefined) {
        this.#options.onInitialized?.(this.sessionId);
      }
    } else {
      const refusal = this.#checkSession(req) ?? this.#checkVersion(version);
      if (refusal !== undefined) return this.#without(onEnd, refusal);
    }
    if (this.#closed) return this.#without(onEnd, sessionNotFound());
    const extra = requestInfo(req);
    const admitted = messages.map((m) => this.#admit(m));
    if (requests === 0) {
      for (const m of admitted) this.onmessage?.(m, extra);
      onEnd("delivered");
      return new Response(null, { status: 202 });
    }
    const ids: RequestId[] = [];
    for (const m of admitted) {
      if ("method" in m && "id" in m) ids.push(m.id as RequestId);
    }
    const stream = this.#stream(crypto.randomUUID(), ids);
    stream.onEnd = onEnd;
    this.#streams.set(stream.id, stream);
    for (const id of ids) this.#byRequest.set(id, stream);
    const events = this.#options.events;
    const primed = events !== undefined &&
      this.#effectiveVersion(init?.params.protocolVersion, version) >=
        PRIMING_VERSION;
    try {
      if (primed) {
        const id = await events.storeEvent(stream.id, {} as JSONRPCMessage);
        const retry = this.#options.retry;
        stream.body.write(
          retry === undefined
            ? `id: ${id}\ndata: \n\n`
            : `id: ${id}\nretry: ${retry}\ndata: \n\n`,
        );
        stream.resumable = true;
        stream.primed = true;
      }
      const ready = new Promise<void>((resolve) => {
        stream.ready = resolve;
      });
      for (const m of admitted) {
        if (primed && "id" in m && "method" in m) {
          const id = m.id as RequestId;
          this.onmessage?.(m, {
            ...extra,
            closeSSEStream: () => this.closeSSEStream(id),
            closeStandaloneSSEStream: () => this.closeStandaloneSSEStream(),
          } as MessageExtraInfo);
        } else {
          this.onmessage?.(m, extra);
        }
      }
      if (stream.pending > 0) {
        afterThisTurn(() => stream.ready?.());
        await ready;
      }
      stream.ready = undefined;
    } catch (error) {
      this.#forget(stream);
      throw error;
    }
    const headers = this.#sseHeaders();
    if (stream.pending === 0) {
      // Everything is in: the whole text at once.
      await this.#watchDelivery(stream, info);
      return new Response(stream.body.text, { status: 200, headers });
    }
    await this.#commit(stream);
    return new Response(this.#open(stream, req, info), {
      status: 200,
      headers,
    });
  }

  /** The version a POST's stream is primed by (the SDK's rule, raised to the session's). */
  #effectiveVersion(
    initVersion: string | undefined,
    header: string | null,
  ): string {
    if (initVersion !== undefined) return initVersion;
    const asked = header ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    const negotiated = this.#options.protocol;
    return negotiated !== undefined && negotiated >= PRIMING_VERSION &&
        negotiated > asked
      ? negotiated
      : asked;
  }

  // A response sent whole: delivered when the server says so; dropped,
  // its events stay for a resumption.
  // A failed delivery is when the events named but not stored are written:
  // a resumption looks for them then.
  async #watchDelivery(
    stream: Stream,
    info: ConnectionInfo | undefined,
  ): Promise<void> {
    this.#streams.delete(stream.id);
    const onEnd = stream.onEnd;
    stream.onEnd = undefined;
    const delivered = () => {
      if (stream.stored) this.#options.onDelivered?.(stream.id);
    };
    const completed = info?.completed;
    if (completed === undefined) {
      await this.#commit(stream);
      delivered();
    } else {
      completed.then(delivered, () => this.#commit(stream));
    }
    onEnd?.("delivered");
  }

  /** Stores the events named but not stored yet. */
  async #commit(stream: Stream): Promise<void> {
    const writes = stream.deferred;
    if (writes === undefined) return;
    stream.deferred = undefined;
    stream.stored = true;
    await Promise.all(writes.map((write) => write()));
  }

  async #get(
    req: Request,
    info: ConnectionInfo | undefined,
    onEnd: EndListener,
  ): Promise<Response> {
    if (!req.headers.get("accept")?.includes("text/event-stream")) {
      return this.#decline(
        onEnd,
        406,
        -32000,
        "Not Acceptable: Client must accept text/event-stream",
      );
    }
    const refusal = this.#checkSession(req) ??
      this.#checkVersion(req.headers.get("mcp-protocol-version"));
    if (refusal !== undefined) return this.#without(onEnd, refusal);
    const events = this.#options.events;
    const lastEventId = req.headers.get("last-event-id");
    if (events !== undefined && lastEventId) {
      return await this.#resume(events, lastEventId, req, info, onEnd);
    }
    if (this.#streams.has(STANDALONE)) {
      return this.#decline(
        onEnd,
        409,
        -32000,
        "Conflict: Only one SSE stream is allowed per session",
      );
    }
    const stream = this.#stream(STANDALONE, []);
    stream.onEnd = onEnd;
    this.#streams.set(STANDALONE, stream);
    return new Response(this.#open(stream, req, info), {
      headers: this.#sseHeaders(),
    });
  }

  async #resume(
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
          return this.#decline(onEnd, 400, -32000, "Invalid event ID format");
        }
        if (this.#streams.has(streamId)) {
          return this.#decline(
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
      if (this.#closed) return this.#without(onEnd, sessionNotFound());
      const previous = this.#streams.get(replayedId);
      if (previous !== undefined) this.#finish(previous);
      // The stream's calls that still run (their stream was dropped or
      // closed): this stream takes them over, and what held the session
      // for them lets go.
      const running: RequestId[] = [];
      const before = new Set<Stream>();
      for (const [id, s] of this.#byRequest) {
        if (s.id === replayedId) {
          running.push(id);
          before.add(s);
        }
      }
      const stream = this.#stream(replayedId, running);
      stream.resumable = true;
      stream.stored = true;
      stream.replayed = replayed;
      stream.body.write(replay);
      stream.onEnd = onEnd;
      this.#streams.set(replayedId, stream);
      for (const id of running) this.#byRequest.set(id, stream);
      for (const s of before) if (s.body.closed) this.#ended(s, "dropped");
      if (running.length === 0 && replayedId !== STANDALONE) {
        // Nothing runs on it any more: what was kept is all there is.
        stream.body.finish();
      }
      return new Response(this.#open(stream, req, info), {
        headers: this.#sseHeaders(),
      });
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return this.#without(
        onEnd,
        jsonRpcError(500, -32000, "Error replaying events"),
      );
    }
  }

  async #delete(req: Request, onEnd: EndListener): Promise<Response> {
    onEnd("delivered");
    const refusal = this.#checkSession(req) ??
      this.#checkVersion(req.headers.get("mcp-protocol-version"));
    if (refusal !== undefined) return refusal;
    try {
      if (this.sessionId !== undefined) {
        await this.#options.onDeleted?.(this.sessionId);
      }
      return new Response(null, { status: 200 });
    } finally {
      await this.close();
    }
  }

  #sseHeaders(): Record<string, string> {
    return this.sessionId === undefined
      ? SSE_HEADERS
      : { ...SSE_HEADERS, "mcp-session-id": this.sessionId };
  }

  /** Closes the stream carrying `requestId`; its calls run on, the client resumes. */
  closeSSEStream(requestId: RequestId): void {
    const stream = this.#byRequest.get(requestId);
    if (stream !== undefined && this.#streams.get(stream.id) === stream) {
      this.#finish(stream);
    }
  }

  /** Closes the standalone GET stream; the client reconnects. */
  closeStandaloneSSEStream(): void {
    const stream = this.#streams.get(STANDALONE);
    if (stream !== undefined) this.#finish(stream);
  }

  /** Sends a server message on the stream of the request it belongs to. */
  async send(
    serverMessage: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    const answer = isAnswer(serverMessage);
    const requestId = answer
      ? (serverMessage as { id: RequestId }).id
      : options?.relatedRequestId;
    const message = answer
      ? this.#release(serverMessage, requestId!)
      : serverMessage;
    const events = this.#options.events;
    if (requestId === undefined) {
      if (answer) {
        throw new Error(
          "Cannot send a response on a standalone SSE stream unless resuming a previous client request",
        );
      }
      const eventId = events === undefined
        ? undefined
        : await events.storeEvent(STANDALONE, message);
      const stream = this.#streams.get(STANDALONE);
      if (stream !== undefined && !stream.replayed?.has(eventId!)) {
        stream.body.write(sseEvent(message, eventId));
      }
      return;
    }
    let stream = this.#byRequest.get(requestId);
    if (stream === undefined) {
      throw new Error(
        "The request this message belongs to was answered or cancelled: a message sent after that goes nowhere",
      );
    }
    if (stream.discard) {
      if (answer) this.#answered(stream, requestId);
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
      stream = this.#byRequest.get(requestId) ?? stream;
      stream.resumable = true;
      stream.stored = true;
    }
    if (eventId === undefined || !stream.replayed?.has(eventId)) {
      stream.body.write(sseEvent(message, eventId));
    }
    if (answer) this.#answered(stream, requestId);
  }

  #answered(stream: Stream, requestId: RequestId): void {
    if (this.#byRequest.get(requestId) === stream) {
      this.#byRequest.delete(requestId);
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
      this.#ended(stream, stream.dropped ?? "dropped");
      return;
    }
    this.#finish(stream);
  }

  /** A stream of this transport, its body reporting back to it. */
  #stream(id: StreamId, ids: RequestId[]): Stream {
    const stream = new Stream(id, ids);
    stream.body = new SseBody(this.#options.maxUnread, {
      delivered: () => this.#delivered(stream),
      lost: (end) => this.#drop(stream, end),
    });
    return stream;
  }

  /** No more writes: the stream closes once the client took what waits. */
  #finish(stream: Stream): void {
    if (this.#streams.get(stream.id) === stream) {
      this.#streams.delete(stream.id);
    }
    clearTimeout(stream.closer);
    stream.body.finish();
  }

  #delivered(stream: Stream): void {
    if (stream.pending === 0 && stream.stored) {
      this.#options.onDelivered?.(stream.id);
    }
    this.#ended(stream, "delivered");
  }

  /**
   * The client went away (or stopped reading): a resumable stream's calls
   * run on, their answers kept for a resumption; a stream that gave no id
   * to resume from has its calls cancelled.
   */
  #drop(stream: Stream, end: ResponseEnd): void {
    if (end === "overflow") this.#options.onOverflow?.();
    clearTimeout(stream.closer);
    if (this.#streams.get(stream.id) === stream) {
      this.#streams.delete(stream.id);
    }
    const running = stream.ids.filter((id) =>
      this.#byRequest.get(id) === stream
    );
    if (running.length > 0 && stream.resumable && !this.#closed) {
      // Ended when the last answer is stored (or a resumption takes over).
      stream.dropped = end;
      return;
    }
    for (const id of running) {
      this.#byRequest.delete(id);
      this.#forgetId(id);
    }
    for (const requestId of running) {
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: DROPPED_REASON },
      });
    }
    this.#ended(stream, end);
  }

  #ended(stream: Stream, end: ResponseEnd): void {
    const onEnd = stream.onEnd;
    stream.onEnd = undefined;
    onEnd?.(end);
  }

  #forget(stream: Stream): void {
    if (this.#streams.get(stream.id) === stream) {
      this.#streams.delete(stream.id);
    }
    for (const id of stream.ids) {
      if (this.#byRequest.get(id) === stream) {
        this.#byRequest.delete(id);
        this.#forgetId(id);
      }
    }
  }

  /**
   * A client message as the server sees it: a request under an id of its
   * own (see {@link lastServerSideId}), a cancellation naming that id.
   */
  #admit(m: JSONRPCMessage): JSONRPCMessage {
    if (!("method" in m)) return m;
    if ("id" in m) {
      const id = ++lastServerSideId;
      this.#clientIds.set(id, m.id as RequestId);
      this.#serverIds.set(m.id as RequestId, id);
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
  #release(answer: JSONRPCMessage, id: RequestId): JSONRPCMessage {
    const clientId = this.#clientIds.get(id);
    if (clientId === undefined) return answer;
    this.#forgetId(id);
    return { ...answer, id: clientId } as JSONRPCMessage;
  }

  #forgetId(id: RequestId): void {
    const clientId = this.#clientIds.get(id);
    if (clientId === undefined) return;
    this.#clientIds.delete(id);
    if (this.#serverIds.get(clientId) === id) this.#serverIds.delete(clientId);
  }

  /** The response body of a stream that must go out before its end. */
  #open(
    stream: Stream,
    req: Request,
    info: ConnectionInfo | undefined,
  ): ReadableStream<Uint8Array> {
    const body = stream.body.open(req, info);
    const closeAfter = this.#options.closeStreamsAfter;
    if (
      stream.primed && stream.pending > 0 && closeAfter !== undefined &&
      !stream.body.closed
    ) {
      // The client resumes with Last-Event-ID after the retry interval.
      stream.closer = setTimeout(() => this.#finish(stream), closeAfter);
    }
    return body;
  }
}

/**
 * What handlers see of the HTTP request (`extra.requestInfo`): its headers
 * and URL, built only when a handler reads them.
 */
function requestInfo(req: Request): MessageExtraInfo {
  let headers: Record<string, string> | undefined;
  let url: URL | undefined;
  return {
    requestInfo: {
      get headers() {
        return headers ??= Object.fromEntries(req.headers.entries());
      },
      get url() {
        return url ??= new URL(req.url);
      },
    },
  } as MessageExtraInfo;
}
