/**
 * The committed root `deno.lock` holds what the module imports and nothing
 * else, so a fresh `deno install` (or `deno task start`) fetches only that:
 *
 * - its top-level `npm:` specifiers are exactly the packages deno.json's
 *   import map names (the test-only packages live in tests/interop's import
 *   map and lock);
 * - its `npm` section is exactly the dependency closure of those specifiers:
 *   no package that nothing reaches (a leftover of a child process that ran
 *   an `npm:` program against the root config), none missing;
 * - no `jsr` or remote section (the module imports neither).
 *
 * A child a test spawns that runs a test-only package passes
 * `--config tests/interop/deno.json`, so it resolves through that lock.
 * .ci/run checks that the whole suite leaves both locks as committed.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

interface LockPackage {
  readonly dependencies?: readonly string[];
}

interface Lock {
  readonly version: string;
  readonly specifiers?: Record<string, string>;
  readonly npm?: Record<string, LockPackage>;
  readonly jsr?: Record<string, unknown>;
  readonly remote?: Record<string, unknown>;
  readonly workspace?: { readonly dependencies?: readonly string[] };
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(new URL(path, ROOT))) as T;
}

/** `@scope/name@1.2` or `name@^4` (the `npm:` already removed) → the package name. */
function packageName(nameAndVersion: string): string {
  const at = nameAndVersion.indexOf("@", 1);
  return at === -1 ? nameAndVersion : nameAndVersion.slice(0, at);
}

/** The package names an import map's `npm:` targets name (`npm:/x@1/` too). */
function importedPackages(imports: Record<string, string>): Set<string> {
  const names = new Set<string>();
  for (const target of Object.values(imports)) {
    if (!target.startsWith("npm:")) continue;
    names.add(packageName(target.slice("npm:".length).replace(/^\//, "")));
  }
  return names;
}

/**
 * The lock's `npm` keys reachable from its top-level specifiers of the
 * packages in `roots` (all of them when absent). A key is
 * `name@version` plus peer suffixes (`_zod@4.6.7`); a dependency is written
 * `name` when one version of it is locked, `name@version` when several are.
 */
function lockClosure(
  lock: Lock,
  roots?: ReadonlySet<string>,
): Set<string> {
  const npm = lock.npm ?? {};
  const keys = Object.keys(npm);
  const resolve = (dependency: string): string => {
    const versioned = dependency.indexOf("@", 1) !== -1;
    const matches = keys.filter((key) =>
      versioned
        ? key === dependency || key.startsWith(`${dependency}_`)
        : packageName(key) === dependency
    );
    assert.equal(
      matches.length,
      1,
      `deno.lock: dependency ${dependency} matches ${matches.length} packages (${
        matches.join(", ")
      }); run \`deno install\` to rewrite the lock`,
    );
    return matches[0];
  };
  const reached = new Set<string>();
  const pending = Object.entries(lock.specifiers ?? {})
    .map(([specifier, resolved]) => {
      const name = packageName(specifier.slice("npm:".length));
      return { name, key: `${name}@${resolved}` };
    })
    .filter(({ name }) => roots === undefined || roots.has(name))
    .map(({ key }) => key);
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (reached.has(key)) continue;
    assert.ok(key in npm, `deno.lock: ${key} is reached but not locked`);
    reached.add(key);
    for (const dependency of npm[key].dependencies ?? []) {
      pending.push(resolve(dependency));
    }
  }
  return reached;
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

Deno.test("deno.lock: its top-level npm specifiers are the packages deno.json imports", async () => {
  const config = await readJson<{ imports: Record<string, string> }>(
    "deno.json",
  );
  const lock = await readJson<Lock>("deno.lock");
  const specifiers = Object.keys(lock.specifiers ?? {});
  assert.ok(
    specifiers.every((s) => s.startsWith("npm:")),
    `deno.lock has non-npm specifiers: ${specifiers.join(", ")}`,
  );
  assert.deepEqual(
    sorted(new Set(specifiers.map((s) => packageName(s.slice(4))))),
    sorted(importedPackages(config.imports)),
    "deno.lock's specifiers differ from deno.json's npm imports: a test-only " +
      "package belongs in tests/interop/deno.json (and its lock); a child " +
      "process running an npm: program needs `--config tests/interop/deno.json`",
  );
  assert.deepEqual(
    sorted(lock.workspace?.dependencies ?? []),
    sorted(specifiers),
    "deno.lock's workspace dependencies differ from its specifiers",
  );
});

Deno.test("deno.lock: its npm packages are exactly the closure of the module's imports", async () => {
  const config = await readJson<{ imports: Record<string, string> }>(
    "deno.json",
  );
  const lock = await readJson<Lock>("deno.lock");
  const reached = lockClosure(lock, importedPackages(config.imports));
  const unreached = sorted(
    Object.keys(lock.npm ?? {}).filter((key) => !reached.has(key)),
  );
  assert.deepEqual(
    unreached,
    [],
    `deno.lock holds ${unreached.length} packages no import of deno.json ` +
      "reaches; delete their entries (and any top-level specifier that " +
      "pulled them in), then check with `deno install --frozen`",
  );
  assert.equal(lock.jsr, undefined, "deno.lock holds jsr packages");
  assert.equal(lock.remote, undefined, "deno.lock holds remote modules");
});

Deno.test("lockClosure: follows name and name@version dependencies, drops the unreached", () => {
  const lock: Lock = {
    version: "5",
    specifiers: { "npm:a@^1.0.0": "1.0.0_c@2.0.0" },
    npm: {
      "a@1.0.0_c@2.0.0": { dependencies: ["b", "c@2.0.0"] },
      "b@1.0.0": { dependencies: ["c@1.0.0"] },
      "c@1.0.0": {},
      "c@2.0.0": {},
      "left-over@3.0.0": { dependencies: ["b"] },
    },
  };
  assert.deepEqual(sorted(lockClosure(lock)), [
    "a@1.0.0_c@2.0.0",
    "b@1.0.0",
    "c@1.0.0",
    "c@2.0.0",
  ]);
  assert.deepEqual(sorted(lockClosure(lock, new Set(["b"]))), []);
  assert.deepEqual(
    sorted(importedPackages({
      "x": "npm:@scope/x@1.2.3",
      "x/": "npm:/@scope/x@1.2.3/",
      "y": "npm:y@^4.2",
      "z": "./z.ts",
    })),
    ["@scope/x", "y"],
  );
});
