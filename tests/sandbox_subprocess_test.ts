/**
 * The subprocess executor's own behaviour: the warm pool, one child per
 * program (no state crosses), the injected clock, the message bound, a
 * result that is not JSON, the executor contract's refusals, and the Deno
 * behaviour that makes the runner load programs from blob: URLs.
 */

import assert from "node:assert/strict";
import { type Clock, subprocessExecutor } from "../sandbox.ts";

Deno.test("subprocess: pooled children run programs; no state crosses from one program to the next", async () => {
  await using executor = subprocessExecutor({ pool: 2 });
  const first = await executor.execute(
    "async () => { globalThis.leak = 'secret'; return 1; }",
    {},
  );
  const second = await executor.execute(
    "async () => typeof globalThis.leak",
    {},
  );
  assert.deepEqual([first, second], [{ result: 1 }, { result: "undefined" }]);
});

Deno.test("subprocess: the deadline runs on the injected clock", async () => {
  const armed: number[] = [];
  const clock: Clock = {
    // Fires at once: the deadline passes as soon as it is armed.
    setTimeout: (fn, ms) => {
      armed.push(ms);
      queueMicrotask(fn);
      return armed.length;
    },
    clearTimeout: () => {},
  };
  await using executor = subprocessExecutor({ timeout: 60_000, clock });
  const out = await executor.execute(
    "async () => { await new Promise(() => {}); }",
    {},
  );
  assert.deepEqual(out, {
    result: undefined,
    error: "the program timed out after 60000 ms",
  });
  assert.deepEqual(armed, [60_000]);
});

Deno.test("subprocess: a message over the bound stops the program", async () => {
  await using executor = subprocessExecutor({ maxMessageBytes: 4096 });
  const out = await executor.execute(
    "async () => await codemode.echo({ text: 'x'.repeat(100_000) })",
    { echo: (input) => Promise.resolve(input) },
  );
  assert.deepEqual(out, {
    result: undefined,
    error: "the program sent a message over the size limit and was stopped",
  });
});

Deno.test("subprocess: a result that is not JSON data is an error", async () => {
  await using executor = subprocessExecutor();
  const out = await executor.execute("async () => 10n", {});
  assert.deepEqual(out, {
    result: undefined,
    error:
      "TypeError: the program's result is not JSON data: Do not know how to serialize a BigInt",
  });
});

Deno.test("subprocess: the contract's refusals never throw", async () => {
  const executor = subprocessExecutor();
  assert.deepEqual(
    await executor.execute("async () => 1", {
      "get-sum": () => Promise.resolve(1),
      "get.sum": () => Promise.resolve(2),
    }),
    {
      result: undefined,
      error:
        'tool names "get-sum" and "get.sum" both become "get_sum" in namespace "codemode"',
    },
  );
  assert.deepEqual(
    await executor.execute("async () => 1", {}, { connectors: [{}] }),
    {
      result: undefined,
      error:
        "connectors are not supported: tools reach the program only as functions",
    },
  );
  await executor.close();
  assert.deepEqual(await executor.execute("async () => 1", {}), {
    result: undefined,
    error: "the executor is closed",
  });
});

Deno.test("Deno reads a file imported from the main module's graph without --allow-read (why the runner loads programs from blob: URLs)", async () => {
  // A canary: if Deno starts checking these imports, the blob: indirection
  // may go; until then a program must never be part of the main module.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/secret.json`, '{"key":"s3cr3t"}');
    const main = `const m = await import(${
      JSON.stringify(`file://${dir}/secret.json`)
    }, { with: { type: "json" } }); console.log(m.default.key);`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--no-remote",
        "--no-config",
        "--no-lock",
        `data:text/javascript;base64,${btoa(main)}`,
      ],
      clearEnv: true,
      env: {},
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "s3cr3t");
    // The same import in a program, through the runner: refused.
    await using executor = subprocessExecutor();
    const refused = await executor.execute(
      `async () => (await import(${
        JSON.stringify(`file://${dir}/secret.json`)
      }, { with: { type: "json" } })).default.key`,
      {},
    );
    assert.match(refused.error ?? "", /^TypeError: Requires read access/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
