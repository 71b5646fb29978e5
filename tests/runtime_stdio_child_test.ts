// connectStdio and serveStdio over a real child process (tests/fixtures/stdio_server.ts).

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isRawJson, parseLossless } from "../src/core/json.ts";
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
import { ServerExitError } from "../src/runtime/errors.ts";
import { importTools, type ToolDef } from "../mod.ts";
import { McpTransportError } from "../bridge.ts";
import { BIG_DIGITS } from "./fixtures/tool_server.ts";
import {
  callText,
  childEnv,
  fixtureArgs,
  processGone,
  processGroup,
  startFixture,
  waitUntil,
} from "./fixtures/runtime_server_helpers.ts";
import { quietFor, waitFor } from "./_helpers/wait.ts";

Deno.test("connectStdio keeps integers beyond 2^53 exact in both directions", async () => {
  const { client } = await startFixture();
  try {
    const sent =
      '{"n":12345678901234567890123,"list":[9007199254740993,-98765432109876543210],"f":1.5}';
    const result = await client.request(
      {
        method: "tools/call",
        params: {
          name: "echo",
          arguments: parseLossless(sent) as Record<string, unknown>,
        },
      },
      CallToolResultSchema,
    );
    // The server re-serialised what it received: the digits arrived.
    assert.deepEqual(result.content, [{ type: "text", text: sent }]);
    // And they came back: structuredContent holds raw digits, not doubles.
    assert.equal(JSON.stringify(result.structuredContent), sent);
    const big = await client.callTool({ name: "big", arguments: {} });
    const n = (big.structuredContent as Record<string, unknown>).n;
    assert.ok(isRawJson(n));
    assert.equal(JSON.stringify(n), BIG_DIGITS);
  } finally {
    await client.close();
  }
});

Deno.test("a server killed mid-call fails the call with ServerExitError, not after the call's own 60 s", async () => {
  const { client, pid, stderr } = await startFixture();
  try {
    const call = callText(client, "wait", { ms: 60_000 });
    await waitFor(() => stderr.includes("wait started"), "the wait call runs");
    const killedAt = Date.now();
    Deno.kill(pid, "SIGKILL");
    const error = await call.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ServerExitError, String(error));
    assert.equal(error.message, "server process was killed by SIGKILL");
    assert.equal(error.signal, "SIGKILL");
    assert.ok(
      Date.now() - killedAt < 15_000,
      `took ${Date.now() - killedAt} ms`,
    );
    // Later calls fail the same way, at once.
    await assert.rejects(callText(client, "pid"), ServerExitError);
  } finally {
    await client.close();
  }
});

Deno.test("a server that exits on its own fails pending calls with its exit code", async () => {
  const { client } = await startFixture();
  try {
    const pending = callText(client, "wait", { ms: 60_000 });
    await callText(client, "exit", { code: 3 });
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof ServerExitError);
      assert.equal(error.message, "server process exited with code 3");
      assert.equal(error.code, 3);
      return true;
    });
  } finally {
    await client.close();
  }
});

Deno.test("a server killed mid-call through importTools reads mcp: <cause> once, not after the call's own 60 s", async (t) => {
  function byName(tools: ToolDef[], name: string): ToolDef {
    const found = tools.find((tool) => tool.name === name);
    assert.ok(found !== undefined, `no imported tool ${name}`);
    return found;
  }
  async function failure(call: Promise<string>, since: () => number) {
    const error = await call.then(() => undefined, (e: unknown) => e);
    const took = Date.now() - since();
    assert.ok(error instanceof McpTransportError, String(error));
    assert.ok(error.cause instanceof ServerExitError, String(error.cause));
    assert.ok(took < 15_000, `took ${took} ms`);
    return error;
  }

  await t.step("exit code 3", async () => {
    const { client, stderr } = await startFixture();
    try {
      const { tools } = await importTools(client);
      const pending = byName(tools, "wait").invoke('{"ms":60000}');
      await waitFor(
        () => stderr.includes("wait started"),
        "the wait call runs",
      );
      assert.equal(await byName(tools, "exit").invoke('{"code":3}'), "exiting");
      const exitedAt = Date.now();
      const error = await failure(pending, () => exitedAt);
      assert.equal(error.message, "mcp: server process exited with code 3");
      assert.equal(error.code, "");
    } finally {
      await client.close();
    }
  });

  await t.step("SIGKILL", async () => {
    const { client, pid, stderr } = await startFixture();
    try {
      const { tools } = await importTools(client);
      const pending = byName(tools, "wait").invoke('{"ms":60000}');
      await waitFor(
        () => stderr.includes("wait started"),
        "the wait call runs",
      );
      const killedAt = Date.now();
      Deno.kill(pid, "SIGKILL");
      const error = await failure(pending, () => killedAt);
      assert.equal(error.message, "mcp: server process was killed by SIGKILL");
      // A later call reads the same, at once.
      await assert.rejects(byName(tools, "pid").invoke("{}"), {
        message: "mcp: server process was killed by SIGKILL",
      });
    } finally {
      await client.close();
    }
  });
});

Deno.test("a grandchild holding the server's stdout does not delay the failure", async () => {
  const { client, pid, stderr } = await startFixture();
  const grandchild = Number(
    await callText(client, "spawn", { holdStdout: true }),
  );
  try {
    const call = callText(client, "wait", { ms: 60_000 });
    await waitFor(() => stderr.includes("wait started"), "the wait call runs");
    const killedAt = Date.now();
    Deno.kill(pid, "SIGKILL");
    await assert.rejects(call, ServerExitError);
    assert.ok(
      Date.now() - killedAt < 15_000,
      `took ${Date.now() - killedAt} ms`,
    );
    assert.equal(
      processGone(grandchild),
      false,
      "the grandchild outlives its parent until close",
    );
  } finally {
    await client.close();
  }
  assert.ok(
    await waitUntil(() => processGone(grandchild), 10_000),
    "grandchild survived close",
  );
});

