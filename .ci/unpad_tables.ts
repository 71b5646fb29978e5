/**
 * Rewrites the Markdown tables of the files given without column-alignment
 * padding: `| a | b |`, the delimiter row `| --- | --- |` (colons kept).
 * Each cell's text is kept exactly (only the spaces around it go); pipes
 * escaped as `\|` stay inside their cell; fenced code is left alone.
 * deno fmt would pad them again: the files are in deno.json's fmt.exclude.
 *
 *     deno run --allow-read --allow-write .ci/unpad_tables.ts docs/errors.md
 *
 * @module
 */

/** The cells of a table row, each trimmed; pipes escaped as `\|` kept. */
export function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

const isRow = (line: string) => line.trimStart().startsWith("|");
const isDelimiter = (line: string) =>
  /^\s*\|?(\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?\s*$/.test(line);

/** `text` with every table row written without padding. */
export function unpad(text: string): string {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const opened = /^\s*(```+|~~~+)/.exec(line);
    if (opened !== null) {
      if (fence === undefined) fence = opened[1][0];
      else if (opened[1][0] === fence) fence = undefined;
      return line;
    }
    if (fence !== undefined || !isRow(line)) return line;
    const row = cells(line);
    if (isDelimiter(line)) {
      return `| ${row.map((c) => c.replace(/-+/, "---")).join(" | ")} |`;
    }
    return `| ${row.join(" | ")} |`;
  }).join("\n");
}

if (import.meta.main) {
  for (const path of Deno.args) {
    const before = await Deno.readTextFile(path);
    const after = unpad(before);
    // Same rows, same cells: only the padding went.
    const rows = (t: string) =>
      t.split("\n").filter(isRow).map((l) =>
        isDelimiter(l) ? cells(l).map((c) => c.replace(/-+/, "-")) : cells(l)
      );
    if (JSON.stringify(rows(before)) !== JSON.stringify(rows(after))) {
      throw new Error(`${path}: a cell changed; nothing written`);
    }
    await Deno.writeTextFile(path, after);
    console.log(`${path}: ${before.length} -> ${after.length} bytes`);
  }
}
