/**
 * The dependency arrows of design.md, checked by reading the import
 * statements of every `.ts` file under `src/`: a rule nobody can check is a
 * wish.
 *
 * - `src/core` imports only `src/core` (relative paths that stay inside it);
 *   the one exception is the type-only import of `@standard-schema/spec`
 *   (erased at runtime; ADR 0002).
 * - `src/core` touches `Deno` only in `src/core/env.ts`.
 * - `src/mcp` never imports `src/runtime`.
 * - Each folder imports only the folders below it: `src/providers` → core
 *   (and type-only `@ai-sdk/provider`); `src/mcp` and `src/runtime` → core
 *   and the SDK; `src/servers` → runtime, mcp, core and the SDK; `src/cli` →
 *   servers, runtime, mcp, core and the SDK; `src/testing` → core.
 * - A file whose name starts with `_` is internal to its folder: no file in
 *   another folder (nor an entry point) imports it.
 * - Nothing under `src/` imports `tests/`, `examples/` or `bench/`.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const CORE_TYPE_ONLY = new Set(["@standard-schema/spec"]);

/** The SDK and Node's built-ins: what the layers above the core may import by name. */
const sdkOrNode = (specifier: string): boolean =>
  specifier === "@modelcontextprotocol/sdk" ||
  specifier.startsWith("@modelcontextprotocol/sdk/") ||
  specifier.startsWith("node:");

/** Per folder above the core: the folders it may import, and the bare specifiers. */
const LAYERS: Record<
  string,
  {
    readonly folders: readonly string[];
    readonly bare: (specifier: string, typeOnly: boolean) => boolean;
  }
> = {
  "src/providers/": {
    folders: ["src/providers/", "src/core/"],
    bare: (s, typeOnly) =>
      typeOnly &&
      (s === "@ai-sdk/provider" || s.startsWith("@ai-sdk/provider/")),
  },
  "src/mcp/": { folders: ["src/mcp/", "src/core/"], bare: sdkOrNode },
  "src/runtime/": { folders: ["src/runtime/", "src/core/"], bare: sdkOrNode },
  "src/servers/": {
    folders: ["src/servers/", "src/runtime/", "src/mcp/", "src/core/"],
    bare: sdkOrNode,
  },
  "src/cli/": {
    folders: [
      "src/cli/",
      "src/servers/",
      "src/runtime/",
      "src/mcp/",
      "src/core/",
    ],
    bare: sdkOrNode,
  },
  "src/testing/": { folders: ["src/testing/", "src/core/"], bare: () => false },
};

/** The folder of a repo-relative path, with its trailing slash. */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/** Whether a repo-relative path names a folder-internal file (`_name.ts`). */
function isInternal(path: string): boolean {
  return /(^|\/)_[^/]*\.ts$/.test(path);
}

interface Specifier {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

/** Comments become spaces; string and template contents stay (they hold specifiers). */
function stripComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 2;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) {
        j += source[j] === "\\" ? 2 : 1;
      }
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function specifiersOf(source: string): Specifier[] {
  const code = stripComments(source);
  const found: Specifier[] = [];
  const fromClause =
    /\b(import|export)(\s+type)?\b[^;'"`]*?\bfrom\s*(["'])([^"']+)\3/g;
  for (const m of code.matchAll(fromClause)) {
    found.push({ specifier: m[4], typeOnly: m[2] !== undefined });
  }
  for (const m of code.matchAll(/^\s*import\s*(["'])([^"']+)\1/gm)) {
    found.push({ specifier: m[2], typeOnly: false });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g)) {
    found.push({ specifier: m[2], typeOnly: false });
  }
  return found;
}

/** The repo-relative path a relative specifier resolves to, or undefined for a bare/URL one. */
function resolved(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
    return undefined;
  }
  const url = new URL(specifier, new URL(file, ROOT));
  return url.href.startsWith(ROOT.href)
    ? url.href.slice(ROOT.href.length)
    : url.href;
}

function violations(file: string, source: string): string[] {
  const found: string[] = [];
  const inCore = file.startsWith("src/core/");
  for (const { specifier, typeOnly } of specifiersOf(source)) {
    const target = resolved(file, specifier);
    if (inCore) {
      const allowed = target !== undefined
        ? target.startsWith("src/core/")
        : typeOnly && CORE_TYPE_ONLY.has(specifier);
      if (!allowed) found.push(`${file}: src/core imports ${specifier}`);
    }
    const layer = Object.entries(LAYERS).find(([dir]) => file.startsWith(dir));
    const outsideSrc = target !== undefined &&
      /^(tests|examples|bench)\//.test(target);
    if (layer !== undefined && !outsideSrc) {
      const [dir, { folders, bare }] = layer;
      const allowed = target !== undefined
        ? folders.some((f) => target.startsWith(f))
        : bare(specifier, typeOnly);
      if (!allowed) {
        found.push(`${file}: ${dir.slice(0, -1)} imports ${specifier}`);
      }
    }
    if (
      target !== undefined && isInternal(target) &&
      folderOf(target) !== folderOf(file)
    ) {
      found.push(
        `${file}: imports ${specifier}, internal to ${folderOf(target)}`,
      );
    }
    if (target !== undefined && /^(tests|examples|bench)\//.test(target)) {
      found.push(`${file}: src imports ${specifier}`);
    }
  }
  if (
    inCore && file !== "src/core/env.ts" &&
    /\bDeno\b/.test(stripComments(source))
  ) {
    found.push(`${file}: Deno outside src/core/env.ts`);
  }
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(`${path}/`));
    else if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
  }
  return files.sort();
}

