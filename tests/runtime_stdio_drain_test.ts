/**
 * `serveStdio` at the end of its stdin: the requests already read are
 * answered before the server closes (a client that writes its calls and
 * closes its end still gets every answer), a cancelled one is not waited
 * for, and the process then exits on its own.
 */

import assert from "node:assert/strict";
import { childEnv, fixtureArgs } from "./fixtures/runtime_server_helpers.ts";

// Under the drain's own 10 s limit: a wait that ran into it fails.
const DEADLINE = 8_000;

function spawnServer(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: fixtureArgs("serve"),
    env: childEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

/** Writes `messages` as lines, then closes the child's stdin. */
async function writeAndClose(
  child: Deno.ChildProcess,
  messages: unknown[],
): Promise<void> {
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      messages.map((m) => JSON.stringify(m) + "\n").join(""),
    ),
  );
  await writer.close();
}

function call(id: number, name: string, args: Record<string, unknown>) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  };
}

Deno.test("calls in flight when stdin closes are answered before the server exits", async () => {
  const child = spawnServer();
  const kill = setTimeout(() => child.kill("SIGKILL"), DEADLINE);
  await writeAndClose(child, [
    INITIALIZE,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    // Still running when stdin ends: the tool waits 150 ms.
    call(2, "wait", { ms: 150 }),
    call(3, "wait", { ms: 150 }),
    call(4, "wait", { ms: 150 }),
    call(5, "pid", {}),
  ]);
  const [out, err, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  clearTimeout(kill);
  const answers = out.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3, 4, 5], out);
  for (const answer of answers.filter((a) => [2, 3, 4].includes(a.id))) {
    assert.deepEqual(answer.result.content, [{ type: "text", text: "waited" }]);
  }
  assert.equal(status.signal, null, "exited on its own: " + err);
  assert.equal(status.code, 0, err);
  assert.ok(err.includes("served"), err);
});

Deno.test("a call cancelled before stdin closes is not waited for", async () => {
  const child = spawnServer();
  const kill = setTimeout(() => child.kill("SIGKILL"), DEADLINE);
  try {
    await writeAndClose(child, [
      INITIALIZE,
      call(2, "wait", { ms: 60_000 }),
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 2, reason: "no longer needed" },
      },
    ]);
    // serveStdio ends (it prints `served`) well before the minute the
    // cancelled call would take, and before the drain's own limit.
    let err = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      err += decoder.decode(chunk, { stream: true });
      if (err.includes("served")) break;
    }
    assert.ok(err.includes("served"), err);
    // The cancelled tool's own timer keeps the process: end it, then read.
    child.kill("SIGKILL");
    const out = await new Response(child.stdout).text();
    const ids = out.trim().split("\n").map((line) => JSON.parse(line).id);
    assert.deepEqual(ids, [1], out);
  } finally {
    clearTimeout(kill);
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
  }
});
