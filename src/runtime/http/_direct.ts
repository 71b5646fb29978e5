/**
 * The direct route of a stateless `tools/list` or `tools/call` of
 * exported tools: the request answered from the server's registry
 * straight into its Response — no HTTP transport, era transport, stream
 * table or internal `initialize` message made for it. What a client and
 * the tool observe is what `HttpServerTransport` (and, for a modern
 * request, `EraTransport`) in front of the fast path give: the handler
 * sees the request under an id of the server's own, the answer carries
 * the client's id again, a modern result is stamped (`resultType`, the
 * server's info, cache hints on a listing), an answer ready by the end of
 * the event-loop turn goes whole as one SSE event, a later one streams
 * (with the progress sent before it), a client going away cancels the
 * call with the dropped reason, and a message sent after the answer is
 * refused with the transport's error.
 *
 * Only requests the transport would hand to the server unrefused come
 * here ({@link directable}); everything else takes the transports.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport";
import type { ServedTools } from "../../core/served_tools.ts";
import { forgetWireId, noteWireId } from "../../core/telemetry.ts";
import { MODERN_PROTOCOL_VERSIONS } from "../era/era.ts";
import {
  envelopeClient,
  factsOf,
  type InitMemo,
  metaOf,
  modernVersionOf,
  type ServerFacts,
  stampResult,
} from "../era/envelope.ts";
import type { ResolvedCacheHints } from "../era/cache_hints.ts";
import { isListChanged } from "../era/listen.ts";
import {
  answerInitialize,
  FastDispatch,
  type FastLink,
  initialized,
} from "../fast/fast_tools.ts";
import { listAnswerText } from "./_list_text.ts";
import { isJsonRpcMessage, type RequestId } from "./_messages.ts";
import { requestInfo } from "./_post.ts";
import { DROPPED_REASON } from "./_requests.ts";
import { type ConnectionInfo, SseBody, sseEvent } from "./_sse_body.ts";
import {
  type EndListener,
  nextServerSideId,
  STATELESS_SSE_HEADERS,
} from "./_stream_table.ts";
import { afterThisTurn } from "./_turn.ts";

type Json = Record<string, unknown>;

/** The transport's error for a message whose request was answered, cancelled or closed. */
function goneError(): Error {
  return new Error(
    "The request this message belongs to was answered or cancelled: a message sent after that goes nowhere",
  );
}

/**
 * The one switch between the stateless routes: whether the stateless
 * transports would hand `body` (one request) to the server unrefused — an
 * `Accept` naming both JSON and SSE, a well-formed JSON-RPC request, and a
 * protocol version they take (a supported `MCP-Protocol-Version` header,
 * or on the modern route a modern version in the envelope). Yes, and the
 * server's registry serves it (`fastToolsFor`): the direct route answers.
 * No: the SDK's path (transports, `Protocol`) answers, every refusal
 * included. tests/routes_case_test.ts pins both sides.
 */
