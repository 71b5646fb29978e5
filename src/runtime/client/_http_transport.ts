/**
 * The client transport `connectHttp` uses: the SDK's
 * `StreamableHTTPClientTransport`, with three things added through its
 * `fetch` hook — big integers kept, a cancelled call's HTTP request dropped,
 * and a call whose response stream broke failed at once.
 *
 * An SSE body is read in the SDK's place: its `_handleSseStream` (the SDK
 * version is pinned) is replaced by one reader loop with a decoder and a
 * hand-written parser, which does what the SDK's reading does — without its
 * decoder and parser streams, and without its schema parse of a plain result
 * response (which that schema gives back as it is).
 * tests/runtime_http_sse_reader_test.ts holds the two side by side. When the
 * SDK's internals are not as expected, the body is watched on the SDK's own
 * reading instead (`watchEventStream`).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  FetchLike,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ConnectionLostError } from "../errors.ts";
import {
  encodeHeaderValue,
  HEADER,
  isModernVersion,
  META,
  nameParamOf,
} from "../era/era.ts";
import { mayHoldBigNumber, RawNumberCodec } from "./_raw_number_codec.ts";
import {
  answeredId,
  cancelledIdOf,
  postedRequestId,
  type RequestId,
  requestIdOf,
  responseIdOf,
} from "./_message_ids.ts";
import { watchEventStream } from "./_event_stream.ts";
import {
  forgetSessionId,
  replaceSseReader,
  type SseReaderSeam,
  type SseReadOptions,
} from "../../seam/sdk_internals.ts";
import { SseParser } from "./_sse_parser.ts";
import { isPlainResultResponse } from "./_response_lane.ts";

/** What the transport tracks of one request in flight. */
interface Call {
  answered: boolean;
  dropped: boolean;
  /** Drops the request: aborts its POST, then cancels its response stream. */
  drop?: () => void;
  /** The modern era's headers, derived from the request's envelope. */
  headers?: readonly [string, string][];
}

/** What the SDK transport's SSE reading is given besides the body. */
type SseOptions = SseReadOptions;

/** What the transport knows of an SSE body its fetch handed the SDK. */
interface SseBody {
  /** The calls waiting for their answers on it. */
  readonly waiting: readonly RequestId[];
  /** The call whose POST it answers, if any. */
  readonly post: Call | undefined;
  /** Called once the body is done with. */
  readonly release: () => void;
  /** In the transport's open set: cancels the body, or its reader once read. */
  readonly open: { cancel(reason: unknown): void };
}

/** Options of {@link LosslessHttpTransport}. */
export interface LosslessHttpOptions {
  /** Headers sent with every request. */
  readonly headers?: HeadersInit;
  /** The fetch to use; `globalThis.fetch` when absent. */
  readonly fetch?: FetchLike;
  /**
   * Whether the bodies `fetch` gives are the runtime's own fetch bodies,
   * read into a buffer of the transport's (a BYOB read). Default: when
   * `fetch` is absent. A byte stream of another source may never answer
   * such a read at its end; any other body gets a default reader.
   */
  readonly runtimeBodies?: boolean;
}

