// The curated surface: mod.ts stays small enough to read in one sitting.

import assert from "node:assert/strict";
import * as mod from "../mod.ts";

/** The most names `@weft/mcp` may export, values and types together. */
const BUDGET = 50;

const source = await Deno.readTextFile(new URL("../mod.ts", import.meta.url));

/** The names a module's `export { … }` and `export type { … }` statements list. */
function exportedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of match[1].split(",")) {
      const name = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  return names;
}

Deno.test("mod.ts exports at most the budgeted number of names", () => {
  const names = exportedNames(source);
  assert.equal(new Set(names).size, names.length, "a name is exported twice");
  assert.ok(
    names.length <= BUDGET,
    `mod.ts exports ${names.length} names (budget ${BUDGET}): move some behind a subpath`,
  );
});

Deno.test("mod.ts lists every export by name, so the count is the whole surface", () => {
  assert.doesNotMatch(source, /^export\s+\*/m, "no export * in mod.ts");
  assert.doesNotMatch(
    source,
    /^\/\/ ---/m,
    "no work-partition marker comments",
  );
  const values = exportedNames(source).filter((name) => name in mod);
  assert.deepEqual(Object.keys(mod).sort(), values.sort());
});

Deno.test("every entry point opens with a module doc and carries no marker comments", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ) as { exports: Record<string, string> };
  for (const entry of Object.values(config.exports)) {
    const text = await Deno.readTextFile(
      new URL(`../${entry}`, import.meta.url),
    );
    assert.match(text, /^\/\*\*\n \* [^@][^]*?\n \* @module\n \*\//, entry);
    assert.doesNotMatch(text, /^\/\/ ---/m, entry);
  }
});

Deno.test("the published pages and sources name no ADR (those are maintainers' notes)", async () => {
  const root = new URL("../", import.meta.url);
  const offenders: string[] = [];
  async function walk(dir: URL, rel: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = rel + entry.name;
      if (entry.isDirectory) {
        if (["adr", "node_modules"].includes(entry.name)) continue;
        await walk(new URL(entry.name + "/", dir), path + "/");
      } else if (/\.(md|ts)$/.test(entry.name)) {
        const text = await Deno.readTextFile(new URL(entry.name, dir));
        if (/\bADR \d{4}\b/.test(text)) offenders.push(path);
      }
    }
  }
  await walk(new URL("docs/", root), "docs/");
  await walk(new URL("src/", root), "src/");
  for (const file of ["README.md", "mod.ts"]) {
    const text = await Deno.readTextFile(new URL(file, root));
    if (/\bADR \d{4}\b/.test(text)) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});
