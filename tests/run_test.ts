/**
 * tests/run.ts, what `deno task test` runs: both suites always run, one total
 * line, a failure anywhere fails the run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { INSTALLS, readSummary, runAll, type Sink, SUITES } from "./run.ts";
import { NOT_RUN_LINE, NOT_RUN_SAID_ENV } from "./_helpers/provider_replay.ts";

const ROOT = new URL("../", import.meta.url);

function collect(): { sink: Sink; text: () => string } {
  const chunks: Uint8Array[] = [];
  const sink: Sink = {
    stdout: (bytes) => {
      chunks.push(bytes.slice());
      return Promise.resolve();
    },
    stderr: (bytes) => {
      chunks.push(bytes.slice());
      return Promise.resolve();
    },
  };
  // Without deno's colours (it colours piped output too).
  const text = () =>
    chunks.map((c) => new TextDecoder().decode(c)).join("")
      // deno-lint-ignore no-control-regex
      .replace(/\x1b\[[0-9;]*m/g, "");
  return { sink, text };
}

/** Three small suites in a temporary folder: one failing, one passing, one that does not type-check. */
async function fixtures(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "weft_run_test_" });
  await Deno.writeTextFile(
    `${dir}/a_test.ts`,
    `Deno.test("a passes", () => {});
Deno.test("a fails", () => { throw new Error("a failed on purpose"); });
`,
  );
  await Deno.writeTextFile(
    `${dir}/b_test.ts`,
    `Deno.test("b passes", () => {});
Deno.test("b passes too", async (t) => { await t.step("a step", () => {}); });
Deno.test({ name: "b ignored", ignore: true, fn: () => {} });
`,
  );
  await Deno.writeTextFile(
    `${dir}/c_test.ts`,
    `const n: number = "not a number";
Deno.test("c", () => { void n; });
`,
  );
  return dir;
}

const test = (file: string) => ({
  name: file,
  args: ["test", "--no-config", file],
});

Deno.test("readSummary reads deno's summary lines, and only them", () => {
  assert.deepEqual(
    readSummary("ok | 844 passed (119 steps) | 0 failed (1m46s)"),
    {
      passed: 844,
      failed: 0,
      ignored: 0,
    },
  );
  assert.deepEqual(
    readSummary(
      "FAILED | 3 passed (1 step) | 2 failed (1 step) | 4 ignored (7s)",
    ),
    { passed: 3, failed: 2, ignored: 4 },
  );
  assert.deepEqual(readSummary("ok | 1 passed | 0 failed | 1 ignored (0ms)"), {
    passed: 1,
    failed: 0,
    ignored: 1,
  });
  // Deno colours its output even when piped.
  assert.deepEqual(
    readSummary(
      "\x1b[0m\x1b[31mFAILED\x1b[0m | 2 passed | 3 failed \x1b[0m\x1b[38;5;245m(22s)\x1b[0m",
    ),
    { passed: 2, failed: 3, ignored: 0 },
  );
  assert.equal(readSummary("./a_test.ts => a passes ... ok (1ms)"), undefined);
  assert.equal(readSummary("tests: 1 passed, 0 failed, 0 ignored"), undefined);
});

