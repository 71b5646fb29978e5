/**
 * `weft-mcp login` and `--kv` on the command line (the flow itself runs
 * against oidc-provider in tests/interop/oauth_client_oidc_test.ts).
 */

import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../cli.ts";

Deno.test("login: --config, one server, --kv and --port; five minutes unless --timeout", () => {
  assert.deepEqual(
    parseCommandLine(["login", "--config", "s.json", "--kv", "t.kv", "linear"]),
    {
      kind: "login",
      config: "s.json",
      server: "linear",
      kv: "t.kv",
      port: 8976,
      timeout: 300_000,
      env: [],
    },
  );
  const cmd = parseCommandLine([
    "login",
    "--config=s.json",
    "--port=9000",
    "--timeout",
    "1000",
    "x",
  ]);
  assert.ok(cmd.kind === "login" && cmd.port === 9000 && cmd.timeout === 1000);
  assert.ok(cmd.kind === "login" && cmd.kv === undefined);
});

Deno.test("login: without --config or a server, or with two, is a usage error", () => {
  for (
    const argv of [
      ["login", "linear"],
      ["login", "--config", "s.json"],
      ["login", "--config", "s.json", "a", "b"],
    ]
  ) {
    assert.throws(
      () => parseCommandLine(argv),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message ===
          "weft-mcp: login needs --config <file> and one server name",
    );
  }
  assert.throws(
    () => parseCommandLine(["login", "--port", "x", "--config", "s", "a"]),
    (e: unknown) => e instanceof UsageError && /--port/.test(e.message),
  );
});

Deno.test("inspect --config --kv carries the KV file and port to the config target", () => {
  const cmd = parseCommandLine([
    "inspect",
    "--config",
    "s.json",
    "--kv",
    "t.kv",
  ]);
  assert.ok(cmd.kind === "inspect");
  assert.deepEqual(cmd.target, {
    kind: "config",
    path: "s.json",
    kv: "t.kv",
    port: 8976,
  });
});
