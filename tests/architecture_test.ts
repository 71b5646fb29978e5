/**
 * The dependency arrows of design.md, checked by reading the import
 * statements of every `.ts` file under `src/`: a rule nobody can check is a
 * wish.
 *
 * - `src/core` imports only `src/core` (relative paths that stay inside it);
 *   the exceptions are the type-only import of `@standard-schema/spec`
 *   (erased at runtime; ADR 0002) and `re2js` (linear-time regular
 *   expressions for the tool search), imported by `src/core/_regex.ts` only.
 * - `src/core` touches `Deno` only in `src/core/env.ts`.
 * - `src/bridge` never imports `src/runtime`.
 * - `src/trace` (OpenTelemetry) imports the core and `@opentelemetry/api`
 *   only; `src/bridge`, `src/servers` and `src/cli` may import it.
 * - Each folder imports only the folders below it: `src/providers` → core
 *   (and type-only `@ai-sdk/provider`); `src/bridge` and `src/runtime` → core
 *   and the SDK; `src/servers` → runtime, bridge, core and the SDK; `src/cli` →
 *   servers, runtime, bridge, core and the SDK; `src/testing` → core.
 * - Inside `src/runtime`, each of `http` (the HTTP server), `client` (the
 *   HTTP clients) and `process` (stdio) is a layer of its own over the
 *   runtime's root files (`src/runtime/*.ts`, shared by all three), which
 *   import no subfolder: `http` imports neither `client` nor `process`;
 *   `client` imports neither `http` nor `process`; `process` may import
 *   `client` (a stdio connection is a client), never `http`. Between them
 *   and the root files sit `era` (the 2026-07-28 machinery: the root files,
 *   the store contract and the core) and `fast` (the routes that answer
 *   tools without the SDK's Protocol: the root files, the core and the
 *   seam), neither importing another subfolder; `http` and `process` may
 *   import both, `client` only `era`.
 * - The HTTP server runs wherever `Request` and `Response` do. What it
 *   loads (the value imports reached from `src/runtime/http`) imports no
 *   `node:` module and not the SDK's client, and names the global `Deno`
 *   in one file only, `src/runtime/http/_host.ts`, and there only as an
 *   optional property of `globalThis` (`(globalThis as …).Deno`, then
 *   `?.`): never `Deno.x` or `typeof Deno`, which are Deno-only.
 * - What the HTTP clients load (from `src/runtime/client`) does not
 *   import the SDK's server.
 * - `src/auth` is OAuth on both sides, each a layer of its own:
 *   `src/auth/server` (the resource server's checks: the `verify` option,
 *   JWT, JWKS) imports only the core, on web standards (no bare specifier
 *   at all); `src/auth/client` (the client's flows, its token stores as
 *   views over the store contract) imports the store contract, the core
 *   and the SDK's auth modules (`client/auth`, `client/auth-extensions`,
 *   `shared/auth`, `shared/transport`, `types`), never the SDK's server or
 *   `node:`. Neither imports `src/runtime`: the HTTP server imports
 *   `src/auth/server` (never `src/auth/client`), the HTTP clients,
 *   `src/servers` and `src/cli` import `src/auth/client`.
 * - A file whose name starts with `_` is internal to its folder: no file in
 *   another folder (nor an entry point) imports it.
 * - Nothing under `src/` imports `tests/`, `examples/` or `bench/`.
 * - What the bridge keeps per server lives in one record: only
 *   `src/core/server_state.ts` makes an `objectSlot` keyed by a server (the
 *   one other slot, `src/runtime/http/_list_text.ts`'s, is keyed by tool
 *   documents), and every module-level `WeakMap` of `src/bridge` and
 *   `src/core` is listed below with what it is keyed by (none by a server).
 * - `src/seam/sdk_internals.ts`, the one module naming private fields of
 *   the SDK or zod, imports nothing; `src/bridge` and every layer of
 *   `src/runtime` may import that one file (ADR 0086), and no other file
 *   under `src/` names such a field.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** The one module that touches SDK or zod internals (ADR 0086). */
const SEAM = "src/seam/sdk_internals.ts";
const CORE_TYPE_ONLY = new Set(["@standard-schema/spec"]);
/** The npm packages the core may import for values, each from one file. */
const CORE_VALUE_IMPORTS = new Map([["re2js", "src/core/_regex.ts"]]);

/** The SDK and Node's built-ins: what the layers above the core may import by name. */
const sdkOrNode = (specifier: string): boolean =>
  specifier === "@modelcontextprotocol/sdk" ||
  specifier.startsWith("@modelcontextprotocol/sdk/") ||
  specifier.startsWith("node:");

