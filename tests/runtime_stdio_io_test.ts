// connectStdio over a real child process: stderr, environment, malformed lines, odd servers.

import assert from "node:assert/strict";
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
import {
  CommandNotFoundError,
  ConnectionLostError,
  InitializeTimeoutError,
  LineTooLongError,
  MalformedMessageError,
  ServerConnectError,
} from "../src/runtime/errors.ts";
import { serverNameOf } from "../src/runtime/process/command.ts";
import {
  callText,
  childEnv,
  fixtureArgs,
  processGone,
  startFixture,
  waitUntil,
} from "./fixtures/runtime_server_helpers.ts";

Deno.test("the server's stderr is forwarded line by line; console.log does not reach stdout", async () => {
  const { client, stderr } = await startFixture();
  try {
    assert.equal(
      await callText(client, "stderr", {
        line: "hello\nfrom stderr",
        log: "logged line",
      }),
      "logged",
    );
    assert.ok(
      await waitUntil(() => stderr.includes("logged line")),
      stderr.join("\n"),
    );
    assert.ok(
      stderr.includes("hello") && stderr.includes("from stderr"),
      stderr.join("\n"),
    );
  } finally {
    await client.close();
  }
});

Deno.test("the server gets only the default inherited variables plus env", async () => {
  Deno.env.set("WEFT_RUNTIME_SECRET", "must-not-leak");
  try {
    const { client } = await startFixture("serve", {
      env: { WEFT_GIVEN: "yes" },
    });
    try {
      const env = JSON.parse(await callText(client, "env")) as Record<
        string,
        string
      >;
      assert.equal(env.WEFT_GIVEN, "yes");
      assert.equal(env.WEFT_RUNTIME_SECRET, undefined);
      assert.equal(env.PATH, Deno.env.get("PATH"));
      const allowed = new Set([
        "HOME",
        "LOGNAME",
        "PATH",
        "SHELL",
        "TERM",
        "USER",
      ]);
      for (const name of Object.keys(childEnv({ WEFT_GIVEN: "yes" }))) {
        allowed.add(name);
      }
      for (const name of Object.keys(env)) {
        assert.ok(allowed.has(name), `inherited ${name}`);
      }
    } finally {
      await client.close();
    }
  } finally {
    Deno.env.delete("WEFT_RUNTIME_SECRET");
  }
});

Deno.test("malformed and over-long server lines are reported and the connection goes on", async () => {
  const errors: Error[] = [];
  const { client } = await startFixture("garbage", {
    maxLineBytes: 1024,
    onerror: (error) => errors.push(error),
  });
  try {
    // The garbage came before the handshake; the handshake and calls still work.
    assert.equal(await callText(client, "echo", { ok: true }), '{"ok":true}');
    const malformed = errors.filter((e) => e instanceof MalformedMessageError);
    assert.equal(malformed.length, 1, errors.map((e) => e.message).join("; "));
    assert.equal((malformed[0] as MalformedMessageError).kind, "parse");
    const tooLong = errors.filter((e) => e instanceof LineTooLongError);
    assert.equal(tooLong.length, 1);
    assert.equal(
      tooLong[0].message,
      "line exceeds the 1024-byte limit (maxLineBytes)",
    );
  } finally {
    await client.close();
  }
});

