// No orphans: a host interrupted while it holds a server mid-call takes the
// server with it (SIGINT, SIGTERM, and its own exit), and still ends as it
// would have.

import assert from "node:assert/strict";
import {
  childEnv,
  processGone,
  waitUntil,
} from "./fixtures/runtime_server_helpers.ts";

const HOST = new URL("./fixtures/signal_host.ts", import.meta.url).pathname;

interface Host {
  child: Deno.ChildProcess;
  serverPid: number;
}

async function startHost(mode: string, then?: string): Promise<Host> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HOST, mode, ...(then ? [then] : [])],
    env: childEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  void child.stdout.cancel().catch(() => {});
  const match = /^ready (\d+)/.exec(text);
  assert.ok(match, `host printed ${JSON.stringify(text)}`);
  return { child, serverPid: Number(match[1]) };
}

for (
  const [signal, mode, code] of [
    ["SIGINT", "linger", 130],
    ["SIGTERM", "linger", 143],
    ["SIGTERM", "stubborn", 143],
  ] as const
) {
  Deno.test(`a host interrupted with ${signal} mid-call leaves no ${mode} server behind and ends with ${code}`, async () => {
    const { child, serverPid } = await startHost(mode);
    assert.ok(!processGone(serverPid));
    Deno.kill(child.pid, signal);
    const status = await child.status;
    // The host ended as it would have without a server: by the signal.
    assert.equal(status.signal, signal);
    assert.equal(status.code, code);
    assert.ok(
      await waitUntil(() => processGone(serverPid), 3000),
      `server ${serverPid} outlived its host`,
    );
  });
}

Deno.test("a host that exits mid-call takes its server with it, exit code kept", async () => {
  const { child, serverPid } = await startHost("linger", "exit");
  const status = await child.status;
  assert.equal(status.code, 7);
  assert.ok(
    await waitUntil(() => processGone(serverPid), 3000),
    `server ${serverPid} outlived its host`,
  );
});
