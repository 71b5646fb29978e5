import assert from "node:assert/strict";
import { z } from "zod";
import { ToolError, ToolOutputError } from "../src/core/errors.ts";
import type { ToolMiddleware } from "../src/core/middleware.ts";
import { ACCEPTED_SCHEMAS } from "../src/core/schema_input.ts";
import {
  rawTool,
  type StandardSchemaWithJSON,
  tool,
  type ToolContext,
} from "../src/core/tool.ts";
import { quietFor } from "./_helpers/wait.ts";

const Query = z.object({ q: z.string() });

function typeError(build: () => unknown): TypeError {
  try {
    build();
  } catch (err) {
    assert.ok(err instanceof TypeError, `not a TypeError: ${err}`);
    return err;
  }
  throw new Error("constructed");
}

Deno.test("tool refuses an empty name", () => {
  const err = typeError(() =>
    tool({ name: "", description: "", input: Query, run: () => "" })
  );
  assert.equal(err.message, "weft: tool called with an empty name");
});

Deno.test("tool refuses a missing run function", () => {
  const def = {
    name: "x",
    description: "",
    input: Query,
  } as unknown as Parameters<typeof tool>[0];
  assert.equal(
    typeError(() => tool(def)).message,
    'weft: tool "x" called without a run function',
  );
});

Deno.test("tool refuses an input that is not a Standard JSON Schema", () => {
  const noJson = {
    "~standard": { version: 1, vendor: "v", validate: () => ({ value: {} }) },
  };
  const def = { name: "x", description: "", input: noJson, run: () => "" };
  assert.equal(
    typeError(() => tool(def as unknown as Parameters<typeof tool>[0])).message,
    `weft: tool "x": input must be ${ACCEPTED_SCHEMAS}; this v schema has no JSON Schema of its own: pass withJsonSchema(schema, converter) from @weft/mcp`,
  );
  const notASchema = { ...def, input: "string" };
  assert.equal(
    typeError(() => tool(notASchema as unknown as Parameters<typeof tool>[0]))
      .message,
    `weft: tool "x": input must be ${ACCEPTED_SCHEMAS}`,
  );
});

Deno.test("tool refuses an input that is not an object schema", () => {
  const err = typeError(() =>
    tool({ name: "x", description: "", input: z.string(), run: () => "" })
  );
  assert.equal(
    err.message,
    'weft: tool "x": input must be an object schema: top-level type must be "object", got "string"',
  );
});

Deno.test("tool refuses an input whose JSON Schema cannot be derived", () => {
  const err = typeError(() =>
    tool({
      name: "x",
      description: "",
      input: z.object({ n: z.bigint() }),
      run: () => "",
    })
  );
  assert.ok(
    err.message.startsWith(
      'weft: tool "x": input JSON Schema could not be derived: ',
    ),
    err.message,
  );
  assert.ok(err.cause instanceof Error);
});

Deno.test("tool refuses an output that is not a Standard JSON Schema", () => {
  const noJson = {
    "~standard": { version: 1, vendor: "v", validate: () => ({ value: {} }) },
  };
  const inputOnly = {
    "~standard": {
      ...Query["~standard"],
      jsonSchema: { input: Query["~standard"].jsonSchema.input },
    },
  };
  for (const output of [noJson, inputOnly, null]) {
    const def = {
      name: "x",
      description: "",
      input: Query,
      output,
      run: () => "",
    };
    assert.match(
      typeError(() => tool(def as unknown as Parameters<typeof tool>[0]))
        .message,
      new RegExp(
        `^weft: tool "x": output must be ${
          ACCEPTED_SCHEMAS.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        }`,
      ),
    );
  }
});

