/**
 * The JSON text of a `tools/list` answer without writing the same tool
 * documents anew for every request: the registry hands every server made
 * from the same frozen tools the same document objects, so the text of a
 * document seen a second time is kept on it (a private slot, not a
 * `WeakMap` entry: a document made per request would cost the garbage
 * collector more than its text) and spliced into the answer. Only a
 * document whose text cannot change is kept: a plain object whose own
 * values are either primitives or deeply frozen plain data (no getters, no
 * `toJSON`, no functions), and whose own keys and values are checked
 * against the kept ones on every use (the document object itself is the
 * registry's, not frozen). The answer is byte for byte what
 * `JSON.stringify` writes.
 *
 * @module
 */

import { objectSlot } from "../../core/object_slot.ts";

/** A document's kept text and the own keys and values it was written from. */
interface Kept {
  readonly text: string;
  readonly keys: readonly string[];
  readonly values: readonly unknown[];
}

/** A document seen once: its text is kept the next time. */
const SEEN = 1;
/** A document whose text is never kept. */
const NEVER = 0;

/** Texts of tool documents, or what is known of them. */
const kept = objectSlot<Kept | typeof SEEN | typeof NEVER>("weft.listText");

/** Stands for the tools array in the answer written around it. */
const TOKEN = `\u0000weft:tools:${crypto.randomUUID()}\u0000`;
const TOKEN_TEXT = JSON.stringify(TOKEN);

/** Whether `value` is plain JSON data whose text can never change. */
function frozenData(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth > 64 || !Object.isFrozen(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return false;
  } else if (proto !== Object.prototype && proto !== null) return false;
  const descriptors = Object.getOwnPropertyDescriptors(value);
  for (const key of Reflect.ownKeys(descriptors)) {
    if (typeof key === "symbol") continue;
    const d = descriptors[key];
    if (!("value" in d)) return false; // a getter
    if (key === "toJSON") return false;
    if (Array.isArray(value) && key === "length") continue;
    if (!frozenData(d.value, depth + 1)) return false;
  }
  return true;
}

/** The kept text of `doc` when it is still what was written, else `undefined`. */
function textOf(doc: unknown): string | undefined {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return undefined;
  }
  if ("toJSON" in doc) return undefined;
  const found = kept.get(doc);
  if (found === NEVER) return undefined;
  if (found === undefined) {
    kept.set(doc, SEEN);
    return JSON.stringify(doc);
  }
  if (found !== SEEN) {
    const record = doc as Record<string, unknown>;
    const { keys, values } = found;
    let i = 0;
    for (const key in record) {
      if (
        i >= keys.length || key !== keys[i] || record[key] !== values[i] ||
        !Object.hasOwn(record, key)
      ) return keep(doc);
      i++;
    }
    if (i === keys.length) return found.text;
  }
  // Seen before, or changed since its text was kept: (re)kept now.
  return keep(doc);
}

/** Writes `doc` and keeps its text, when it is a document that can be kept. */
function keep(doc: object): string | undefined {
  const proto = Object.getPrototypeOf(doc);
  if (proto !== Object.prototype && proto !== null) {
    kept.set(doc, NEVER);
    return undefined;
  }
  const keys: string[] = [];
  const values: unknown[] = [];
  const descriptors = Object.getOwnPropertyDescriptors(doc);
  for (const key of Reflect.ownKeys(descriptors)) {
    if (typeof key === "symbol") continue;
    const d = descriptors[key];
    if (
      !("value" in d) || key === "toJSON" || !frozenData(d.value)
    ) {
      kept.set(doc, NEVER);
      return undefined;
    }
    if (!d.enumerable) continue;
    keys.push(key);
    values.push(d.value);
  }
  // The keys in the order `for…in` (and JSON.stringify) visits them.
  const ordered: string[] = [];
  const orderedValues: unknown[] = [];
  for (const key in doc) {
    const at = keys.indexOf(key);
    if (at < 0) {
      kept.set(doc, NEVER);
      return undefined;
    }
    ordered.push(key);
    orderedValues.push(values[at]);
  }
  if (ordered.length !== keys.length) {
    kept.set(doc, NEVER);
    return undefined;
  }
  const text = JSON.stringify(doc);
  kept.set(doc, { text, keys: ordered, values: orderedValues });
  return text;
}

/**
 * `JSON.stringify(message)` for an answer whose `result.tools` is an
 * array of tool documents, their texts spliced in from what was kept;
 * `undefined` when the answer is not one (the caller writes it whole).
 */
export function listAnswerText(message: object): string | undefined {
  const result = (message as { result?: unknown }).result as
    | { tools?: unknown }
    | undefined;
  if (typeof result !== "object" || result === null) return undefined;
  if (Object.getPrototypeOf(result) !== Object.prototype) return undefined;
  if ("toJSON" in result || "toJSON" in message) return undefined;
  const tools = result.tools;
  if (!Array.isArray(tools) || !Object.hasOwn(result, "tools")) {
    return undefined;
  }
  if (Object.getPrototypeOf(tools) !== Array.prototype) return undefined;
  const texts: string[] = new Array(tools.length);
  for (let i = 0; i < tools.length; i++) {
    const text = textOf(tools[i]);
    if (text === undefined) return undefined;
    texts[i] = text;
  }
  const outer = JSON.stringify({
    ...message,
    result: { ...result, tools: TOKEN },
  });
  const at = outer.indexOf(TOKEN_TEXT);
  if (at < 0 || outer.indexOf(TOKEN_TEXT, at + 1) >= 0) return undefined;
  return outer.slice(0, at) + "[" + texts.join(",") + "]" +
    outer.slice(at + TOKEN_TEXT.length);
}
