// connectServers keeps its tools live: list_changed refreshes, a failed
// refresh keeps the last good list, a server that dies is reconnected on the
// next call, one that keeps failing is given up and reported.

import assert from "node:assert/strict";
import { Agent, connectServers, type ToolDef } from "../mod.ts";
import type { ToolResultPart } from "../core.ts";
import { McpTransportError } from "../bridge.ts";
import { ServerConnectError, ServerExitError } from "../runtime.ts";
import { ReconnectLimitError } from "../servers.ts";
import { callTools, say, script } from "../testing.ts";
import { reconnectDelay } from "../src/servers/_backoff.ts";
import { fixtureServer } from "./fixtures/npm_servers.ts";
import {
  childEnv,
  fixtureArgs,
  processGone,
  waitUntil,
} from "./fixtures/runtime_server_helpers.ts";

const GROWING = new URL("./fixtures/growing_server.ts", import.meta.url)
  .pathname;

function growing() {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", GROWING],
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

function toolResults(messages: readonly { content: readonly unknown[] }[]) {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart =>
      (p as { type: string }).type === "tool_result"
    )
  );
}

Deno.test("list_changed: a server adds a tool during a run and the next step sees it", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ g: growing() }, {
    onError: (e) => errors.push(e),
  });
  assert.equal(servers.error, undefined);
  assert.deepEqual(servers.tools.map((t) => t.name), [
    "g_grow",
    "g_break",
    "g_pid",
  ]);
  const model = script(
    callTools({ name: "g_grow" }),
    callTools({ name: "g_extra_1" }),
    say("done"),
  );
  const agent = new Agent(model, { toolSource: servers.toolSource });
  const result = await agent.generate("grow", {
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(result.text, "done");
  const [first, second] = model.requests();
  assert.ok(!first.tools.some((t) => t.name === "g_extra_1"));
  assert.ok(second.tools.some((t) => t.name === "g_extra_1"));
  assert.deepEqual(
    toolResults(result.messages).map((p) => [p.content, p.isError]),
    [["grown 1", false], ["extra 1", false]],
  );
  assert.deepEqual(errors, []);
});

Deno.test("a failed refresh keeps the last good list and reports why", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ g: growing() }, {
    onError: (e) => errors.push(e),
  });
  await byName(servers.tools, "g_grow").invoke("{}", deadline());
  const before = servers.tools.map((t) => t.name);
  assert.deepEqual(before, ["g_grow", "g_break", "g_pid", "g_extra_1"]);
  assert.equal(
    await byName(servers.tools, "g_break").invoke("{}", deadline()),
    "broken",
  );
  assert.deepEqual(servers.tools.map((t) => t.name), before);
  assert.equal(errors.length, 1, errors.map((e) => e.message).join("; "));
  const error = errors[0];
  assert.ok(error instanceof ServerConnectError);
  assert.equal(error.server, "g");
  assert.equal(error.phase, "list");
  assert.match(
    error.message,
    /^server "g" \(.*\): list failed: .*the listing is broken on purpose/,
  );
  // The kept tools still work.
  assert.equal(
    await byName(servers.tools, "g_extra_1").invoke("{}", deadline()),
    "extra 1",
  );
});