Deno.test("runAll runs every suite after a failing one and prints one total line", async () => {
  const dir = await fixtures();
  try {
    const { sink, text } = collect();
    const code = await runAll({
      installs: [],
      suites: [test("a_test.ts"), test("b_test.ts")],
      root: dir,
      sink,
    });
    const out = text();
    assert.equal(code, 1);
    // The second suite ran although the first failed.
    assert.match(out, /b passes too \.\.\. ok/);
    assert.match(out, /a failed on purpose/);
    // Deno's two summaries are added up into one line, the last.
    assert.doesNotMatch(out, /^(ok|FAILED) \|/m);
    assert.deepEqual(out.match(/^tests: .*$/gm), [
      "tests: 3 passed, 1 failed, 1 ignored",
    ]);
    assert.ok(out.trimEnd().endsWith("tests: 3 passed, 1 failed, 1 ignored"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runAll fails the run when an install fails or a suite ends without a summary, and still runs the rest", async () => {
  const dir = await fixtures();
  try {
    const { sink, text } = collect();
    const code = await runAll({
      installs: [{ name: "the install", args: ["eval", "Deno.exit(3)"] }],
      suites: [test("c_test.ts"), test("b_test.ts")],
      root: dir,
      sink,
    });
    const out = text();
    assert.equal(code, 1);
    assert.match(out, /^FAILED: the install failed \(exit 3\)$/m);
    assert.match(
      out,
      /^FAILED: c_test\.ts ended without a summary \(exit 1\)$/m,
    );
    assert.ok(out.trimEnd().endsWith("tests: 2 passed, 0 failed, 1 ignored"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runAll exits 0 when every suite passes", async () => {
  const dir = await fixtures();
  try {
    const { sink, text } = collect();
    const code = await runAll({
      installs: [{ name: "the install", args: ["eval", ""] }],
      suites: [test("b_test.ts"), test("b_test.ts")],
      root: dir,
      sink,
    });
    assert.equal(code, 0, text());
    assert.ok(
      text().trimEnd().endsWith("tests: 4 passed, 0 failed, 2 ignored"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task test is the runner: both configs installed from their locks, then both suites", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  assert.equal(config.tasks.test, "deno run -A tests/run.ts");
  assert.deepEqual(INSTALLS.map((i) => i.args), [
    ["install", "--frozen"],
    ["install", "--frozen", "--config", "tests/interop/deno.json"],
  ]);
  assert.deepEqual(SUITES.map((s) => s.args), [
    ["test", "-A", "--parallel"],
    [
      "test",
      "-A",
      "--parallel",
      "--config",
      "tests/interop/deno.json",
      "tests/interop/",
    ],
  ]);
});

/**
 * A repository copy without the shared folder beside it: the recordings
 * helper and `count` test files each registering two recorded tests.
 */
async function cloneAlone(count: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "weft_not_run_" });
  // tests/_helpers/ two levels down: ../shared/ beside the copy is absent.
  const repo = `${dir}/repo`;
  await Deno.mkdir(`${repo}/tests/_helpers`, { recursive: true });
  await Deno.copyFile(
    new URL("_helpers/provider_replay.ts", import.meta.url),
    `${repo}/tests/_helpers/provider_replay.ts`,
  );
  for (let i = 0; i < count; i++) {
    await Deno.writeTextFile(
      `${repo}/tests/r${i}_test.ts`,
      `import { recordedTest } from "./_helpers/provider_replay.ts";
recordedTest("recorded ${i}a", async () => {});
recordedTest("recorded ${i}b", async () => {});
`,
    );
  }
  return dir;
}

Deno.test("the NOT RUN line: once per run of the runner, with the folder relative to the repository, whatever the test files", async () => {
  const dir = await cloneAlone(3);
  try {
    const { sink, text } = collect();
    const code = await runAll({
      installs: [],
      suites: [{
        name: "recorded",
        args: ["test", "--no-config", "-A", "--parallel", "tests/"],
      }],
      root: `${dir}/repo`,
      sink,
      notices: [NOT_RUN_LINE],
      env: { [NOT_RUN_SAID_ENV]: "1" },
    });
    const out = text();
    assert.equal(code, 0, out);
    assert.deepEqual(out.match(/^NOT RUN: .*$/gm), [
      "NOT RUN: the tests over the provider recordings are ignored, because ../shared/fixtures/providers/ (beside the repository) is absent",
    ]);
    assert.ok(out.trimEnd().endsWith("tests: 0 passed, 0 failed, 6 ignored"));
    // A test file run alone (deno test, not the runner) still says it once.
    const alone = await new Deno.Command(Deno.execPath(), {
      args: ["test", "--no-config", "-A", "tests/r0_test.ts"],
      cwd: `${dir}/repo`,
      // Not the runner's mark: this test may itself run under the runner.
      env: { NO_COLOR: "1", [NOT_RUN_SAID_ENV]: "" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(alone.stderr) +
      new TextDecoder().decode(alone.stdout);
    assert.equal(said.match(/^NOT RUN: .*$/gm)?.length, 1, said);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
