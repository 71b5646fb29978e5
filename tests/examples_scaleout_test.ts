// examples/scaleout.ts as its module text says to run it: two `deno serve`
// processes on one Redis (WEFT_STORE); a session opened on one is served by
// the other.

import assert from "node:assert/strict";
import { freePort, startRedis } from "./_helpers/store_servers.ts";
import { events, openSession, post } from "./_helpers/http_instances.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { waitFor } from "./_helpers/wait.ts";

const EXAMPLE = new URL("../examples/scaleout.ts", import.meta.url).pathname;
const VERSION = "2025-11-25";

/** `deno serve` of the example on a free port; resolves once it answers. */
async function serve(store: string): Promise<{
  url: string;
  stop(): Promise<void>;
}> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--quiet", "--port", String(port), EXAMPLE],
    env: childEnv({ WEFT_STORE: store }),
    clearEnv: true,
    stdout: "null",
    // Kept, not printed: the address line, and whatever a failure says.
    stderr: "piped",
  }).spawn();
  const said = new Response(child.stderr).text();
  const url = `http://127.0.0.1:${port}/mcp`;
  const listening = () =>
    Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
      conn.close();
      return true;
    }, () => false); // not listening yet: tried again until the deadline
  try {
    await waitFor(listening, `examples/scaleout.ts listening on ${port}`, {
      signal: AbortSignal.timeout(30_000),
      everyMs: 100,
    });
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(
      `examples/scaleout.ts did not listen on ${port}; its stderr: ${await said}`,
      { cause: error },
    );
  }
  return {
    url,
    /** SIGTERM, as a platform stops an instance: the process must exit by itself. */
    async stop() {
      child.kill("SIGTERM");
      const exited = await Promise.race([
        child.status.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
      ]);
      if (!exited) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(
          `examples/scaleout.ts still ran 10 s after SIGTERM: something (the store's connections?) holds the process; its stderr: ${await said}`,
        );
      }
      // It said where it listened — an address its Host rule answers.
      const text = await said;
      assert.ok(
        text.includes(`httpHandler: listening on http://localhost:${port}/`),
        text,
      );
    },
  };
}

Deno.test("examples/scaleout.ts: two deno serve processes on one Redis serve one session", async () => {
  const redis = await startRedis();
  const a = await serve(redis.url);
  const b = await serve(redis.url);
  try {
    const session = await openSession(a.url, VERSION, "example-test");

    // The other process knows the session and lists the example's agent tool.
    const listed = await post(b.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
    }, session);
    assert.equal(listed.status, 200);
    const answer = events(await listed.text()).map((e) => JSON.parse(e.data))
      .find((m) => m.id === 1);
    assert.ok(
      answer.result.tools.some((t: { name: string }) =>
        t.name === "getting-started"
      ),
      "the example's agent tool is listed by the other process",
    );

    // An unknown session is refused there, as anywhere.
    const stranger = await post(b.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
    }, { "mcp-session-id": "nope", "mcp-protocol-version": VERSION });
    assert.equal(stranger.status, 404);
    await stranger.body?.cancel();
  } finally {
    // Each instance exits on SIGTERM although it holds Redis connections.
    try {
      await a.stop();
      await b.stop();
    } finally {
      await redis.stop();
    }
  }
});
