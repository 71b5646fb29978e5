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
 * This class is what the SDK connects to; the work is done per request
 * kind — `_post.ts`, `_get.ts` (GET and its resumption), `_send.ts` — on
 * one shared state, the stream table (`_stream_table.ts`).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport";
import type { ConnectionInfo } from "./_sse_body.ts";
import { jsonRpcError, sessionNotFound } from "./guard.ts";
import type { RequestId } from "./_messages.ts";
import { checkRequest, without } from "./_refusals.ts";
import {
  type EndListener,
  type HttpServerTransportOptions,
  StreamTable,
} from "./_stream_table.ts";
import { post } from "./_post.ts";
import { get } from "./_get.ts";
import { send } from "./_send.ts";

export type { EndListener, HttpServerTransportOptions };

/**
 * Streamable HTTP over web-standard `Request`/`Response` for one SDK server:
 * `handle` answers a request whose body the caller already read.
 */
export class HttpServerTransport implements Transport {
  /** Set by the server on connect. */
  onmessage?: Transport["onmessage"];
  /** Set by the server on connect. */
  onclose?: () => void;
  /** Set by the server on connect. */
  onerror?: (error: Error) => void;

  readonly #table: StreamTable;
  #started = false;

  /** A transport answering as `options` say. */
  constructor(options: HttpServerTransportOptions) {
    this.#table = new StreamTable(options, this);
  }

  /** The session id, once `initialize` gave one (session mode). */
  get sessionId(): string | undefined {
    return this.#table.sessionId;
  }

  /** Called by the server on connect. */
  start(): Promise<void> {
    if (this.#started) throw new Error("Transport already started");
    this.#started = true;
    return Promise.resolve();
  }

  /** Ends every stream and tells the server. */
  close(): Promise<void> {
    const table = this.#table;
    if (table.closed) return Promise.resolve();
    table.closed = true;
    table.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  /**
   * Brings a fresh transport and its server to an initialized session
   * without a client: `initialize` (answer discarded) and `initialized`.
   */
  async restore(sessionId: string, initialize: JSONRPCMessage): Promise<void> {
    const table = this.#table;
    table.sessionId = sessionId;
    table.initialized = true;
    const admitted = table.admit(initialize);
    const id = (admitted as { id: RequestId }).id;
    const sink = table.stream("_restore", [id]);
    sink.discard = true;
    const answered = new Promise<void>((resolve) => {
      sink.onEnd = () => resolve();
    });
    table.byRequest.set(id, sink);
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
    const table = this.#table;
    if (table.closed) return without(onEnd, sessionNotFound());
    switch (req.method) {
      case "POST":
        return post(table, req, body, info, onEnd);
      case "GET":
        return get(table, req, info, onEnd);
      case "DELETE":
        return this.#delete(req, onEnd);
      default:
        return without(
          onEnd,
          jsonRpcError(405, -32000, "Method not allowed.", null, {
            allow: "GET, POST, DELETE",
          }),
        );
    }
  }

  /** A DELETE: the session ends, its streams with it. */
  async #delete(req: Request, onEnd: EndListener): Promise<Response> {
    onEnd("delivered");
    const refusal = checkRequest(this.#table, req);
    if (refusal !== undefined) return refusal;
    try {
      const sessionId = this.#table.sessionId;
      if (sessionId !== undefined) {
        await this.#table.options.onDeleted?.(sessionId);
      }
      return new Response(null, { status: 200 });
    } finally {
      await this.close();
    }
  }

  /** Closes the stream carrying `requestId`; its calls run on, the client resumes. */
  closeSSEStream(requestId: RequestId): void {
    this.#table.closeStream(requestId);
  }

  /** Closes the standalone GET stream; the client reconnects. */
  closeStandaloneSSEStream(): void {
    this.#table.closeStandalone();
  }

  /** Sends a server message on the stream of the request it belongs to. */
  send(
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ): Promise<void> {
    return send(this.#table, message, options);
  }
}
