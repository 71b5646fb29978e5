/**
 * Every entry point loads where the global `Deno` is absent (an edge
 * runtime, a bundler's worker): no module reached from an entry point reads
 * `Deno` while it is being evaluated; a runtime facility is reached when it
 * is used. Checked by importing each entry point in a child process whose
 * `Deno` records the reads made from this repository's files.
 */
import assert from "node:assert/strict";

// Every published entry point, as deno.json lists them.
const ENTRIES: readonly string[] = Object.values(
  (JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ) as { exports: Record<string, string> }).exports,
).map((e) => e.replace(/^\.\//, ""));

async function readsWhileImporting(
  entries: readonly string[],
): Promise<{ property: string; frame: string }[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      new URL("./fixtures/deno_touch_probe.ts", import.meta.url).pathname,
      ...entries,
    ],
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    signal: AbortSignal.timeout(60_000),
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `the probe failed: ${stderr}`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

/**
 * The one read allowed at evaluation: the host-signal watch wraps
 * `Deno.addSignalListener`/`removeSignalListener` when the module loads (so
 * that listeners added later are seen), through an optional property of
 * `globalThis`, so it loads where `Deno` is absent too.
 */
const GUARDED = /\/src\/runtime\/process\/_host_signals\.ts:/;

Deno.test("no entry point reads Deno while its modules are evaluated", async () => {
  const reads = (await readsWhileImporting(ENTRIES)).filter((r) =>
    !GUARDED.test(r.frame)
  );
  assert.deepEqual(
    reads,
    [],
    `modules read Deno at import time:\n${
      reads.map((r) => `  Deno.${r.property} at ${r.frame}`).join("\n")
    }`,
  );
});

Deno.test("the probe sees a read made at module evaluation", async () => {
  const dir = await Deno.makeTempDir({
    dir: new URL("./fixtures/", import.meta.url).pathname,
  });
  try {
    await Deno.writeTextFile(
      `${dir}/touch.ts`,
      "export const os: string = Deno.build.os;\n",
    );
    const rel = `tests/fixtures/${dir.split("/").pop()}/touch.ts`;
    const reads = await readsWhileImporting([rel]);
    assert.equal(reads.length, 1);
    assert.equal(reads[0].property, "build");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
