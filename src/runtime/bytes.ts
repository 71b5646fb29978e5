/**
 * Joining byte chunks, for the runtimes' body readers, line splitter and
 * response streams.
 *
 * @module
 */

/**
 * The bytes of `parts`, in order, in one array of `size` bytes (their total
 * length). A single part is returned as it is, not copied.
 *
 * @example Join two chunks
 * ```ts
 * import { concatBytes } from "./bytes.ts";
 * import assert from "node:assert/strict";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])], 3);
 * assert.deepEqual([...joined], [1, 2, 3]);
 * ```
 */
export function concatBytes(
  parts: readonly Uint8Array[],
  size: number,
): Uint8Array {
  if (parts.length === 1) return parts[0];
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}
