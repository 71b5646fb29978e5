// stdioTransport and LineSplitStream over in-memory web streams.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../src/core/json.ts";
import {
  LineTooLongError,
  MalformedMessageError,
  PeerProtocolError,
  TransportClosedError,
} from "../src/runtime/errors.ts";
import { LineSplitStream } from "../src/runtime/process/_line_splitter.ts";
import { stdioTransport } from "../src/runtime/process/stdio_transport.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { nextTurn } from "./_helpers/wait.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A transport fed with `input` chunks, its output collected as text. */
function harness(input: (string | Uint8Array)[], maxLineBytes?: number) {
  const output: string[] = [];
  const errors: Error[] = [];
  const messages: JSONRPCMessage[] = [];
  const readable = ReadableStream.from(
    input.map((chunk) =>
      typeof chunk === "string" ? encoder.encode(chunk) : chunk
    ),
  );
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => void output.push(decoder.decode(chunk)),
  });
  const transport = stdioTransport(readable, writable, { maxLineBytes });
  let closes = 0;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      closes++;
      resolve();
    };
  });
  transport.onerror = (error) => errors.push(error);
  transport.onmessage = (message) => messages.push(message);
  return { transport, output, errors, messages, closed, closes: () => closes };
}

Deno.test("stdioTransport delivers messages with big integers as raw digits", async () => {
  const line =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":12345678901234567890}}}';
  const h = harness([line + "\n"]);
  await h.transport.start();
  await h.closed;
  assert.equal(h.messages.length, 1);
  assert.equal(JSON.stringify(h.messages[0]), line);
  const args =
    (h.messages[0] as unknown as { params: { arguments: { n: unknown } } })
      .params.arguments;
  assert.ok(isRawJson(args.n));
  assert.deepEqual(h.errors, []);
});

Deno.test("stdioTransport writes rawJSON digits back", async () => {
  const h = harness([]);
  await h.transport.start();
  await h.transport.send(
    parseLossless(
      '{"jsonrpc":"2.0","id":2,"result":{"n":98765432109876543210}}',
    ) as JSONRPCMessage,
  );
  await h.closed;
  assert.deepEqual(h.output, [
    '{"jsonrpc":"2.0","id":2,"result":{"n":98765432109876543210}}\n',
  ]);
});

Deno.test("a line that is not JSON is answered with -32700 and reported", async () => {
  const h = harness([
    "{not json\n",
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  ]);
  await h.transport.start();
  await h.closed;
  assert.deepEqual(h.output, [
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n',
  ]);
  assert.equal(h.errors.length, 1);
  assert.ok(h.errors[0] instanceof MalformedMessageError);
  assert.equal(h.errors[0].message, "malformed line: invalid JSON");
  assert.equal((h.errors[0] as MalformedMessageError).kind, "parse");
  assert.equal(h.messages.length, 1, "the stream went on");
});

Deno.test("invalid UTF-8 is a parse error", async () => {
  const h = harness([new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])]);
  await h.transport.start();
  await h.closed;
  assert.equal(h.errors[0].message, "malformed line: invalid UTF-8");
  assert.equal(h.output.length, 1);
});

Deno.test("JSON that is not a JSON-RPC request is answered with -32600, with its id when usable", async () => {
  const h = harness([
    '{"jsonrpc":"2.0","id":7,"method":5}\n',
    '["a"]\n',
    '{"jsonrpc":"1.0","id":{},"method":"x"}\n',
  ]);
  await h.transport.start();
  await h.closed;
  assert.deepEqual(h.output, [
    '{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}\n',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}\n',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}\n',
  ]);
  assert.equal(h.errors.length, 3);
  assert.ok(
    h.errors.every((e) =>
      e instanceof MalformedMessageError && e.kind === "invalid"
    ),
  );
  assert.equal(
    h.errors[0].message,
    "malformed line: not a JSON-RPC 2.0 message",
  );
});

Deno.test("response-shaped garbage is never answered; an unclaimable error is a PeerProtocolError", async () => {
  const h = harness([
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n',
    '{"result":1}\n',
  ]);
  await h.transport.start();
  await h.closed;
  assert.deepEqual(
    h.output,
    [],
    "answering a response could ping-pong forever",
  );
  assert.ok(h.errors[0] instanceof PeerProtocolError);
  assert.equal(
    h.errors[0].message,
    "peer reported error -32700: Parse error",
  );
  assert.equal((h.errors[0] as PeerProtocolError).code, -32700);
  assert.ok(h.errors[1] instanceof MalformedMessageError);
  assert.equal(
    h.errors[1].message,
    "malformed line: response is not JSON-RPC 2.0",
  );
});

Deno.test("an over-long line is dropped, answered, reported, and the next line is read", async () => {
  const long = '{"jsonrpc":"2.0","method":"x","params":{"pad":"' +
    "a".repeat(100) + '"}}';
  const ok = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
  // Split across chunks so the cap is hit in the middle of a chunk.
  const h = harness([
    long.slice(0, 30),
    long.slice(30) + "\n" + ok.slice(0, 10),
    ok.slice(10) + "\n",
  ], 64);
  await h.transport.start();
  await h.closed;
  assert.deepEqual(h.output, [
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message exceeds 64 bytes"}}\n',
  ]);
  assert.equal(h.errors.length, 1);
  assert.ok(h.errors[0] instanceof LineTooLongError);
  assert.equal(
    h.errors[0].message,
    "line exceeds the 64-byte limit (maxLineBytes)",
  );
  assert.equal((h.errors[0] as LineTooLongError).limit, 64);
  assert.equal(h.messages.length, 1);
  assert.equal(JSON.stringify(h.messages[0]), ok);
});

