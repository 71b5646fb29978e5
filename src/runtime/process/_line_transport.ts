/**
 * The newline-delimited JSON-RPC transport under `stdioTransport` and
 * `serveStdio`, on a byte source and a byte sink (`_byte_pipe.ts`): lines
 * split from the read chunks, each run of whole lines in a chunk decoded
 * at once, writes batched.
 *
 * @module
 */

import type { Transport } from "../sdk_types.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../../core/json.ts";
import {
  type LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  TransportClosedError,
} from "../errors.ts";
import { LineSplitter } from "./_line_splitter.ts";
import type { ByteSink, ByteSource } from "./_byte_pipe.ts";

/** The answer to an over-long line (the cap is written in). */
export function tooLongMessage(limit: number): string {
  return `Invalid Request: message exceeds ${limit} bytes`;
}

/** The two ends of a {@link LineTransport}, opened when it starts. */
export interface LineEnds {
  /** Where lines are read. */
  readonly source: ByteSource;
  /** Where lines are written. */
  readonly sink: ByteSink;
}

/** Options of a {@link LineTransport}. */
export interface LineTransportOptions {
  /** The longest line read, in bytes. */
  readonly maxLineBytes: number;
  /**
   * Input is paused while this many characters or more are sent and not
   * yet written (a peer that does not read), and resumes when the writes
   * drain below it. Absent: input is never paused (a client must keep
   * reading answers while its requests wait to be written).
   */
  readonly highWater?: number;
}

type State = "new" | "open" | "closed";
/** The largest write encoded into the reused buffer (larger ones get their own). */
const MAX_REUSED_BYTES = 1024 * 1024;
/** A line of the chunk being read, or the report of an over-long one. */
type Item = Uint8Array | LineTooLongError;

