/**
 * Reading a request body under the handler's limits: a byte cap, a
 * deadline and a nesting limit, then the lossless parse.
 *
 * @module
 */

import { parseLossless } from "../../core/json.ts";
import type { Clock } from "../clock.ts";
import { HOST_CLOCK } from "./_host.ts";

/** A request body read under the limits: its lossless parse, or why not. */
export type BodyResult =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "tooLarge" }
  | { readonly kind: "timeout" }
  | { readonly kind: "tooDeep" }
  | { readonly kind: "disconnected"; readonly cause: unknown }
  | { readonly kind: "invalid"; readonly cause: unknown };

/** The limits {@link readJsonBody} applies. */
export interface BodyLimits {
  /** The largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** The time the whole body may take to arrive, in ms. */
  readonly timeout: number;
  /** The deepest nesting of arrays and objects accepted. */
  readonly maxDepth: number;
  /**
   * The deadlines of the reads under way, sharing one timer; absent: each
   * read sets its own timer.
   */
  readonly deadlines?: Deadlines;
  /**
   * Told the size of every buffer a read sets aside for a body (a whole
   * read: the declared length, which the runtime allocates before a byte
   * of it comes). For tests: the memory a body holds is what they sum.
   */
  readonly onBuffer?: (bytes: number) => void;
}

/**
 * The largest declared length read whole (`req.bytes()`): the runtime sets
 * aside the declared length before the body comes, so a larger one is read
 * as it arrives instead — a request that declares megabytes and sends a
 * few bytes holds what it sent, not what it declared. 64 KiB is what one
 * read of a body stream sets aside anyway.
 */
export const WHOLE_READ_MAX = 64 * 1024;

