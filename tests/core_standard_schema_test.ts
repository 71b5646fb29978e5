// The core declares the Standard Schema v1 and Standard JSON Schema v1
// shapes itself (so its documentation stops at its own names). These checks
// keep those declarations and the spec package's the same types: each
// assignment below fails `deno check` when one drifts from the other.

import assert from "node:assert/strict";
import type {
  StandardJSONSchemaV1 as SpecJSONSchema,
  StandardSchemaV1 as SpecSchema,
} from "@standard-schema/spec";
import { z } from "zod";
import type {
  StandardIssue,
  StandardJSONSchemaProps,
  StandardJSONSchemaV1,
  StandardOutput,
  StandardResult,
  StandardSchemaProps,
  StandardSchemaV1,
} from "../core.ts";

/** `true` when `A` and `B` are assignable to each other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

Deno.test("the core's Standard Schema declarations and the spec's are the same types", () => {
  const checks: true[] = [
    true as Same<StandardSchemaV1, SpecSchema>,
    true as Same<StandardSchemaV1<string, number>, SpecSchema<string, number>>,
    true as Same<
      StandardSchemaProps<string, number>,
      SpecSchema.Props<string, number>
    >,
    true as Same<StandardResult<number>, SpecSchema.Result<number>>,
    true as Same<StandardIssue, SpecSchema.Issue>,
    true as Same<StandardJSONSchemaV1, SpecJSONSchema>,
    true as Same<
      StandardJSONSchemaProps<string, number>,
      SpecJSONSchema.Props<string, number>
    >,
    true as Same<
      StandardOutput<SpecSchema<string, number>>,
      SpecSchema.InferOutput<SpecSchema<string, number>>
    >,
  ];
  assert.equal(checks.length, 8);
});

Deno.test("a zod schema fits both declarations and validates through ours", async () => {
  const schema = z.object({ a: z.number() });
  const ours: StandardSchemaV1<unknown, { a: number }> & StandardJSONSchemaV1 =
    schema;
  const spec: SpecSchema<unknown, { a: number }> = schema;
  assert.equal(ours["~standard"].vendor, spec["~standard"].vendor);
  assert.deepEqual(await ours["~standard"].validate({ a: 1 }), {
    value: { a: 1 },
  });
  const failed = await ours["~standard"].validate({ a: "x" });
  assert.ok(failed.issues && failed.issues.length === 1);
  assert.deepEqual(failed.issues[0].path, ["a"]);
  assert.equal(
    ours["~standard"].jsonSchema.input({ target: "draft-2020-12" }).type,
    "object",
  );
});
