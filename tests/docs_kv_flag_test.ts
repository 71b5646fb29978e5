/**
 * Deno KV is unstable: `Deno.openKv` is undefined unless the program runs
 * with `--unstable-kv` or has `"unstable": ["kv"]` in its `deno.json`. This
 * repository's `deno.json` turns it on, so a doc example can work here and
 * fail in a new app. Every place the docs, the README, the examples and the
 * JSDoc show `Deno.openKv` says the flag near it.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** How far (in lines, either way) the flag may be from `Deno.openKv`. */
const NEAR = 8;
const FLAG = /--unstable-kv|"unstable":\s*\[\s*"kv"\s*\]/;

async function files(dir: string, ext: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) found.push(...await files(`${path}/`, ext));
    else if (entry.name.endsWith(ext)) found.push(path);
  }
  return found;
}

/** An empty line, or an empty JSDoc line. */
const BLANK = /^\s*\*?\s*$/;

/**
 * The `Deno.openKv` lines of `text` (those `shown` keeps) with no flag in
 * their paragraph nor within NEAR lines.
 */
function unflagged(
  text: string,
  shown: (line: string) => boolean = () => true,
): number[] {
  const lines = text.split("\n");
  const bare: number[] = [];
  lines.forEach((line, i) => {
    if (!line.includes("Deno.openKv") || !shown(line)) return;
    let start = i;
    while (start > 0 && !BLANK.test(lines[start - 1])) start--;
    let end = i;
    while (end < lines.length - 1 && !BLANK.test(lines[end + 1])) end++;
    const around = lines.slice(
      Math.max(0, Math.min(start, i - NEAR)),
      Math.max(end, i + NEAR) + 1,
    );
    if (!around.some((l) => FLAG.test(l))) bare.push(i + 1);
  });
  return bare;
}

/** A line of a TypeScript file that documents (JSDoc or a comment). */
const isComment = (line: string): boolean => /^\s*(\*|\/\/|\/\*)/.test(line);

Deno.test("docs: every Deno.openKv in the README, the guides, the examples and the JSDoc says the KV flag near it", async () => {
  const bare: string[] = [];
  const markdown = ["README.md", ...await files("docs/", ".md")].filter((f) =>
    !f.startsWith("docs/adr/") && !f.startsWith("docs/maintainers/")
  );
  for (const file of markdown) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const line of unflagged(text)) bare.push(`${file}:${line}`);
  }
  // An example says how to run it once, in its header.
  for (const file of await files("examples/", ".ts")) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    if (text.includes("Deno.openKv") && !FLAG.test(text)) bare.push(file);
  }
  // In the module's sources, what users read: the JSDoc and comments.
  const sources = [
    ...await files("src/", ".ts"),
    ...[...Deno.readDirSync(ROOT)].filter((e) =>
      e.isFile && e.name.endsWith(".ts")
    ).map((e) => e.name),
  ];
  for (const file of sources) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const line of unflagged(text, isComment)) bare.push(`${file}:${line}`);
  }
  assert.deepEqual(
    bare,
    [],
    'Deno.openKv shown without the KV flag: say `--unstable-kv` or `"unstable": ["kv"]` in `deno.json` near it',
  );
});

Deno.test("docs: the KV flag check finds a bare Deno.openKv and accepts a flagged one", () => {
  assert.deepEqual(unflagged("a\nconst kv = await Deno.openKv();\nb"), [2]);
  assert.deepEqual(
    unflagged("// run with --unstable-kv\nconst kv = await Deno.openKv();"),
    [],
  );
  assert.deepEqual(
    unflagged('"unstable": ["kv"]\n\n\nkvStore(await Deno.openKv())'),
    [],
  );
  const far = `--unstable-kv\n${"\n".repeat(NEAR)}Deno.openKv()`;
  assert.deepEqual(unflagged(far), [NEAR + 2]);
  // One paragraph, however long, says it once.
  const paragraph = `Deno.openKv()${"\nmore".repeat(NEAR * 2)}\n--unstable-kv`;
  assert.deepEqual(unflagged(paragraph), []);
  assert.deepEqual(unflagged(" * Deno.openKv()", isComment), [1]);
  assert.deepEqual(unflagged("const kv = Deno.openKv();", isComment), []);
});
