/**
 * A typed tool's result is checked against the output schema it advertises
 * before anyone reads it, as the SDK's `McpServer` does: a result that
 * breaks it is an `OutputSchemaError` — an `isError` result over MCP, the
 * same text in the loop — never a silent lie to a validating client.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Agent } from "../src/core/agent.ts";
import { content } from "../src/core/content.ts";
import { OutputSchemaError } from "../src/core/errors.ts";
import type { ToolResultPart } from "../src/core/messages.ts";
import { tool } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { callTools, say, script } from "../src/testing/script.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";

const order = z.object({ id: z.string(), status: z.string() });

function lying(result: unknown) {
  return tool({
    name: "order",
    description: "Looks up an order.",
    input: z.object({}),
    output: order,
    run: () => result as { id: string; status: string },
  });
}

Deno.test("a result that breaks the advertised output schema is an isError result with the pinned text", async () => {
  await using pair = await connected((server) =>
    exportTools(server, lying({ id: "7", status: 3 }))
  );
  const res = await callRaw(pair.client, "order", {});
  assert.equal(res.isError, true);
  assert.equal("structuredContent" in res, false);
  assert.equal(
    onlyText(res),
    'tool "order" result does not match its output schema: field "status": expected string, got number',
  );
});

Deno.test("output check texts: a missing field, a string result holding JSON, a content result", async () => {
  const missing = await lying({ id: "7" }).invoke({}).catch((e) => e);
  assert.ok(missing instanceof OutputSchemaError);
  assert.equal(
    missing.message,
    'tool "order" result does not match its output schema: missing required field "status"',
  );
  assert.equal(missing.tool, "order");
  assert.equal(missing.reason, 'missing required field "status"');

  const text = await lying('{"id":1,"status":"x"}').invoke({}).catch((e) => e);
  assert.equal(
    text.message,
    'tool "order" result does not match its output schema: field "id": expected string, got number',
  );
  // Text that is not JSON is the export's own rule (E-8), not this check.
  assert.equal(await lying("not json").invoke({}), "not json");

  const pictured = await lying(content("a picture")).invoke({}).catch((e) => e);
  assert.ok(pictured instanceof OutputSchemaError);
  assert.equal(
    pictured.message,
    'tool "order" advertised an output schema, so its result must be JSON; got content',
  );
});

Deno.test("a validator's own issue words the refusal when the JSON Schema sees nothing wrong", async () => {
  const t = tool({
    name: "count",
    description: "",
    input: z.object({}),
    output: z.object({ n: z.number().min(1, "n must be at least 1") }),
    run: () => ({ n: 0 }),
  });
  const err = await t.invoke({}).catch((e) => e);
  assert.equal(
    err.message,
    'tool "count" result does not match its output schema: field "n": n must be at least 1',
  );
});

Deno.test("an asynchronous output validator is awaited", async () => {
  const asyncOrder = z.object({ id: z.string() }).refine(
    async (v) => {
      await Promise.resolve();
      return v.id !== "bad";
    },
    { message: "unknown order" },
  );
  const t = tool({
    name: "lookup",
    description: "",
    input: z.object({ id: z.string() }),
    output: asyncOrder,
    run: ({ id }) => ({ id }),
  });
  assert.equal(await t.invoke({ id: "ok" }), '{"id":"ok"}');
  const err = await t.invoke({ id: "bad" }).catch((e) => e);
  assert.equal(
    err.message,
    'tool "lookup" result does not match its output schema: unknown order',
  );
});

Deno.test("a result that keeps the schema goes out as before; the loop's model reads the same refusal text", async () => {
  await using pair = await connected((server) =>
    exportTools(server, lying({ id: "7", status: "shipped" }))
  );
  const res = await callRaw(pair.client, "order", {});
  assert.equal(res.isError, undefined);
  assert.deepEqual(res.structuredContent, { id: "7", status: "shipped" });

  const result = await new Agent(
    script(callTools({ name: "order" }), say("ok")),
    { tools: [lying({ id: 7, status: "x" })] },
  ).generate("go");
  const part =
    result.messages.flatMap((m) =>
      m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
    )[0];
  assert.equal(part.isError, true);
  assert.equal(
    part.content,
    'tool "order" result does not match its output schema: field "id": expected string, got number',
  );
});

Deno.test("an output schema that is not advertised (not an object schema) is not checked", async () => {
  const t = tool({
    name: "n",
    description: "",
    input: z.object({}),
    output: z.number(),
    run: () => "seven" as unknown as number,
  });
  assert.equal(t.outputSchema, undefined);
  assert.equal(await t.invoke({}), "seven");
});
