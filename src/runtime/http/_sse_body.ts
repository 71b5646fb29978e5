/**
 * The body of one SSE response: text gathered while the answer is being
 * made (sent whole when it is complete in time), then — once the response
 * must go out before its end — one pull-based stream that counts the bytes
 * waiting for a client that does not read, and reports how it ended.
 *
 * @module
 */

import { concatBytes } from "../bytes.ts";
import { unrefTimer } from "./_host.ts";

/** How a response ended: `"overflow"` is a stream closed by the unread cap. */
export type ResponseEnd = "delivered" | "dropped" | "overflow";

/** What the handler knows of the request's connection (`Deno.serve`'s info, when passed). */
export interface ConnectionInfo {
  /**
   * Settles when the response has been sent (resolves) or could not be
   * (rejects: the client went away) — `Deno.serve`'s `info.completed`.
   */
  readonly completed?: Promise<void>;
}

/** What an {@link SseBody} tells its owner, once. */
export interface SseBodyHooks {
  /** Every byte was handed to the client and the stream closed. */
  delivered(): void;
  /** The client went away, or did not read and the cap was passed. */
  lost(end: "dropped" | "overflow"): void;
}

/** A `: keepalive` comment goes on a stream that sent nothing this long, in ms. */
const KEEP_ALIVE = 15_000;

const encoder = new TextEncoder();

/**
 * An SSE response body. Written text gathers in {@link text} until
 * {@link open} turns the body into a stream; from then on a chunk goes
 * straight to a client waiting for one, or waits in a queue whose bytes are
 * counted: past `maxUnread` the queue is dropped and the stream closed (an
 * error would have the HTTP server print it). {@link finish} closes the
 * stream once the client has taken everything.
 */
export class SseBody {
  readonly #maxUnread: number;
  readonly #hooks: SseBodyHooks;
  #early = "";
  #live = false;
  #out?: ReadableStreamDefaultController<Uint8Array>;
  #queue: Uint8Array[] = [];
  #queued = 0;
  /** The client asked for bytes and got none yet. */
  #waiting = false;
  #finished = false;
  #closed = false;
  #keepAlive?: ReturnType<typeof setInterval>;

  /** A body holding at most `maxUnread` bytes for a client that does not read. */
  constructor(maxUnread: number, hooks: SseBodyHooks) {
    this.#maxUnread = maxUnread;
    this.#hooks = hooks;
  }

  /** The text written before {@link open}: all of it, for a body sent whole. */
  get text(): string {
    return this.#early;
  }

  /** Whether nothing more reaches the client (delivered or lost). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Adds an event's text; ignored once finished or closed. */
  write(text: string): void {
    if (this.#closed || this.#finished) return;
    if (!this.#live) {
      this.#early += text;
      return;
    }
    const bytes = encoder.encode(text);
    if (this.#waiting) {
      this.#waiting = false;
      this.#out!.enqueue(bytes);
      return;
    }
    if (
      this.#queued > 0 && this.#queued + bytes.byteLength > this.#maxUnread
    ) {
      this.#lose("overflow");
      return;
    }
    this.#queue.push(bytes);
    this.#queued += bytes.byteLength;
  }

  /** No more writes: the stream closes once the client took what waits. */
  finish(): void {
    this.#finished = true;
    clearInterval(this.#keepAlive);
    if (
      this.#live && !this.#closed && this.#waiting && this.#queue.length === 0
    ) {
      this.#waiting = false;
      this.#deliver();
    }
  }

  /**
   * The body as a stream, pulled by the client; the text written so far
   * comes first. A client going away is seen as the stream's cancellation,
   * as `info.completed` rejecting, or — with no `completed` promise — as
   * `req.signal` aborting (`Deno.serve` aborts it after a successful
   * response too, so there it is not read).
   */
  open(
    req: Request,
    info: ConnectionInfo | undefined,
  ): ReadableStream<Uint8Array> {
    this.#live = true;
    if (this.#early !== "") {
      const first = encoder.encode(this.#early);
      this.#early = "";
      this.#queue.push(first);
      this.#queued = first.byteLength;
    }
    const drop = () => this.#lose("dropped");
    if (info?.completed !== undefined) info.completed.catch(drop);
    else if (req.signal.aborted) drop();
    else req.signal.addEventListener("abort", drop, { once: true });
    if (!this.#finished && !this.#closed) {
      const timer = setInterval(() => {
        if (this.#queue.length === 0) this.write(": keepalive\n\n");
      }, KEEP_ALIVE);
      unrefTimer(timer);
      this.#keepAlive = timer;
    }
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#out = controller;
      },
      pull: (controller) => {
        if (this.#queue.length > 0) {
          // Everything waiting goes as one chunk: one write, not several.
          const next = concatBytes(this.#queue, this.#queued);
          this.#queue = [];
          this.#queued = 0;
          controller.enqueue(next);
        } else if (this.#finished && !this.#closed) {
          this.#deliver();
        } else if (!this.#closed) {
          this.#waiting = true;
        }
      },
      cancel: drop,
    }, { highWaterMark: 0 });
  }

  #deliver(): void {
    this.#closed = true;
    clearInterval(this.#keepAlive);
    try {
      this.#out!.close();
    } catch {
      // already closed
    }
    this.#hooks.delivered();
  }

  #lose(end: "dropped" | "overflow"): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#queue = [];
    this.#queued = 0;
    try {
      this.#out?.close();
    } catch {
      // cancelled by the client
    }
    this.#hooks.lost(end);
  }
}

/** One message as an SSE event (the SDK transport's framing), with its id when it has one. */
export function sseEvent(
  message: unknown,
  eventId: string | undefined,
): string {
  return eventId === undefined
    ? `event: message\ndata: ${JSON.stringify(message)}\n\n`
    : `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`;
}
