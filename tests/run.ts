/**
 * `deno task test`: every test of the repository, on a fresh clone too.
 *
 * 1. Installs both import maps from their locks (`deno install --frozen`, the
 *    root's and tests/interop's): tests of the module's suite run test-only
 *    packages with `--cached-only` (the conformance suite, the reference
 *    servers), so the interop packages must be in the cache before either
 *    suite starts, even with an empty Deno cache.
 * 2. Runs the module's suite, then tests/interop's, each with its own config;
 *    the second runs whatever the first's result.
 * 3. Prints the `NOT RUN` line once, first, when the provider recordings
 *    beside the repository are absent (and tells the test files, each in a
 *    process of its own, not to print it again).
 * 4. Prints deno's output as it comes, but not the two per-suite summary
 *    lines: one line at the end adds them up,
 *
 *        tests: N passed, N failed, N ignored
 *
 *    (`.ci/run` reads it), and the exit code is non-zero when a test failed,
 *    an install failed or a suite ended without its summary (a type error).
 *
 * Takes no arguments: to run some tests, call `deno test` directly (README).
 *
 * @module
 */

import {
  NOT_RUN_LINE,
  NOT_RUN_SAID_ENV,
  SHARED_PRESENT,
} from "./_helpers/provider_replay.ts";

/** A deno command and the name a problem with it is reported under. */
export interface Suite {
  readonly name: string;
  readonly args: readonly string[];
}

const INTEROP_CONFIG = "tests/interop/deno.json";

/** The installs, before any suite: both import maps, from their locks. */
export const INSTALLS: readonly Suite[] = [
  { name: "install (deno.json)", args: ["install", "--frozen"] },
  {
    name: `install (${INTEROP_CONFIG})`,
    args: ["install", "--frozen", "--config", INTEROP_CONFIG],
  },
];

/** The suites, in order: the module's, then tests/interop's with its config. */
export const SUITES: readonly Suite[] = [
  { name: "the module's suite", args: ["test", "-A", "--parallel"] },
  {
    name: "tests/interop",
    args: [
      "test",
      "-A",
      "--parallel",
      "--config",
      INTEROP_CONFIG,
      "tests/interop/",
    ],
  },
];

/** Deno's last line of a run: `ok | 12 passed (3 steps) | 0 failed | 1 ignored (1s)`. */
const SUMMARY =
  /^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed(?: \(\d+ steps?\))?(?: \| (\d+) ignored(?: \(\d+ steps?\))?)?/;

/** Counts read from one suite's summary line. */
export interface Counts {
  passed: number;
  failed: number;
  ignored: number;
}

/** The counts in a deno test summary line, or undefined when it is not one. */
export function readSummary(line: string): Counts | undefined {
  // Deno colours its output even when piped, unless NO_COLOR is set.
  // deno-lint-ignore no-control-regex
  const m = SUMMARY.exec(line.replace(/\x1b\[[0-9;]*m/g, ""));
  if (m === null) return undefined;
  return {
    passed: Number(m[1]),
    failed: Number(m[2]),
    ignored: Number(m[3] ?? 0),
  };
}

/** The one line printed at the end. */
export function totalLine(counts: Counts): string {
  return `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.ignored} ignored`;
}

/** Where the runner writes: deno's output passed through, then its own lines. */
export interface Sink {
  stdout(bytes: Uint8Array): Promise<void>;
  stderr(bytes: Uint8Array): Promise<void>;
}

async function writeAll(
  out: typeof Deno.stdout | typeof Deno.stderr,
  bytes: Uint8Array,
): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await out.write(bytes.subarray(written));
  }
}

/** The process's stdout and stderr. */
export const consoleSink: Sink = {
  stdout: (bytes) => writeAll(Deno.stdout, bytes),
  stderr: (bytes) => writeAll(Deno.stderr, bytes),
};

const encoder = new TextEncoder();

/**
 * Runs deno with `args` in `root`, passing its output to `sink`: stdout line
 * by line, with deno's summary lines held back and read.
 */
async function run(
  args: readonly string[],
  root: string,
  sink: Sink,
  env: Record<string, string> = {},
): Promise<{ code: number; counts: Counts | undefined }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: root,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let counts: Counts | undefined;
  const stdout = (async () => {
    let pending = "";
    const emit = async (line: string): Promise<void> => {
      const read = readSummary(line);
      if (read !== undefined) {
        counts = read;
        return;
      }
      await sink.stdout(encoder.encode(`${line}\n`));
    };
    for await (
      const chunk of child.stdout.pipeThrough(new TextDecoderStream())
    ) {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) await emit(line);
    }
    if (pending !== "") await emit(pending);
  })();
  const stderr = (async () => {
    for await (const chunk of child.stderr) await sink.stderr(chunk);
  })();
  const [status] = await Promise.all([child.status, stdout, stderr]);
  return { code: status.code, counts };
}

/** What {@linkcode runAll} runs, where, and where it writes. */
export interface RunOptions {
  readonly installs: readonly Suite[];
  readonly suites: readonly Suite[];
  /** The directory deno runs in (the repository's root). */
  readonly root: string;
  readonly sink: Sink;
  /**
   * Lines printed once, before the suites (to stderr): what the test files
   * would each print under `--parallel` (the `NOT RUN` line).
   */
  readonly notices?: readonly string[];
  /** Added to the suites' environment (the flag that a notice was printed). */
  readonly env?: Record<string, string>;
}

/**
 * Runs every install, then every suite whatever the result of the ones
 * before; writes the problems, if any, then the one total line. Resolves to
 * the exit code: 1 when a test failed, an install failed or a suite ended
 * without its summary or with a non-zero exit and no failed test, else 0.
 */
export async function runAll(options: RunOptions): Promise<number> {
  const { root, sink } = options;
  const problems: string[] = [];
  for (const install of options.installs) {
    const { code } = await run(install.args, root, sink);
    if (code !== 0) problems.push(`${install.name} failed (exit ${code})`);
  }
  for (const notice of options.notices ?? []) {
    await sink.stderr(encoder.encode(`${notice}\n`));
  }
  const total: Counts = { passed: 0, failed: 0, ignored: 0 };
  for (const suite of options.suites) {
    const { code, counts } = await run(suite.args, root, sink, options.env);
    if (counts === undefined) {
      problems.push(`${suite.name} ended without a summary (exit ${code})`);
      continue;
    }
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.ignored += counts.ignored;
    if (code !== 0 && counts.failed === 0) {
      problems.push(`${suite.name} exited ${code}`);
    }
  }
  const lines = [...problems.map((p) => `FAILED: ${p}`), totalLine(total)];
  await sink.stdout(encoder.encode(`\n${lines.join("\n")}\n`));
  return total.failed > 0 || problems.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  if (Deno.args.length > 0) {
    console.error(
      "tests/run.ts takes no arguments; to run some tests, call deno test " +
        "(e.g. deno test -A tests/docs_test.ts).",
    );
    Deno.exit(64);
  }
  Deno.exit(
    await runAll({
      installs: INSTALLS,
      suites: SUITES,
      root: new URL("..", import.meta.url).pathname,
      sink: consoleSink,
      notices: SHARED_PRESENT ? [] : [NOT_RUN_LINE],
      env: { [NOT_RUN_SAID_ENV]: "1" },
    }),
  );
}
