// The schema libraries people have, each as a typed tool's input: zod 3.25
// (its `zod/v4` subpath) and 4.1 through their own `toJSONSchema`, zod 4.6
// through Standard JSON Schema, valibot through `@valibot/to-json-schema`,
// arktype through its `toJsonSchema()` method, and a plain JSON Schema with a
// validate function. Each tool advertises its JSON Schema, runs on valid
// arguments and refuses invalid ones with INVALID_INPUT.

import assert from "node:assert/strict";
import * as z325 from "zod-3.25/v4";
import * as z41 from "zod-4.1";
import { z as z46 } from "zod";
import * as v from "valibot";
import { toJsonSchema as valibotToJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import {
  Agent,
  tool,
  type ToolDef,
  ToolError,
  withJsonSchema,
} from "../../mod.ts";
import { say, script, submit } from "../../testing.ts";

async function assertWorks(search: ToolDef): Promise<void> {
  const raw = search.inputSchema.raw as {
    type?: string;
    properties?: Record<string, { type?: string }>;
    required?: string[];
  };
  assert.equal(raw.type, "object");
  assert.equal(raw.properties?.query?.type, "string");
  assert.deepEqual(raw.required, ["query"]);
  assert.equal(await search.invoke('{"query":"lamp"}'), "found lamp");
  const err = await search.invoke('{"query":7}').catch((e: unknown) => e);
  assert.ok(err instanceof ToolError, String(err));
  assert.match(err.message, /^INVALID_INPUT: tool "search": /);
}

const describe = { name: "search", description: "Searches the catalogue." };

Deno.test("zod 3.25's zod/v4 schema works through withJsonSchema and z.toJSONSchema", async () => {
  const search = tool({
    ...describe,
    input: withJsonSchema(
      z325.object({ query: z325.string() }),
      z325.toJSONSchema,
    ),
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
});

Deno.test("zod 4.1 works through withJsonSchema and z.toJSONSchema", async () => {
  const search = tool({
    ...describe,
    input: withJsonSchema(
      z41.object({ query: z41.string() }),
      z41.toJSONSchema,
    ),
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
});

Deno.test("zod 4.1 alone is refused with a text naming withJsonSchema and z.toJSONSchema", () => {
  const input = z41.object({ query: z41.string() });
  assert.throws(
    () =>
      tool({
        ...describe,
        input: input as unknown as Parameters<typeof tool>[0]["input"],
        run: () => "",
      }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message.includes(
        "this zod schema has no JSON Schema of its own: pass withJsonSchema(schema, converter) from @weft/mcp (zod before 4.2: withJsonSchema(schema, z.toJSONSchema))",
      ),
  );
});

Deno.test("zod 4.6 works as it is, through Standard JSON Schema", async () => {
  const search = tool({
    ...describe,
    input: z46.object({ query: z46.string() }),
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
});

Deno.test("valibot works through withJsonSchema and @valibot/to-json-schema", async () => {
  const search = tool({
    ...describe,
    input: withJsonSchema(
      v.object({ query: v.string() }),
      valibotToJsonSchema,
    ),
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
});

Deno.test("arktype works through its toJsonSchema method", async () => {
  const search = tool({
    ...describe,
    input: type({ query: "string" }),
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
});

Deno.test("a plain JSON Schema with a validate function works, and validate's error is the reason", async () => {
  const search = tool({
    ...describe,
    input: {
      jsonSchema: {
        type: "object",
        properties: { query: { type: "string" } },
        required: ["query"],
      },
      validate(value: unknown): { query: string } {
        const { query } = value as { query: string };
        if (query === "") throw new Error("query must not be empty");
        return { query };
      },
    },
    run: ({ query }) => `found ${query}`,
  });
  await assertWorks(search);
  const err = await search.invoke('{"query":""}').catch((e: unknown) => e);
  assert.ok(err instanceof ToolError);
  assert.match(err.message, /query must not be empty/);
});

Deno.test("an agent's structured output takes a zod 4.1 schema through withJsonSchema", async () => {
  const agent = new Agent(script(submit({ city: "Oslo" }), say("Oslo.")), {
    output: withJsonSchema(
      z41.object({ city: z41.string() }),
      z41.toJSONSchema,
    ),
  });
  const result = await agent.generate("Where is the office?");
  assert.deepEqual(result.output, { city: "Oslo" });
});
