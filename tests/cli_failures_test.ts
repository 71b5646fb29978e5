// `weft-mcp`'s failures: each one's exit code and message, timeouts and interrupts leaving no process.

import assert from "node:assert/strict";
import { ExitCode, runCli } from "../cli.ts";
import { USAGE } from "../src/cli/usage.ts";
import { CLI, cli, closedPort, processWithArg, run } from "./_helpers/cli.ts";

Deno.test("runCli without a bundled server asks for a target", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([], {
    output: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
  });
  assert.equal(code, ExitCode.failure);
  assert.deepEqual(out, []);
  assert.deepEqual(err, [
    "weft-mcp: no target given, and the bundled example server is only there in a clone; pass a URL or -- <command>\n",
  ]);
});

Deno.test("failures", async (t) => {
  await t.step(
    "a server that exits at once: exit 2 with the cause",
    async () => {
      const ran = await cli("inspect", "--", "false");
      assert.equal(ran.code, ExitCode.failure);
      assert.equal(ran.stdout, "");
      assert.match(
        ran.stderr,
        /^weft-mcp: server "false" \(false\): initialize failed: server process exited with code 1\n$/m,
      );
    },
  );
  await t.step(
    "a command that does not exist: the spawn phase, no setsid",
    async () => {
      const ran = await cli("inspect", "--", "weft-no-such-server", "--x");
      assert.equal(ran.code, ExitCode.failure);
      assert.equal(
        ran.stderr,
        'weft-mcp: server "weft-no-such-server" (weft-no-such-server --x): spawn failed: command not found: weft-no-such-server\n',
      );
    },
  );
  await t.step("a closed 127.0.0.1 port: exit 2", async () => {
    const url = `http://127.0.0.1:${closedPort()}/mcp`;
    const ran = await cli("inspect", url);
    assert.equal(ran.code, ExitCode.failure);
    assert.equal(ran.stdout, "");
    assert.ok(
      ran.stderr.startsWith(
        `weft-mcp: server "${new URL(url).host}" (${url}): initialize failed: `,
      ),
      ran.stderr,
    );
  });
  await t.step(
    "--timeout ends a server that never answers, and leaves no process",
    async () => {
      const started = performance.now();
      const ran = await cli(
        "--timeout",
        "400",
        "inspect",
        "--",
        "sleep",
        "31.4159",
      );
      assert.equal(ran.code, ExitCode.failure);
      assert.equal(
        ran.stderr,
        "weft-mcp: timed out after 400 ms connecting to sleep 31.4159 (--timeout)\n",
      );
      assert.ok(performance.now() - started < 10_000);
      assert.equal(await processWithArg("31.4159"), false);
    },
  );
  await t.step("SIGINT closes the server and exits 130", async () => {
    // Interrupted once the server runs (the CLI is connecting), whatever
    // the machine's load; then a moment later, mid-connect.
    const ran = await run([...CLI, "inspect", "--", "sleep", "27.1828"], {
      signalWhenRunning: ["sleep", "27.1828"],
      signalAfter: 300,
    });
    assert.equal(ran.code, ExitCode.interrupted, ran.stderr);
    assert.match(
      ran.stderr,
      /weft-mcp: interrupted while connecting to sleep 27\.1828\n$/,
    );
    assert.equal(await processWithArg("27.1828"), false);
  });
  await t.step(
    "usage errors: the reason, then the usage, on stderr, exit 64",
    async () => {
      const ran = await cli("frobnicate");
      assert.equal(ran.code, ExitCode.usage);
      assert.equal(ran.stdout, "");
      assert.equal(
        ran.stderr,
        `weft-mcp: unknown command "frobnicate"\n\n${USAGE}`,
      );
    },
  );
  await t.step("--help prints the usage on stdout, exit 0", async () => {
    for (const arg of ["--help", "help"]) {
      const ran = await cli(arg);
      assert.equal(ran.code, ExitCode.ok);
      assert.equal(ran.stdout, USAGE);
      assert.equal(ran.stderr, "");
    }
  });
});