Deno.test("a missing command rejects with the spawn phase, command not found, and no setsid", async () => {
  const error = await connectStdio("/nonexistent/weft-no-such-server", {
    stderr: "ignore",
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ServerConnectError, String(error));
  assert.equal(
    error.message,
    'server "weft-no-such-server" (/nonexistent/weft-no-such-server): spawn failed: command not found: /nonexistent/weft-no-such-server',
  );
  assert.equal(error.phase, "spawn");
  assert.ok(error.cause instanceof CommandNotFoundError);
  const bare = await connectStdio("weft-no-such-server", {
    args: ["--flag", "a b"],
    name: "ghost",
    stderr: "ignore",
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(bare instanceof ServerConnectError);
  assert.equal(
    bare.message,
    "server \"ghost\" (weft-no-such-server --flag 'a b'): spawn failed: command not found: weft-no-such-server",
  );
  assert.ok(!bare.message.includes("setsid"));
});

Deno.test("a server that closes stdout but keeps running fails the handshake with ConnectionLostError", async () => {
  // `sh` closes its stdout and idles: no exit status arrives in time.
  const client = connectStdio("sh", {
    args: ["-c", "exec 1>&-; sleep 30"],
    stderr: "ignore",
    killGrace: 200,
  });
  await assert.rejects(client, (error: unknown) => {
    assert.ok(error instanceof ServerConnectError);
    assert.equal(error.phase, "initialize");
    assert.ok(error.cause instanceof ConnectionLostError);
    assert.equal(error.cause.message, "server closed its stdout");
    return true;
  });
});

Deno.test("by default the server's stderr reaches ours line by line, prefixed with its name", async () => {
  // A separate deno runs connectStdio with the default stderr; we read its stderr.
  const script = `
    import { connectStdio } from ${
    JSON.stringify(
      new URL("../src/runtime/process/connect_stdio.ts", import.meta.url).href,
    )
  };
    await connectStdio("sh", { args: ["-c", "echo first >&2; echo second >&2; exit 4"] }).catch(() => {});
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    env: childEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(stderr, "[sh] first\n[sh] second\n");
  assert.equal(new TextDecoder().decode(out.stdout), "");
});

Deno.test("a line a server writes to stdout that is not JSON-RPC is reported on stderr with its first bytes and a hint", async () => {
  const { client, stderr } = await startFixture("garbage", {
    maxLineBytes: 1024,
    onerror: () => {},
  });
  try {
    assert.equal(await callText(client, "echo", { ok: true }), '{"ok":true}');
    const reports = stderr.filter((line) => line.startsWith("stdout line"));
    assert.deepEqual(reports, [
      'stdout line is not JSON-RPC, ignored: "this is not json" (a stdio server must write only JSON-RPC messages to stdout; log to stderr instead)',
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("a silent server fails initialize within initializeTimeout, named, leaving no process", async () => {
  // A marker argument (the fixture ignores it) finds the process in /proc.
  const marker = `weft-silent-${crypto.randomUUID()}`;
  const args = [...fixtureArgs("silent"), marker];
  const error = await connectStdio(Deno.execPath(), {
    args,
    env: childEnv(),
    name: "silent",
    initializeTimeout: 300,
    stderr: "ignore",
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ServerConnectError, String(error));
  assert.equal(error.phase, "initialize");
  assert.ok(error.cause instanceof InitializeTimeoutError);
  assert.equal(
    error.message,
    `server "silent" (${Deno.execPath()} ${
      args.join(" ")
    }): initialize failed: no answer to initialize within 300 ms (initializeTimeout)`,
  );
  assert.equal(await processWithArg(marker), false);
});

/** Whether a live process has `needle` as one of its arguments. */
async function processWithArg(needle: string): Promise<boolean> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const words = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`))
        .split("\0");
      if (words.includes(needle) && !processGone(Number(entry.name))) {
        return true;
      }
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

Deno.test("a server's default name is the package or script its command runs, not the launcher", () => {
  const cases: [string, string[], string][] = [
    [
      "npx",
      ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      "server-filesystem",
    ],
    [
      "npx",
      ["-y", "@modelcontextprotocol/server-memory@2026.8.31"],
      "server-memory",
    ],
    ["/usr/bin/deno", ["run", "-A", "npm:@scope/pkg@1.2.3"], "pkg"],
    ["deno", [
      "run",
      "--allow-read",
      "--config",
      "deno.json",
      "jsr:@me/srv@1/stdio",
    ], "srv"],
    ["deno", ["run", "-A", "./servers/weather.ts"], "weather"],
    ["node", ["build/index.js"], "index"],
    ["uvx", ["mcp-server-fetch"], "mcp-server-fetch"],
    ["python", ["-m", "mcp_server_git"], "mcp_server_git"],
    ["/opt/bin/my-server", ["--port", "1"], "my-server"],
    ["npx", [], "npx"],
  ];
  for (const [command, args, name] of cases) {
    assert.equal(
      serverNameOf(command, args),
      name,
      `${command} ${args.join(" ")}`,
    );
  }
});
