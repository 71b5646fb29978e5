// A config error is final: an entry that cannot be run as written
// (`permissions` on an `npx` entry, NODE_OPTIONS for a node server with
// permissions) fails at once with its ServerConfigError as the cause — no
// retry, no backoff — at the first start and when a cached server is first
// called. The backoff is set to a minute: a retry would be in its wait
// (state "retrying"), never needed to be waited out by the test.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../mod.ts";
import {
  parseServersConfig,
  ReconnectLimitError,
  ServerConfigError,
} from "../servers.ts";
import { ServerConnectError } from "../runtime.ts";
import { memoryStore } from "../store.ts";
import { ServerCatalog } from "../src/servers/_catalog.ts";

/** A retry would wait at least 30 s: any retry shows as "retrying". */
const SLOW = { maxAttempts: 5, initialDelay: 60_000, maxDelay: 60_000 };

const NPX = {
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
  permissions: { read: ["/srv"] },
};

function configCause(error: unknown): ServerConfigError {
  assert.ok(error instanceof ServerConnectError, String(error));
  assert.ok(error.cause instanceof ServerConfigError, String(error.cause));
  return error.cause;
}

Deno.test("config error: permissions on an npx entry fail the server at once, typed, never retried", async () => {
  const reported: Error[] = [];
  await using servers = await connectServers({ files: NPX }, {
    reconnect: SLOW,
    onError: (error) => reported.push(error),
    signal: AbortSignal.timeout(10_000),
  });
  const [status] = servers.servers();
  assert.equal(status.state, "failed");
  const cause = configCause(status.error);
  assert.equal(cause.server, "files");
  assert.equal(cause.field, "permissions");
  assert.match(cause.message, /"npx" cannot enforce them/);
  assert.equal(servers.error?.failures[0], status.error);
  assert.deepEqual(reported, [], "nothing retried, nothing reported later");
});

Deno.test("config error: the runtime is started once, for its version, and never again", async () => {
  // A stand-in `node` that counts how often it is started.
  const dir = await Deno.makeTempDir({ prefix: "weft-final-" });
  try {
    const node = `${dir}/node`;
    await Deno.writeTextFile(
      node,
      `#!/bin/sh\necho started >> "${dir}/starts"\necho v22.13.0\n`,
    );
    await Deno.chmod(node, 0o755);
    {
      await using servers = await connectServers({
        local: {
          command: node,
          args: ["server.js"],
          env: { NODE_OPTIONS: "--allow-fs-read=*" },
          permissions: { net: true },
        },
      }, { reconnect: SLOW, signal: AbortSignal.timeout(10_000) });
      const [status] = servers.servers();
      assert.equal(status.state, "failed");
      assert.equal(configCause(status.error).field, "env");
    }
    const starts = (await Deno.readTextFile(`${dir}/starts`)).trim()
      .split("\n");
    assert.equal(starts.length, 1, "one start, to read node's version");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("config error: a cached server whose entry cannot run is given up at its first call, not after maxAttempts", async () => {
  await using store = memoryStore();
  const config = { files: NPX };
  const [spec] = parseServersConfig(config);
  await new ServerCatalog(store).write(spec, [{
    name: "read",
    inputSchema: { type: "object" },
  }]);
  const reported: Error[] = [];
  await using servers = await connectServers(config, {
    catalog: store,
    reconnect: SLOW,
    onError: (error) => reported.push(error),
    signal: AbortSignal.timeout(10_000),
  });
  assert.deepEqual(servers.servers().map((s) => s.state), ["cached"]);
  const read = byName(servers.tools, "files_read");
  const signal = AbortSignal.timeout(10_000);
  await assert.rejects(read.invoke("{}", { signal }));
  const [status] = servers.servers();
  assert.equal(status.state, "failed");
  assert.equal(configCause(status.error).field, "permissions");
  assert.ok(!(status.error?.cause instanceof ReconnectLimitError));
  assert.deepEqual(reported, [status.error], "given up, reported once");
  // The next call meets the same failure at once, waiting on no backoff.
  await assert.rejects(read.invoke("{}", { signal }));
  assert.equal(reported.length, 1);
});