/** One read's deadline: `expire` runs when it passes before {@link Deadlines.done}. */
interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * The deadlines of body reads that all get the same time: they pass in the
 * order they were set, so one timer, set for the oldest, serves them all —
 * not a timer set and cleared per request. While no read is under way the
 * timer is left to run out unreferenced (it holds no process open and
 * expires nothing), so requests that come one after another reuse it
 * instead of setting and clearing a timer each; where timers cannot be
 * unreferenced (the clock has no `hold`, or it fails) it is cleared. Time
 * and timers come from the {@link Clock} given (the process's by default).
 */
export class Deadlines {
  readonly #timeout: number;
  readonly #clock: Clock;
  readonly #pending = new Set<Deadline>();
  /** The armed timer's handle; `undefined` when none is armed. */
  #timer: unknown;
  /** The timer is referenced (a read is under way). */
  #held = false;

  /** Deadlines `timeout` ms after each {@link start}, on `clock`. */
  constructor(timeout: number, clock: Clock = HOST_CLOCK) {
    this.#timeout = timeout;
    this.#clock = clock;
  }

  /** Starts a deadline; `expire` runs if it passes before `done`. */
  start(expire: () => void): Deadline {
    const deadline = { at: this.#clock.now() + this.#timeout, expire };
    this.#pending.add(deadline);
    if (this.#timer === undefined) this.#arm(this.#timeout);
    else if (!this.#held) {
      // The idle timer fires before this deadline: it re-arms for it then.
      this.#clock.hold?.(this.#timer, true);
      this.#held = true;
    }
    return deadline;
  }

  /** The read ended in time (or not: then this does nothing). */
  done(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size !== 0 || this.#timer === undefined) return;
    if (this.#clock.hold?.(this.#timer, false)) {
      this.#held = false;
      return;
    }
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Clears the timer when no read is under way (the handler closes: an
   * idle timer left to run out would outlive it). Reads started later set
   * it again.
   */
  clear(): void {
    if (this.#pending.size !== 0 || this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(wait: number): void {
    this.#held = true;
    this.#timer = this.#clock.setTimeout(this.#fire, wait);
  }

  /** The timer's callback: expires what passed, re-arms for the rest. */
  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) {
        this.#arm(Math.max(0, deadline.at - now));
        return;
      }
      this.#pending.delete(deadline);
      deadline.expire();
    }
  };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and parses a request body: a `Content-Length` over the cap is
 * refused before anything is read; a streamed body is counted as it arrives
 * and cancelled as soon as it passes the cap, or when it has not ended
 * within the deadline; a declared length bounds the read (once that many
 * bytes came, the body is not read further — nor waited on to end — and
 * bytes past it are not part of it); text nested deeper than the limit is
 * refused before it is parsed. The text is parsed with the lossless reader.
 *
 * `framed`: the request came from an HTTP server that ends its body at
 * the declared `Content-Length` (`Deno.serve`, which passes the handler
 * an `info` with `completed`): a body declaring at most
 * {@link WHOLE_READ_MAX} bytes is then read whole at once (`req.bytes()`:
 * one read of exactly the declared bytes, not a stream's 64 KiB chunks),
 * under the same deadline — past it the answer is the same timeout, the
 * read left to end with the connection. Other bodies are read chunk by
 * chunk with one default reader (asking a stream for a BYOB reader to learn
 * whether it is a byte stream throws for Deno's request bodies, which cost
 * more than the rest of the read), copied into a buffer that grows with
 * what came (never past the declared length or the cap): the stream's
 * chunks are views of 64 KiB buffers, not kept.
 */
export async function readJsonBody(
  req: Request,
  limits: BodyLimits,
  framed = false,
): Promise<BodyResult> {
  const length = req.headers.get("content-length");
  const declared = length === null ? 0 : Number(length);
  if (declared > limits.maxBytes) {
    await req.body?.cancel().catch(() => {
      // Nothing lost: the request is refused; the unread body is dropped either way.
    });
    return { kind: "tooLarge" };
  }
  const body = req.body;
  if (body === null) {
    return { kind: "invalid", cause: new SyntaxError("empty body") };
  }
  const bound = Number.isSafeInteger(declared) && declared > 0
    ? declared
    : Infinity;
  const read = framed && bound <= WHOLE_READ_MAX && !req.bodyUsed
    ? await readWhole(req, limits, bound)
    : await readChunks(body, bound, limits);
  if (!(read instanceof Uint8Array)) return read;
  // Bytes past a declared length are not the body's.
  if (Math.min(read.byteLength, bound) > limits.maxBytes) {
    return { kind: "tooLarge" };
  }
  let text: string;
  try {
    text = UTF8.decode(
      read.byteLength > bound ? read.subarray(0, bound) : read,
    );
  } catch (cause) {
    return { kind: "invalid", cause };
  }
  if (deeperThan(text, limits.maxDepth)) return { kind: "tooDeep" };
  try {
    return { kind: "json", value: parseLossless(text) };
  } catch (cause) {
    return { kind: "invalid", cause };
  }
}

/** Sets `expire` to run at the read's deadline; the returned function ends the wait. */
function startDeadline(limits: BodyLimits, expire: () => void): () => void {
  const deadlines = limits.deadlines;
  if (deadlines !== undefined) {
    const deadline = deadlines.start(expire);
    return () => deadlines.done(deadline);
  }
  const timer = setTimeout(expire, limits.timeout);
  return () => clearTimeout(timer);
}

/** A framed body read whole, or why not. */
async function readWhole(
  req: Request,
  limits: BodyLimits,
  declared: number,
): Promise<Uint8Array | BodyResult> {
  limits.onBuffer?.(declared);
  let expire!: () => void;
  const expired = new Promise<BodyResult>((resolve) => {
    expire = () => resolve({ kind: "timeout" });
  });
  const done = startDeadline(limits, expire);
  const reading = req.bytes();
  try {
    return await Promise.race([reading, expired]);
  } catch (cause) {
    // The body failed: the client went away mid-body.
    return { kind: "disconnected", cause };
  } finally {
    done();
    // Past the deadline the read ends with the connection: nobody waits.
    reading.catch(() => {
      // Nothing lost: past the deadline the read ends with the connection; nobody waits.
    });
  }
}

/**
 * A body read chunk by chunk (to `bound` bytes at most), or why not. Each
 * chunk is copied into a buffer that doubles as the body grows, never past
 * the bound or the cap; a first chunk that is the whole declared body is
 * used as it is.
 */
async function readChunks(
  body: ReadableStream<Uint8Array>,
  bound: number,
  limits: BodyLimits,
): Promise<Uint8Array | BodyResult> {
  const reader = body.getReader();
  let timedOut = false;
  const done = startDeadline(limits, () => {
    timedOut = true;
    reader.cancel().catch(() => {
      // Nothing lost: the read is timed out; the body is dropped either way.
    });
  });
  // The most the body can be: its declared length, or the cap.
  const most = Math.min(bound, limits.maxBytes);
  let buffer: Uint8Array = EMPTY;
  let first: Uint8Array | undefined;
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return { kind: "timeout" };
      if (done || value === undefined) break;
      if (size + value.byteLength > most && bound === Infinity) {
        await reader.cancel().catch(() => {
          // Nothing lost: the request is refused as too large; the body is dropped either way.
        });
        return { kind: "tooLarge" };
      }
      // Bytes past a declared length are not the body's.
      const take = Math.min(value.byteLength, most - size);
      if (size === 0 && take === bound) return value.subarray(0, take);
      // A body of unknown length often comes in one chunk: kept as it is
      // until a second one comes (a declared length is never waited for
      // this way, so a lying one pins no chunk).
      if (size === 0 && bound === Infinity && first === undefined) {
        first = value;
        size = take;
        continue;
      }
      if (first !== undefined) {
        buffer = grow(buffer, 0, size + take, most, limits);
        buffer.set(first, 0);
        first = undefined;
      }
      if (size + take > buffer.byteLength) {
        buffer = grow(buffer, size, size + take, most, limits);
      }
      buffer.set(
        take === value.byteLength ? value : value.subarray(0, take),
        size,
      );
      size += take;
      // The declared bytes came: the body ends there.
      if (size >= bound) break;
    }
  } catch (cause) {
    if (timedOut) return { kind: "timeout" };
    // The body stream failed: the client went away mid-body.
    return { kind: "disconnected", cause };
  } finally {
    done();
  }
  return first ?? buffer.subarray(0, size);
}

const EMPTY = new Uint8Array(0);

/**
 * A buffer of at least `needed` bytes holding the first `size` of
 * `buffer`: twice the old size (1 KiB at first) when that is enough,
 * never more than `most`.
 */
function grow(
  buffer: Uint8Array,
  size: number,
  needed: number,
  most: number,
  limits: BodyLimits,
): Uint8Array {
  const length = Math.max(
    needed,
    Math.min(most, Math.max(1024, buffer.byteLength * 2)),
  );
  limits.onBuffer?.(length);
  const grown = new Uint8Array(length);
  grown.set(buffer.subarray(0, size));
  return grown;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max` (brackets
 * inside strings do not count). Invalid text is judged the same way; the
 * parse that follows refuses it.
 */
export function deeperThan(text: string, max: number): boolean {
  // Nesting past `max` needs more than `max` opening brackets.
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip to its closing quote
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