/**
 * See `stdioTransport` for what it does; this is the transport itself, on
 * the ends `open` gives it at `start`.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #open: () => LineEnds;
  readonly #maxLineBytes: number;
  readonly #highWater: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  #state: State = "new";
  #sink?: ByteSink;
  #source?: ByteSource;
  /** Lines waiting for the next write. */
  #queue: string[] = [];
  /** The write the queued lines will go out in, once it was asked for. */
  #next?: Promise<void>;
  /** The write under way (settled when none). */
  #writing: Promise<unknown> = Promise.resolve();
  /** Characters sent and not yet written (queued or being written). */
  #unsent = 0;
  /** The read loop, paused until the unsent output drains. */
  #resume?: () => void;
  /** The buffer writes are encoded into. */
  #out?: Uint8Array;
  /** The lines (and over-long reports) of the chunk being read, in order. */
  readonly #items: Item[] = [];

  constructor(open: () => LineEnds, options: LineTransportOptions) {
    this.#open = open;
    this.#maxLineBytes = options.maxLineBytes;
    this.#highWater = options.highWater ?? Infinity;
  }

  /** Characters sent and not yet written. */
  get unsent(): number {
    return this.#unsent;
  }

  /** Whether input is paused until the output drains. */
  get paused(): boolean {
    return this.#resume !== undefined;
  }

  start(): Promise<void> {
    if (this.#state !== "new") {
      return Promise.reject(new Error("stdio transport already started"));
    }
    const items = this.#items;
    const splitter = new LineSplitter(
      this.#maxLineBytes,
      (error) => void items.push(error),
      true,
    );
    const { source, sink } = this.#open();
    this.#source = source;
    this.#sink = sink;
    this.#state = "open";
    void this.#readLoop(source, splitter);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open" || this.#sink === undefined) {
      return Promise.reject(new TransportClosedError());
    }
    let line: string;
    try {
      line = JSON.stringify(message) + "\n";
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#write(line);
  }

  /** Queues `line` for the next write; resolves once that write is done. */
  #write(line: string): Promise<void> {
    this.#queue.push(line);
    this.#unsent += line.length;
    return this.#next ??= this.#writing.then(() => this.#flush());
  }

  #flush(): Promise<void> {
    const queue = this.#queue;
    const text = queue.length === 1 ? queue[0] : queue.join("");
    this.#queue = [];
    this.#next = undefined;
    const written = this.#sink!.write(this.#encode(text));
    const done = () => {
      this.#unsent -= text.length;
      if (this.#resume !== undefined && this.#unsent < this.#highWater) {
        const resume = this.#resume;
        this.#resume = undefined;
        resume();
      }
    };
    this.#writing = written.then(done, done);
    return written;
  }

  /**
   * `text` as UTF-8, in a buffer reused from write to write (a write is
   * done with its bytes before the next one starts).
   */
  #encode(text: string): Uint8Array {
    // Three bytes at most for each UTF-16 code unit.
    const size = text.length * 3;
    if (this.#sink?.consumes !== true || size > MAX_REUSED_BYTES) {
      return this.#encoder.encode(text);
    }
    if (this.#out === undefined || size > this.#out.length) {
      this.#out = new Uint8Array(Math.max(size, 64 * 1024));
    }
    const { written } = this.#encoder.encodeInto(text, this.#out);
    return this.#out.subarray(0, written);
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    const cancelled = this.#source?.cancel().catch(() => {
      // Nothing lost: the transport is closing; the reader saw its end.
    });
    this.#resume?.();
    this.#resume = undefined;
    this.onclose?.();
    if (!wasOpen) return;
    await cancelled;
    // What was sent before the close goes out first (the write under way
    // too: a sink's close need not wait for it).
    await this.#next?.catch(() => {
      // Nothing lost: the write's own promise already rejected to its sender.
    });
    await this.#writing;
    await this.#sink?.close().catch(() => {
      // Nothing lost: the transport is closed; what was sent went first.
    });
  }

  async #readLoop(source: ByteSource, splitter: LineSplitter): Promise<void> {
    const items = this.#items;
    const sink = {
      enqueue: (line: Uint8Array) => void items.push(line),
      error: (error: unknown) => this.#report(error),
    };
    try {
      for (;;) {
        if (this.#unsent >= this.#highWater) {
          // The peer does not read what we write: no more input until it does.
          await new Promise<void>((resolve) => {
            this.#resume = resolve;
          });
          if (this.#state !== "open") break;
        }
        const chunk = await source.read();
        if (chunk === null) {
          splitter.end(sink);
          this.#deliver(null);
          break;
        }
        splitter.push(chunk, sink);
        this.#deliver(chunk);
      }
    } catch (error) {
      if (this.#state !== "closed") this.#report(error);
    }
    items.length = 0;
    await this.close();
  }

  /**
   * Hands on the lines of `chunk` in order; a run of lines lying whole in
   * the chunk is decoded at once (one text decode a read, not a line).
   */
  #deliver(chunk: Uint8Array | null): void {
    const items = this.#items;
    try {
      for (let i = 0; i < items.length;) {
        if (this.#state !== "open") return;
        const item = items[i];
        if (!(item instanceof Uint8Array)) {
          this.#tooLong(item);
          i++;
          continue;
        }
        let end = i + 1;
        if (chunk !== null && item.buffer === chunk.buffer) {
          while (end < items.length) {
            const next = items[end];
            if (!(next instanceof Uint8Array) || next.buffer !== chunk.buffer) {
              break;
            }
            end++;
          }
        }
        const texts = end - i > 1 ? this.#decodeRun(i, end) : undefined;
        for (let k = i; k < end; k++) {
          if (this.#state !== "open") return;
          const bytes = items[k] as Uint8Array;
          if (texts === undefined) this.#line(bytes);
          else this.#text(texts[k - i], bytes);
        }
        i = end;
      }
    } finally {
      items.length = 0;
    }
  }

  /**
   * The texts of the lines `items[from..to)`, consecutive lines of one
   * chunk, decoded at once; `undefined` when they must be decoded one by
   * one (a line is not UTF-8, or holds a byte order mark the decoder would
   * drop at a line's start only).
   */
  #decodeRun(from: number, to: number): string[] | undefined {
    const first = this.#items[from] as Uint8Array;
    const last = this.#items[to - 1] as Uint8Array;
    const start = first.byteOffset;
    const region = new Uint8Array(
      first.buffer,
      start,
      last.byteOffset + last.length - start,
    );
    let text: string;
    try {
      text = this.#decoder.decode(region);
    } catch {
      return undefined;
    }
    if (text.includes("\uFEFF")) return undefined;
    const texts = text.split("\n");
    if (texts.length !== to - from) return undefined;
    // A line's CR before its newline is not part of it (the last line's
    // newline is outside the region).
    for (let k = 0; k < texts.length - 1; k++) {
      const t = texts[k];
      if (t.charCodeAt(t.length - 1) === 13) texts[k] = t.slice(0, -1);
    }
    return texts;
  }

  #line(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch (cause) {
      this.#malformed("parse", "invalid UTF-8", null, cause, excerpt(bytes));
      return;
    }
    this.#text(text, bytes);
  }

  #text(text: string, bytes: Uint8Array): void {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = parseLossless(text);
    } catch (cause) {
      this.#malformed("parse", "invalid JSON", null, cause, excerpt(bytes));
      return;
    }
    // The common messages by their shape; anything else by the schema.
    if (!isPlainMessage(value)) {
      const checked = JSONRPCMessageSchema.safeParse(value);
      if (!checked.success) {
        this.#invalid(value, checked.error, excerpt(bytes));
        return;
      }
    }
    try {
      this.onmessage?.(value as JSONRPCMessage);
    } catch (error) {
      this.#report(error);
    }
  }

  #invalid(value: unknown, cause: unknown, text: string): void {
    if (
      isRecord(value) && !("method" in value) &&
      ("result" in value || "error" in value)
    ) {
      const error = value.error;
      if (
        isRecord(error) && typeof error.code === "number" &&
        typeof error.message === "string"
      ) {
        this.#report(new PeerProtocolError(error.code, error.message));
      } else {
        this.onerror?.(
          new MalformedMessageError("invalid", "response is not JSON-RPC 2.0", {
            cause,
            excerpt: text,
          }),
        );
      }
      return;
    }
    const id = isRecord(value) && isUsableId(value.id) ? value.id : null;
    this.#malformed("invalid", "not a JSON-RPC 2.0 message", id, cause, text);
  }

  #malformed(
    kind: "parse" | "invalid",
    reason: string,
    id: string | number | null,
    cause: unknown,
    text: string,
  ): void {
    this.#report(
      new MalformedMessageError(kind, reason, { cause, excerpt: text }),
    );
    if (kind === "parse") this.#answer(-32700, "Parse error", id);
    else this.#answer(-32600, "Invalid Request", id);
  }

  #tooLong(error: LineTooLongError): void {
    this.#report(error);
    this.#answer(-32600, tooLongMessage(error.limit), null);
  }

  #answer(code: number, message: string, id: string | number | null): void {
    const answer = { jsonrpc: "2.0" as const, id, error: { code, message } };
    if (this.#state !== "open" || this.#sink === undefined) return;
    this.#write(JSON.stringify(answer) + "\n").catch((error) => {
      if (this.#state === "open") this.#report(error);
    });
  }

  #report(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }
}

