// `weft-mcp call` run as a child process: the text the model sees, tool errors, unknown tools.

import assert from "node:assert/strict";
import { ExitCode } from "../cli.ts";
import {
  CLI,
  cli,
  ROOT,
  SERVER_COMMAND,
  withHttpServer,
  withoutProgress,
} from "./_helpers/cli.ts";

Deno.test("call", async (t) => {
  await t.step("prints the result text the model sees", async () => {
    const ran = await cli("call", "lookup_order", '{"order_id":"42"}');
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(ran.stdout, '{"id":"42","status":"shipped"}\n');
  });
  await t.step("over HTTP, the agent tool", async () => {
    await withHttpServer(async (url) => {
      const ran = await cli(
        "call",
        "getting-started",
        '{"prompt":"Where is 1234?"}',
        url.href,
      );
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(ran.stdout, "Order 1234 shipped and is on its way.\n");
    });
  });
  await t.step("a tool error prints its text and exits 1", async () => {
    const ran = await cli(
      "call",
      "lookup_order",
      "{}",
      "--",
      ...SERVER_COMMAND,
    );
    assert.equal(ran.code, ExitCode.toolError);
    assert.equal(
      ran.stdout,
      'INVALID_INPUT: tool "lookup_order": missing required field "order_id"\n',
    );
  });
  await t.step("an unknown tool names the ones there are, exit 2", async () => {
    const ran = await cli("call", "nope");
    assert.equal(ran.code, ExitCode.failure);
    assert.equal(ran.stdout, "");
    assert.equal(
      withoutProgress(ran.stderr),
      'weft-mcp: examples/server.ts has no tool named "nope" (its tools: getting-started, lookup_order)\n',
    );
  });
});

// The server command gets only the inherited few variables, plus --env.
async function cliWithEnv(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...CLI, ...args],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = new TextDecoder();
  return {
    code: out.code,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
  };
}

const FIXTURE = [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  "tests/fixtures/stdio_server.ts",
];

Deno.test("call -- <command> with --env: NAME=VALUE is set, NAME passes ours on, nothing else of ours reaches the server", async () => {
  const ran = await cliWithEnv(
    { WEFT_TEST_PASSED: "from the shell", WEFT_TEST_KEPT: "not passed" },
    "call",
    "env",
    "--env",
    "WEFT_TEST_SET=a=b",
    "--env",
    "WEFT_TEST_PASSED",
    "--",
    ...FIXTURE,
  );
  assert.equal(ran.code, ExitCode.ok, ran.stderr);
  const env = JSON.parse(ran.stdout) as Record<string, string>;
  assert.equal(env.WEFT_TEST_SET, "a=b");
  assert.equal(env.WEFT_TEST_PASSED, "from the shell");
  assert.equal(env.WEFT_TEST_KEPT, undefined);
});

Deno.test("--env NAME that is not set here is refused before anything starts, exit 64", async () => {
  const ran = await cliWithEnv(
    {},
    "call",
    "env",
    "--env",
    "WEFT_TEST_MISSING",
    "--",
    ...FIXTURE,
  );
  assert.equal(ran.code, ExitCode.usage);
  assert.equal(
    ran.stderr,
    "weft-mcp: --env WEFT_TEST_MISSING: not set here, so there is nothing to pass on (set it, or give --env WEFT_TEST_MISSING=<value>)\n",
  );
  assert.equal(ran.stdout, "");
});
