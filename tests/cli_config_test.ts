// `weft-mcp inspect --config <file>` and `call <server>.<tool> --config <file>`:
// every server of an mcpServers file, as the model sees its tools, failures named.

import assert from "node:assert/strict";
import { ExitCode, parseCommandLine, runCli, UsageError } from "../cli.ts";
import { fixtureServer } from "./fixtures/npm_servers.ts";
import { withoutEra } from "./_helpers/cli.ts";

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function runWith(
  config: unknown,
  ...args: string[]
): Promise<Captured & { path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "weft-cli-config-" });
  const path = `${dir}/mcp.json`;
  await Deno.writeTextFile(path, JSON.stringify(config));
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await runCli([...args, "--config", path], {
      output: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    });
    return { code, stdout: out.join(""), stderr: err.join(""), path };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// The fixture server's first stderr line (`pid <n>`), as the CLI routes it:
// to the caller's stderr, prefixed with the server's name.
const PID_LINE = /^\[fx\] pid \d+\n/m;

function withoutPid(stderr: string): string {
  return stderr.replace(new RegExp(PID_LINE.source, "gm"), "");
}

const CONFIG = {
  mcpServers: {
    fx: fixtureServer(),
    ghost: { command: "weft-no-such-server" },
  },
};

Deno.test("parseCommandLine takes --config as the target, alone", () => {
  const cmd = parseCommandLine(["inspect", "--config", "mcp.json"]);
  assert.deepEqual(cmd, {
    kind: "inspect",
    target: { kind: "config", path: "mcp.json" },
    timeout: 30_000,
    env: [],
  });
  const call = parseCommandLine(["call", "fx.echo", "{}", "--config=m.json"]);
  assert.ok(call.kind === "call" && call.tool === "fx.echo");
  assert.deepEqual(call.target, { kind: "config", path: "m.json" });
  assert.throws(
    () => parseCommandLine(["inspect", "--config", "m.json", "--", "x"]),
    UsageError,
  );
  assert.throws(() => parseCommandLine(["inspect", "--config"]), UsageError);
});

Deno.test("inspect --config lists every server's tools as the model sees them, failures named, exit 2", async () => {
  const ran = await runWith(CONFIG, "inspect");
  assert.equal(ran.code, ExitCode.failure, ran.stderr);
  const lines = withoutEra(ran.stdout).split("\n");
  assert.equal(
    lines[0],
    `${ran.path}: 2 servers, 1 connected, 1 failed, 9 tools`,
  );
  assert.match(ran.stdout, /^== fx \(fixture 1\.0\.0, (modern|legacy)\):/m);
  assert.equal(lines[2], "== fx (fixture 1.0.0): 9 tools, 0 skipped");
  assert.equal(lines[4], "fx_echo");
  assert.equal(
    lines[5],
    "  runs: sequential: the server did not mark it readOnlyHint",
  );
  assert.ok(
    ran.stdout.endsWith(
      '\n== ghost: failed\n  server "ghost" (weft-no-such-server): spawn failed: command not found: weft-no-such-server\n',
    ),
    ran.stdout,
  );
});

Deno.test("inspect --config with every server up exits 0", async () => {
  const ran = await runWith({ mcpServers: { fx: fixtureServer() } }, "inspect");
  assert.equal(ran.code, ExitCode.ok, ran.stderr);
  assert.ok(ran.stdout.includes("\nfx_pid\n"));
  // A server's stderr reaches the caller's output, not this process's.
  assert.match(ran.stderr, /^\[fx\] pid \d+\n$/);
});

Deno.test("call <server>.<tool> --config calls it; the prefixed name works too", async () => {
  const ran = await runWith(CONFIG, "call", "fx.echo", '{"a":1}');
  assert.equal(ran.code, ExitCode.ok, ran.stderr);
  assert.equal(ran.stdout, '{"a":1}\n');
  const prefixed = await runWith(CONFIG, "call", "fx_echo", '{"b":2}');
  assert.equal(prefixed.code, ExitCode.ok, prefixed.stderr);
  assert.equal(prefixed.stdout, '{"b":2}\n');
  const failing = await runWith(CONFIG, "call", "fx.fail");
  assert.equal(failing.code, ExitCode.toolError);
  assert.equal(
    failing.stdout,
    "mcp: MCP error -32603: tool failed on purpose\n",
  );
});

Deno.test("call --config on a failed server or an unknown tool says which, exit 2", async () => {
  const ghost = await runWith(CONFIG, "call", "ghost.anything");
  assert.equal(ghost.code, ExitCode.failure);
  assert.equal(
    withoutPid(ghost.stderr),
    'weft-mcp: server "ghost" (weft-no-such-server): spawn failed: command not found: weft-no-such-server\n',
  );
  const unknown = await runWith(CONFIG, "call", "fx.nope");
  assert.equal(unknown.code, ExitCode.failure);
  assert.match(
    withoutPid(unknown.stderr),
    /^weft-mcp: server "fx" has no tool named "fx\.nope" \(its tools: fx_echo, fx_big, .*\)\n$/,
  );
});

Deno.test("a wrong config file is refused naming the file, the server and the field", async () => {
  const ran = await runWith(
    { mcpServers: { a: { command: "x", args: "y" } } },
    "inspect",
  );
  assert.equal(ran.code, ExitCode.failure);
  assert.equal(
    ran.stderr,
    `weft-mcp: ${ran.path}: mcpServers "a": "args" must be an array of strings\n`,
  );
  const out: string[] = [];
  const code = await runCli(["inspect", "--config", "/nonexistent/mcp.json"], {
    output: { stdout: (t) => out.push(t), stderr: (t) => out.push(t) },
  });
  assert.equal(code, ExitCode.failure);
  assert.match(
    out.join(""),
    /^weft-mcp: cannot read \/nonexistent\/mcp\.json: /,
  );
});
