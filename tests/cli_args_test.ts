// `weft-mcp`'s command line: parseCommandLine and targetLabel, pinned directly.

import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../cli.ts";
import { DEFAULT_TIMEOUT_MS } from "../src/cli/args.ts";
import { targetLabel } from "../src/cli/connect.ts";

Deno.test("parseCommandLine", async (t) => {
  await t.step("no arguments inspects the bundled server", () => {
    assert.deepEqual(parseCommandLine([]), {
      kind: "inspect",
      target: { kind: "default" },
      timeout: DEFAULT_TIMEOUT_MS,
      env: [],
    });
  });
  await t.step("inspect a command after --, options before it", () => {
    assert.deepEqual(
      parseCommandLine([
        "inspect",
        "--timeout",
        "500",
        "--",
        "npx",
        "-y",
        "srv",
        "--timeout",
        "9",
      ]),
      {
        kind: "inspect",
        target: {
          kind: "command",
          command: "npx",
          args: ["-y", "srv", "--timeout", "9"],
        },
        timeout: 500,
        env: [],
      },
    );
  });
  await t.step("inspect a URL", () => {
    const cmd = parseCommandLine([
      "inspect",
      "--timeout=20",
      "http://127.0.0.1:8000/mcp",
    ]);
    assert.equal(cmd.kind, "inspect");
    assert.ok(cmd.kind === "inspect" && cmd.target.kind === "url");
    assert.equal(cmd.target.url.href, "http://127.0.0.1:8000/mcp");
    assert.equal(cmd.timeout, 20);
  });
  await t.step("call: tool, JSON (default {}), then the target", () => {
    assert.deepEqual(parseCommandLine(["call", "t"]), {
      kind: "call",
      tool: "t",
      args: "{}",
      target: { kind: "default" },
      timeout: DEFAULT_TIMEOUT_MS,
      env: [],
    });
    const cmd = parseCommandLine([
      "call",
      "t",
      '{"a":1}',
      "https://example.com/mcp",
    ]);
    assert.ok(cmd.kind === "call" && cmd.target.kind === "url");
    assert.equal(cmd.args, '{"a":1}');
    assert.equal(cmd.target.url.hostname, "example.com");
    const viaUrlOnly = parseCommandLine(["call", "t", "http://h/mcp"]);
    assert.ok(
      viaUrlOnly.kind === "call" && viaUrlOnly.target.kind === "url" &&
        viaUrlOnly.args === "{}",
    );
  });
  await t.step(
    "--env NAME=VALUE and --env NAME, in order, for a server command",
    () => {
      const cmd = parseCommandLine([
        "inspect",
        "--env",
        "GITHUB_TOKEN",
        "--env=LOG_LEVEL=debug",
        "--env",
        "EMPTY=",
        "--env",
        "URL=http://h/?a=b",
        "--",
        "npx",
        "srv",
        "--env",
        "X=1",
      ]);
      assert.deepEqual(cmd, {
        kind: "inspect",
        // The server's own `--env` after -- is its argument.
        target: {
          kind: "command",
          command: "npx",
          args: ["srv", "--env", "X=1"],
        },
        timeout: DEFAULT_TIMEOUT_MS,
        env: [
          ["GITHUB_TOKEN", undefined],
          ["LOG_LEVEL", "debug"],
          ["EMPTY", ""],
          ["URL", "http://h/?a=b"],
        ],
      });
      // The bundled server is a server command too.
      const bundled = parseCommandLine(["call", "t", "--env", "A=1"]);
      assert.ok(bundled.kind === "call");
      assert.deepEqual(bundled.env, [["A", "1"]]);
    },
  );
  await t.step("help, --help and -h", () => {
    for (
      const argv of [["help"], ["--help"], ["inspect", "-h"], [
        "call",
        "x",
        "--help",
      ]]
    ) {
      assert.deepEqual(parseCommandLine(argv), { kind: "help" });
    }
  });
  await t.step("usage errors say what was wrong", () => {
    const cases: [string[], string][] = [
      [["frobnicate"], 'weft-mcp: unknown command "frobnicate"'],
      [["inspect", "--verbose"], "weft-mcp: unknown option --verbose"],
      [
        ["inspect", "server.ts"],
        "weft-mcp: not an http(s) URL: server.ts (put a server command after --)",
      ],
      [
        ["inspect", "http://a/", "--", "x"],
        "weft-mcp: give either a URL or -- <command>, not both",
      ],
      [["inspect", "--"], "weft-mcp: -- must be followed by a command"],
      [
        ["inspect", "http://a/", "http://b/"],
        "weft-mcp: more than one target: http://a/ http://b/",
      ],
      [["call"], "weft-mcp: call needs a tool name"],
      [
        ["call", "t", "{}", "{}"],
        "weft-mcp: call takes one JSON argument, got 2",
      ],
      [
        ["--timeout", "0"],
        "weft-mcp: --timeout needs a positive number of milliseconds, got 0",
      ],
      [
        ["--timeout"],
        "weft-mcp: --timeout needs a positive number of milliseconds, got nothing",
      ],
      [["--env"], "weft-mcp: --env needs NAME=VALUE or NAME, got nothing"],
      [["--env", "=x"], 'weft-mcp: --env needs NAME=VALUE or NAME, got "=x"'],
      [
        ["inspect", "--env", "A=1", "http://h/mcp"],
        "weft-mcp: --env sets variables of a server command (-- <command>); an HTTP server has its own environment",
      ],
      [
        ["inspect", "--env", "A=1", "--config", "mcp.json"],
        'weft-mcp: --env sets variables of a server command (-- <command>); with --config, give each server an "env" in the file',
      ],
    ];
    for (const [argv, message] of cases) {
      assert.throws(() => parseCommandLine(argv), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.equal(err.message, message);
        return true;
      });
    }
  });
});

Deno.test("targetLabel quotes command words a shell would split", () => {
  assert.equal(
    targetLabel({ kind: "command", command: "sh", args: ["-c", "it's here"] }),
    `sh -c 'it'\\''s here'`,
  );
  assert.equal(
    targetLabel({ kind: "url", url: new URL("http://127.0.0.1:9/mcp") }),
    "http://127.0.0.1:9/mcp",
  );
  assert.equal(
    targetLabel({ kind: "default" }, {
      command: "deno",
      args: [],
      label: "examples/server.ts",
    }),
    "examples/server.ts",
  );
});
