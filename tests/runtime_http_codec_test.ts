// The pieces connectHttp keeps big integers with: the marker codec and the SSE data rewriter.

import assert from "node:assert/strict";
import { isRawJson } from "../src/core/json.ts";
import { RawNumberCodec } from "../src/runtime/client/_raw_number_codec.ts";
import { SseDataRewriter } from "../src/runtime/client/_sse_rewriter.ts";
import {
  answeredId,
  postedRequestId,
} from "../src/runtime/client/_message_ids.ts";

async function rewrite(
  chunks: string[],
  fn: (data: string) => string,
): Promise<{ text: string; id: string }> {
  const rewriter = new SseDataRewriter(fn);
  let text = "";
  for await (const chunk of ReadableStream.from(chunks).pipeThrough(rewriter)) {
    text += chunk;
  }
  return { text, id: rewriter.lastEventId };
}

Deno.test("RawNumberCodec round-trips big integers through JSON.parse", () => {
  const codec = new RawNumberCodec();
  const source =
    '{"a":[12345678901234567890,1,2.5],"b":{"c":-99999999999999999999}}';
  const { text, value } = codec.encode(source);
  assert.notEqual(text, source);
  assert.equal(JSON.stringify(value), source);
  const restored = codec.restore(JSON.parse(text)) as { a: unknown[] };
  assert.ok(isRawJson(restored.a[0]));
  assert.equal(JSON.stringify(restored), source);
});

Deno.test("RawNumberCodec leaves text without big numbers byte for byte, and non-JSON alone", () => {
  const codec = new RawNumberCodec();
  const plain = '{ "x" : 1,  "y":"\\u00e9" }';
  assert.equal(codec.encode(plain).text, plain);
  const junk = codec.encode("not json");
  assert.equal(junk.text, "not json");
  assert.equal(junk.value, undefined);
});

Deno.test("RawNumberCodec: no large integer on the wire, no work — text as is, restore a no-op", () => {
  const codec = new RawNumberCodec();
  const plain = '{"jsonrpc":"2.0","id":3,"result":{"n":9007199254740991}}';
  const encoded = codec.encode(plain);
  assert.equal(encoded.text, plain);
  assert.deepEqual(encoded.value, JSON.parse(plain), "parsed when asked");
  const message = { a: { b: ["\u0000weft-raw-number:x:1"] } };
  assert.equal(codec.restore(message), message);
  assert.deepEqual(message, { a: { b: ["\u0000weft-raw-number:x:1"] } });
  // Once a big number went through, restoring walks the values.
  const big = codec.encode('{"n":12345678901234567890}');
  const restored = codec.restore(JSON.parse(big.text)) as { n: unknown };
  assert.ok(isRawJson(restored.n));
});

Deno.test("RawNumberCodec markers are per codec: another codec's marker is an ordinary string", () => {
  const one = new RawNumberCodec();
  const other = new RawNumberCodec();
  const marked = JSON.parse(
    one.encode("[12345678901234567890]").text,
  ) as string[];
  assert.equal(typeof other.restore(marked)[0], "string");
  assert.ok(isRawJson(one.restore(marked)[0]));
});

Deno.test("SseDataRewriter rewrites joined data lines and passes other fields through", async () => {
  const { text, id } = await rewrite(
    [": comment\nevent: message\nid: 42\ndata: a\ndata: b\n\ndata: c\n\n"],
    (data) => `<${data}>`,
  );
  assert.equal(
    text,
    ": comment\nevent: message\nid: 42\ndata: <a\ndata: b>\n\ndata: <c>\n\n",
  );
  assert.equal(id, "42");
});

Deno.test("SseDataRewriter handles CRLF, CR and chunk boundaries inside line ends", async () => {
  const { text } = await rewrite(
    ["data: x\r", "\n\r", "\ndata:y\r\r"],
    (d) => d.toUpperCase(),
  );
  assert.equal(text, "data: X\n\ndata: Y\n\n");
});

Deno.test("SseDataRewriter passes an event cut off by the end of the stream through unchanged", async () => {
  const { text } = await rewrite(
    ["data: done\n\ndata: cut"],
    (d) => d.toUpperCase(),
  );
  assert.equal(text, "data: DONE\n\ndata: cut");
});

Deno.test("postedRequestId reads the SDK's request id off the body's end, else parses", () => {
  const request = JSON.stringify({
    method: "tools/call",
    params: { arguments: { id: 9 } },
    jsonrpc: "2.0",
    id: 42,
  });
  assert.equal(postedRequestId({ method: "POST", body: request }), 42);
  const named = JSON.stringify({ method: "x", jsonrpc: "2.0", id: "abc" });
  assert.equal(postedRequestId({ method: "POST", body: named }), "abc");
  // A notification whose params end like a request's tail has no id.
  const notification = JSON.stringify({
    method: "n",
    params: { x: ',"jsonrpc":"2.0","id":3}' },
    jsonrpc: "2.0",
  });
  assert.equal(
    postedRequestId({ method: "POST", body: notification }),
    undefined,
  );
  assert.equal(postedRequestId({ method: "GET" }), undefined);
});

Deno.test("answeredId reads an SDK response's id off its end, else parses; non-responses have none", () => {
  const fail = () => {
    throw new Error("parsed");
  };
  assert.equal(
    answeredId('{"result":{"tools":[]},"jsonrpc":"2.0","id":7}', fail),
    7,
  );
  const other = '{"jsonrpc":"2.0","id":"x","result":{}}';
  assert.equal(answeredId(other, () => JSON.parse(other)), "x");
  assert.equal(
    answeredId('{"method":"notifications/message","jsonrpc":"2.0"}', fail),
    undefined,
  );
});
