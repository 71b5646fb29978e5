/**
 * The worker executor, run in child processes: on a host without
 * `--unstable-worker-options` it refuses to be built (the host would
 * otherwise be ended by Deno); with the flag, programs run in
 * permissionless workers and hostile ones end as errors naming the cause.
 */

import assert from "node:assert/strict";

const CHILD = new URL("./fixtures/worker_executor_child.ts", import.meta.url)
  .pathname;

async function runChild(flags: string[], secret: string): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, CHILD, secret],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(text);
}

Deno.test("workerExecutor refuses a host started without --unstable-worker-options", async () => {
  assert.deepEqual(await runChild([], "file:///nowhere.json"), {
    refused: true,
    message:
      'workerExecutor: the host was not started with --unstable-worker-options, so a worker cannot be given permissions "none" (Deno would end the process); run the host with that flag, set hostHasWorkerOptions when deno.json\'s unstable list enables it, or use subprocessExecutor',
  });
});

Deno.test("workerExecutor runs programs in permissionless workers; hostile ones end as errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/secret.json`, '{"key":"s3cr3t"}');
    const out = await runChild(
      ["--unstable-worker-options"],
      `file://${dir}/secret.json`,
    ) as Record<
      string,
      { result?: unknown; error?: string; logs?: string[]; ms: number }
    >;
    // Each program's outcome, said when an assertion fails.
    const seen = Object.entries(out).map(([k, v]) =>
      `  ${k}: ${v.error ?? JSON.stringify(v.result)} (${v.ms} ms)`
    ).join("\n");
    assert.equal(out.sum.result, 5, seen);
    assert.deepEqual(out.sum.logs, ["adding"]);
    assert.match(
      out.fetch.error ?? "",
      /^NotCapable: Requires net access to "example\.com:443"/,
    );
    assert.match(out.env.error ?? "", /^NotCapable: Requires env access/);
    assert.match(
      out.read.error ?? "",
      /^NotCapable: Requires read access to "\/etc\/hostname"/,
    );
    assert.match(
      out.importFile.error ?? "",
      /Requires read access to ".*secret\.json"/,
    );
    assert.match(out.spawn.error ?? "", /^NotCapable: Requires run access/);
    assert.match(
      out.remote.error ?? "",
      /^TypeError: Requires import access to "esm\.sh:443"/,
    );
    assert.equal(out.loop.error, "the program timed out after 2000 ms");
    assert.ok(!JSON.stringify(out).includes("s3cr3t"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
