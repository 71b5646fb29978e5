// connectServers reports what it loses: a server that failed at start is
// started again in the background under the reconnect policy (its state and
// onError say so), and a tool name a server loses to another after a
// refresh is reported, not dropped silently.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../mod.ts";
import {
  CommandNotFoundError,
  ServerConnectError,
  ServerExitError,
} from "../runtime.ts";
import {
  ReconnectLimitError,
  ServersError,
  ToolNameTakenError,
} from "../servers.ts";
import {
  childEnv,
  fixtureArgs,
  waitUntil,
} from "./fixtures/runtime_server_helpers.ts";
import { quietFor } from "./_helpers/wait.ts";

const GROWING = new URL("./fixtures/growing_server.ts", import.meta.url)
  .pathname;

function growing(...names: string[]) {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", GROWING, ...names],
    env: childEnv(),
  };
}

// Each call fails within seconds if the server or its reconnect hangs.
function deadline(): { signal: AbortSignal } {
  return { signal: AbortSignal.timeout(10_000) };
}

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

// A stdio entry whose first `failures` starts exit with code 3 before the
// handshake; every later one runs the fixture server.
function failsFirst(dir: string, failures: number) {
  const script = [
    `n=$(cat "${dir}/starts" 2>/dev/null || echo 0)`,
    `echo $((n + 1)) > "${dir}/starts"`,
    `if [ "$n" -lt ${failures} ]; then exit 3; fi`,
    `exec "${Deno.execPath()}" ${fixtureArgs().join(" ")}`,
  ].join("; ");
  return { command: "sh", args: ["-c", script], env: childEnv() };
}

Deno.test("a server that failed at start is retried in the background: retrying, each failure reported, its tools join the list", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-retry-" });
  const errors: Error[] = [];
  try {
    await using servers = await connectServers({
      late: failsFirst(dir, 2),
    }, {
      onError: (e) => errors.push(e),
      reconnect: { initialDelay: 20, maxDelay: 40 },
      stderr: "ignore",
      signal: AbortSignal.timeout(20_000),
    });
    // The start failed: named in error, and the server is being retried.
    const failure = servers.error?.failures[0];
    assert.ok(failure instanceof ServerConnectError);
    assert.equal(failure.server, "late");
    assert.equal(failure.phase, "initialize");
    assert.deepEqual(servers.tools, []);
    const [status] = servers.servers();
    assert.equal(status.state, "retrying");
    assert.equal(status.error, failure);
    // The second start fails (reported), the third comes up.
    assert.ok(
      await waitUntil(() => servers.servers()[0].state === "connected", 15_000),
      `still ${servers.servers()[0].state}: ${
        errors.map((e) => e.message).join("; ")
      }`,
    );
    assert.equal(errors.length, 1, errors.map((e) => e.message).join("; "));
    assert.ok(errors[0] instanceof ServerConnectError);
    assert.equal(errors[0].server, "late");
    assert.equal(errors[0].phase, "initialize");
    assert.equal(await Deno.readTextFile(`${dir}/starts`), "3\n");
    // Up now: its tools are in the list and work; nothing is reported.
    const pid = Number(
      await byName(servers.tools, "late_pid").invoke("{}", deadline()),
    );
    assert.ok(pid > 0);
    assert.equal(servers.error, undefined);
    const [up] = servers.servers();
    assert.equal(up.error, undefined);
    assert.ok(up.tools.some((t) => t.name === "late_pid"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server that keeps failing at start is given up after maxAttempts, reported once, never retried again", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({
    ghost: { command: "weft-no-such-server", args: ["--stdio"] },
  }, {
    onError: (e) => errors.push(e),
    reconnect: { maxAttempts: 2, initialDelay: 10, maxDelay: 20 },
  });
  assert.equal(servers.servers()[0].state, "retrying");
  assert.ok(
    await waitUntil(() => servers.servers()[0].state === "failed", 10_000),
  );
  // Each retry's failure, then the give-up.
  assert.deepEqual(
    errors.map((e) =>
      e instanceof ServerConnectError ? [e.phase, e.cause?.constructor] : e
    ),
    [
      ["spawn", CommandNotFoundError],
      ["spawn", CommandNotFoundError],
      ["spawn", ReconnectLimitError],
    ],
  );
  const gaveUp = errors[2] as ServerConnectError;
  assert.equal(
    gaveUp.message,
    'server "ghost" (weft-no-such-server --stdio): spawn failed: gave up after 2 reconnect attempt(s): command not found: weft-no-such-server',
  );
  assert.equal((gaveUp.cause as ReconnectLimitError).attempts, 2);
  const [status] = servers.servers();
  assert.equal(status.error, gaveUp);
  assert.deepEqual(servers.error?.failures, [gaveUp]);
  // Nothing more is tried: the count stays where it is.
  await quietFor(100, "no retry after the give-up (5x maxDelay)");
  assert.equal(errors.length, 3);
});

