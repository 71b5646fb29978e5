/**
 * The client transport `connectHttp` uses: the SDK's
 * `StreamableHTTPClientTransport`, with three things added through its
 * `fetch` hook — big integers kept, a cancelled call's HTTP request dropped,
 * and a call whose response stream broke, or whose request failed before
 * its response, failed at once with a `ConnectionLostError`.
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
 * The parts, one job each: `_http_calls.ts` keeps the requests in flight
 * (answered, dropped, lost, waiting for a resumption), `_http_fetch.ts` is
 * the `fetch` hook, `_sse_bodies.ts` takes the SSE bodies from the hook to
 * their end, `_sse_read.ts` reads one in the SDK's place. This file is the
 * `Transport` the SDK `Client` talks to, and the session.
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
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { forgetSessionId } from "../../seam/sdk_internals.ts";
import { CallBook } from "./_http_calls.ts";
import { FetchHook } from "./_http_fetch.ts";
import { cancelledIdOf, type RequestId, responseIdOf } from "./_message_ids.ts";
import { RawNumberCodec } from "./_raw_number_codec.ts";
import { SseBodies } from "./_sse_bodies.ts";

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

/** See the module doc. */
export class LosslessHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #inner: StreamableHTTPClientTransport;
  readonly #codec = new RawNumberCodec();
  readonly #calls = new CallBook((message) => this.onmessage?.(message));
  readonly #bodies: SseBodies;
  readonly #hook: FetchHook;

  /** Builds the transport for `url`. */
  constructor(url: URL, options: LosslessHttpOptions = {}) {
    const codec = this.#codec;
    this.#inner = new StreamableHTTPClientTransport(url, {
      // No headers, no init: the SDK then merges nothing into each request.
      ...(options.headers === undefined
        ? {}
        : { requestInit: { headers: options.headers } }),
      fetch: (input, init) => this.#hook.fetch(input, init),
    });
    this.#bodies = new SseBodies(this.#inner, this.#calls, {
      codec,
      runtimeBodies: options.runtimeBodies ?? options.fetch === undefined,
    });
    this.#hook = new FetchHook(this.#calls, this.#bodies, {
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      codec,
    });
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
    const id = this.#calls.track(message);
    const cancelled = cancelledIdOf(message);
    if (cancelled !== undefined) this.#calls.drop(cancelled);
    try {
      await this.#inner.send(message, options);
    } catch (error) {
      if (id !== undefined) this.#calls.forget(id);
      throw error;
    }
  }

  /**
   * Drops the request `id` in flight without a message: aborts its POST or
   * cancels its response stream (the modern era's cancellation).
   */
  dropCall(id: RequestId): void {
    this.#calls.drop(id);
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
    this.#calls.close();
    // The SDK aborts its signal, which should end every response body; a
    // body cancelled here as well releases its connection even when the
    // abort does not reach it (seen under load with Deno's fetch).
    this.#bodies.cancelAll(new Error("the client closed"));
    return this.#inner.close();
  }

  #receive(message: JSONRPCMessage): void {
    const restored = this.#codec.restore(message);
    const id = responseIdOf(restored);
    if (id !== undefined) this.#calls.forget(id);
    this.onmessage?.(restored);
  }
}
