// An SSE block without a `data:` line dispatches no event (WHATWG: the
// data buffer is empty at the blank line), and its `id`/`event` do not
// carry over to the next event (they reset after each block, as the SDK's
// parser resets them). An empty `data:` line is a data line.

import assert from "node:assert/strict";
import { SseParser } from "../src/runtime/client/_sse_parser.ts";

function parse(text: string): string[] {
  const events: string[] = [];
  const parser = new SseParser({
    event: (id, type, data) => events.push(`${id}|${type}|${data}`),
    retry: (ms) => events.push(`retry ${ms}`),
  });
  parser.feed(text);
  return events;
}

Deno.test("SseParser: a block without a data line dispatches nothing; its id and event do not carry over", () => {
  assert.deepEqual(parse("id: e1\n\n"), []);
  assert.deepEqual(parse("event: message\n\n"), []);
  assert.deepEqual(parse("id: e1\nevent: message\r\n\r\n"), []);
  assert.deepEqual(parse("foo: bar\n: comment\n\n"), []);
  assert.deepEqual(parse("retry: 5\n\n"), ["retry 5"]);
  assert.deepEqual(parse("id: e1\nevent: ping\n\ndata: x\n\n"), [
    "undefined|undefined|x",
  ]);
  // An empty data line is a data line: the event goes, with empty data.
  assert.deepEqual(parse("id: e2\ndata:\n\n"), ["e2|undefined|"]);
  assert.deepEqual(parse("id: e3\ndata\n\n"), ["e3|undefined|"]);
});
