/**
 * The client's lane for common responses: a result response, and a
 * `tools/call` result, recognised by their shape — cheaply, where the SDK
 * runs zod over each — with the SDK's schema deciding everything else.
 * What the lane accepts is exactly what the schema would have given back
 * (same keys, same order, same values), so a caller cannot tell the two
 * apart (tests/runtime_client_lane_test.ts holds both side by side).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isRawJson } from "../../core/json.ts";
import type { AnySchema } from "../sdk_types.ts";
import { wrapZodRun } from "../../seam/sdk_internals.ts";

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null &&
    !Array.isArray(value) && !isRawJson(value);
}

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * Whether `meta` is a `_meta` the SDK's schema gives back as it is: absent,
 * or an object of other keys than the progress token and the related
 * task (which the schema checks) and `__proto__`.
 */
function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  return isPlainRecord(meta) && !Object.hasOwn(meta, "progressToken") &&
    !Object.hasOwn(meta, RELATED_TASK) && !Object.hasOwn(meta, "__proto__");
}

/**
 * Whether `message` is plainly a JSON-RPC result response the SDK's
 * `JSONRPCResultResponseSchema` accepts: the keys `jsonrpc`, `id` and
 * `result` only, a string or safe-integer id, an object result whose
 * `_meta` has neither a progress token nor a related task. `false` says
 * nothing: the SDK's own check decides.
 */
export function isPlainResultResponse(message: unknown): boolean {
  if (!isPlainRecord(message) || message.jsonrpc !== "2.0") return false;
  let keys = 0;
  for (const key in message) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return false;
    keys++;
  }
  if (keys !== 3) return false;
  const id = message.id;
  if (
    typeof id !== "string" &&
    !(typeof id === "number" && Number.isSafeInteger(id))
  ) return false;
  const result = message.result;
  return isPlainRecord(result) && isPlainMeta(result._meta);
}

/** The keys of a `tools/call` result in the schema's output order. */
const CALL_KEYS = ["_meta", "content", "structuredContent", "isError"];

/**
 * The `tools/call` result `CallToolResultSchema` would give back for
 * `value`, when that is cheap to tell: `content` of text blocks (`type`
 * then `text`, nothing else), optionally a `_meta` (see above), a
 * `structuredContent` object and a boolean `isError`, and any other keys
 * (which the schema passes through, after its own). `value` itself when
 * its keys are in the schema's order already, else a copy in that order;
 * `undefined` when the schema must decide.
 */
export function plainCallResult(
  value: unknown,
): Record<string, unknown> | undefined {
  if (!isPlainRecord(value) || Object.hasOwn(value, "__proto__")) return;
  const content = value.content;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isPlainRecord(block) || block.type !== "text") return;
    if (typeof block.text !== "string") return;
    let i = 0;
    for (const key in block) {
      if (key !== (i === 0 ? "type" : "text")) return;
      i++;
    }
  }
  if (!isPlainMeta(value._meta)) return;
  if ("structuredContent" in value) {
    const structured = value.structuredContent;
    if (!isPlainRecord(structured) || Object.hasOwn(structured, "__proto__")) {
      return;
    }
  }
  if ("isError" in value && typeof value.isError !== "boolean") return;
  // In order when the known keys come first, in the schema's order.
  let rank = 0;
  let extras = false;
  let ordered = true;
  for (const key in value) {
    const known = CALL_KEYS.indexOf(key) + 1;
    if (known === 0) extras = true;
    else if (extras || known < rank) ordered = false;
    else rank = known;
  }
  if (ordered) return value;
  const copy: Record<string, unknown> = {};
  for (const key of CALL_KEYS) if (key in value) copy[key] = value[key];
  for (const key in value) if (!CALL_KEYS.includes(key)) copy[key] = value[key];
  return copy;
}

/**
 * `CallToolResultSchema` with the lane in front: the same schema (the SDK
 * parses it with zod's `safeParse`, which calls its internals' `run`),
 * except that `run` passes a plain result as it is and hands anything else
 * to the schema's own `run` — the same outcome, the same error. The schema
 * itself when zod's internals are not as expected.
 */
export const LANE_CALL_RESULT: AnySchema = wrapZodRun(
  CallToolResultSchema,
  (run) => (payload, ctx) => {
    const plain = plainCallResult(payload.value);
    if (plain === undefined) return run(payload, ctx);
    payload.value = plain;
    return payload;
  },
) ?? CallToolResultSchema;

/** The schema to hand the SDK for `resultSchema`: the lane's where it has one. */
export function laneSchema<T extends AnySchema>(resultSchema: T): T {
  return (resultSchema as unknown === CallToolResultSchema
    ? LANE_CALL_RESULT
    : resultSchema) as T;
}
