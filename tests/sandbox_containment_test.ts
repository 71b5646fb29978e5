/**
 * Hostile programs in the subprocess executor: each ends as an error that
 * names its cause, within the deadline, and the host goes on. Times are
 * printed (the containment table of docs/code-mode.md).
 */

import assert from "node:assert/strict";
import { subprocessExecutor } from "../sandbox.ts";

const DEADLINE = 4_000;
/** Start-up on a loaded two-core machine (the whole suite in parallel) is slow; the bound is the deadline plus this. */
const SLACK = 20_000;

interface Case {
  readonly name: string;
  readonly code: (secret: string) => string;
  readonly cause: RegExp;
}

const CASES: readonly Case[] = [
  {
    name: "fetch",
    code: () =>
      "async () => await (await fetch('https://example.com/')).text()",
    cause: /^NotCapable: Requires net access to "example\.com:443"/,
  },
  {
    name: "fetch to the host's loopback",
    code: () => "async () => await fetch('http://127.0.0.1:8080/')",
    cause: /^NotCapable: Requires net access to "127\.0\.0\.1:8080"/,
  },
  {
    name: "reading ~/.ssh",
    code: () => "async () => Deno.readTextFile('/root/.ssh/id_rsa')",
    cause: /^NotCapable: Requires read access to "\/root\/\.ssh\/id_rsa"/,
  },
  {
    name: "reading a file through import()",
    code: (secret) =>
      `async () => (await import(${
        JSON.stringify(secret)
      }, { with: { type: "json" } })).default`,
    cause: /^TypeError: Requires read access to ".*secret\.json"/,
  },
  {
    name: "reading a file through a text import in new Function",
    code: (secret) =>
      `async () => await new Function("u", "return import(u, { with: { type: 'text' } })")(${
        JSON.stringify(secret)
      })`,
    cause: /^TypeError: Requires read access to ".*secret\.json"/,
  },
  {
    name: "reading the environment",
    code: () => "async () => Deno.env.toObject()",
    cause: /^NotCapable: Requires env access/,
  },
  {
    name: "spawning a process",
    code: () => "async () => new Deno.Command('/usr/bin/id').output()",
    cause: /^NotCapable: Requires run access to "\/usr\/bin\/id"/,
  },
  {
    name: "importing remote code (https)",
    code: () => "async () => await import('https://esm.sh/left-pad')",
    cause:
      /A remote specifier was requested: "https:\/\/esm\.sh\/left-pad", but --no-remote is specified/,
  },
  {
    name: "importing remote code (jsr:)",
    code: () => "async () => await import('jsr:@std/path')",
    cause: /--no-remote is specified/,
  },
  {
    name: "importing npm code",
    code: () => "async () => await import('npm:left-pad')",
    cause: /--no-npm is specified/,
  },
  {
    name: "an endless loop",
    code: () => "async () => { while (true) {} }",
    cause: new RegExp(`^the program timed out after ${DEADLINE} ms$`),
  },
  {
    name: "an unbounded allocation",
    code: () =>
      "async () => { const a = []; while (true) a.push(new Array(1e6).fill(1)); }",
    cause: /^the program ran out of memory \(heap cap 64 MiB\)$/,
  },
];

for (const c of CASES) {
  Deno.test(`sandbox contains: ${c.name}`, async () => {
    const dir = await Deno.makeTempDir();
    const secret = `file://${dir}/secret.json`;
    await Deno.writeTextFile(`${dir}/secret.json`, '{"key":"s3cr3t"}');
    await using executor = subprocessExecutor({
      timeout: DEADLINE,
      memoryMb: 64,
    });
    try {
      const started = performance.now();
      const out = await executor.execute(c.code(secret), {});
      const ms = Math.round(performance.now() - started);
      assert.equal(out.result, undefined);
      assert.match(out.error ?? "", c.cause, `${c.name}: ${out.error}`);
      assert.ok(!JSON.stringify(out).includes("s3cr3t"));
      assert.ok(ms < DEADLINE + SLACK, `took ${ms} ms`);
      // The host survives and the executor runs the next program.
      const next = await executor.execute("async () => 6 * 7", {});
      assert.deepEqual(next, { result: 42 });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("sandbox: the program's logs are bounded", async () => {
  await using executor = subprocessExecutor({ maxLogLines: 3 });
  const out = await executor.execute(
    "async () => { for (let i = 0; i < 50; i++) console.log('line', i); return 1; }",
    {},
  );
  assert.deepEqual(out, {
    result: 1,
    logs: ["line 0", "line 1", "line 2", "(47 more log lines dropped)"],
  });
});

Deno.test("sandbox: tool calls go to the host; a failing one rejects in the program", async () => {
  await using executor = subprocessExecutor({ pool: 1 });
  const seen: unknown[] = [];
  const out = await executor.execute(
    `async () => {
      const a = await codemode.add({ a: 1, b: 2 });
      let caught = "";
      try { await codemode.boom({}); } catch (e) { caught = e.message; }
      return { a, caught };
    }`,
    [{
      name: "codemode",
      fns: {
        add: (input) => {
          seen.push(input);
          const { a, b } = input as { a: number; b: number };
          return Promise.resolve(a + b);
        },
        boom: () => Promise.reject(new Error("it broke")),
      },
    }],
  );
  assert.deepEqual(out, { result: { a: 3, caught: "it broke" } });
  assert.deepEqual(seen, [{ a: 1, b: 2 }]);
});

Deno.test("sandbox: an aborted run stops the child", async () => {
  await using executor = subprocessExecutor();
  const controller = new AbortController();
  const out = executor.execute(
    "async () => { await codemode.wait({}); while (true) {} }",
    {
      wait: () => {
        controller.abort(new Error("parked"));
        return Promise.resolve(null);
      },
    },
    { signal: controller.signal },
  );
  assert.deepEqual(await out, {
    result: undefined,
    error: "the program was stopped: parked",
  });
});
