/**
 * Reading a request body under the handler's limits: a byte cap, a
 * deadline and a nesting limit, then the lossless parse.
 *
 * @module
 */

import { parseLossless } from "../../core/json.ts";
import { concatBytes } from "../bytes.ts";

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
}

/** One read's deadline: `expire` runs when it passes before {@link Deadlines.done}. */
interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * The deadlines of body reads that all get the same time: they pass in the
 * order they were set, so one timer, set for the oldest, serves them all —
 * not a timer set and cleared per request. The timer is cleared whenever no
 * read is under way.
 */
export class Deadlines {
  readonly #timeout: number;
  readonly #pending = new Set<Deadline>();
  #timer?: ReturnType<typeof setTimeout>;

  /** Deadlines `timeout` ms after each {@link start}. */
  constructor(timeout: number) {
    this.#timeout = timeout;
  }

  /** Starts a deadline; `expire` runs if it passes before `done`. */
  start(expire: () => void): Deadline {
    const deadline = { at: performance.now() + this.#timeout, expire };
    this.#pending.add(deadline);
    if (this.#timer === undefined) this.#arm(this.#timeout);
    return deadline;
  }

  /** The read ended in time (or not: then this does nothing). */
  done(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #arm(wait: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const now = performance.now();
      for (const deadline of this.#pending) {
        if (deadline.at > now) {
          this.#arm(Math.max(0, deadline.at - now));
          return;
        }
        this.#pending.delete(deadline);
        deadline.expire();
      }
    }, wait);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The most bytes one read of a body asks for. */
const CHUNK = 16 * 1024;

/** Reads a body chunk by chunk (`read()`), and can be cancelled. */
interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/**
 * A reader of `body`. With a declared length, a BYOB reader into buffers
 * of our own (at most 16 KiB a read) that stops once the declared bytes
 * came, without asking for the end: a default reader of Deno's request
 * bodies leaves a 64 KiB buffer it allocated held by the request for as
 * long as the request lives — for a `subscriptions/listen` stream, as long
 * as the stream is open. Without one (or for a stream that is not a byte
 * stream), a default reader.
 */
function chunkReader(
  body: ReadableStream<Uint8Array>,
  declared: number,
): ChunkReader {
  let byob: ReadableStreamBYOBReader | undefined;
  if (Number.isSafeInteger(declared) && declared > 0) {
    try {
      byob = body.getReader({ mode: "byob" });
    } catch {
      // Not a byte stream.
    }
  }
  if (byob === undefined) {
    const reader = body.getReader();
    return {
      read: () => reader.read(),
      cancel: () => reader.cancel(),
    };
  }
  const bytes = byob;
  let left = declared;
  return {
    async read() {
      if (left <= 0) return { done: true };
      const { done, value } = await bytes.read(
        new Uint8Array(Math.min(CHUNK, left)),
      );
      if (done || value === undefined) return { done: true };
      left -= value.byteLength;
      return { done: false, value };
    },
    cancel: () => bytes.cancel(),
  };
}

/**
 * Reads and parses a request body: a `Content-Length` over the cap is
 * refused before anything is read; a streamed body is counted as it arrives
 * and cancelled as soon as it passes the cap, or when it has not ended
 * within the deadline; text nested deeper than the limit is refused before
 * it is parsed. The text is parsed with the lossless reader.
 */
export async function readJsonBody(
  req: Request,
  limits: BodyLimits,
): Promise<BodyResult> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limits.maxBytes) {
    await req.body?.cancel().catch(() => {});
    return { kind: "tooLarge" };
  }
  if (req.body === null) {
    return { kind: "invalid", cause: new SyntaxError("empty body") };
  }
  const reader = chunkReader(req.body, declared);
  let timedOut = false;
  const expire = () => {
    timedOut = true;
    reader.cancel().catch(() => {});
  };
  const deadlines = limits.deadlines;
  const deadline = deadlines?.start(expire);
  const timer = deadlines === undefined
    ? setTimeout(expire, limits.timeout)
    : undefined;
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return { kind: "timeout" };
      if (done || value === undefined) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        return { kind: "tooLarge" };
      }
      parts.push(value);
    }
  } catch (cause) {
    if (timedOut) return { kind: "timeout" };
    // The body stream failed: the client went away mid-body.
    return { kind: "disconnected", cause };
  } finally {
    if (deadline !== undefined) deadlines?.done(deadline);
    else clearTimeout(timer);
  }
  let text: string;
  try {
    text = UTF8.decode(concatBytes(parts, size));
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