export function directable(
  req: Request,
  body: unknown,
  modern: boolean,
): body is { id: RequestId; method: string; params?: Json } {
  const accept = req.headers.get("accept");
  if (
    accept === null || !accept.includes("application/json") ||
    !accept.includes("text/event-stream")
  ) return false;
  if (!isJsonRpcMessage(body) || !("id" in (body as Json))) return false;
  if (modern) {
    const version = modernVersionOf(body);
    return version !== undefined && MODERN_PROTOCOL_VERSIONS.includes(version);
  }
  const version = req.headers.get("mcp-protocol-version");
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** Options of {@link DirectCall}. */
export interface DirectOptions {
  /** The bytes the response stream may hold for a client that does not read. */
  readonly maxUnread: number;
  /** Told when the stream was closed by the unread cap. */
  readonly onOverflow: () => void;
  /** A modern request: the hints stamped on cacheable results, and the server's memo of its last `initialize`. */
  readonly modern?: {
    readonly cacheHints: ResolvedCacheHints;
    readonly memo?: InitMemo;
  };
}

/**
 * The facts a modern request's envelope gives the server: its client
 * capabilities and info recorded as an `initialize` would (unless the
 * server's memo says the last one carried the same), `oninitialized` told.
 */
function initializeFor(
  server: object,
  meta: Json,
  memo: InitMemo | undefined,
): ServerFacts | Promise<ServerFacts> {
  const { capabilities, clientInfo } = envelopeClient(meta);
  const key = memo === undefined
    ? undefined
    : JSON.stringify([capabilities, clientInfo]);
  if (memo !== undefined && memo.key === key && memo.facts !== undefined) {
    return memo.facts;
  }
  const facts = factsOf(answerInitialize(server, { capabilities, clientInfo }));
  if (memo !== undefined) {
    memo.key = key;
    memo.facts = Promise.resolve(facts);
  }
  initialized(server);
  return facts;
}

/**
 * The end-of-turn callback telling `turn` it is ready: made out here so its
 * closure holds `turn` alone (a closure made inside a method shares the
 * method's scope, `this` and all).
 */
function readyOf(turn: { ready?: () => void }): () => void {
  return () => turn.ready?.();
}

/** One stateless request answered from a server's registry straight into its Response. */
export class DirectCall implements FastLink {
  /** Stateless: no session (`extra.sessionId`). */
  readonly sessionId: undefined;
  readonly #server: object;
  readonly #tools: ServedTools;
  readonly #options: DirectOptions;
  /** The text written while the answer is made (sent whole when in time). */
  #text = "";
  /** The response stream, once the answer is late. */
  #body?: SseBody;
  /** The id the server sees. */
  readonly #id: number;
  #clientId: RequestId = 0;
  #method = "";
  #dispatch?: FastDispatch;
  /** Modern: the facts results are stamped with, until the answer went. */
  #facts?: ServerFacts | Promise<ServerFacts>;
  /** The request can still be answered (not answered, dropped or closed). */
  #live = true;
  /** No answer yet. */
  #pending = true;
  /** A modern request (its stream never carries a list change). */
  readonly #modern: boolean;
  #closed = false;
  #ready?: () => void;
  #onEnd?: EndListener;

  /** A call of `tools` on `server`'s behalf. */
  constructor(server: object, tools: ServedTools, options: DirectOptions) {
    this.#server = server;
    this.#tools = tools;
    this.#options = options;
    this.#modern = options.modern !== undefined;
    this.#id = nextServerSideId();
  }

  /**
   * Answers the request: the whole SSE text when the answer is in by the
   * end of this event-loop turn, else a stream. `onEnd` is told once when
   * the request holds nothing any more.
   */
  async answer(
    req: Request,
    body: { id: RequestId; method: string; params?: Json },
    info: ConnectionInfo | undefined,
    onEnd: EndListener,
  ): Promise<Response> {
    const id = this.#id;
    this.#clientId = body.id;
    this.#method = body.method;
    this.#onEnd = onEnd;
    // Tracing names the request by the client's id (a no-op unrecorded).
    noteWireId(id, body.id);
    const modern = this.#options.modern;
    if (modern !== undefined) {
      this.#facts = initializeFor(
        this.#server,
        metaOf(body) ?? {},
        modern.memo,
      );
    }
    const dispatch = new FastDispatch(this.#server, this.#tools, this);
    this.#dispatch = dispatch;
    // What the end-of-turn timer holds: this box, not the call (the timer
    // fires a millisecond or more later, long after a quick answer went;
    // holding the call would keep its server, request and answer alive
    // past the garbage collector's young sweeps).
    const turn: { ready?: () => void } = {};
    const ready = new Promise<void>((resolve) => {
      this.#ready = resolve;
      turn.ready = resolve;
    });
    dispatch.request(body.method, id, body.params, requestInfo(req));
    afterThisTurn(readyOf(turn));
    await ready;
    turn.ready = undefined;
    this.#ready = undefined;
    if (!this.#pending) {
      // Everything is in: the whole text at once.
      this.#ended("delivered");
      return new Response(this.#text, {
        status: 200,
        headers: STATELESS_SSE_HEADERS,
      });
    }
    const stream = new SseBody(this.#options.maxUnread, {
      delivered: () => this.#ended("delivered"),
      lost: (end) => this.#drop(end),
    });
    this.#body = stream;
    stream.write(this.#text);
    this.#text = "";
    if (this.#closed) stream.finish();
    return new Response(stream.open(req, info), {
      status: 200,
      headers: STATELESS_SSE_HEADERS,
    });
  }

  /** A message of the handler's, or its answer, on the request's response. */
  async send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    if ("method" in message) {
      // A modern request's stream never carries a list change.
      if (this.#modern && isListChanged(message.method)) return;
      const related = options?.relatedRequestId;
      // The standalone stream of a stateless request is never open.
      if (related === undefined) return;
      if (related !== this.#id || !this.#live) throw goneError();
      this.#write(sseEvent(message, undefined));
      return;
    }
    let answer = message as JSONRPCMessage & { id?: RequestId };
    if (answer.id !== this.#id) throw goneError();
    const facts = this.#facts;
    if (facts !== undefined) {
      this.#facts = undefined;
      if ("result" in answer) {
        let known: ServerFacts | undefined;
        try {
          known = await facts;
        } catch {
          known = undefined;
        }
        if (known !== undefined) {
          answer = {
            ...answer,
            result: stampResult(
              this.#method,
              answer.result,
              known,
              this.#options.modern!.cacheHints,
            ),
          } as JSONRPCMessage & { id?: RequestId };
        }
      }
    }
    if (!this.#live) throw goneError();
    this.#live = false;
    forgetWireId(this.#id);
    const out = { ...answer, id: this.#clientId };
    // A listing's tool documents: their texts kept, not written anew.
    const list = this.#method === "tools/list"
      ? listAnswerText(out)
      : undefined;
    this.#write(
      list === undefined
        ? sseEvent(out, undefined)
        : `event: message\ndata: ${list}\n\n`,
    );
    this.#pending = false;
    if (this.#ready !== undefined) {
      // Still in the first turn: it answers with the whole text.
      this.#ready();
      return;
    }
    this.#finish();
  }

  /** Ends the request: the stream closes once drained, a call still running sees its signal abort. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#finish();
    this.#forget();
    this.#dispatch?.closed();
  }

  #write(text: string): void {
    if (this.#body === undefined) this.#text += text;
    else this.#body.write(text);
  }

  #finish(): void {
    this.#body?.finish();
  }

  #forget(): void {
    if (!this.#live) return;
    this.#live = false;
    forgetWireId(this.#id);
  }

  #ended(end: "delivered" | "dropped" | "overflow"): void {
    const onEnd = this.#onEnd;
    this.#onEnd = undefined;
    onEnd?.(end);
  }

  /** The client went away (or stopped reading): the call is cancelled. */
  #drop(end: "dropped" | "overflow"): void {
    if (end === "overflow") this.#options.onOverflow();
    if (this.#live) {
      this.#forget();
      this.#dispatch?.cancel(this.#id, DROPPED_REASON);
    }
    this.#ended(end);
  }
}