/** The SDK's client side: `@modelcontextprotocol/sdk/client` and its subpaths. */
const isSdkClient = (specifier: string): boolean =>
  /^@modelcontextprotocol\/sdk\/client(\/|$)/.test(specifier);

/** The SDK's server side: `@modelcontextprotocol/sdk/server` and its subpaths. */
const isSdkServer = (specifier: string): boolean =>
  /^@modelcontextprotocol\/sdk\/server(\/|$)/.test(specifier);

/** The SDK's auth modules: what the OAuth client may import by name. */
const isSdkAuth = (specifier: string): boolean =>
  /^@modelcontextprotocol\/sdk\/(client\/auth|client\/auth-extensions|shared\/auth|shared\/transport|types)(\.js)?$/
    .test(specifier);

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
  // The store folder for its one door (`accept.ts`): pins and claims take
  // a contract store, or a raw Deno.Kv, as every stateful option does.
  "src/bridge/": {
    folders: ["src/bridge/", "src/trace/", "src/store/", "src/core/", SEAM],
    bare: sdkOrNode,
  },
  // Tracing (issue 20): the OpenTelemetry API is its one dependency; the
  // core reaches it only through the hook in src/core/telemetry.ts.
  "src/trace/": {
    folders: ["src/trace/", "src/core/"],
    bare: (s) => s === "@opentelemetry/api",
  },
  // OAuth on both sides (issue 35): the resource server's checks on web
  // standards; the client's flows over the store contract and the SDK's
  // auth modules. Neither reaches into the runtime.
  "src/auth/server/": {
    folders: ["src/auth/server/", "src/core/"],
    bare: () => false,
  },
  "src/auth/client/": {
    folders: ["src/auth/client/", "src/store/", "src/core/"],
    bare: isSdkAuth,
  },
  // The runtime's subfolders before its root: the first prefix that
  // matches a file names its layer. `src/runtime/*` is the root files only.
  "src/runtime/http/": {
    folders: [
      "src/runtime/http/",
      "src/runtime/era/",
      "src/runtime/fast/",
      "src/runtime/*",
      "src/auth/server/",
      "src/store/",
      "src/core/",
      SEAM,
    ],
    bare: (s) => sdkOrNode(s) && !s.startsWith("node:") && !isSdkClient(s),
  },
  "src/runtime/client/": {
    folders: [
      "src/runtime/client/",
      "src/runtime/era/",
      "src/runtime/*",
      "src/auth/client/",
      "src/store/",
      "src/core/",
      SEAM,
    ],
    bare: sdkOrNode,
  },
  "src/runtime/process/": {
    folders: [
      "src/runtime/process/",
      "src/runtime/client/",
      "src/runtime/era/",
      "src/runtime/fast/",
      "src/runtime/*",
      "src/core/",
      SEAM,
    ],
    bare: sdkOrNode,
  },
  // The 2026-07-28 machinery (probe, era transports, verdicts) and the
  // routes that answer tools without the SDK's Protocol: each a layer over
  // the root files, shared by the layers above.
  "src/runtime/era/": {
    folders: ["src/runtime/era/", "src/runtime/*", "src/store/", "src/core/"],
    bare: sdkOrNode,
  },
  "src/runtime/fast/": {
    folders: ["src/runtime/fast/", "src/runtime/*", "src/core/", SEAM],
    bare: sdkOrNode,
  },
  "src/runtime/": {
    folders: ["src/runtime/*", "src/store/", "src/core/", SEAM],
    bare: sdkOrNode,
  },
  "src/servers/": {
    folders: [
      "src/servers/",
      "src/runtime/",
      "src/auth/client/",
      "src/bridge/",
      "src/trace/",
      "src/store/",
      "src/core/",
    ],
    bare: sdkOrNode,
  },
  // MCP Apps' host backend: above the servers (it reads their app servers).
  "src/apps/": {
    folders: [
      "src/apps/",
      "src/servers/",
      "src/runtime/",
      "src/bridge/",
      "src/store/",
      "src/core/",
    ],
    bare: sdkOrNode,
  },
  "src/cli/": {
    folders: [
      "src/cli/",
      "src/servers/",
      "src/runtime/",
      "src/auth/client/",
      "src/bridge/",
      "src/trace/",
      "src/core/",
    ],
    bare: sdkOrNode,
  },
  // Serving tasks: the bridge's registry hook and the store's records.
  "src/tasks/": {
    folders: ["src/tasks/", "src/bridge/", "src/store/", "src/core/"],
    bare: (s) => (sdkOrNode(s) && !isSdkClient(s)) || s === "zod",
  },
  // Skills over MCP: served through the bridge's resource registry.
  "src/skills/": {
    folders: ["src/skills/", "src/bridge/", "src/store/", "src/core/"],
    bare: (s) => (sdkOrNode(s) && !isSdkClient(s)) || s === "zod",
  },
  "src/testing/": { folders: ["src/testing/", "src/core/"], bare: () => false },
  // Code mode's executors: the core's executor contract and Deno's runtime.
  "src/sandbox/": { folders: ["src/sandbox/", "src/core/"], bare: () => false },
  // The seam to the SDK's and zod's internals: a leaf, the SDK's classes
  // passed in (so neither HTTP path loads the other side of the SDK).
  "src/seam/": { folders: ["src/seam/"], bare: () => false },
  // The store contract and its adapters: web standards, the core's leaf
  // helpers and the two engine clients (loaded lazily), never MCP code.
  "src/store/": {
    folders: ["src/store/", "src/core/"],
    bare: (s) => s === "ioredis" || s === "postgres",
  },
};