Deno.test("tool refuses an output whose JSON Schema cannot be derived", async (t) => {
  await t.step(
    "a converter that throws: its message, the error as cause",
    () => {
      const why = new Error("dates have no JSON Schema here");
      const output: StandardSchemaWithJSON<unknown> = {
        "~standard": {
          version: 1,
          vendor: "hand",
          validate: (value) => ({ value }),
          jsonSchema: {
            input: () => ({ type: "object" }),
            output: () => {
              throw why;
            },
          },
        },
      };
      const err = typeError(() =>
        tool({
          name: "x",
          description: "",
          input: Query,
          output,
          run: () => "",
        })
      );
      assert.equal(
        err.message,
        'weft: tool "x": output JSON Schema could not be derived: dates have no JSON Schema here',
      );
      assert.equal(err.cause, why);
    },
  );
  await t.step("zod refusing a bigint output", () => {
    const err = typeError(() =>
      tool({
        name: "x",
        description: "",
        input: Query,
        output: z.object({ n: z.bigint() }),
        run: () => "",
      })
    );
    assert.equal(
      err.message,
      'weft: tool "x": output JSON Schema could not be derived: BigInt cannot be represented in JSON Schema',
    );
    assert.ok(err.cause instanceof Error);
  });
});

Deno.test("tool derives the input schema once and keeps it whole", () => {
  const calls: string[] = [];
  const schema: StandardSchemaWithJSON<{ n: number }> = {
    "~standard": {
      version: 1,
      vendor: "count",
      validate: (value) => ({ value: value as { n: number } }),
      jsonSchema: {
        input: (options) => {
          calls.push(options.target);
          return {
            type: "object",
            properties: { n: { type: "integer", maximum: 2n ** 64n } },
          };
        },
        output: () => ({}),
      },
    },
  };
  const t = tool({
    name: "count",
    description: "",
    input: schema,
    run: ({ n }) => `${n}`,
  });
  assert.deepEqual(calls, ["draft-2020-12"]);
  assert.equal(
    JSON.stringify(t.inputSchema),
    '{"type":"object","properties":{"n":{"type":"integer","maximum":18446744073709551616}}}',
  );
});

Deno.test("tool returns a string result verbatim", async () => {
  const t = tool({
    name: "s",
    description: "",
    input: Query,
    run: ({ q }) => `  <${q}>\n`,
  });
  assert.equal(await t.invoke('{"q":"a&b"}'), "  <a&b>\n");
  assert.equal(t.outputSchema, undefined);
});

Deno.test("tool JSON-encodes other results compactly", async () => {
  const t = tool({
    name: "j",
    description: "",
    input: Query,
    run: ({ q }) => ({
      q,
      n: [1, 2],
      big: 12345678901234567890n,
      none: undefined,
    }),
  });
  assert.equal(
    await t.invoke('{"q":"<x>"}'),
    '{"q":"<x>","n":[1,2],"big":12345678901234567890}',
  );
  const nothing = tool({
    name: "v",
    description: "",
    input: Query,
    run: () => undefined,
  });
  assert.equal(await nothing.invoke('{"q":""}'), "null");
});

Deno.test("tool rejects with ToolOutputError when the result cannot be encoded", async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const t = tool({
    name: "cyc",
    description: "",
    input: Query,
    run: () => cyclic,
  });
  const err = await t.invoke('{"q":""}').catch((e) => e);
  assert.ok(err instanceof ToolOutputError);
  assert.ok(
    err.message.startsWith('marshal output of tool "cyc": '),
    err.message,
  );
  assert.ok(err.cause instanceof TypeError);
});

Deno.test("tool records an object output schema", async () => {
  const t = tool({
    name: "o",
    description: "",
    input: Query,
    output: z.object({ hits: z.number() }),
    run: () => ({ hits: 3 }),
  });
  assert.equal(t.outputSchema?.type, "object");
  assert.equal(t.outputSchema?.properties?.hits.type, "number");
  assert.equal(await t.invoke('{"q":""}'), '{"hits":3}');
});

Deno.test("tool does not record a non-object output schema", async () => {
  const t = tool({
    name: "arr",
    description: "",
    input: Query,
    output: z.array(z.number()),
    run: () => [1, 2],
  });
  assert.equal(t.outputSchema, undefined);
  assert.equal("outputSchema" in t, false);
  assert.equal(await t.invoke('{"q":""}'), "[1,2]");
});