Deno.test("a complete message without a final newline is delivered at end of input", async () => {
  const h = harness(['{"jsonrpc":"2.0","method":"notifications/initialized"}']);
  await h.transport.start();
  await h.closed;
  assert.equal(h.messages.length, 1);
  assert.equal(h.closes(), 1);
});

Deno.test("a partial line at end of input is a parse error and the transport closes", async () => {
  const h = harness(['{"jsonrpc":"2.0","method":"notif']);
  await h.transport.start();
  await h.closed;
  assert.equal(h.messages.length, 0);
  assert.equal(h.errors.length, 1);
  assert.equal(h.errors[0].message, "malformed line: invalid JSON");
  assert.equal(h.closes(), 1);
});

Deno.test("CRLF line ends are accepted and blank lines ignored", async () => {
  const h = harness([
    '\r\n  \n{"jsonrpc":"2.0","method":"a"}\r\n\n{"jsonrpc":"2.0","method":"b"}\r\n',
  ]);
  await h.transport.start();
  await h.closed;
  assert.deepEqual(
    h.messages.map((m) => (m as unknown as { method: string }).method),
    ["a", "b"],
  );
  assert.deepEqual(h.errors, []);
});

Deno.test("concurrent sends never interleave, even on a slow sink", async () => {
  const chunks: Uint8Array[] = [];
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      // Deliver each chunk in small delayed pieces, the way a pipe might.
      for (let i = 0; i < chunk.length; i += 97) {
        chunks.push(chunk.slice(i, i + 97));
        if (i % 3 === 0) await Promise.resolve();
      }
      await nextTurn(); // a slow sink: each write ends a turn later
    },
  });
  const never = new ReadableStream<Uint8Array>();
  const transport = stdioTransport(never, writable);
  await transport.start();
  const sent = Array.from({ length: 60 }, (_, i) => ({
    jsonrpc: "2.0" as const,
    method: `m${i}`,
    params: { pad: String(i).repeat(50 + i * 13) },
  }));
  await Promise.all(sent.map((message) => transport.send(message)));
  const text = decoder.decode(
    await new Blob(chunks as BlobPart[]).arrayBuffer(),
  );
  const lines = text.split("\n");
  assert.equal(lines.pop(), "");
  assert.deepEqual(lines.map((line) => JSON.parse(line)), sent);
  await transport.close();
});

Deno.test("send after close rejects with TransportClosedError; onclose fires once", async () => {
  const h = harness([]);
  await h.transport.start();
  await h.transport.close();
  await h.transport.close();
  await assert.rejects(
    h.transport.send({ jsonrpc: "2.0", method: "x" }),
    (error: unknown) =>
      error instanceof TransportClosedError &&
      error.message === "transport is closed",
  );
  await h.closed;
  assert.equal(h.closes(), 1);
});

Deno.test("starting a transport twice rejects", async () => {
  const h = harness([]);
  await h.transport.start();
  await assert.rejects(h.transport.start(), {
    message: "stdio transport already started",
  });
  await h.transport.close();
});

Deno.test("an SDK client and server talk through two stdio transports, digits intact", async () => {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = buildToolServer();
  await server.connect(stdioTransport(toServer.readable, toClient.writable));
  const client = new Client({ name: "t", version: "1" });
  await client.connect(stdioTransport(toClient.readable, toServer.writable));
  const args = parseLossless('{"id":18446744073709551615}') as Record<
    string,
    unknown
  >;
  const result = await client.request(
    { method: "tools/call", params: { name: "echo", arguments: args } },
    CallToolResultSchema,
  );
  assert.equal(
    JSON.stringify(result.structuredContent),
    '{"id":18446744073709551615}',
  );
  await client.close();
  await server.close();
});

Deno.test("LineSplitStream splits at LF byte by byte, strips CR, keeps a last partial line", async () => {
  const bytes = encoder.encode("one\r\ntwo\n\nthree");
  const input = ReadableStream.from(
    Array.from(bytes, (b) => new Uint8Array([b])),
  );
  const lines: string[] = [];
  for await (const line of input.pipeThrough(new LineSplitStream())) {
    lines.push(decoder.decode(line));
  }
  assert.deepEqual(lines, ["one", "two", "", "three"]);
});

Deno.test("LineSplitStream's split mode cuts long lines into capped pieces", async () => {
  const input = ReadableStream.from([encoder.encode("abcdefghij\nxy\n")]);
  const lines: string[] = [];
  for await (
    const line of input.pipeThrough(
      new LineSplitStream({ maxLineBytes: 4, onTooLong: "split" }),
    )
  ) {
    lines.push(decoder.decode(line));
  }
  assert.deepEqual(lines, ["abcd", "efgh", "ij", "xy"]);
});

Deno.test("LineSplitStream without a policy errors the stream with LineTooLongError", async () => {
  const input = ReadableStream.from([encoder.encode("abcdefghij\n")]);
  const reader = input.pipeThrough(new LineSplitStream({ maxLineBytes: 4 }))
    .getReader();
  await assert.rejects(reader.read(), LineTooLongError);
});
