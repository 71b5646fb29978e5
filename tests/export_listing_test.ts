/**
 * exportTools listing and arguments: E-3 (listing), E-4 (argument text),
 * E-5 (execution without run policy). Over the SDK's real Client, in memory.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { ToolError } from "../src/core/errors.ts";
import { rawTool, tool, type ToolDef } from "../src/core/tool.ts";
import { argumentText } from "../src/bridge/_registry.ts";
import { callRaw, onlyText } from "./_helpers/export_pair.ts";
import {
  echo,
  lookupOrder,
  mirror,
  pairWith,
} from "./_helpers/export_tools.ts";
import { assertJsonEqual } from "./_helpers/json_equal.ts";
import { quietFor } from "./_helpers/wait.ts";

Deno.test("listing carries name, description, schemas whole, outputSchema only when present, no annotations", async () => {
  const foreign = rawTool({
    name: "search",
    description: "Search.",
    inputSchema:
      '{"type":"object","properties":{"q":{"type":"string","enum":["a","b"]},"pick":{"oneOf":[{"type":"string"},{"type":"number"}]}},"required":["q"]}',
    run: () => "hits",
  });
  await using pair = await pairWith(lookupOrder, echo, foreign, mirror());
  const { tools } = await pair.client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const order = byName.get("lookup_order")!;
  assert.equal(order.description, "Look up an order by ID.");
  assert.match(JSON.stringify(order.inputSchema), /"order_id"/);
  assert.match(JSON.stringify(order.inputSchema), /"the order to look up"/);
  assert.match(JSON.stringify(order.outputSchema), /"status"/);
  assertJsonEqual(
    order.inputSchema,
    JSON.parse(JSON.stringify(lookupOrder.inputSchema)),
  );
  assertJsonEqual(
    order.outputSchema,
    JSON.parse(JSON.stringify(lookupOrder.outputSchema)),
  );
  assert.equal("outputSchema" in byName.get("echo")!, false);
  assertJsonEqual(
    byName.get("search")!.inputSchema,
    JSON.parse(JSON.stringify(foreign.inputSchema)),
  );
  assert.deepEqual(byName.get("mirror")!.inputSchema, { type: "object" });
  for (const t of tools) {
    assert.equal("annotations" in t, false, `${t.name} has annotations`);
    assert.equal("title" in t, false, `${t.name} has a title`);
  }
  // The wire entries hold exactly these keys (nothing synthesised).
  const wire = pair.fromServer.find((m) =>
    "result" in m && "tools" in (m.result as object)
  );
  const entries =
    (wire as unknown as { result: { tools: Record<string, unknown>[] } }).result
      .tools;
  assert.deepEqual(entries.map((e) => Object.keys(e).sort()), [
    ["description", "inputSchema", "name", "outputSchema"],
    ["description", "inputSchema", "name"],
    ["description", "inputSchema", "name"],
    ["description", "inputSchema", "name"],
  ]);
});

Deno.test('a tool without an input schema is listed with {"type":"object"}', async () => {
  const bare = {
    ...mirror("bare"),
    inputSchema: undefined,
  } as unknown as ToolDef;
  await using pair = await pairWith(bare);
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools[0].inputSchema, { type: "object" });
});

Deno.test("missing, empty or null arguments reach the tool as {}, as null argument text does in the loop", async () => {
  await using pair = await pairWith(mirror());
  assert.equal(onlyText(await callRaw(pair.client, "mirror")), "{}");
  assert.equal(onlyText(await callRaw(pair.client, "mirror", {})), "{}");
  // The SDK's schema refuses null (-32603 with its validation dump); the
  // bridge reads it as the core reads `null` argument text.
  assert.equal(onlyText(await callRaw(pair.client, "mirror", null)), "{}");
  assert.equal(argumentText(undefined), "{}");
  assert.equal(argumentText(null), "{}");
  assert.equal(argumentText({}), "{}");
});

Deno.test("arguments are JSON.stringify of the client's object: <>& unescaped, key order kept", async () => {
  await using pair = await pairWith(mirror());
  const out = onlyText(
    await callRaw(pair.client, "mirror", {
      markup: "a<b&c>d",
      z: 1,
      a: [2, 3],
      nested: { k: "v" },
    }),
  );
  assert.equal(out, '{"markup":"a<b&c>d","z":1,"a":[2,3],"nested":{"k":"v"}}');
});

Deno.test("JSON.rawJSON argument values keep their digits", async () => {
  await using pair = await pairWith(mirror());
  const big = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(
    "9007199254740993",
  );
  assert.equal(
    onlyText(await callRaw(pair.client, "mirror", { id: big })),
    '{"id":9007199254740993}',
  );
});

Deno.test("run policy is not applied: no timeout, no result cap, no tool middleware", async () => {
  const slow = rawTool({
    name: "slow",
    description: "",
    timeout: 5,
    run: async () => {
      await quietFor(40, "outlasts its 5 ms timeout, not applied here");
      return "finished";
    },
  });
  const long = rawTool({
    name: "long",
    description: "",
    maxResultBytes: 4,
    run: () => "0123456789",
  });
  const gated = rawTool({
    name: "gated",
    description: "",
    wrap: [
      () => () => Promise.reject(new ToolError("DENIED", "middleware ran")),
    ],
    run: () => "handler ran",
  });
  await using pair = await pairWith(slow, long, gated);
  assert.equal(onlyText(await callRaw(pair.client, "slow")), "finished");
  assert.equal(onlyText(await callRaw(pair.client, "long")), "0123456789");
  assert.equal(onlyText(await callRaw(pair.client, "gated")), "handler ran");
});

Deno.test("a typed tool decodes leniently, or strictly with its own strictInput", async () => {
  const strict = tool({
    name: "strict",
    description: "",
    strictInput: true,
    input: z.object({ q: z.string() }),
    run: ({ q }) => q,
  });
  await using pair = await pairWith(echo, strict);
  assert.equal(
    onlyText(await callRaw(pair.client, "echo", { text: "hi", extra: 1 })),
    "heard: hi",
  );
  const res = await callRaw(pair.client, "strict", { q: "x", f: 1 });
  assert.equal(res.isError, true);
  assert.equal(
    onlyText(res),
    'INVALID_INPUT: tool "strict": unknown field "f": not in the schema',
  );
});