Deno.test("tool passes the handler its context", async () => {
  let seen: ToolContext | undefined;
  const t = tool({
    name: "ctx",
    description: "",
    input: Query,
    run: (_input, ctx) => {
      seen = ctx;
      return "";
    },
  });
  await t.invoke('{"q":""}');
  assert.ok(seen?.signal instanceof AbortSignal);
  assert.equal(seen?.signal.aborted, false);
  assert.equal(seen?.call, undefined);
  const controller = new AbortController();
  const call = {
    runId: "r",
    step: 0,
    callId: "c1",
    name: "ctx",
    approved: false,
  };
  const lineage = [{}];
  await t.invoke('{"q":""}', { signal: controller.signal, call, lineage });
  assert.equal(seen?.signal, controller.signal);
  assert.equal(seen?.call, call);
  assert.equal(seen?.lineage, lineage);
});

Deno.test("invoke returns handler errors unchanged", async () => {
  const failure = new ToolError("RETRY", "try again");
  const t = tool({
    name: "e",
    description: "",
    input: Query,
    run: () => {
      throw failure;
    },
  });
  assert.equal(await t.invoke('{"q":""}').catch((e) => e), failure);
  const thrown = tool({
    name: "t",
    description: "",
    input: Query,
    run: () => Promise.reject("bang"),
  });
  assert.equal(await thrown.invoke('{"q":""}').catch((e) => e), "bang");
});

Deno.test("invoke applies no run policy", async () => {
  const t = tool({
    name: "slow",
    description: "",
    input: Query,
    timeout: 1,
    maxResultBytes: 2,
    requireApproval: true,
    run: async () => {
      await quietFor(
        20,
        "outlasts its 1 ms timeout, which invoke does not apply",
      );
      return "long result";
    },
  });
  assert.equal(await t.invoke('{"q":""}'), "long result");
});

Deno.test("tool records the options", () => {
  const mw: ToolMiddleware = (next) => next;
  const t = tool({
    name: "opts",
    description: "Described.",
    input: Query,
    run: () => "",
    timeout: 0,
    maxResultBytes: 100,
    requireApproval: true,
    sequential: true,
    strictInput: true,
    origin: "mine",
    wrap: [mw, undefined as unknown as ToolMiddleware],
  });
  assert.equal(t.name, "opts");
  assert.equal(t.description, "Described.");
  assert.equal(t.timeout, 0);
  assert.equal(t.maxResultBytes, 100);
  assert.equal(t.requiresApproval, true);
  assert.equal(t.sequential, true);
  assert.equal(t.strictInput, true);
  assert.equal(t.origin, "mine");
  assert.deepEqual(t.wrap, [mw]);
});

Deno.test("tool defaults the options and ignores negative policy values", () => {
  const t = tool({
    name: "d",
    description: "",
    input: Query,
    run: () => "",
    timeout: -1,
    maxResultBytes: -5,
  });
  assert.equal("timeout" in t, false);
  assert.equal("maxResultBytes" in t, false);
  assert.equal(t.requiresApproval, false);
  assert.equal(t.sequential, false);
  assert.equal(t.strictInput, false);
  assert.equal(t.origin, "");
  assert.deepEqual(t.wrap, []);
});

Deno.test("a tool is frozen and copies by spreading", async () => {
  const t = tool({
    name: "f",
    description: "",
    input: Query,
    run: ({ q }) => q,
  });
  assert.ok(Object.isFrozen(t));
  const copy = { ...t, name: "g" };
  assert.equal(await copy.invoke('{"q":"still works"}'), "still works");
});

Deno.test("rawTool refuses an empty name", () => {
  assert.equal(
    typeError(() => rawTool({ name: "", description: "", run: () => "" }))
      .message,
    "weft: rawTool called with an empty name",
  );
});

Deno.test("rawTool refuses a missing run function", () => {
  const def = { name: "r", description: "" } as unknown as Parameters<
    typeof rawTool
  >[0];
  assert.equal(
    typeError(() => rawTool(def)).message,
    'weft: rawTool "r" called without a run function',
  );
});

