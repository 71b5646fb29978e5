/**
 * What `deno publish` ships speaks to users: no issue numbers and no ADR
 * references (the tracker and docs/adr/ are the maintainers', and neither
 * ships). The files are those `deno publish` takes: everything but
 * deno.json's `publish.exclude` and what .gitignore names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { unpad } from "../.ci/unpad_tables.ts";

const ROOT = new URL("../", import.meta.url);

/** What a published text may not say, with a name for the failure. */
const FORBIDDEN: readonly { name: string; pattern: RegExp }[] = [
  { name: "an issue number", pattern: /\bissues?\s+#?\d+/i },
  { name: "an issue reference", pattern: /(^|[\s(])#\d+\b/ },
  { name: "an ADR", pattern: /\bADRs?\b/ },
];

/** Each forbidden mention in `text`: `line: name: the line`. */
export function forbiddenMentions(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const { name, pattern } of FORBIDDEN) {
      if (pattern.test(line)) found.push(`${i + 1}: ${name}: ${line.trim()}`);
    }
  });
  return found;
}

/** The repository's files `deno publish` ships, relative to the root. */
async function publishedFiles(): Promise<string[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const excluded: string[] = config.publish.exclude;
  const ignored = (await Deno.readTextFile(new URL(".gitignore", ROOT)))
    .split("\n").map((l) => l.trim().replace(/\/$/, ""))
    .filter((l) => l !== "" && !l.startsWith("#"));
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.name === ".git" || ignored.includes(entry.name)) continue;
      if (entry.isDirectory) {
        if (!excluded.includes(`${path}/`)) await walk(`${path}/`);
      } else if (entry.isFile && !excluded.includes(path)) {
        files.push(path);
      }
    }
  };
  await walk("");
  return files.sort();
}

Deno.test("published files mention no issue number and no ADR", async () => {
  const files = await publishedFiles();
  // Not vacuous: the walk reaches the code, the docs, and skips tests/.
  for (
    const file of ["mod.ts", "README.md", "docs/errors.md", "src/core/tool.ts"]
  ) {
    assert.ok(files.includes(file), `the walk misses ${file}`);
  }
  assert.ok(
    !files.some((f) => f.startsWith("tests/")),
    "tests/ is not published",
  );
  const found: string[] = [];
  for (const file of files) {
    if (file === "deno.lock") continue;
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const mention of forbiddenMentions(text)) {
      found.push(`${file}:${mention}`);
    }
  }
  assert.deepEqual(
    found,
    [],
    "published text names an issue or an ADR: say what it is instead",
  );
});

Deno.test("the check catches the forms seen, and leaves ordinary words", () => {
  for (
    const text of [
      "// Issue 19: the verified caller",
      "  /** The verified caller (issue 19). */",
      "the SERVER span (issues 19 and 20)",
      "adopted rather than copied (ADR",
      "see ADR 0065",
      "fixed in #42",
      "(#7)",
    ]
  ) {
    assert.equal(forbiddenMentions(text).length, 1, text);
  }
  for (
    const text of [
      "Summarize the open issues.",
      "then the validator's earliest issue.",
      "the issuer and the token it issued",
      "the design decisions are in the repository's `docs/adr/`",
      "color: #fff; item#3",
    ]
  ) {
    assert.deepEqual(forbiddenMentions(text), [], text);
  }
});

Deno.test("docs/errors.md's tables carry no alignment padding", async () => {
  const text = await Deno.readTextFile(new URL("docs/errors.md", ROOT));
  const rows = text.split("\n").filter((line) => line.startsWith("|"));
  assert.ok(rows.length > 100, "the tables are there");
  const padded = rows.filter((row) => unpad(row) !== row);
  assert.deepEqual(
    padded,
    [],
    "padded rows: run deno run --allow-read --allow-write " +
      ".ci/unpad_tables.ts docs/errors.md (deno fmt excludes the file: it " +
      "would pad them again)",
  );
});

Deno.test("unpad keeps every cell, escaped pipes and fenced code", () => {
  assert.equal(
    unpad(
      "| text     | when  |\n| -------- | :---: |\n| `a \\| b` | x   y |\n",
    ),
    "| text | when |\n| --- | :---: |\n| `a \\| b` | x   y |\n",
  );
  const fenced = "```md\n| a   | b |\n```\n";
  assert.equal(unpad(fenced), fenced);
  assert.equal(unpad("a | b  |"), "a | b  |");
});
