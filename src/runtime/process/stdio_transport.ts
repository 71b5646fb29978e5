/**
 * The SDK `Transport` over a pair of web streams: newline-delimited
 * JSON-RPC, read losslessly (integers beyond 2^53 keep their digits).
 *
 * @module
 */

import type { Transport } from "../sdk_types.ts";
// The SDK's `*.js` subpaths carry no types under Deno; the extensionless
// subpath resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../../core/json.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  TransportClosedError,
} from "../errors.ts";
import { LineSplitter } from "./_line_splitter.ts";

/** Options of {@link stdioTransport}. */
export interface StdioTransportOptions {
  /**
   * The longest line read, in bytes (newline excluded). Default 16 MiB
   * (`DEFAULT_MAX_LINE_BYTES`). A longer line is dropped, answered
   * with -32600 and reported through `onerror` as a `LineTooLongError`.
   */
  maxLineBytes?: number;
}

/** The answer to an over-long line (the cap is written in). */
export function tooLongMessage(limit: number): string {
  return `Invalid Request: message exceeds ${limit} bytes`;
}

/**
 * Builds an MCP transport that reads newline-delimited JSON-RPC from
 * `readable` and writes it to `writable`.
 *
 * Lines are parsed with the lossless reader: an integer beyond 2^53 arrives
 * as a `JSON.rawJSON` value and `JSON.stringify` writes its digits back, so
 * big numbers survive a round trip through this transport (the SDK's own
 * stdio transport rounds them). A message is checked against the SDK's
 * `JSONRPCMessageSchema` and delivered as parsed — the schema's copy is not
 * used, so nothing is stripped.
 *
 * Bad input never stops the stream: text that is not JSON is answered with
 * a -32700 error (`id` null), JSON that is not a JSON-RPC message with
 * -32600 (with the request's `id` when it has a usable one), a line over
 * `maxLineBytes` with -32600; each is reported through `onerror`. A message
 * shaped like a response is never answered (two peers cannot ping-pong
 * errors); an error response no request can claim is reported as a
 * `PeerProtocolError`. A last line without a newline is read like any
 * other. Writes are serialised and batched: the messages sent while a
 * write is under way go out together in the next one (each whole, in
 * order), so concurrent `send`s never interleave and many calls in flight
 * cost few writes; `send` resolves when its batch was written.
 *
 * `close()` cancels `readable` and closes `writable` (the peer sees end of
 * input); the end of `readable` closes the transport. `onclose` fires once.
 *
 * @example Using `stdioTransport`
 * ```ts
 * import { stdioTransport } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const wire = new TransformStream<Uint8Array, Uint8Array>();
 * const transport = stdioTransport(ReadableStream.from([]), wire.writable);
 * await transport.start();
 * const sent = transport.send({ jsonrpc: "2.0", method: "ping", id: 1 });
 * const line = await wire.readable.getReader().read();
 * await sent;
 * assert.equal(new TextDecoder().decode(line.value), '{"jsonrpc":"2.0","method":"ping","id":1}\n');
 * await transport.close();
 * ```
 */
export function stdioTransport(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
  options: StdioTransportOptions = {},
): Transport {
  return new StdioTransport(
    readable,
    writable,
    options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
  );
}

type State = "new" | "open" | "closed";

class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #readable: ReadableStream<Uint8Array>;
  readonly #writable: WritableStream<Uint8Array>;
  readonly #maxLineBytes: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  #state: State = "new";
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** Lines waiting for the next write. */
  #queue: string[] = [];
  /** The write the queued lines will go out in, once it was asked for. */
  #next?: Promise<void>;
  /** The write under way (settled when none). */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(
    readable: ReadableStream<Uint8Array>,
    writable: WritableStream<Uint8Array>,
    maxLineBytes: number,
  ) {
    this.#readable = readable;
    this.#writable = writable;
    this.#maxLineBytes = maxLineBytes;
  }

  start(): Promise<void> {
    if (this.#state !== "new") {
      return Promise.reject(new Error("stdio transport already started"));
    }
    const splitter = new LineSplitter(
      this.#maxLineBytes,
      (error) => this.#tooLong(error),
      true,
    );
    this.#writer = this.#writable.getWriter();
    this.#reader = this.#readable.getReader();
    this.#state = "open";
    void this.#readLoop(this.#reader, splitter);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open" || this.#writer === undefined) {
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
    return this.#next ??= this.#writing.then(() => this.#flush());
  }

  #flush(): Promise<void> {
    const text = this.#queue.length === 1
      ? this.#queue[0]
      : this.#queue.join("");
    this.#queue = [];
    this.#next = undefined;
    const written = this.#writer!.write(this.#encoder.encode(text));
    this.#writing = written.catch(() => {});
    return written;
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    const cancelled = this.#reader?.cancel().catch(() => {});
    this.onclose?.();
    if (!wasOpen) return;
    await cancelled;
    // What was sent before the close goes out first.
    await this.#next?.catch(() => {});
    await this.#writer?.close().catch(() => {});
  }

  async #readLoop(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    splitter: LineSplitter,
  ): Promise<void> {
    const sink = {
      enqueue: (line: Uint8Array) => {
        if (this.#state === "open") this.#line(line);
      },
      error: (error: unknown) => this.#report(error),
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          splitter.end(sink);
          break;
        }
        splitter.push(value, sink);
      }
    } catch (error) {
      if (this.#state !== "closed") this.#report(error);
    }
    await this.close();
  }

  #line(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch (cause) {
      this.#malformed("parse", "invalid UTF-8", null, cause, excerpt(bytes));
      return;
    }
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
    if (this.#state !== "open" || this.#writer === undefined) return;
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