/** Whether `error` is the SDK transport's `404` (the server does not know the session). */
export function isSessionNotFound(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** The text of the error a call gets when its response stream ends without its answer. */
export const STREAM_LOST_MESSAGE =
  "the HTTP response stream ended before the response";

/** See the module doc. */
export class LosslessHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #inner: StreamableHTTPClientTransport;
  readonly #fetch: FetchLike;
  readonly #codec = new RawNumberCodec();
  readonly #calls = new Map<RequestId, Call>();
  /** Calls whose stream the server closed after an event id, by that id, until the SDK resumes it. */
  readonly #resuming = new Map<string, RequestId[]>();
  /** The SSE bodies being read now, cancelled on close. */
  readonly #open = new Set<{ cancel(reason: unknown): void }>();
  /** The SDK's internals when its SSE reading is taken over (see `#readEvents`). */
  readonly #sdk?: SseReaderSeam;
  /** The SSE bodies handed to the SDK, until it starts reading them. */
  readonly #bodies = new WeakMap<ReadableStream<Uint8Array>, SseBody>();
  /** The signal the SDK gives every request, and the calls following it. */
  #following?: AbortSignal;
  readonly #inFlight = new Set<AbortController>();
  /** See {@link LosslessHttpOptions.runtimeBodies}. */
  readonly #runtimeBodies: boolean;
  #closed = false;

  /** Builds the transport for `url`. */
  constructor(url: URL, options: LosslessHttpOptions = {}) {
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#runtimeBodies = options.runtimeBodies ?? options.fetch === undefined;
    this.#inner = new StreamableHTTPClientTransport(url, {
      // No headers, no init: the SDK then merges nothing into each request.
      ...(options.headers === undefined
        ? {}
        : { requestInit: { headers: options.headers } }),
      fetch: (input, init) => this.#fetchWrapped(input, init),
    });
    // The SDK reads an SSE body through a decoder stream, a parser stream
    // and a zod parse of each message; the transport reads it in one loop
    // instead, doing what the SDK's reading does (`#readEvents`).
    this.#sdk = replaceSseReader(
      this.#inner,
      (stream, options, reconnectable) =>
        void this.#readEvents(stream, options, reconnectable),
    );
    this.#inner.onmessage = (message) => this.#receive(message);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => this.onclose?.();
  }

  /** The server's session id, once it gave one. */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    const id = requestIdOf(message);
    if (id !== undefined) {
      const headers = modernHeadersOf(message);
      this.#calls.set(
        id,
        headers === undefined
          ? { answered: false, dropped: false }
          : { answered: false, dropped: false, headers },
      );
    }
    const cancelled = cancelledIdOf(message);
    if (cancelled !== undefined) this.#dropCall(cancelled);
    try {
      await this.#inner.send(message, options);
    } catch (error) {
      if (id !== undefined) this.#calls.delete(id);
      throw error;
    }
  }

  /**
   * Drops the request `id` in flight without a message: aborts its POST or
   * cancels its response stream (the modern era's cancellation).
   */
  dropCall(id: RequestId): void {
    this.#dropCall(id);
  }

  /**
   * Forgets the session id, so that the next `initialize` begins a new
   * session (after the server answered `404 Session not found`).
   */
  forgetSession(): void {
    forgetSessionId(this.#inner);
  }

  /** Ends the session with a DELETE (when there is one); a 405 or a failure is ignored. */
  async terminateSession(): Promise<void> {
    await this.#inner.terminateSession().catch(() => {
      // Nothing lost: a DELETE that fails leaves the session to expire on the server.
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#resuming.clear();
    // The SDK aborts its signal, which should end every response body; a
    // body cancelled here as well releases its connection even when the
    // abort does not reach it (seen under load with Deno's fetch).
    const reason = new Error("the client closed");
    for (const body of this.#open) body.cancel(reason);
    this.#open.clear();
    return this.#inner.close();
  }

  #receive(message: JSONRPCMessage): void {
    const restored = this.#codec.restore(message);
    const id = responseIdOf(restored);
    if (id !== undefined) this.#calls.delete(id);
    this.onmessage?.(restored);
  }

  #dropCall(id: RequestId): void {
    const call = this.#calls.get(id);
    if (call === undefined) return;
    this.#calls.delete(id);
    call.dropped = true;
    call.drop?.();
  }

  async #fetchWrapped(
    input: string | URL,
    init?: RequestInit,
  ): Promise<Response> {
    const id = postedRequestId(init);
    // Looked up before the fetch: a cancellation may come while it is pending.
    const call = id === undefined ? undefined : this.#calls.get(id);
    // A GET naming a Last-Event-ID resumes a stream calls were waiting on.
    const resumed = this.#takeResuming(init);
    // Until its response begins, a cancelled call's POST is dropped by
    // aborting the fetch; a server that never answers must not hold it.
    // The fetch gets this call's own signal, which follows the SDK's (the
    // transport's, aborted on close) until the response ends: a listener,
    // not `AbortSignal.any`, whose dependent signals cost more than the
    // rest of the wrapping.
    let release = noop;
    if (call?.headers !== undefined) {
      const headers = new Headers(init?.headers);
      for (const [name, value] of call.headers) headers.set(name, value);
      init = { ...init, headers };
    }
    if (call !== undefined) {
      const drop = new AbortController();
      call.drop = () => drop.abort(new Error("request cancelled"));
      if (call.dropped) call.drop();
      release = this.#follow(init?.signal, drop);
      init = { ...init, signal: drop.signal };
    }
    let response: Response;
    try {
      response = await this.#fetch(input, init);
    } catch (error) {
      release();
      for (const waiting of resumed) this.#loseIfPending(waiting, error);
      // The SDK already rejected the call with its signal's reason: end the
      // send quietly (202: no body), not as a transport error.
      if (call?.dropped) return new Response(null, { status: 202 });
      throw error;
    } finally {
      if (call !== undefined) call.drop = undefined;
    }
    if (!response.ok || response.body === null) {
      release();
      for (const waiting of resumed) this.#loseIfPending(waiting);
      return response;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (type === "application/json") {
      let text: string;
      try {
        text = await response.text();
      } finally {
        release();
      }
      const encoded = this.#codec.encode(text).text;
      return withBody(encoded, response, encoded === text);
    }
    if (type !== "text/event-stream") {
      release();
      return response;
    }
    const waiting = id !== undefined && call !== undefined ? [id] : resumed;
    if (this.#sdk !== undefined) {
      // Read by `#readEvents` when the SDK hands it there; until then a
      // cancelled call or a close cancels the body itself.
      const body = response.body;
      const open = { cancel: (reason: unknown) => cancelQuietly(body, reason) };
      this.#bodies.set(body, { waiting, post: call, release, open });
      this.#open.add(open);
      if (call !== undefined) {
        call.drop = () => open.cancel(new Error("request cancelled"));
        if (call.dropped) call.drop();
      }
      return response;
    }
    // The body is watched in place (no second stream): the response goes
    // on as it is, unless it hands out a new body object on each read.
    const body = this.#eventStream(response.body, waiting, call, release);
    return response.body === body ? response : withBody(body, response, false);
  }

  /**
   * Reads an SSE body in the SDK's place (its `_handleSseStream`, the same
   * arguments): one reader, a decoder and a parser, no streams between.
   * Each event is handled as the SDK handles it — its id noted (and given
   * to `onresumptiontoken`), a message parsed (big numbers kept) and
   * checked with the SDK's schema (a plain result response, which that
   * schema gives back as it is, without it), then delivered; a stream
   * that ends or breaks before its answer is resumed as the SDK resumes
   * it. What the transport adds is what the watched body of the other
   * path adds: its calls answered, lost or resumed when it ends.
   */
  async #readEvents(
    stream: ReadableStream<Uint8Array> | null,
    options: SseOptions | undefined,
    reconnectable: boolean,
  ): Promise<void> {
    if (stream === null || stream === undefined) return;
    const sdk = this.#sdk!;
    const inner = this.#inner;
    const body = this.#bodies.get(stream);
    this.#bodies.delete(stream);
    const waiting = body?.waiting ?? [];
    const post = body?.post;
    const onresumptiontoken = options?.onresumptiontoken;
    const replayMessageId = options?.replayMessageId;
    let lastEventId: string | undefined;
    let primed = false;
    let received = false;
    let over = false;
    const finish = (): void => {
      if (over) return;
      over = true;
      if (body !== undefined) {
        this.#open.delete(body.open);
        body.release();
      }
    };
    const parser = new SseParser({
      event: (id, type, data) => {
        if (id) {
          lastEventId = id;
          primed = true;
          onresumptiontoken?.(id);
        }
        if (!data) return;
        if (type !== undefined && type !== "message") return;
        try {
          const message = this.#parseMessage(data);
          if (isResult(message)) {
            received = true;
            if (replayMessageId !== undefined) {
              (message as { id: RequestId }).id = replayMessageId;
            }
          }
          inner.onmessage?.(message);
        } catch (error) {
          // Not delivered; an answer all the same (as the other path notes).
          this.#noteAnswered(waiting, data);
          inner.onerror?.(error as Error);
        }
      },
      retry: (ms) => {
        sdk.setRetry(ms);
      },
    });
    const resume = (): void => {
      const signal = sdk.signal();
      if (
        (reconnectable || primed) && !received && signal !== undefined &&
        !signal.aborted
      ) {
        sdk.scheduleReconnection({
          resumptionToken: lastEventId,
          onresumptiontoken,
          replayMessageId,
        }, 0);
      }
    };
    try {
      // A fetch body is a byte stream: read into a buffer of the
      // transport's (a default reader allocates a chunk on every read).
      const byob = this.#runtimeBodies ? byobReaderOf(stream) : undefined;
      const plain = byob === undefined ? stream.getReader() : undefined;
      const reader: { cancel(reason: unknown): Promise<void> } = byob ?? plain!;
      if (body !== undefined) {
        body.open.cancel = (reason) => void reader.cancel(reason).catch(noop);
      }
      let buffer = byob === undefined ? undefined : this.#takeBuffer();
      const decoder = new TextDecoder();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          if (byob !== undefined) {
            chunk = await byob.read(new Uint8Array(buffer!));
            // The buffer comes back (moved) with the bytes read; none when
            // the stream was cancelled.
            buffer = chunk.value?.buffer as ArrayBuffer | undefined;
          } else chunk = await plain!.read();
        } catch (error) {
          finish();
          // The calls it failed end the stream quietly, as a clean end.
          const quiet = post?.dropped === true || this.#closed ||
            this.#ended(waiting, true, lastEventId ?? "", error);
          if (quiet) break;
          throw error;
        }
        if (chunk.done) {
          finish();
          if (buffer !== undefined) this.#giveBuffer(buffer);
          const rest = decoder.decode();
          if (rest !== "") parser.feed(rest);
          this.#ended(waiting, false, lastEventId ?? "");
          break;
        }
        const text = decoder.decode(chunk.value!, { stream: true });
        if (text !== "") parser.feed(text);
      }
      resume();
    } catch (error) {
      finish();
      inner.onerror?.(new Error(`SSE stream disconnected: ${error}`));
      try {
        resume();
      } catch (error) {
        inner.onerror?.(
          new Error(
            `Failed to reconnect: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
        );
      }
    }
  }

  /** Read buffers of bodies read to their end, for the next. */
  readonly #buffers: ArrayBuffer[] = [];

  #takeBuffer(): ArrayBuffer {
    return this.#buffers.pop() ?? new ArrayBuffer(READ_BUFFER_SIZE);
  }

  #giveBuffer(buffer: ArrayBuffer): void {
    if (
      buffer.byteLength === READ_BUFFER_SIZE &&
      this.#buffers.length < KEPT_BUFFERS
    ) this.#buffers.push(buffer);
  }

  #noteAnswered(waiting: readonly RequestId[], data: string): void {
    if (waiting.length === 0) return;
    const answered = answeredId(data, () => parseOrUndefined(data));
    if (answered === undefined || !waiting.includes(answered)) return;
    const call = this.#calls.get(answered);
    if (call !== undefined) call.answered = true;
  }

  // One event's data as the SDK's reading gives it: `JSON.parse` (of the
  // text with its big numbers marked), then its message schema.
  #parseMessage(data: string): JSONRPCMessage {
    const parsed = JSON.parse(
      mayHoldBigNumber(data) ? this.#codec.encode(data).text : data,
    );
    return plainResultMessage(parsed) ?? JSONRPCMessageSchema.parse(parsed);
  }

  /**
   * `follow` for the SDK's own signal (the same one on every request): one
   * listener on it for the transport, aborting the calls in flight,
   * instead of a listener added and removed per request.
   */
  #follow(
    outer: AbortSignal | null | undefined,
    drop: AbortController,
  ): () => void {
    if (outer === null || outer === undefined || outer.aborted) {
      return follow(outer, drop);
    }
    if (this.#following === undefined) {
      this.#following = outer;
      outer.addEventListener("abort", () => {
        for (const each of this.#inFlight) each.abort(outer.reason);
        this.#inFlight.clear();
      }, { once: true });
    } else if (this.#following !== outer) return follow(outer, drop);
    this.#inFlight.add(drop);
    return () => void this.#inFlight.delete(drop);
  }

  // The SSE body the SDK reads: big numbers marked; for the calls waiting on
  // it (a POST's own request, or those a resumption carries on), watched for
  // their answers; for a POST, dropped when its call is cancelled.
  #eventStream(
    body: ReadableStream<Uint8Array>,
    waiting: readonly RequestId[],
    post: Call | undefined,
    finished: () => void,
  ): ReadableStream<Uint8Array> {
    // An event answering a waiting call marks it answered before the SDK
    // reads it, so the stream's end cannot be taken for a loss.
    const note = (data: string, value: () => unknown): void => {
      if (waiting.length === 0) return;
      const answered = answeredId(data, value);
      if (answered !== undefined && waiting.includes(answered)) {
        const call = this.#calls.get(answered);
        if (call !== undefined) call.answered = true;
      }
    };
    const watched = watchEventStream(body, {
      rewrite: (data) => {
        const encoded = this.#codec.encode(data);
        note(data, () => encoded.value);
        return encoded.text;
      },
      needsRewrite: mayHoldBigNumber,
      observe: (data) => note(data, () => parseOrUndefined(data)),
      ended: (broken, lastEventId, cause) =>
        this.#ended(waiting, broken, lastEventId, cause),
      quiet: () => post?.dropped === true || this.#closed,
      finished: () => {
        this.#open.delete(watched);
        finished();
      },
    });
    this.#open.add(watched);
    if (post !== undefined) {
      post.drop = () => watched.cancel(new Error("request cancelled"));
      if (post.dropped) post.drop();
    }
    return watched.stream;
  }

  // A watched stream ended: resolves to whether some call was failed here
  // (then the stream ends quietly).
  #ended(
    waiting: readonly RequestId[],
    broken: boolean,
    lastEventId: string,
    cause?: unknown,
  ): boolean {
    if (this.#closed || !waiting.some(this.#isPending)) return false;
    const pending = waiting.filter(this.#isPending);
    // A stream the server closed cleanly after giving an event id is
    // resumed by the SDK (SEP-1699); a broken one, or one without ids, is
    // lost.
    if (!broken && lastEventId !== "") {
      this.#resuming.set(lastEventId, pending);
      return false;
    }
    for (const id of pending) this.#loseIfPending(id, cause);
    return true;
  }

  readonly #isPending = (id: RequestId): boolean => {
    const call = this.#calls.get(id);
    return call !== undefined && !call.answered && !call.dropped;
  };

  // The calls waiting for the stream a GET with Last-Event-ID resumes.
  #takeResuming(init: RequestInit | undefined): RequestId[] {
    if (init?.method !== "GET" || this.#resuming.size === 0) return [];
    const lastEventId = new Headers(init.headers).get("last-event-id");
    if (lastEventId === null) return [];
    const waiting = this.#resuming.get(lastEventId) ?? [];
    this.#resuming.delete(lastEventId);
    return waiting;
  }

  #loseIfPending(id: RequestId, cause?: unknown): void {
    const call = this.#calls.get(id);
    if (call === undefined || call.answered || call.dropped) return;
    this.#calls.delete(id);
    this.#lose(id, cause);
  }

  #lose(id: RequestId, cause: unknown): void {
    const lost = new ConnectionLostError(STREAM_LOST_MESSAGE, { cause });
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: {
        code: ErrorCode.ConnectionClosed,
        message: lost.message,
        data: lost,
      },
    });
  }
}

// The headers a request carrying the modern `_meta` envelope is sent
// with: its protocol version, method and (for a call, a prompt, a read)
// the name it targets.
function modernHeadersOf(
  message: JSONRPCMessage,
): [string, string][] | undefined {
  const m = message as { method?: unknown; params?: Record<string, unknown> };
  const meta = m.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[META.protocolVersion];
  if (typeof m.method !== "string" || !isModernVersion(version)) {
    return undefined;
  }
  const headers: [string, string][] = [
    [HEADER.protocolVersion, version],
    [HEADER.method, m.method],
  ];
  const param = nameParamOf(m.method);
  const name = param === undefined ? undefined : m.params?.[param];
  if (typeof name === "string") {
    headers.push([HEADER.name, encodeHeaderValue(name)]);
  }
  return headers;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function noop(): void {}

// The media type of a content type, lower-cased, without parameters.
function mediaType(contentType: string | null): string {
  if (contentType === null) return "";
  // The common spellings, as they come.
  if (
    contentType === "text/event-stream" || contentType === "application/json"
  ) {
    return contentType;
  }
  return contentType.split(";")[0].trim().toLowerCase();
}

/** The size of an SSE body's read buffer, and how many a transport keeps. */
const READ_BUFFER_SIZE = 32 * 1024;
const KEPT_BUFFERS = 4;

// A BYOB reader of `stream` when it is a byte stream (a fetch body), else
// `undefined` (it then gets a default reader).
function byobReaderOf(
  stream: ReadableStream<Uint8Array>,
): ReadableStreamBYOBReader | undefined {
  if (stream.locked) return undefined; // the default reader throws as the SDK's pipe would
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

function cancelQuietly(
  body: ReadableStream<Uint8Array>,
  reason: unknown,
): void {
  if (body.locked) return;
  void body.cancel(reason).catch(noop);
}

/**
 * What the SDK's message schema gives back for `value` when it is plainly
 * a result response (see `isPlainResultResponse`) whose result has no
 * `_meta` or has it first: the schema's keys in its order, the result
 * itself. `undefined`: the schema decides.
 */
function plainResultMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainResultResponse(value)) return undefined;
  const m = value as { jsonrpc: "2.0"; id: RequestId; result: object };
  const result = m.result as Record<string, unknown>;
  if (Object.hasOwn(result, "__proto__")) return undefined;
  if (result._meta !== undefined) {
    for (const key in result) {
      if (key !== "_meta") return undefined;
      break;
    }
  }
  return { jsonrpc: m.jsonrpc, id: m.id, result } as JSONRPCMessage;
}

function isResult(message: JSONRPCMessage): boolean {
  return isPlainResultResponse(message) || isJSONRPCResultResponse(message);
}

// Aborts `drop` when `outer` aborts, until the function returned is called.
function follow(
  outer: AbortSignal | null | undefined,
  drop: AbortController,
): () => void {
  if (outer === null || outer === undefined) return noop;
  if (outer.aborted) {
    drop.abort(outer.reason);
    return noop;
  }
  const onAbort = () => drop.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  return () => outer.removeEventListener("abort", onAbort);
}

// `from` with another body. The headers are shared (a copy costs more than
// the rest of the wrapping) unless the body's length may differ from a
// `content-length` they give.
function withBody(
  body: BodyInit,
  from: Response,
  sameLength: boolean,
): Response {
  let headers = from.headers;
  if (!sameLength && headers.has("content-length")) {
    headers = new Headers(headers);
    headers.delete("content-length");
  }
  return new Response(body, {
    status: from.status,
    statusText: from.statusText,
    headers,
  });
}
