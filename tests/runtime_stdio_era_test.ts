/**
 * `serveStdio` serving both eras in a real child process
 * (tests/fixtures/era_server.ts), spoken to line by line: a modern client
 * with no `initialize` (stamped results carrying the `cacheHints` given,
 * `server/discover`), and a legacy client's `initialize` and results as
 * before (no stamps).
 */

import assert from "node:assert/strict";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";

const FIXTURE = new URL("./fixtures/era_server.ts", import.meta.url).pathname;

type Message = Record<string, unknown> & {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number };
};

/** The fixture on serveStdio, and a way to ask it one request at a time. */
function child() {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FIXTURE],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = process.stdin.getWriter();
  const lines = process.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = "";
  const readLine = async (): Promise<string> => {
    while (!buffer.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the server's stdout ended");
      buffer += value;
    }
    const at = buffer.indexOf("\n");
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    return line;
  };
  const ask = async (message: Record<string, unknown>): Promise<Message> => {
    await writer.write(
      new TextEncoder().encode(JSON.stringify(message) + "\n"),
    );
    const deadline = AbortSignal.timeout(10_000);
    for (;;) {
      const line = await Promise.race([
        readLine(),
        new Promise<never>((_, reject) =>
          deadline.addEventListener(
            "abort",
            () => reject(new Error(`no answer to ${JSON.stringify(message)}`)),
          )
        ),
      ]);
      const parsed = JSON.parse(line) as Message;
      if (parsed.id === message.id) return parsed;
    }
  };
  const close = async () => {
    await writer.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await process.status;
  };
  return { ask, close };
}

const envelope = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "line-client", version: "1" },
};
const SERVER_INFO = { name: "era-fixture", version: "1.2.3" };

Deno.test("serveStdio: a modern client lists and discovers without initialize; results carry the cache hints given", async () => {
  const { ask, close } = child();
  try {
    const listed = await ask({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: envelope },
    });
    assert.equal(listed.result?.ttlMs, 1234);
    assert.equal(listed.result?.cacheScope, "public");
    assert.equal(listed.result?.resultType, "complete");
    assert.deepEqual(listed.result?._meta, { [META.serverInfo]: SERVER_INFO });
    const discovered = await ask({
      jsonrpc: "2.0",
      id: 2,
      method: "server/discover",
      params: { _meta: envelope },
    });
    assert.deepEqual(
      (discovered.result?.supportedVersions as string[]).slice(0, 2),
      [MODERN, "2025-11-25"],
    );
    assert.equal(discovered.result?.instructions, "Echoes text.");
    const called = await ask({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" }, _meta: envelope },
    });
    assert.deepEqual(called.result?.content, [
      { type: "text", text: "echo: x" },
    ]);
  } finally {
    await close();
  }
});

Deno.test("serveStdio: a legacy client initializes and gets unstamped results, as before", async () => {
  const { ask, close } = child();
  try {
    const init = await ask({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "legacy", version: "1" },
      },
    });
    assert.equal(init.result?.protocolVersion, "2025-11-25");
    assert.deepEqual(init.result?.serverInfo, SERVER_INFO);
    const listed = await ask({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.deepEqual(Object.keys(listed.result!), ["tools"]);
  } finally {
    await close();
  }
});
