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
      await waitUntil(() => processGone(serverPid), 10_000),
      `server ${serverPid} outlived its host`,
    );
  });
}

Deno.test("a host that exits mid-call takes its server with it, exit code kept", async () => {
  const { child, serverPid } = await startHost("linger", "exit");
  const status = await child.status;
  assert.equal(status.code, 7);
  assert.ok(
    await waitUntil(() => processGone(serverPid), 10_000),
    `server ${serverPid} outlived its host`,
  );
});

// A host with its own SIGINT listener: the forwarded Ctrl-C reaches the
// server, and the host's listener sees it exactly once (a host that counts
// Ctrl-Cs to force-quit must not see one as two).

const LISTENING_HOST = new URL("./fixtures/listening_host.ts", import.meta.url)
  .pathname;

interface HostRun {
  lines: string[];
  status: Deno.CommandStatus;
  serverPid: number;
}

// Runs the listening host in `how`, sends it one SIGINT once it is ready,
// and collects its stdout to the end; killed after 20 s so a regression
// fails instead of hanging.
async function interruptListeningHost(how: string): Promise<HostRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", LISTENING_HOST, how],
    env: childEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    signal: AbortSignal.timeout(20_000),
  }).spawn();
  const lines: string[] = [];
  let serverPid = 0;
  let rest = "";
  for await (
    const text of child.stdout.pipeThrough(new TextDecoderStream())
  ) {
    rest += text;
    const parts = rest.split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      const ready = /^ready (\d+)$/.exec(line);
      if (ready) {
        serverPid = Number(ready[1]);
        Deno.kill(child.pid, "SIGINT");
      }
    }
  }
  return { lines, status: await child.status, serverPid };
}

for (const how of ["forward", "once"]) {
  Deno.test(`a host listening for SIGINT itself (${how}) sees one Ctrl-C once; the server gets it`, async () => {
    const { lines, status, serverPid } = await interruptListeningHost(how);
    assert.ok(serverPid > 0, lines.join("\n"));
    assert.equal(
      lines.filter((l) => l.startsWith("delivery ")).join(", "),
      "delivery 1",
    );
    assert.ok(lines.includes("child got SIGINT"), lines.join("\n"));
    assert.equal(lines.at(-1), "deliveries 1");
    // Its listener decided; nothing raised the signal again to end it.
    assert.equal(status.signal, null);
    assert.equal(status.code, 0);
    assert.ok(processGone(serverPid), `server ${serverPid} outlived its host`);
  });
}

for (const how of ["manage", "manage-servers"]) {
  Deno.test(`forwardSignals: false (${how}) leaves the server to the host: the Ctrl-C is the host's alone, its close ends the server`, async () => {
    const { lines, status, serverPid } = await interruptListeningHost(how);
    assert.ok(serverPid > 0, lines.join("\n"));
    assert.equal(
      lines.filter((l) => l.startsWith("delivery ")).join(", "),
      "delivery 1",
    );
    // Not forwarded: the server still answered after the Ctrl-C, and ended
    // by the host's close (SIGTERM), not by SIGINT.
    assert.ok(lines.includes(`server answers ${serverPid}`), lines.join("\n"));
    assert.ok(!lines.includes("child got SIGINT"), lines.join("\n"));
    assert.equal(lines.at(-1), "deliveries 1");
    assert.equal(status.code, 0);
    assert.ok(processGone(serverPid), `server ${serverPid} outlived its host`);
  });
}