Deno.test("reconnect: false — a server that failed at start stays failed, nothing retried or reported", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({
    ghost: { command: "weft-no-such-server" },
  }, { onError: (e) => errors.push(e), reconnect: false });
  const [status] = servers.servers();
  assert.equal(status.state, "failed");
  assert.ok(status.error instanceof ServerConnectError);
  assert.equal(status.error.phase, "spawn");
  assert.equal(servers.error?.failures[0], status.error);
  await quietFor(100, "reconnect: false starts no retry");
  assert.deepEqual(errors, []);
});

Deno.test("close() during a start retry's wait ends it at once: nothing more is started or reported", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-retry-" });
  const errors: Error[] = [];
  try {
    const servers = await connectServers({ late: failsFirst(dir, 1) }, {
      onError: (e) => errors.push(e),
      reconnect: { initialDelay: 60_000, maxDelay: 60_000 },
      stderr: "ignore",
    });
    assert.equal(servers.servers()[0].state, "retrying");
    // The retry waits (up to a minute); close must not.
    await servers.close();
    assert.equal(servers.servers()[0].state, "closed");
    assert.equal(await Deno.readTextFile(`${dir}/starts`), "1\n");
    assert.deepEqual(errors, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tool name a server loses to another after a refresh is reported through onError and error, once", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({
    // a lists `b_extra_1` from the start: the name b's first grown tool gets.
    a: { ...growing("b_extra_1"), prefix: "" },
    b: { ...growing(), prefix: "b_" },
  }, { onError: (e) => errors.push(e) });
  assert.equal(servers.error, undefined, servers.error?.message);
  // b grows extra_1; the call returns once b's new list is in.
  assert.equal(
    await byName(servers.tools, "b_grow").invoke("{}", deadline()),
    "grown 1",
  );
  assert.equal(errors.length, 1, errors.map((e) => e.message).join("; "));
  const report = errors[0];
  assert.ok(report instanceof ServersError);
  assert.equal(
    report.message,
    'mcp: 1 tool(s) not imported: server "b", tool "extra_1": name "b_extra_1" is already server "a"\'s tool',
  );
  const [lost] = report.skipped;
  assert.equal(lost.server, "b");
  assert.ok(lost.error instanceof ToolNameTakenError);
  assert.equal(lost.error.owner, "a");
  // The set's error and b's status say it too; a keeps the name.
  const now = servers.error as ServersError | undefined; // narrowed above
  assert.deepEqual(
    now?.skipped.map((s) => [s.server, s.name]),
    [["b", "extra_1"]],
  );
  const [a, b] = servers.servers();
  assert.ok(a.tools.some((t) => t.name === "b_extra_1"));
  assert.ok(!b.tools.some((t) => t.name === "b_extra_1"));
  assert.deepEqual(b.skipped?.map((s) => s.name), ["extra_1"]);
  assert.equal(a.skipped, undefined);
  // Another refresh of b: the same collision is not news.
  assert.equal(
    await byName(servers.tools, "b_grow").invoke("{}", deadline()),
    "grown 2",
  );
  assert.ok(servers.tools.some((t) => t.name === "b_extra_2"));
  assert.equal(errors.length, 1, errors.map((e) => e.message).join("; "));
});

Deno.test("a server that exits after a start retry brought it up is reconnected like any other", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-retry-" });
  try {
    await using servers = await connectServers({ late: failsFirst(dir, 1) }, {
      onError: () => {},
      reconnect: { initialDelay: 20, maxDelay: 40 },
      stderr: "ignore",
    });
    assert.ok(
      await waitUntil(() => servers.servers()[0].state === "connected", 15_000),
    );
    const pid = Number(
      await byName(servers.tools, "late_pid").invoke("{}", deadline()),
    );
    const exit = await byName(servers.tools, "late_exit").invoke(
      '{"code":9,"now":true}',
      deadline(),
    ).then(() => undefined, (e: unknown) => e);
    assert.ok(
      (exit as { cause?: { cause?: unknown } })?.cause
        ?.cause instanceof ServerExitError,
      String(exit),
    );
    const again = Number(
      await byName(servers.tools, "late_pid").invoke("{}", deadline()),
    );
    assert.ok(again > 0 && again !== pid);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