Deno.test("rawTool refuses an input schema parseSchema refuses", () => {
  assert.equal(
    typeError(() =>
      rawTool({
        name: "r",
        description: "",
        inputSchema: '{"type":"array"}',
        run: () => "",
      })
    )
      .message,
    'weft: rawTool "r": inputSchema must be an object schema: top-level type must be "object", got "array"',
  );
  assert.equal(
    typeError(() =>
      rawTool({ name: "r", description: "", inputSchema: "{", run: () => "" })
    ).message,
    'weft: rawTool "r": inputSchema must be an object schema: unexpected end of input',
  );
});

Deno.test("rawTool refuses an output schema parseSchema refuses", () => {
  const err = typeError(() =>
    rawTool({
      name: "r",
      description: "",
      outputSchema: { type: "string" },
      run: () => "",
    })
  );
  assert.equal(
    err.message,
    'weft: rawTool "r": outputSchema must be an object schema: top-level type must be "object", got "string"',
  );
});

Deno.test("rawTool defaults the input schema to an object", () => {
  const t = rawTool({ name: "r", description: "", run: () => "" });
  assert.equal(JSON.stringify(t.inputSchema), '{"type":"object"}');
  assert.equal(t.outputSchema, undefined);
});

Deno.test("rawTool keeps its schemas whole", () => {
  const input =
    '{"type":"object","properties":{"id":{"type":"integer","maximum":12345678901234567890}}}';
  const output = { type: "object", properties: { ok: { type: "boolean" } } };
  const t = rawTool({
    name: "r",
    description: "",
    inputSchema: input,
    outputSchema: output,
    run: () => "",
  });
  assert.equal(JSON.stringify(t.inputSchema), input);
  assert.equal(JSON.stringify(t.outputSchema), JSON.stringify(output));
});

Deno.test("rawTool passes the argument text verbatim", async () => {
  const seen: string[] = [];
  const t = rawTool({
    name: "r",
    description: "",
    strictInput: true,
    run: (args) => {
      seen.push(args);
      return "done";
    },
  });
  for (
    const args of [
      "",
      "null",
      " {not json",
      '{"id":12345678901234567890,"extra":1}',
    ]
  ) {
    assert.equal(await t.invoke(args, { strictInput: true }), "done");
  }
  assert.deepEqual(seen, [
    "",
    "null",
    " {not json",
    '{"id":12345678901234567890,"extra":1}',
  ]);
});

Deno.test("rawTool rejects a handler result that is not a string", async () => {
  const t = rawTool({
    name: "r",
    description: "",
    run: () => 5 as unknown as string,
  });
  const err = await t.invoke("{}").catch((e) => e);
  assert.ok(err instanceof TypeError);
  assert.equal(
    err.message,
    'weft: rawTool "r" handler returned number, not a string',
  );
});

Deno.test("rawTool records the options", () => {
  const t = rawTool({
    name: "r",
    description: "d",
    run: () => "",
    origin: "mcp",
    sequential: true,
    timeout: 50,
  });
  assert.equal(t.origin, "mcp");
  assert.equal(t.sequential, true);
  assert.equal(t.timeout, 50);
  assert.equal(t.description, "d");
});

Deno.test("tool takes a plain JSON Schema: types and required are checked without a validate function", async () => {
  const lookup = tool({
    name: "lookup",
    description: "",
    input: {
      jsonSchema: {
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
      },
    },
    run: (args) => JSON.stringify(args),
  });
  assert.deepEqual(lookup.inputSchema.raw.required, ["id"]);
  assert.equal(await lookup.invoke('{"id":3}'), '{"id":3}');
  await assert.rejects(
    lookup.invoke('{"id":"3"}'),
    (err: unknown) =>
      err instanceof ToolError &&
      err.message ===
        'INVALID_INPUT: tool "lookup": field "id": expected integer, got string',
  );
});
