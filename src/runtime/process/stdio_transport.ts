/**
 * The SDK `Transport` over a pair of web streams: newline-delimited
 * JSON-RPC, read losslessly (integers beyond 2^53 keep their digits).
 *
 * @module
 */

import type { Transport } from "../sdk_types.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../errors.ts";
import { LineTransport } from "./_line_transport.ts";
import { streamSink, streamSource } from "./_byte_pipe.ts";

/** Options of {@link stdioTransport}. */
export interface StdioTransportOptions {
  /**
   * The longest line read, in bytes (newline excluded). Default 16 MiB
   * (`DEFAULT_MAX_LINE_BYTES`). A longer line is dropped, answered
   * with -32600 and reported through `onerror` as a `LineTooLongError`.
   */
  maxLineBytes?: number;
}

export { tooLongMessage } from "./_line_transport.ts";

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
  return new LineTransport(
    () => ({ source: streamSource(readable), sink: streamSink(writable) }),
    { maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES },
  );
}
