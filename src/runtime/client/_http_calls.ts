/**
 * What the HTTP client transport keeps of each request in flight: whether
 * its answer came or it was dropped, how to drop it, the headers the modern
 * era sends it with, and the calls a stream the server closed leaves
 * waiting for their resumption. A call whose response stream ends without
 * its answer is failed here with a `ConnectionLostError` (one whose request
 * fails before its response, by the fetch hook, with another text).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { ConnectionLostError } from "../errors.ts";
import {
  encodeHeaderValue,
  HEADER,
  isModernVersion,
  META,
  nameParamOf,
} from "../era/era.ts";
import {
  answeredId,
  postsInitialize,
  type RequestId,
  requestIdOf,
} from "./_message_ids.ts";

/** The text of the error a call gets when its response stream ends without its answer. */
export const STREAM_LOST_MESSAGE =
  "the HTTP response stream ended before the response";

/**
 * The text of the error a call gets when its HTTP request fails before its
 * response began (the fetch rejected): nothing listens any more, or the
 * server closed the connection before sending the response headers.
 */
export const REQUEST_LOST_MESSAGE =
  "the HTTP request failed before the response (the server could not be reached, or it closed the connection)";

/**
 * A request's POST that failed at the network — the Fetch standard's
 * `TypeError`: nothing listens any more, or the connection was reset or
 * closed before the response headers — as the call lost, its cause kept;
 * an `initialize` (it begins a connection rather than losing one) and any
 * other rejection (a wrapper's `AuthorizationError`, say) as they are. The
 * one rule for both HTTP clients (`connectHttp`'s transport, `connectSse`).
 */
export function lostRequest(
  error: unknown,
  init: RequestInit | undefined,
): unknown {
  return error instanceof TypeError && !postsInitialize(init)
    ? new ConnectionLostError(REQUEST_LOST_MESSAGE, { cause: error })
    : error;
}

/** What the transport tracks of one request in flight. */
export interface Call {
  answered: boolean;
  dropped: boolean;
  /** Drops the request: aborts its POST, then cancels its response stream. */
  drop?: () => void;
  /** The modern era's headers, derived from the request's envelope. */
  headers?: readonly [string, string][];
}

/** The requests of one transport in flight, by id. */
export class CallBook {
  /** Set once the transport closed: no call is failed after. */
  closed = false;
  readonly #calls = new Map<RequestId, Call>();
  /** Calls whose stream the server closed after an event id, by that id, until the SDK resumes it. */
  readonly #resuming = new Map<string, RequestId[]>();
  /** Where a lost call's error response goes (the transport's `onmessage`). */
  readonly #deliver: (message: JSONRPCMessage) => void;

  /** Builds the book; a lost call's error response goes to `deliver`. */
  constructor(deliver: (message: JSONRPCMessage) => void) {
    this.#deliver = deliver;
  }

  /** Tracks `message` when it is a request; returns its id. */
  track(message: JSONRPCMessage): RequestId | undefined {
    const id = requestIdOf(message);
    if (id === undefined) return undefined;
    const headers = modernHeadersOf(message);
    this.#calls.set(
      id,
      headers === undefined
        ? { answered: false, dropped: false }
        : { answered: false, dropped: false, headers },
    );
    return id;
  }

  /** The call `id`, while it is in flight. */
  get(id: RequestId): Call | undefined {
    return this.#calls.get(id);
  }

  /** Stops tracking `id` (answered, or never sent). */
  forget(id: RequestId): void {
    this.#calls.delete(id);
  }

  /** Drops the call `id`: its POST aborted or its response stream cancelled. */
  drop(id: RequestId): void {
    const call = this.#calls.get(id);
    if (call === undefined) return;
    this.#calls.delete(id);
    call.dropped = true;
    call.drop?.();
  }

  /**
   * Marks the call that the event `data` answers as answered, when it is
   * one of `waiting` (before it is delivered, so that the stream's end
   * cannot be taken for a loss). `value` parses `data` when its id cannot
   * be read off its end; `JSON.parse` when absent.
   */
  noteAnswered(
    waiting: readonly RequestId[],
    data: string,
    value?: () => unknown,
  ): void {
    if (waiting.length === 0) return;
    const answered = answeredId(data, value ?? (() => parseOrUndefined(data)));
    if (answered === undefined || !waiting.includes(answered)) return;
    const call = this.#calls.get(answered);
    if (call !== undefined) call.answered = true;
  }

  /**
   * A stream `waiting` calls were waiting on ended: returns whether some
   * call was failed here (then the stream ends quietly).
   */
  ended(
    waiting: readonly RequestId[],
    broken: boolean,
    lastEventId: string,
    cause?: unknown,
  ): boolean {
    if (this.closed || !waiting.some(this.#isPending)) return false;
    const pending = waiting.filter(this.#isPending);
    // A stream the server closed cleanly after giving an event id is
    // resumed by the SDK (SEP-1699); a broken one, or one without ids, is
    // lost.
    if (!broken && lastEventId !== "") {
      this.#resuming.set(lastEventId, pending);
      return false;
    }
    for (const id of pending) this.loseIfPending(id, cause);
    return true;
  }

  /** The calls waiting for the stream a GET with `Last-Event-ID` resumes. */
  takeResuming(init: RequestInit | undefined): RequestId[] {
    if (init?.method !== "GET" || this.#resuming.size === 0) return [];
    const lastEventId = new Headers(init.headers).get("last-event-id");
    if (lastEventId === null) return [];
    const waiting = this.#resuming.get(lastEventId) ?? [];
    this.#resuming.delete(lastEventId);
    return waiting;
  }

  /** Fails the call `id` with a `ConnectionLostError` unless it was answered or dropped. */
  loseIfPending(id: RequestId, cause?: unknown): void {
    const call = this.#calls.get(id);
    if (call === undefined || call.answered || call.dropped) return;
    this.#calls.delete(id);
    const lost = new ConnectionLostError(STREAM_LOST_MESSAGE, { cause });
    this.#deliver({
      jsonrpc: "2.0",
      id,
      error: {
        code: ErrorCode.ConnectionClosed,
        message: lost.message,
        data: lost,
      },
    });
  }

  /** The transport closed: nothing is resumed or failed from now on. */
  close(): void {
    this.closed = true;
    this.#resuming.clear();
  }

  readonly #isPending = (id: RequestId): boolean => {
    const call = this.#calls.get(id);
    return call !== undefined && !call.answered && !call.dropped;
  };
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

/** `JSON.parse(text)`, or `undefined` when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
