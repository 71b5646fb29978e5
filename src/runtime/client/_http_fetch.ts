/**
 * The `fetch` the HTTP client transport gives the SDK: each request sent
 * with its call's modern-era headers and a signal of its own (a cancelled
 * call's POST is aborted until its response begins); a JSON body's big
 * numbers marked; an SSE body handed to the transport's SSE reading
 * (`SseBodies`) with the calls waiting on it; a GET resuming a stream
 * given the calls that were waiting on that stream; a call whose request
 * fails for want of a connection (a network error) failed with a
 * `ConnectionLostError` keeping that error as its cause.
 *
 * @module
 */

import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport";
import { type CallBook, lostRequest } from "./_http_calls.ts";
import { postedRequestId } from "./_message_ids.ts";
import type { RawNumberCodec } from "./_raw_number_codec.ts";
import type { SseBodies } from "./_sse_bodies.ts";

/** Options of {@link FetchHook}. */
export interface FetchHookOptions {
  /** The fetch requests go out with. */
  readonly fetch: FetchLike;
  /** The transport's codec keeping big numbers. */
  readonly codec: RawNumberCodec;
}

/** See the module doc. */
export class FetchHook {
  readonly #calls: CallBook;
  readonly #bodies: SseBodies;
  readonly #fetch: FetchLike;
  readonly #codec: RawNumberCodec;
  /** The signal the SDK gives every request, and the calls following it. */
  #following?: AbortSignal;
  readonly #inFlight = new Set<AbortController>();

  /** Builds the hook over the transport's calls and SSE bodies. */
  constructor(calls: CallBook, bodies: SseBodies, options: FetchHookOptions) {
    this.#calls = calls;
    this.#bodies = bodies;
    this.#fetch = options.fetch;
    this.#codec = options.codec;
  }

  /** Sends one request of the SDK's (see the module doc). */
  async fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const id = postedRequestId(init);
    // Looked up before the fetch: a cancellation may come while it is pending.
    const call = id === undefined ? undefined : this.#calls.get(id);
    // A GET naming a Last-Event-ID resumes a stream calls were waiting on.
    const resumed = this.#calls.takeResuming(init);
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
      for (const waiting of resumed) this.#calls.loseIfPending(waiting, error);
      // The SDK already rejected the call with its signal's reason: end the
      // send quietly (202: no body), not as a transport error.
      if (call?.dropped) return new Response(null, { status: 202 });
      // A network error loses a tracked call, as a broken response stream
      // does (`lostRequest`: the rule both HTTP clients share).
      throw call === undefined ? error : lostRequest(error, init);
    } finally {
      if (call !== undefined) call.drop = undefined;
    }
    if (!response.ok || response.body === null) {
      release();
      for (const waiting of resumed) this.#calls.loseIfPending(waiting);
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
    if (this.#bodies.readsInPlace) {
      this.#bodies.expect(response.body, waiting, call, release);
      return response;
    }
    // The body is watched in place (no second stream): the response goes
    // on as it is, unless it hands out a new body object on each read.
    const body = this.#bodies.watch(response.body, waiting, call, release);
    return response.body === body ? response : withBody(body, response, false);
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