const LENIENT = new TextDecoder();

// A line's first 80 characters, for reports.
function excerpt(bytes: Uint8Array): string {
  const text = LENIENT.decode(bytes.subarray(0, 320));
  return text.length > 80 ? text.slice(0, 80) + "…" : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** An object that is not a number kept as its digits. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !isRawJson(value);
}

/** A `_meta` the SDK's schema reads as it is: an object, a plain progress token, no task. */
function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainRecord(meta) || meta[RELATED_TASK] !== undefined) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" ||
    Number.isSafeInteger(token);
}

/**
 * Whether `value` is plainly a JSON-RPC request, notification or result
 * the SDK's `JSONRPCMessageSchema` accepts (no key of another kind, an id
 * that is a string or a safe integer, object params and result). `false`
 * says nothing: the schema decides.
 */
function isPlainMessage(value: unknown): boolean {
  if (!isPlainRecord(value) || value.jsonrpc !== "2.0") return false;
  let kinds = 0;
  for (const key in value) {
    switch (key) {
      case "jsonrpc":
        break;
      case "id":
        if (!isUsableId(value.id)) return false;
        break;
      case "method":
        if (typeof value.method !== "string") return false;
        kinds |= 1;
        break;
      case "params":
        if (!isPlainRecord(value.params) || !isPlainMeta(value.params._meta)) {
          return false;
        }
        kinds |= 1;
        break;
      case "result":
        if (!isPlainRecord(value.result) || !isPlainMeta(value.result._meta)) {
          return false;
        }
        kinds |= 2;
        break;
      default:
        return false;
    }
  }
  if (kinds === 1) return typeof value.method === "string";
  return kinds === 2 && "id" in value;
}

function isUsableId(id: unknown): id is string | number {
  return typeof id === "string" ||
    (typeof id === "number" && Number.isSafeInteger(id));
}
