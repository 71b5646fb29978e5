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
import { parseLossless } from "../../core/json.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  TransportClosedError,
} from "../errors.ts";
import { LineSplitStream } from "./_line_splitter.ts";

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
 * other. Writes are serialised: each message is one chunk, so concurrent
 * `send`s never interleave.
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
  #lines?: ReadableStreamDefaultReader<Uint8Array>;

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
    const splitter = new LineSplitStream({
      maxLineBytes: this.#maxLineBytes,
      onTooLong: (error) => this.#tooLong(error),
    });
    this.#writer = this.#writable.getWriter();
    this.#lines = this.#readable.pipeThrough(splitter).getReader();
    this.#state = "open";
    void this.#readLoop(this.#lines);
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open" || this.#writer === undefined) {
      throw new TransportClosedError();
    }
    await this.#writer.write(
      this.#encoder.encode(JSON.stringify(message) + "\n"),
    );
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    const cancelled = this.#lines?.cancel().catch(() => {});
    this.onclose?.();
    if (!wasOpen) return;
    await cancelled;
    await this.#writer?.close().catch(() => {});
  }

  async #readLoop(
    lines: ReadableStreamDefaultReader<Uint8Array>,
  ): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await lines.read();
        if (done) break;
        this.#line(value);
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
    const checked = JSONRPCMessageSchema.safeParse(value);
    if (!checked.success) {
      this.#invalid(value, checked.error, excerpt(bytes));
      return;
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
    this.#writer.write(this.#encoder.encode(JSON.stringify(answer) + "\n"))
      .catch((error) => {
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

function isUsableId(id: unknown): id is string | number {
  return typeof id === "string" ||
    (typeof id === "number" && Number.isSafeInteger(id));
}
