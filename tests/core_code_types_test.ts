/**
 * The typed API code mode shows the model: JSON Schema to TypeScript, and
 * tool names to identifiers.
 */

import assert from "node:assert/strict";
import { Agent, rawTool } from "../mod.ts";
import { identifierOf } from "../core.ts";
import { say, script } from "../testing.ts";

function described(inputSchema: Record<string, unknown>, name = "t"): string {
  const agent = new Agent(script(say("x")), {
    tools: [rawTool({ name, description: "", inputSchema, run: () => "" })],
    codeMode: {
      executor: { execute: () => Promise.resolve({ result: undefined }) },
    },
  });
  const text = agent.tools[0].description;
  return text.slice(text.indexOf("declare const"));
}

Deno.test("code types: JSON Schema becomes compact TypeScript", () => {
  assert.equal(
    described({
      type: "object",
      properties: {
        path: { type: "string", description: "Where.\nTwo lines */ here" },
        mode: { enum: ["r", "w"] },
        size: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
        when: { anyOf: [{ type: "string" }, { type: "null" }] },
        pair: {
          type: "array",
          prefixItems: [{ type: "number" }, { const: 1 }],
        },
        meta: { type: "object", additionalProperties: { type: "boolean" } },
        "odd-key": { type: ["string", "number"] },
        deep: { type: "object", properties: { a: { $ref: "#/x" } } },
        rows: {
          type: "array",
          items: { type: "object", properties: { k: { type: "string" } } },
        },
      },
      required: ["path"],
    }),
    "declare const codemode: {\n" +
      '  t(input: { /** Where. Two lines *\\/ here */ path: string; mode?: "r" | "w"; size?: number; tags?: string[]; when?: string | null; pair?: [number, 1]; meta?: Record<string, boolean>; "odd-key"?: string | number; deep?: { a?: unknown }; rows?: Array<{ k?: string }> }): Promise<unknown>;\n' +
      "};",
  );
});

Deno.test("code types: names become identifiers, colliding ones numbered", () => {
  assert.equal(identifierOf("get-sum"), "get_sum");
  assert.equal(identifierOf("fs.read file"), "fs_read_file");
  assert.equal(identifierOf("3d"), "_3d");
  assert.equal(identifierOf("delete"), "delete_");
  assert.equal(identifierOf("☃"), "_");
  const agent = new Agent(script(say("x")), {
    tools: [
      rawTool({ name: "get-sum", description: "", run: () => "" }),
      rawTool({ name: "get_sum", description: "", run: () => "" }),
    ],
    codeMode: {
      executor: { execute: () => Promise.resolve({ result: undefined }) },
    },
  });
  const text = agent.tools[0].description;
  assert.match(
    text,
    /\n {2}get_sum\(input: Record<string, unknown>\): Promise<unknown>;\n {2}get_sum_2\(/,
  );
});

Deno.test("code mode: typeCheck needs an executor that can check", () => {
  assert.throws(
    () =>
      new Agent(script(say("x")), {
        codeMode: {
          executor: { execute: () => Promise.resolve({ result: undefined }) },
          typeCheck: true,
        },
      }),
    {
      name: "TypeError",
      message:
        "codeMode: typeCheck needs an executor that can type-check (a check method); code's executor has none",
    },
  );
});
