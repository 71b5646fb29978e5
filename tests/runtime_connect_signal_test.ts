// A caller's long-lived signal (AbortSignal.timeout) must not keep the
// process alive after the client is disposed: the SDK never removes the
// abort listeners it adds, so the runtime hands it detached children.

import assert from "node:assert/strict";
import { listen } from "./fixtures/http_test_server.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

const CHILD = new URL("./fixtures/connect_signal_child.ts", import.meta.url)
  .pathname;
// Long, so that "soon" below is told from "when the signal fires" on a
// loaded machine too: the bounds are a quarter and a half of it.
const TIMEOUT = 60_000;

/** Runs the child; resolves to the ms from its `disposed` line to its exit, and its total run time. */
async function timeChild(
  args: string[],
  call: boolean,
): Promise<{ afterDispose: number; total: number }> {
  const started = Date.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", CHILD, ...args],
    env: childEnv({
      CONNECT_TIMEOUT_MS: String(TIMEOUT),
      CALL: call ? "1" : "0",
    }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const killer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT * 2);
  let disposedAt = 0;
  let out = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    out += chunk;
    if (disposedAt === 0 && out.includes("disposed\n")) disposedAt = Date.now();
  }
  const status = await child.status;
  const exitedAt = Date.now();
  clearTimeout(killer);
  const stderr = await new Response(child.stderr).text();
  assert.equal(status.code, 0, stderr);
  assert.ok(disposedAt > 0, `no "disposed" line: ${out} ${stderr}`);
  return { afterDispose: exitedAt - disposedAt, total: exitedAt - started };
}

function assertPrompt(t: { afterDispose: number; total: number }): void {
  assert.ok(
    t.afterDispose < 15_000,
    `exited ${t.afterDispose} ms after dispose`,
  );
  assert.ok(
    t.total < TIMEOUT / 2,
    `ran ${t.total} ms of a ${TIMEOUT} ms timeout`,
  );
}

Deno.test("connectHttp with AbortSignal.timeout: the process exits soon after dispose", async (t) => {
  const listening = listen();
  try {
    await t.step("connect, dispose", async () => {
      assertPrompt(await timeChild(["http", listening.url], false));
    });
    await t.step("connect, a call under the same signal, dispose", async () => {
      assertPrompt(await timeChild(["http", listening.url], true));
    });
  } finally {
    await listening.close();
  }
});

Deno.test("connectStdio with AbortSignal.timeout: the process exits soon after dispose", async (t) => {
  await t.step("connect, dispose", async () => {
    assertPrompt(await timeChild(["stdio"], false));
  });
  await t.step("connect, a call under the same signal, dispose", async () => {
    assertPrompt(await timeChild(["stdio"], true));
  });
});
