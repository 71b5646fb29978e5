/**
 * The typed API a code-mode program is written against: one TypeScript
 * declaration of a namespace object whose methods are the tools, their
 * parameter and result types read from the tools' JSON Schemas (a tool
 * without an output schema returns `unknown`). Compact on purpose: it is
 * the code tool's description, read by the model on every step.
 *
 * @module
 */

import type { ToolDef } from "./tool.ts";
import { identifierOf } from "./code_mode.ts";

/** The namespace programs call tools through. */
export const NAMESPACE = "codemode";

/**
 * The identifiers of `tools`, by identifier → tool name; a second tool
 * whose name gives the same identifier gets `_2`, `_3`, … appended.
 */
export function identifiers(tools: readonly ToolDef[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const tool of tools) {
    const base = identifierOf(tool.name);
    let id = base;
    for (let n = 2; out.has(id); n++) id = `${base}_${n}`;
    out.set(id, tool.name);
  }
  return out;
}

/** The declaration of the namespace over `tools` (identifier → tool). */
export function declarations(
  named: ReadonlyMap<string, ToolDef>,
): string {
  const lines = [`declare const ${NAMESPACE}: {`];
  for (const [id, tool] of named) {
    const doc = oneLine(tool.description);
    if (doc !== "") lines.push(`  /** ${doc} */`);
    const input = typeOf(tool.inputSchema.raw, 1);
    const output = tool.outputSchema === undefined
      ? "unknown"
      : typeOf(tool.outputSchema.raw, 1);
    lines.push(`  ${id}(input: ${input}): Promise<${output}>;`);
  }
  lines.push("};");
  return lines.join("\n");
}

const MAX_DEPTH = 8;

/** The TypeScript type a JSON Schema describes; `unknown` where it cannot say. */
export function typeOf(schema: unknown, depth: number): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (schema === null || typeof schema !== "object" || depth > MAX_DEPTH) {
    return "unknown";
  }
  const s = schema as Record<string, unknown>;
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.enum)) {
    return s.enum.length === 0 ? "never" : s.enum.map(literal).join(" | ");
  }
  const union = Array.isArray(s.anyOf) ? s.anyOf : s.oneOf;
  if (Array.isArray(union) && union.length > 0) {
    return union.map((m) => wrap(typeOf(m, depth + 1))).join(" | ");
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    return s.allOf.map((m) => wrap(typeOf(m, depth + 1))).join(" & ");
  }
  const type = s.type;
  if (Array.isArray(type)) {
    return type.map((t) => wrap(typeOf({ ...s, type: t }, depth))).join(" | ");
  }
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayOf(s, depth);
    case "object":
      return objectOf(s, depth);
  }
  if (s.properties !== undefined) return objectOf(s, depth);
  return "unknown";
}

function arrayOf(s: Record<string, unknown>, depth: number): string {
  if (Array.isArray(s.prefixItems)) {
    return `[${s.prefixItems.map((m) => typeOf(m, depth + 1)).join(", ")}]`;
  }
  const item = typeOf(s.items, depth + 1);
  return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
}

function objectOf(s: Record<string, unknown>, depth: number): string {
  const props = s.properties;
  const required = new Set(
    Array.isArray(s.required) ? s.required.map(String) : [],
  );
  const parts: string[] = [];
  if (props !== null && typeof props === "object") {
    for (const [key, sub] of Object.entries(props)) {
      const doc = oneLine(
        (sub as { description?: unknown } | null)?.description,
      );
      const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
      const opt = required.has(key) ? "" : "?";
      const comment = doc === "" ? "" : `/** ${doc} */ `;
      parts.push(`${comment}${name}${opt}: ${typeOf(sub, depth + 1)}`);
    }
  }
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false && parts.length === 0) {
    return `Record<string, ${typeOf(extra, depth + 1)}>`;
  }
  if (parts.length === 0) {
    return extra === false
      ? "Record<string, never>"
      : "Record<string, unknown>";
  }
  return `{ ${parts.join("; ")} }`;
}

function literal(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value) ?? "unknown";
}

function wrap(type: string): string {
  return / [|&] /.test(type) && !type.startsWith("{") ? `(${type})` : type;
}

/** One line of `text`, with `*\/` defused, at most 240 characters. */
function oneLine(text: unknown): string {
  if (typeof text !== "string") return "";
  const flat = text.replace(/\s+/g, " ").trim().replaceAll("*/", "*\\/");
  return flat.length > 240 ? flat.slice(0, 237) + "..." : flat;
}