Deno.test("every file under src/ keeps the dependency arrows", async () => {
  const files = await sourceFiles("src/");
  assert.ok(
    files.some((f) => f.startsWith("src/core/")),
    "no core files found",
  );
  const found: string[] = [];
  for (const file of files) {
    found.push(
      ...violations(file, await Deno.readTextFile(new URL(file, ROOT))),
    );
  }
  assert.deepEqual(found, []);
});

Deno.test("no entry point imports a folder's internal file", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  const found: string[] = [];
  for (const entry of Object.values(config.exports)) {
    const file = entry.replace(/^\.\//, "");
    const source = await Deno.readTextFile(new URL(file, ROOT));
    for (const { specifier } of specifiersOf(source)) {
      const target = resolved(file, specifier);
      if (target !== undefined && isInternal(target)) {
        found.push(`${file}: imports ${specifier}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

Deno.test("the checker refuses another folder's internal files and allows its own", () => {
  assert.deepEqual(
    violations("src/mcp/m.ts", 'import { r } from "./_registry.ts";'),
    [],
  );
  assert.equal(
    violations("src/mcp/m.ts", 'import { b } from "../core/_tool_build.ts";')
      .length,
    1,
  );
  assert.deepEqual(
    violations("src/mcp/m.ts", 'import { b } from "../core/bridge.ts";'),
    [],
  );
  assert.equal(
    violations(
      "src/runtime/process/p.ts",
      'import { t } from "../client/_http_transport.ts";',
    ).length,
    1,
  );
});

Deno.test("the checker holds each folder to the layers below it", () => {
  const cases: [string, string, boolean][] = [
    ["src/providers/p.ts", 'import { tool } from "../core/tool.ts";', true],
    ["src/providers/p.ts", 'import type { L } from "@ai-sdk/provider";', true],
    ["src/providers/p.ts", 'import { L } from "@ai-sdk/provider";', false],
    ["src/providers/p.ts", 'import { e } from "../mcp/export.ts";', false],
    [
      "src/providers/p.ts",
      'import { S } from "@modelcontextprotocol/sdk";',
      false,
    ],
    ["src/servers/s.ts", 'import { i } from "../mcp/import.ts";', true],
    ["src/servers/s.ts", 'import { c } from "../runtime/process/c.ts";', true],
    ["src/servers/s.ts", 'import { p } from "../providers/p.ts";', false],
    ["src/cli/c.ts", 'import { c } from "../runtime/client/c.ts";', true],
    ["src/cli/c.ts", 'import { z } from "zod";', false],
    ["src/runtime/r.ts", 'import { j } from "../core/json.ts";', true],
    ["src/runtime/r.ts", 'import { i } from "../mcp/import.ts";', false],
    ["src/testing/t.ts", 'import type { M } from "../core/model.ts";', true],
    ["src/testing/t.ts", 'import { r } from "../runtime/r.ts";', false],
  ];
  for (const [file, source, ok] of cases) {
    assert.equal(violations(file, source).length, ok ? 0 : 1, source);
  }
});

Deno.test("the checker sees every import form", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    "import {\n  c,\n  type D,\n} from 'npm:c';",
    'export { e } from "./e.ts";',
    'export type { F } from "./f.ts";',
    'export * from "./g.ts";',
    'import "./side.ts";',
    'const h = await import("jsr:@h/h");',
    '// import { x } from "in-a-comment";',
    '/* import { y } from "in-a-block"; */',
  ].join("\n");
  assert.deepEqual(specifiersOf(source), [
    { specifier: "./a.ts", typeOnly: false },
    { specifier: "../b.ts", typeOnly: true },
    { specifier: "npm:c", typeOnly: false },
    { specifier: "./e.ts", typeOnly: false },
    { specifier: "./f.ts", typeOnly: true },
    { specifier: "./g.ts", typeOnly: false },
    { specifier: "./side.ts", typeOnly: false },
    { specifier: "jsr:@h/h", typeOnly: false },
  ]);
});

Deno.test("the checker refuses core imports from outside core", () => {
  const file = "src/core/x.ts";
  assert.deepEqual(violations(file, 'import { y } from "./y.ts";'), []);
  for (
    const specifier of [
      "../mcp/m.ts",
      "../runtime/r.ts",
      "../../mod.ts",
      "@modelcontextprotocol/sdk",
      "npm:zod",
      "jsr:@std/assert",
      "https://example.com/x.ts",
      "zod",
    ]
  ) {
    assert.equal(
      violations(file, `import { y } from "${specifier}";`).length,
      1,
      specifier,
    );
  }
});

Deno.test("the checker allows only a type-only import of the Standard Schema spec", () => {
  const file = "src/core/x.ts";
  assert.deepEqual(
    violations(file, 'import type { S } from "@standard-schema/spec";'),
    [],
  );
  assert.equal(
    violations(file, 'import { S } from "@standard-schema/spec";').length,
    1,
  );
  assert.equal(
    violations(file, 'import type { S } from "npm:other";').length,
    1,
  );
});

Deno.test("the checker refuses src/mcp importing src/runtime", () => {
  assert.equal(
    violations("src/mcp/m.ts", 'import { r } from "../runtime/r.ts";').length,
    1,
  );
  assert.deepEqual(
    violations("src/mcp/m.ts", 'import { c } from "../core/c.ts";'),
    [],
  );
});

Deno.test("the checker refuses src importing tests, examples or bench", () => {
  assert.equal(
    violations("src/mcp/m.ts", 'import { t } from "../../tests/t.ts";').length,
    1,
  );
  assert.equal(
    violations("src/runtime/r.ts", 'import "../../examples/e.ts";').length,
    1,
  );
});

Deno.test("the checker keeps src/providers on the core and type-only AI SDK imports", () => {
  assert.deepEqual(
    violations(
      "src/providers/p.ts",
      'import type { X } from "@ai-sdk/provider";\nimport { c } from "../core/c.ts";',
    ),
    [],
  );
  assert.equal(
    violations("src/providers/p.ts", 'import { X } from "@ai-sdk/provider";')
      .length,
    1,
  );
  assert.equal(
    violations("src/providers/p.ts", 'import { m } from "../mcp/m.ts";').length,
    1,
  );
  // Nothing under src/ but the providers themselves imports them.
  for (const file of ["src/core/x.ts", "src/mcp/x.ts", "src/servers/x.ts"]) {
    assert.equal(
      violations(file, 'import { p } from "../providers/p.ts";').length,
      1,
      file,
    );
  }
});

Deno.test("the checker refuses Deno in core outside env.ts", () => {
  assert.equal(
    violations("src/core/x.ts", "const v = Deno.env.get('X');").length,
    1,
  );
  assert.equal(
    violations("src/core/x.ts", "const d = globalThis.Deno;").length,
    1,
  );
  assert.deepEqual(
    violations("src/core/x.ts", "// Deno in a comment\nconst a = 1;"),
    [],
  );
  assert.deepEqual(
    violations("src/core/env.ts", "const v = Deno.env.get('X');"),
    [],
  );
  assert.deepEqual(violations("src/runtime/r.ts", "Deno.stdin;"), []);
});