Deno.test("closing the client ends the server and its descendants", async () => {
  const { client, pid } = await startFixture("serve", { killGrace: 500 });
  assert.equal(
    processGroup(pid),
    pid,
    "the server leads its own process group",
  );
  const grandchild = Number(await callText(client, "spawn"));
  assert.equal(processGroup(grandchild), pid);
  assert.equal(processGone(grandchild), false);
  await client.close();
  assert.ok(processGone(pid), "server survived close");
  assert.ok(
    await waitUntil(() => processGone(grandchild), 10_000),
    "grandchild survived close",
  );
  await client.close(); // idempotent
});

Deno.test("close escalates to SIGKILL after killGrace when the server ignores SIGTERM", async () => {
  // A grace long enough that a loaded machine still sees SIGTERM ignored
  // well before it ends.
  const grace = 3000;
  const { client, pid, stderr } = await startFixture("stubborn", {
    killGrace: grace,
  });
  const closingAt = Date.now();
  let closedAt = 0;
  const closing = client.close().then(() => {
    closedAt = Date.now();
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    assert.ok(
      await waitUntil(() => stderr.includes("SIGTERM ignored"), grace / 2),
      stderr.join("\n"),
    );
    assert.ok(stderr.includes("served"), "stdin was closed first");
    await quietFor(
      closingAt + grace - 100 - Date.now(),
      "the stubborn server outlives close until the grace ends",
    );
    assert.equal(processGone(pid), false, "gone before the grace ended");
    assert.equal(closedAt, 0, "close resolved before the grace ended");
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, grace + 10_000);
    });
    await Promise.race([closing, bound]);
    assert.notEqual(closedAt, 0, "close still pending 10 s after the grace");
  } finally {
    clearTimeout(timer);
    if (!processGone(pid)) Deno.kill(pid, "SIGKILL");
    await closing;
  }
  const took = closedAt - closingAt;
  assert.ok(took >= grace - 10, `close resolved after ${took} ms`);
  assert.ok(processGone(pid), "server survived close");
  // The exit the client recorded: SIGKILL, not SIGTERM.
  await assert.rejects(callText(client, "pid"), (error: unknown) => {
    assert.ok(error instanceof ServerExitError, String(error));
    assert.equal(error.signal, "SIGKILL");
    return true;
  });
});

Deno.test("await using disposes the client and its process", async () => {
  let pid = 0;
  {
    await using fixture = await startFixture().then((f) => f.client);
    pid = Number(await callText(fixture, "pid"));
    assert.equal(processGone(pid), false);
  }
  assert.ok(processGone(pid));
});

Deno.test("a server that never answers is cut by the caller's signal, leaving no process", async () => {
  // The server may not have started (and printed its pid) within 500 ms
  // on a loaded machine: a marker argument finds its process instead.
  const marker = `weft-never-${crypto.randomUUID()}`;
  const signal = AbortSignal.timeout(500);
  const error = await connectStdio(Deno.execPath(), {
    args: [...fixtureArgs("silent"), marker],
    env: childEnv(),
    stderr: "ignore",
    signal,
  }).then(() => undefined, (e: unknown) => e);
  assert.equal(error, signal.reason, "the signal's reason, unchanged");
  assert.ok(await waitUntil(() => !liveWithArg(marker)));
});

Deno.test("a call's signal cancels it on the server and rejects with its reason", async () => {
  const { client, stderr } = await startFixture();
  try {
    const controller = new AbortController();
    const call = callText(client, "wait", { ms: 60_000 }, controller.signal);
    await waitFor(() => stderr.includes("wait started"), "the wait call runs");
    const reason = new Error("caller gave up");
    controller.abort(reason);
    await assert.rejects(call, (error: unknown) => error === reason);
    assert.ok(
      await waitUntil(() => stderr.includes("wait aborted")),
      stderr.join("\n"),
    );
    assert.equal(
      await callText(client, "echo", { still: "alive" }),
      '{"still":"alive"}',
    );
  } finally {
    await client.close();
  }
});

Deno.test("aborting connectStdio's signal after connect ends the process", async () => {
  const controller = new AbortController();
  const { client, pid } = await startFixture("serve", {
    signal: controller.signal,
  });
  controller.abort();
  assert.ok(
    await waitUntil(() => processGone(pid)),
    "server survived the abort",
  );
  await assert.rejects(callText(client, "pid"));
  await client.close();
});

Deno.test("a server process exits when its stdin closes", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: fixtureArgs("serve"),
    env: childEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
  );
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.equal(
    new TextDecoder().decode(first.value),
    '{"result":{},"jsonrpc":"2.0","id":1}\n',
  );
  await writer.close();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  const status = await child.status;
  clearTimeout(timer);
  const rest = await reader.read();
  assert.equal(rest.done, true, "nothing but protocol on stdout");
  const stderr = new TextDecoder().decode(
    await new Response(child.stderr).arrayBuffer(),
  );
  assert.equal(status.code, 0);
  assert.ok(stderr.includes("served"), stderr);
});

Deno.test("serveStdio stops when its signal aborts, and the process exits with stdin still open", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: fixtureArgs("timeout"),
    env: childEnv(),
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  const status = await child.status;
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(
    await new Response(child.stderr).arrayBuffer(),
  );
  await child.stdin.close();
  assert.equal(status.code, 0, stderr);
  assert.ok(stderr.includes("served"), stderr);
});

/** Whether a live process has `needle` as one of its arguments. */
function liveWithArg(needle: string): boolean {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const words = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`)
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