/** The folder of a repo-relative path, with its trailing slash. */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/**
 * Whether `path` lies in `folder`: under it, or, for `dir/*`, directly in
 * `dir/` (not in a subfolder).
 */
function inFolder(path: string, folder: string): boolean {
  return folder.endsWith("/*")
    ? folderOf(path) === folder.slice(0, -1)
    : path.startsWith(folder);
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
        : (typeOnly && CORE_TYPE_ONLY.has(specifier)) ||
          CORE_VALUE_IMPORTS.get(specifier) === file;
      if (!allowed) found.push(`${file}: src/core imports ${specifier}`);
    }
    const layer = Object.entries(LAYERS).find(([dir]) => file.startsWith(dir));
    const outsideSrc = target !== undefined &&
      /^(tests|examples|bench)\//.test(target);
    if (layer !== undefined && !outsideSrc) {
      const [dir, { folders, bare }] = layer;
      const allowed = target !== undefined
        ? folders.some((f) => inFolder(target, f))
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

/** Code alone: comments go, and every string literal's contents become spaces. */
function codeOf(source: string): string {
  const code = stripComments(source);
  let out = "";
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === "\\" ? 2 : 1;
      out += c + " ".repeat(Math.max(0, Math.min(j, code.length) - i - 1)) + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The one file of the HTTP server path that may reach Deno's API (guarded). */
const DENO_HOOKS = "src/runtime/http/_host.ts";
/**
 * The store's door, reached from `httpHandler`'s `store`: it tells a raw
 * `Deno.Kv` by its class, read as the same guarded `globalThis.Deno?.Kv`.
 */
const DENO_KV_CLASS = "src/store/accept.ts";

/**
 * Where a file on the HTTP server path names the global `Deno`. Only
 * `DENO_HOOKS` may, and only as an optional property of `globalThis`: a
 * type key `Deno?:` or a read `….Deno` not followed by `.`, `[` or `(`
 * (the value is then used with `?.`). A bare `Deno` (`Deno.serve`,
 * `typeof Deno`) is a ReferenceError, or a dead branch, off Deno.
 */
function denoViolations(file: string, source: string): string[] {
  const code = codeOf(source);
  const found: string[] = [];
  for (const m of code.matchAll(/(?<![\w$])Deno(?![\w$])/g)) {
    const before = code.slice(0, m.index).trimEnd();
    const after = code.slice(m.index + "Deno".length).trimStart();
    const typeKey = after.startsWith("?:");
    const propertyRead = before.endsWith(".") && !/^[.[(]/.test(after);
    const guarded = file === DENO_HOOKS || file === DENO_KV_CLASS;
    if (guarded && (typeKey || propertyRead)) continue;
    const line = code.slice(0, m.index).split("\n").length;
    found.push(
      guarded
        ? `${file}:${line}: Deno used without the globalThis guard`
        : `${file}:${line}: names Deno (only ${DENO_HOOKS} may, guarded)`,
    );
  }
  return found;
}

/**
 * What importing `starts` loads: the files reached through value imports
 * (type-only ones are erased) and, per bare specifier reached, the first
 * file importing it.
 */
function valueClosure(
  sources: ReadonlyMap<string, string>,
  starts: readonly string[],
): { files: Set<string>; bare: Map<string, string> } {
  const files = new Set<string>();
  const bare = new Map<string, string>();
  const pending = [...starts];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = sources.get(file);
    assert.ok(source !== undefined, `${file}: not a source file`);
    for (const { specifier, typeOnly } of specifiersOf(source)) {
      if (typeOnly) continue;
      const target = resolved(file, specifier);
      if (target === undefined) {
        if (!bare.has(specifier)) bare.set(specifier, file);
      } else pending.push(target);
    }
  }
  return { files, bare };
}

/** Where what `src/runtime/http` loads leaves web standards. */
function httpServerPathViolations(
  sources: ReadonlyMap<string, string>,
): string[] {
  const starts = [...sources.keys()].filter((f) =>
    f.startsWith("src/runtime/http/")
  );
  const { files, bare } = valueClosure(sources, starts);
  const found: string[] = [];
  for (const file of files) {
    if (/^src\/(runtime\/(client|process)|auth\/client)\//.test(file)) {
      found.push(`the HTTP server loads ${file}`);
    }
    found.push(...denoViolations(file, sources.get(file)!));
  }
  for (const [specifier, file] of bare) {
    if (specifier.startsWith("node:") || isSdkClient(specifier)) {
      found.push(`the HTTP server loads ${specifier} (from ${file})`);
    }
  }
  return found;
}

/** Where what `src/runtime/client` loads reaches the SDK's server. */
function httpClientPathViolations(
  sources: ReadonlyMap<string, string>,
): string[] {
  const starts = [...sources.keys()].filter((f) =>
    f.startsWith("src/runtime/client/") || f.startsWith("src/auth/client/")
  );
  const { bare } = valueClosure(sources, starts);
  return [...bare]
    .filter(([specifier]) => isSdkServer(specifier))
    .map(([specifier, file]) =>
      `the HTTP clients load ${specifier} (from ${file})`
    );
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

async function sourceMap(): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const file of await sourceFiles("src/")) {
    sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  }
  return sources;
}

Deno.test("the HTTP server path is on web standards: no client, process, node: or SDK client; Deno only guarded in one file", async () => {
  const sources = await sourceMap();
  const { files } = valueClosure(
    sources,
    [...sources.keys()].filter((f) => f.startsWith("src/runtime/http/")),
  );
  // Not vacuous: the walk reaches the handler, the root files and the core.
  for (
    const file of [
      "src/runtime/http/handler.ts",
      "src/runtime/errors.ts",
      "src/core/json.ts",
      DENO_HOOKS,
    ]
  ) {
    assert.ok(files.has(file), `the walk misses ${file}`);
  }
  assert.deepEqual(httpServerPathViolations(sources), []);
});

Deno.test("the HTTP clients do not load the SDK's server", async () => {
  const sources = await sourceMap();
  const { bare } = valueClosure(
    sources,
    [...sources.keys()].filter((f) => f.startsWith("src/runtime/client/")),
  );
  assert.ok(bare.has("@modelcontextprotocol/sdk/client"), "walk is empty");
  assert.deepEqual(httpClientPathViolations(sources), []);
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
    violations("src/bridge/m.ts", 'import { r } from "./_registry.ts";'),
    [],
  );
  assert.equal(
    violations("src/bridge/m.ts", 'import { b } from "../core/_tool_build.ts";')
      .length,
    1,
  );
  assert.deepEqual(
    violations("src/bridge/m.ts", 'import { b } from "../core/bridge.ts";'),
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
    ["src/providers/p.ts", 'import { e } from "../bridge/export.ts";', false],
    [
      "src/providers/p.ts",
      'import { S } from "@modelcontextprotocol/sdk";',
      false,
    ],
    ["src/servers/s.ts", 'import { i } from "../bridge/import.ts";', true],
    ["src/servers/s.ts", 'import { c } from "../runtime/process/c.ts";', true],
    ["src/servers/s.ts", 'import { p } from "../providers/p.ts";', false],
    ["src/cli/c.ts", 'import { c } from "../runtime/client/c.ts";', true],
    ["src/cli/c.ts", 'import { z } from "zod";', false],
    ["src/runtime/r.ts", 'import { j } from "../core/json.ts";', true],
    ["src/runtime/r.ts", 'import { i } from "../bridge/import.ts";', false],
    ["src/runtime/r.ts", 'import { e } from "./era/era.ts";', false],
    ["src/runtime/http/h.ts", 'import { f } from "../fast/f.ts";', true],
    ["src/runtime/client/c.ts", 'import { e } from "../era/era.ts";', true],
    ["src/runtime/client/c.ts", 'import { f } from "../fast/f.ts";', false],
    ["src/runtime/era/e.ts", 'import { h } from "../http/h.ts";', false],
    ["src/runtime/era/e.ts", 'import { f } from "../fast/f.ts";', false],
    ["src/runtime/fast/f.ts", 'import { e } from "../era/era.ts";', false],
    ["src/runtime/fast/f.ts", 'import { t } from "../sdk_types.ts";', true],
    ["src/testing/t.ts", 'import type { M } from "../core/model.ts";', true],
    ["src/testing/t.ts", 'import { r } from "../runtime/r.ts";', false],
    ["src/store/s.ts", 'const m = await import("ioredis");', true],
    ["src/store/s.ts", 'import { e } from "../core/errors.ts";', true],
    ["src/store/s.ts", 'import { h } from "../runtime/http/h.ts";', false],
    ["src/store/s.ts", 'import { S } from "@modelcontextprotocol/sdk";', false],
    ["src/bridge/m.ts", 'import { s } from "../seam/sdk_internals.ts";', true],
    ["src/bridge/m.ts", 'import { s } from "../seam/other.ts";', false],
    [
      "src/runtime/client/c.ts",
      'import { s } from "../../seam/sdk_internals.ts";',
      true,
    ],
    ["src/runtime/r.ts", 'import { s } from "../seam/sdk_internals.ts";', true],
    ["src/core/c.ts", 'import { s } from "../seam/sdk_internals.ts";', false],
    ["src/store/s.ts", 'import { s } from "../seam/sdk_internals.ts";', false],
    [
      "src/seam/sdk_internals.ts",
      'import { j } from "../core/json.ts";',
      false,
    ],
    [
      "src/seam/sdk_internals.ts",
      'import { S } from "@modelcontextprotocol/sdk/server";',
      false,
    ],
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
      "../bridge/m.ts",
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

Deno.test("the checker refuses src/bridge importing src/runtime", () => {
  assert.equal(
    violations("src/bridge/m.ts", 'import { r } from "../runtime/r.ts";')
      .length,
    1,
  );
  assert.deepEqual(
    violations("src/bridge/m.ts", 'import { c } from "../core/c.ts";'),
    [],
  );
});

Deno.test("the checker refuses src importing tests, examples or bench", () => {
  assert.equal(
    violations("src/bridge/m.ts", 'import { t } from "../../tests/t.ts";')
      .length,
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
    violations("src/providers/p.ts", 'import { m } from "../bridge/m.ts";')
      .length,
    1,
  );
  // Nothing under src/ but the providers themselves imports them.
  for (const file of ["src/core/x.ts", "src/bridge/x.ts", "src/servers/x.ts"]) {
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

Deno.test("the checker keeps src/auth off the runtime: the server side on web standards, the client side on the store, the core and the SDK's auth", () => {
  const cases: [string, string, boolean][] = [
    ["src/auth/server/s.ts", 'import { a } from "../../core/auth.ts";', true],
    ["src/auth/server/s.ts", 'import { k } from "./_jwks.ts";', true],
    [
      "src/auth/server/s.ts",
      'import { e } from "../../runtime/errors.ts";',
      false,
    ],
    [
      "src/auth/server/s.ts",
      'import { g } from "../../runtime/http/_auth.ts";',
      false,
    ],
    [
      "src/auth/server/s.ts",
      'import { c } from "../client/oauth_client.ts";',
      false,
    ],
    ["src/auth/server/s.ts", 'import { B } from "node:buffer";', false],
    [
      "src/auth/server/s.ts",
      'import { a } from "@modelcontextprotocol/sdk/shared/auth.js";',
      false,
    ],
    [
      "src/auth/client/c.ts",
      'import { s } from "../../store/contract.ts";',
      true,
    ],
    [
      "src/auth/client/c.ts",
      'import { a } from "@modelcontextprotocol/sdk/client/auth.js";',
      true,
    ],
    [
      "src/auth/client/c.ts",
      'import { x } from "@modelcontextprotocol/sdk/client/auth-extensions.js";',
      true,
    ],
    [
      "src/auth/client/c.ts",
      'import type { F } from "@modelcontextprotocol/sdk/shared/transport.js";',
      true,
    ],
    [
      "src/auth/client/c.ts",
      'import { t } from "../../runtime/sdk_types.ts";',
      false,
    ],
    [
      "src/auth/client/c.ts",
      'import { h } from "../../runtime/client/connect_http.ts";',
      false,
    ],
    ["src/auth/client/c.ts", 'import { v } from "../server/jwt.ts";', false],
    [
      "src/auth/client/c.ts",
      'import { S } from "@modelcontextprotocol/sdk/server/index.js";',
      false,
    ],
    [
      "src/auth/client/c.ts",
      'import { C } from "@modelcontextprotocol/sdk/client/index.js";',
      false,
    ],
    ["src/auth/client/c.ts", 'import { B } from "node:buffer";', false],
    [
      "src/runtime/http/h.ts",
      'import { j } from "../../auth/server/jwt.ts";',
      true,
    ],
    [
      "src/runtime/http/h.ts",
      'import { o } from "../../auth/client/oauth_client.ts";',
      false,
    ],
    [
      "src/runtime/http/h.ts",
      'import { k } from "../../auth/server/_jwks.ts";',
      false,
    ],
    [
      "src/runtime/client/c.ts",
      'import { f } from "../../auth/client/oauth_fetch.ts";',
      true,
    ],
    [
      "src/runtime/client/c.ts",
      'import { d } from "../../auth/client/_discovery.ts";',
      false,
    ],
    [
      "src/runtime/client/c.ts",
      'import { j } from "../../auth/server/jwt.ts";',
      false,
    ],
    [
      "src/servers/s.ts",
      'import { o } from "../auth/client/oauth_client.ts";',
      true,
    ],
    [
      "src/cli/c.ts",
      'import { o } from "../auth/client/oauth_store.ts";',
      true,
    ],
    [
      "src/bridge/m.ts",
      'import { o } from "../auth/client/oauth_client.ts";',
      false,
    ],
    ["src/core/c.ts", 'import { j } from "../auth/server/jwt.ts";', false],
  ];
  for (const [file, source, ok] of cases) {
    assert.equal(
      violations(file, source).length === 0,
      ok,
      `${file}: ${source}`,
    );
  }
});

Deno.test("the checker keeps src/runtime/{http,client,process} apart over the root files", () => {
  const cases: [string, string, boolean][] = [
    ["src/runtime/http/h.ts", 'import { e } from "../errors.ts";', true],
    ["src/runtime/http/h.ts", 'import { g } from "./guard.ts";', true],
    ["src/runtime/http/h.ts", 'import { j } from "../../core/json.ts";', true],
    ["src/runtime/http/h.ts", 'import { c } from "../client/c.ts";', false],
    ["src/runtime/http/h.ts", 'import { p } from "../process/p.ts";', false],
    [
      "src/runtime/http/h.ts",
      'import type { P } from "../process/p.ts";',
      false,
    ],
    ["src/runtime/http/h.ts", 'import { B } from "node:buffer";', false],
    [
      "src/runtime/http/h.ts",
      'import { T } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";',
      true,
    ],
    [
      "src/runtime/http/h.ts",
      'import { C } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
      false,
    ],
    ["src/runtime/client/c.ts", 'import { e } from "../errors.ts";', true],
    ["src/runtime/client/c.ts", 'import { h } from "../http/guard.ts";', false],
    ["src/runtime/client/c.ts", 'import { p } from "../process/p.ts";', false],
    ["src/runtime/process/p.ts", 'import { d } from "../client/d.ts";', true],
    [
      "src/runtime/process/p.ts",
      'import { h } from "../http/guard.ts";',
      false,
    ],
    ["src/runtime/process/p.ts", 'import { s } from "node:process";', true],
    ["src/runtime/r.ts", 'import { e } from "./errors.ts";', true],
    ["src/runtime/r.ts", 'import { h } from "./http/guard.ts";', false],
    ["src/runtime/r.ts", 'import { p } from "./process/p.ts";', false],
    ["src/runtime/r.ts", 'import { c } from "./client/c.ts";', false],
  ];
  for (const [file, source, ok] of cases) {
    assert.equal(
      violations(file, source).length,
      ok ? 0 : 1,
      `${file}: ${source}`,
    );
  }
});

Deno.test("the checker allows Deno on the HTTP server path only as a guarded globalThis property in the hooks file", () => {
  const guarded = [
    "const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;",
    "deno?.unrefTimer?.(1);",
    "globalThis.Deno?.unrefTimer?.(1);",
    '// Deno.unrefTimer(1) in a comment; "Deno.exit" in a string',
    'const text = "Deno.serve";',
  ].join("\n");
  assert.deepEqual(denoViolations(DENO_HOOKS, guarded), []);
  for (
    const source of [
      "Deno.unrefTimer(1);",
      'if (typeof Deno !== "undefined") Deno.unrefTimer(1);',
      "const d = Deno;",
      "globalThis.Deno.unrefTimer(1);",
      "(globalThis as { Deno: typeof Deno }).Deno.exit(1);",
      'globalThis.Deno["exit"](1);',
    ]
  ) {
    assert.ok(denoViolations(DENO_HOOKS, source).length > 0, source);
  }
  // Any other file: not even the guarded form.
  assert.equal(
    denoViolations("src/runtime/http/handler.ts", "globalThis.Deno?.x;").length,
    1,
  );
  assert.deepEqual(
    denoViolations(
      "src/runtime/http/handler.ts",
      '// Deno.serve\nconst s = "Deno";',
    ),
    [],
  );
});

Deno.test("the checker follows value imports from the HTTP server and the clients", () => {
  const sources = new Map([
    [
      "src/runtime/http/h.ts",
      'import { r } from "../r.ts";\nimport type { T } from "../t.ts";',
    ],
    ["src/runtime/r.ts", 'import { x } from "node:fs";\nDeno.exit(0);'],
    [
      "src/runtime/t.ts",
      'import { C } from "@modelcontextprotocol/sdk/client";',
    ],
    ["src/runtime/client/c.ts", 'import { s } from "../s.ts";'],
    [
      "src/runtime/s.ts",
      'export { S } from "@modelcontextprotocol/sdk/server";',
    ],
  ]);
  assert.deepEqual(httpServerPathViolations(sources).sort(), [
    "src/runtime/r.ts:2: names Deno (only src/runtime/http/_host.ts may, guarded)",
    "the HTTP server loads node:fs (from src/runtime/r.ts)",
  ]);
  assert.deepEqual(httpClientPathViolations(sources), [
    "the HTTP clients load @modelcontextprotocol/sdk/server (from src/runtime/s.ts)",
  ]);
});

/**
 * The private members the pinned SDK declares (`private x` in the `.d.ts`
 * of its `Protocol`, `Server`, `Client` and HTTP client transport) that
 * start with `_`, its `Server`'s private `getCapabilities`, and zod's
 * `_zod` internals.
 */
async function sdkPrivateNames(): Promise<Set<string>> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { imports: Record<string, string> };
  const version = config.imports["@modelcontextprotocol/sdk"].split("@").at(-1);
  const dist = new URL(
    `node_modules/.deno/@modelcontextprotocol+sdk@${version}/node_modules/@modelcontextprotocol/sdk/dist/esm/`,
    ROOT,
  );
  const names = new Set(["_zod", "getCapabilities"]);
  for (
    const file of [
      "shared/protocol.d.ts",
      "server/index.d.ts",
      "client/index.d.ts",
      "client/streamableHttp.d.ts",
    ]
  ) {
    const text = await Deno.readTextFile(new URL(file, dist));
    for (const m of text.matchAll(/\bprivate\s+(?:readonly\s+)?(_\w+)/g)) {
      names.add(m[1]);
    }
  }
  return names;
}

/**
 * Where `source` names one of `names`: an identifier in code (comments
 * and string contents aside), or a string literal that is exactly one
 * (`obj["_x"]`, `Reflect.get(obj, "_x")`, `defineProperty(obj, "_x")`).
 * A body's `pipeThrough` replaced counts too.
 */
function privateSites(
  file: string,
  source: string,
  names: ReadonlySet<string>,
): string[] {
  const found: string[] = [];
  const code = codeOf(source);
  const kept = stripComments(source);
  // A member read or write (`.x`, `?.x`) or a key (`{ x: … }`, a
  // descriptor or a cast's type); not a parameter or a local variable.
  const member = /(?<=\.\s*)[_a-zA-Z][\w$]*|(?<![\w$])[_a-zA-Z][\w$]*(?=\s*:)/g;
  for (const m of code.matchAll(member)) {
    if (names.has(m[0])) found.push(`${file}: ${m[0]}`);
  }
  for (const m of kept.matchAll(/(["'`])([_a-zA-Z][\w$]*)\1/g)) {
    if (names.has(m[2]) || m[2] === "pipeThrough") {
      found.push(`${file}: "${m[2]}"`);
    }
  }
  return found;
}

Deno.test("the seam is the only file under src/ that names a private field of the SDK or zod", async () => {
  const names = await sdkPrivateNames();
  // Not vacuous: the names the seam stands in for are among those read.
  for (const name of ["_requestHandlers", "_timeoutInfo", "_handleSseStream"]) {
    assert.ok(names.has(name), `the SDK's declarations miss ${name}`);
  }
  const sources = await sourceMap();
  const found: string[] = [];
  for (const [file, source] of sources) {
    if (file !== SEAM) found.push(...privateSites(file, source, names));
  }
  assert.deepEqual(found, []);
  assert.ok(
    privateSites(SEAM, sources.get(SEAM)!, names).length > 10,
    "the seam names them",
  );
});

Deno.test("the private-field check sees reads, casts, bracket access and pipeThrough", () => {
  const names = new Set(["_timeoutInfo", "_zod"]);
  const cases: [string, number][] = [
    ["p._timeoutInfo.clear();", 1],
    ["const s = (x as unknown as { _zod: Z })._zod;", 2],
    ['Reflect.get(p, "_timeoutInfo");', 1],
    ['Object.defineProperty(body, "pipeThrough", { value });', 1],
    ["// p._timeoutInfo in a comment", 0],
    ['import { t } from "./_timeoutInfo_helper.ts";', 0],
    ["function f(_timeoutInfo?: string, _zod = 1) {}", 0],
    ["Object.create(s, { _zod: { value } });", 1],
    ["p?._timeoutInfo;", 1],
    ["body.pipeThrough(new TextDecoderStream());", 0],
  ];
  for (const [source, count] of cases) {
    assert.equal(privateSites("f.ts", source, names).length, count, source);
  }
});

/** The one file whose object slot is keyed by a server: the server's record. */
const SERVER_RECORD = "src/core/server_state.ts";

/** The other object slots under src/, each keyed by something that is not a server. */
const OTHER_SLOTS = new Map([
  ["src/runtime/http/_list_text.ts", "tool documents"],
]);

/**
 * The module-level `WeakMap`s of src/bridge and src/core, by file and name,
 * with what each is keyed by: none by a server (a server's state is its
 * record's field).
 */
const KEYED_BY = new Map([
  ["src/bridge/_answer.ts caches", "a validator provider"],
  ["src/bridge/app_meta.ts APP_TOOLS", "an imported tool definition"],
  ["src/bridge/_elicit.ts routers", "an importing client"],
  ["src/bridge/resource_def.ts hubs", "a resource definition"],
  ["src/bridge/export.ts entries", "a frozen tool definition"],
  ["src/bridge/export.ts sets", "a frozen tool definition"],
  ["src/bridge/_ask.ts ownKeys", "an endpoint or a tool definition"],
  ["src/bridge/_tool_call.ts setAside", "a tools/call params object"],
]);

/** Where `source` makes an object slot, or a module-level `WeakMap` (as `file name`). */
function perObjectSites(
  file: string,
  source: string,
): { slots: number; weakMaps: string[] } {
  const code = codeOf(source);
  const slots = [...code.matchAll(/\bobjectSlot\s*[<(]/g)].length;
  const weakMaps = [
    ...code.matchAll(
      /^(?:export\s+)?(?:const|let)\s+([\w$]+)\s*(?::[^=\n]*)?=\s*new\s+WeakMap\b/gm,
    ),
  ].map((m) => `${file} ${m[1]}`);
  return { slots, weakMaps };
}

Deno.test("a server's bridge state is one record: one slot keyed by a server, no WeakMap keyed by one in the bridge or the core", async () => {
  const sources = await sourceMap();
  const slotFiles: string[] = [];
  const weakMaps: string[] = [];
  for (const [file, source] of sources) {
    if (file === "src/core/object_slot.ts") continue;
    const sites = perObjectSites(file, source);
    if (sites.slots > 0) slotFiles.push(`${file} ×${sites.slots}`);
    if (/^src\/(bridge|core)\//.test(file)) weakMaps.push(...sites.weakMaps);
  }
  assert.deepEqual(
    slotFiles.sort(),
    [`${SERVER_RECORD} ×1`, ...[...OTHER_SLOTS.keys()].map((f) => `${f} ×1`)]
      .sort(),
  );
  assert.deepEqual(weakMaps.sort(), [...KEYED_BY.keys()].sort());
});

Deno.test("the per-object check sees a slot and a module-level WeakMap, not a private one", () => {
  const cases: [string, number, number][] = [
    ['const s = objectSlot<number>("n");', 1, 0],
    ['const s = objectSlot("n");', 1, 0],
    ['import { objectSlot } from "./object_slot.ts";', 0, 0],
    ["// objectSlot<number>() in a comment", 0, 0],
    ["const levels = new WeakMap<object, number>();", 0, 1],
    ["export const hubs: WeakMap<object, number> = new WeakMap();", 0, 1],
    ["class A {\n  readonly #memos = new WeakMap<object, number>();\n}", 0, 0],
    ["function f() {\n  const local = new WeakMap();\n}", 0, 0],
    ["let own: P | undefined;\nconst caches = new WeakMap<P, M>();", 0, 1],
  ];
  for (const [source, slots, weakMaps] of cases) {
    const sites = perObjectSites("f.ts", source);
    assert.equal(sites.slots, slots, source);
    assert.equal(sites.weakMaps.length, weakMaps, source);
  }
});
