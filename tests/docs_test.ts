/**
 * The docs hold: every relative link in README.md and docs/ reaches a file
 * (and, with a `#fragment`, a heading of it); every TypeScript block of the
 * README and the guides (docs/*.md) type-checks as a module of its own,
 * importing `@weft/mcp` as a user does; every program in examples/ is run
 * by some test.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const ROOT_PATH = decodeURIComponent(ROOT.pathname);

/** README.md and every Markdown file under docs/, as paths from the root. */
async function markdownFiles(): Promise<string[]> {
  const found = ["README.md"];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  await walk("docs/");
  return found.sort();
}

/** The text outside fenced code blocks (links inside code are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor a Markdown file's headings give (repeats numbered as GitHub does). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** `[text](target)` links of the prose: their targets. */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(
    (m) => m[1],
  );
}

Deno.test("docs: every relative link reaches a file, and every #fragment a heading of it", async () => {
  const broken: string[] = [];
  const texts = new Map<string, string>();
  const read = async (path: string): Promise<string | undefined> => {
    if (!texts.has(path)) {
      try {
        texts.set(path, await Deno.readTextFile(new URL(path, ROOT)));
      } catch {
        return undefined;
      }
    }
    return texts.get(path);
  };
  const files = await markdownFiles();
  for (const file of files) {
    const text = (await read(file))!;
    for (const target of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, jsr:
      const [path, fragment] = target.split("#", 2);
      const resolved = path === ""
        ? file
        : new URL(path, new URL(file, ROOT)).pathname.slice(ROOT_PATH.length);
      let stat: Deno.FileInfo | undefined;
      try {
        stat = await Deno.stat(new URL(resolved, ROOT));
      } catch {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (fragment === undefined || stat.isDirectory) continue;
      if (!resolved.endsWith(".md")) continue;
      const targetText = await read(resolved);
      if (!anchors(targetText ?? "").has(decodeURIComponent(fragment))) {
        broken.push(`${file}: ${target} (no heading #${fragment})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("docs: a broken link and a missing anchor are both caught", () => {
  const text =
    "# Top\n\n## The `x` option\n\nSee [a](#the-x-option), [b](#gone).\n";
  assert.deepEqual([...anchors(text)], ["top", "the-x-option"]);
  assert.deepEqual(links(text), ["#the-x-option", "#gone"]);
  assert.deepEqual(links("```md\n[c](nowhere.md)\n```\n"), []);
});

/** The TypeScript blocks of the README and the guides (not the ADRs). */
async function codeBlocks(): Promise<{ where: string; code: string }[]> {
  const out: { where: string; code: string }[] = [];
  for (const file of await markdownFiles()) {
    if (file.startsWith("docs/adr/") || file.startsWith("docs/maintainers/")) {
      continue;
    }
    const text = await Deno.readTextFile(new URL(file, ROOT));
    let index = 0;
    // Fenced at any indentation (a block inside a list item), dedented.
    const fences = /^( *)```(?:ts|typescript)\n([\s\S]*?)^\1```$/gm;
    for (const match of text.matchAll(fences)) {
      const line = text.slice(0, match.index).split("\n").length;
      const indent = match[1].length;
      const code = match[2].split("\n").map((l) => l.slice(indent)).join(
        "\n",
      );
      out.push({ where: `${file}:${line} (block ${index++})`, code });
    }
  }
  return out;
}

Deno.test("docs: every TypeScript block of the README and the guides type-checks", async () => {
  const blocks = await codeBlocks();
  assert.ok(blocks.length > 10, `only ${blocks.length} blocks found`);
  const dir = await Deno.makeTempDir({ prefix: "weft-docs-" });
  try {
    // The user's view: `@weft/mcp` is this checkout; the rest as the root maps it.
    const config = JSON.parse(
      await Deno.readTextFile(new URL("deno.json", ROOT)),
    ) as { imports: Record<string, string> };
    const interop = JSON.parse(
      await Deno.readTextFile(new URL("tests/interop/deno.json", ROOT)),
    ) as { imports: Record<string, string> };
    const imports: Record<string, string> = {
      // The libraries a guide compares with, and the provider packages it
      // shows, are test-only here: tests/interop pins them.
      ...interop.imports,
      ...config.imports,
    };
    // A guide names a provider package by its major version, as a reader
    // would; here it is the version tests/interop pins (and has installed).
    for (const name of ["openai", "anthropic", "openai-compatible"]) {
      const pinned = imports[`@ai-sdk/${name}`];
      const major = /@(\d+)\.[^@]*$/.exec(pinned)![1];
      imports[`npm:@ai-sdk/${name}@${major}`] = pinned;
    }
    for (
      const entry of [
        "",
        "core",
        "bridge",
        "runtime",
        "providers",
        "servers",
        "testing",
        "cli",
        "store",
        "skills",
      ]
    ) {
      const name = entry === "" ? "@weft/mcp" : `@weft/mcp/${entry}`;
      const target = new URL(entry === "" ? "mod.ts" : `${entry}.ts`, ROOT);
      // As a user imports it, and as a reader copies it (from JSR).
      imports[name] = imports[`jsr:${name}`] = target.href;
    }
    imports["npm:zod@4"] = config.imports["zod"];
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({ imports, unstable: ["kv"], nodeModulesDir: "none" }),
    );
    const names = blocks.map((_, i) => `block_${i}.ts`);
    await Promise.all(
      blocks.map((b, i) =>
        Deno.writeTextFile(`${dir}/${names[i]}`, `// ${b.where}\n${b.code}`)
      ),
    );
    const checked = await new Deno.Command(Deno.execPath(), {
      // Offline: only what `deno install` put in the cache.
      args: [
        "check",
        "--quiet",
        "--cached-only",
        "--config",
        `${dir}/deno.json`,
        ...names,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", DENO_DIR: Deno.env.get("DENO_DIR") ?? "" },
      signal: AbortSignal.timeout(120_000),
    }).output();
    const errors = new TextDecoder().decode(checked.stderr);
    // Name the block behind each error.
    const named = errors.replace(
      /block_(\d+)\.ts/g,
      (_, i: string) => blocks[Number(i)].where,
    );
    assert.equal(checked.code, 0, named);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs: every program in examples/ is run or imported by a test", async () => {
  const tests: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      if (entry.name === "node_modules") continue;
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (entry.name.endsWith(".ts")) {
        tests.push(await Deno.readTextFile(new URL(path, ROOT)));
      }
    }
  };
  await walk("tests/");
  const unrun: string[] = [];
  for await (const entry of Deno.readDir(new URL("examples/", ROOT))) {
    if (!entry.name.endsWith(".ts")) continue;
    const named = new RegExp(`examples/${entry.name.replace(".", "\\.")}\\b`);
    if (!tests.some((t) => named.test(t))) unrun.push(entry.name);
  }
  assert.deepEqual(unrun, []);
});

/** An interface's members and each one's `@default` tag (absent: none), read from its source. */
async function membersOf(
  file: string,
  name: string,
): Promise<Map<string, string | undefined>> {
  const source = await Deno.readTextFile(new URL(file, ROOT));
  const start = source.indexOf(`export interface ${name} {`);
  assert.ok(start >= 0, `${file}: no interface ${name}`);
  const body = source.slice(start, source.indexOf("\n}\n", start));
  const members = new Map<string, string | undefined>();
  // Each member at two spaces, after its JSDoc.
  for (
    const m of body.matchAll(
      /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?\n {2}(?:readonly )?(\w+)\??:/g,
    )
  ) {
    const doc = (m[1] ?? "").replace(/^\s*\* ?/gm, "");
    const tag = /@default\s+([\s\S]*?)\s*(?:@\w|$)/.exec(doc)?.[1];
    members.set(m[2], tag?.replace(/\s+/g, " "));
  }
  return members;
}

/** The rows of the Markdown table right after `at` in `text`, cells trimmed. */
function tableAfter(text: string, at: number): string[][] {
  const rows: string[][] = [];
  for (const line of text.slice(at).split("\n").slice(1)) {
    if (line.trim() === "" && rows.length === 0) continue;
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows;
}

const plain = (cell: string) => cell.replace(/`/g, "");

Deno.test("docs: an option table says what the JSDoc says — every option, and its @default", async () => {
  const wrong: string[] = [];
  let tables = 0;
  for (const file of await markdownFiles()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const marker of text.matchAll(/<!-- options: (\S+) (\w+) -->/g)) {
      tables++;
      const [header, , ...rows] = tableAfter(text, marker.index!);
      const col = header.indexOf("default");
      const members = await membersOf(marker[1], marker[2]);
      const listed = new Set<string>();
      for (const row of rows) {
        // A row may name several options: `topP`, `stopSequences`, `seed`.
        for (const option of plain(row[0]).split(/,\s*/)) {
          listed.add(option);
          if (!members.has(option)) {
            wrong.push(`${file}: ${option} is not an option of ${marker[2]}`);
            continue;
          }
          if (col < 0) continue; // a table without defaults
          const tag = members.get(option);
          const cell = plain(row[col]);
          if ((cell === "none" ? undefined : cell) !== (tag && plain(tag))) {
            wrong.push(
              `${file}: ${option} default "${cell}", the JSDoc's @default ${
                tag === undefined ? "is absent" : `"${tag}"`
              }`,
            );
          }
        }
      }
      for (const member of members.keys()) {
        if (!listed.has(member)) {
          wrong.push(`${file}: ${marker[2]}.${member} is not in the table`);
        }
      }
    }
  }
  assert.ok(tables >= 3, `only ${tables} marked option tables`);
  assert.deepEqual(wrong, []);
});