Deno.test("reconnect: a server killed mid-run fails the call in flight with a named error, the next call reconnects, the run goes on", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ fx: fixtureServer() }, {
    onError: (e) => errors.push(e),
    reconnect: { initialDelay: 20 },
    stderr: "ignore",
  });
  const oldPid = Number(
    await byName(servers.tools, "fx_pid").invoke("{}", deadline()),
  );
  const model = script(
    callTools({ name: "fx_wait", args: { ms: 60_000 } }),
    callTools({ name: "fx_pid" }),
    say("done"),
  );
  const agent = new Agent(model, { toolSource: servers.toolSource });
  const result = await agent.generate("wait, then pid", {
    signal: AbortSignal.timeout(20_000),
    onEvent: (event) => {
      if (event.type === "tool_start" && event.name === "fx_wait") {
        setTimeout(() => Deno.kill(oldPid, "SIGKILL"), 200);
      }
    },
  });
  assert.equal(result.text, "done");
  const [died, after] = toolResults(result.messages);
  assert.equal(died.isError, true);
  assert.equal(
    died.content,
    `mcp: server "fx" (${Deno.execPath()} ${
      fixtureArgs().join(" ")
    }): call failed: server process was killed by SIGKILL`,
  );
  assert.equal(after.isError, false);
  const newPid = Number(after.content);
  assert.ok(newPid > 0 && newPid !== oldPid, `${oldPid} -> ${after.content}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
});

Deno.test("reconnect: the in-flight error is a ServerConnectError in phase call, its cause the exit", async () => {
  await using servers = await connectServers({ fx: fixtureServer() }, {
    stderr: "ignore",
    reconnect: false,
  });
  const pid = Number(
    await byName(servers.tools, "fx_pid").invoke("{}", deadline()),
  );
  const call = byName(servers.tools, "fx_wait").invoke(
    '{"ms":60000}',
    deadline(),
  );
  setTimeout(() => Deno.kill(pid, "SIGKILL"), 200);
  const error = await call.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof McpTransportError, String(error));
  const named = error.cause;
  assert.ok(named instanceof ServerConnectError);
  assert.equal(named.server, "fx");
  assert.equal(named.phase, "call");
  assert.ok(named.cause instanceof ServerExitError);
  // reconnect: false — the next call fails too, naming the lost server.
  const next = await byName(servers.tools, "fx_pid").invoke("{}", deadline())
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(next instanceof McpTransportError);
  assert.ok(next.cause instanceof ServerConnectError);
  assert.equal(next.cause.phase, "call");
  assert.deepEqual(servers.servers().map((s) => s.state), ["lost"]);
});

Deno.test("reconnect: a server that keeps failing is given up after maxAttempts and reported, not retried forever", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-reconnect-" });
  const errors: Error[] = [];
  // Starts once; every later start exits with code 3 before the handshake.
  const once = [
    `if [ -e "${dir}/started" ]; then exit 3; fi`,
    `touch "${dir}/started"`,
    `exec "${Deno.execPath()}" ${fixtureArgs().join(" ")}`,
  ].join("; ");
  try {
    await using servers = await connectServers({
      flaky: { command: "sh", args: ["-c", once], env: childEnv() },
    }, {
      onError: (e) => errors.push(e),
      reconnect: { maxAttempts: 2, initialDelay: 10 },
      stderr: "ignore",
    });
    const pid = Number(
      await byName(servers.tools, "flaky_pid").invoke("{}", deadline()),
    );
    Deno.kill(pid, "SIGKILL");
    // Once the loss is seen, the next call reconnects instead of trying the dead one.
    assert.ok(
      await waitUntil(() => servers.servers()[0].state === "lost", 10_000),
    );
    const first = await byName(servers.tools, "flaky_pid").invoke(
      "{}",
      deadline(),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(first instanceof McpTransportError, String(first));
    const gaveUp = first.cause;
    assert.ok(gaveUp instanceof ServerConnectError);
    assert.equal(gaveUp.phase, "call");
    assert.ok(gaveUp.cause instanceof ReconnectLimitError);
    assert.equal(gaveUp.cause.attempts, 2);
    // On a loaded machine the exit status may come after the 250 ms the
    // runtime waits for it once stdout closed: then the cause is the close.
    assert.match(
      gaveUp.message,
      /^server "flaky" \(sh -c .*\): call failed: gave up after 2 reconnect attempt\(s\): server "flaky" .*: initialize failed: (server process exited with code 3|server closed its stdout)$/,
    );
    // Each failed attempt and the give-up were reported.
    assert.deepEqual(
      errors.map((e) => e instanceof ServerConnectError ? e.phase : e.name),
      ["initialize", "initialize", "call"],
    );
    // A later call fails at once with the same report; nothing is retried.
    const again = await byName(servers.tools, "flaky_pid").invoke(
      "{}",
      deadline(),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(again instanceof McpTransportError);
    assert.equal(again.cause, gaveUp);
    assert.equal(errors.length, 3);
    assert.deepEqual(servers.servers().map((s) => s.state), ["failed"]);
    assert.equal(servers.servers()[0].error, gaveUp);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reconnect: a server that comes back but dies on every call is given up too", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ fx: fixtureServer() }, {
    onError: (e) => errors.push(e),
    reconnect: { maxAttempts: 2, initialDelay: 10 },
    stderr: "ignore",
  });
  const exit = byName(servers.tools, "fx_exit");
  const causes: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    const error = await exit.invoke('{"code":9,"now":true}', deadline()).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof McpTransportError, String(error));
    const named = error.cause;
    assert.ok(named instanceof ServerConnectError);
    assert.equal(named.phase, "call");
    causes.push(named.cause);
    await waitUntil(() => servers.servers()[0].state !== "connected", 10_000);
  }
  // Three calls died with the server (the first, then one per reconnect);
  // the fourth found it given up.
  assert.ok(causes.slice(0, 3).every((c) => c instanceof ServerExitError));
  assert.ok(causes[3] instanceof ReconnectLimitError);
  assert.deepEqual(servers.servers().map((s) => s.state), ["failed"]);
  assert.equal(
    errors.filter((e) =>
      e instanceof ServerConnectError && e.cause instanceof ReconnectLimitError
    ).length,
    1,
  );
});

Deno.test("reconnect: a call that gets through resets the count, so a server lost again and again between good calls is never given up", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ fx: fixtureServer() }, {
    onError: (e) => errors.push(e),
    // One reconnect in a row allowed: only the reset makes a second one possible.
    reconnect: { maxAttempts: 1, initialDelay: 10 },
    stderr: "ignore",
  });
  const pid = byName(servers.tools, "fx_pid");
  const pids = [Number(await pid.invoke("{}", deadline()))];
  for (let round = 0; round < 3; round++) {
    Deno.kill(pids.at(-1)!, "SIGKILL");
    assert.ok(
      await waitUntil(() => servers.servers()[0].state === "lost", 10_000),
      `round ${round}: the loss was not seen`,
    );
    // The call reconnects (one attempt), then gets through.
    pids.push(Number(await pid.invoke("{}", deadline())));
  }
  assert.equal(new Set(pids).size, 4, pids.join(" "));
  assert.deepEqual(errors, []);
  assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
});

Deno.test("reconnect: the lost connection is closed, so what the dead server left in its process group is ended", async () => {
  const errors: Error[] = [];
  await using servers = await connectServers({ fx: fixtureServer() }, {
    onError: (e) => errors.push(e),
    reconnect: { initialDelay: 10 },
    stderr: "ignore",
  });
  const pid = byName(servers.tools, "fx_pid");
  const oldPid = Number(await pid.invoke("{}", deadline()));
  // A grandchild in the server's group, then the server dies alone.
  const sleeper = Number(
    await byName(servers.tools, "fx_spawn").invoke("{}", deadline()),
  );
  try {
    assert.ok(sleeper > 0 && !processGone(sleeper));
    Deno.kill(oldPid, "SIGKILL");
    assert.ok(
      await waitUntil(() => servers.servers()[0].state === "lost", 10_000),
    );
    assert.ok(!processGone(sleeper), "nothing ends the group before a call");
    // The next call reconnects; closing the lost connection ends its group.
    const newPid = Number(await pid.invoke("{}", deadline()));
    assert.ok(newPid > 0 && newPid !== oldPid);
    assert.ok(
      await waitUntil(() => processGone(sleeper), 10_000),
      `${sleeper}, left by the lost server ${oldPid}, still runs`,
    );
    assert.deepEqual(errors, []);
  } finally {
    try {
      Deno.kill(sleeper, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
});

Deno.test("the reconnect backoff doubles from initialDelay up to maxDelay, jittered down to half", () => {
  const policy = { maxAttempts: 8, initialDelay: 250, maxDelay: 10_000 };
  const low = (n: number) => reconnectDelay(n, policy, () => 0);
  const high = (n: number) => reconnectDelay(n, policy, () => 0.999999);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map(low),
    [125, 250, 500, 1000, 2000, 4000, 5000],
  );
  assert.deepEqual(
    [1, 2, 3, 6, 7].map((n) => Math.round(high(n))),
    [250, 500, 1000, 8000, 10_000],
  );
  for (let n = 1; n < 12; n++) {
    const d = reconnectDelay(n, policy);
    assert.ok(d >= low(n) && d <= 10_000, `attempt ${n}: ${d}`);
  }
});
