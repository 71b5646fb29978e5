/**
 * A readable account of how a tool definition changed: each field that
 * differs, the old lines prefixed `- `, the new `+ `, the lines they share
 * `  ` (schemas as indented JSON, so a diff names the keyword that moved).
 *
 * @module
 */

/** The fields of a definition a pin covers, in the order a diff shows them. */
export const PINNED_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** `old` and `new` definitions, field by field; `""` when they are equal. */
export function definitionDiff(
  old: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>>,
): string {
  const out: string[] = [];
  for (const field of PINNED_FIELDS) {
    const a = linesOf(old[field]);
    const b = linesOf(current[field]);
    if (a.join("\n") === b.join("\n")) continue;
    out.push(`${field}:`);
    for (const line of lineDiff(a, b)) out.push(line);
  }
  return out.join("\n");
}

function linesOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (typeof value === "string") return value.split("\n");
  return JSON.stringify(value, null, 2).split("\n");
}

// Longest common subsequence over lines; definitions are small, and a
// listing past the cap is shown whole, old then new.
const MAX_CELLS = 4_000_000;

function lineDiff(a: readonly string[], b: readonly string[]): string[] {
  if (a.length * b.length > MAX_CELLS) {
    return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)];
  }
  const n = a.length;
  const m = b.length;
  const table: Uint32Array[] = [];
  for (let i = 0; i <= n; i++) table.push(new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j]
        ? table[i + 1][j + 1] + 1
        : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (table[i + 1][j] >= table[i][j + 1]) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  while (i < n) out.push(`- ${a[i++]}`);
  while (j < m) out.push(`+ ${b[j++]}`);
  return out;
}
