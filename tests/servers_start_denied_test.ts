/**
 * A stdio server that dies of a permission while it starts (before it
 * answers `initialize`): its start failure names the permission, read from
 * its stderr — not only a call's. Holds `startFailure`'s denial branch and
 * the denial tap's count at the start.
 *
 * @module
 */

import assert from "node:assert/strict";
import { connectServers } from "../mod.ts";
import { ServerPermissionError } from "../servers.ts";
import { ServerConnectError } from "../runtime.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

Deno.test("permissions: a server that dies of a denied read at start fails its start with ServerPermissionError naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-start-" });
  try {
    await Deno.mkdir(`${dir}/ok`);
    await Deno.writeTextFile(`${dir}/s.txt`, "secret");
    const script = `${dir}/ok/server.ts`;
    // Reads outside its grant before it ever speaks MCP: Deno's NotCapable
    // on stderr, then the process exits.
    await Deno.writeTextFile(
      script,
      `Deno.readTextFileSync(${JSON.stringify(`${dir}/s.txt`)});\n`,
    );
    const lines: string[] = [];
    await using servers = await connectServers({
      early: {
        command: Deno.execPath(),
        args: ["run", "--quiet", script],
        env: childEnv(),
        permissions: { read: [`${dir}/ok`] },
      },
    }, {
      signal: AbortSignal.timeout(20_000),
      stderr: (_, line) => lines.push(line),
      reconnect: false,
    });
    const [status] = servers.servers();
    assert.equal(status.state, "failed");
    const error = status.error;
    assert.ok(error instanceof ServerConnectError, String(error));
    assert.equal(error.server, "early");
    const cause = error.cause;
    assert.ok(
      cause instanceof ServerPermissionError,
      `${String(cause)}\n${lines.join("\n")}`,
    );
    assert.equal(cause.permission, "read");
    assert.equal(cause.target, `${dir}/s.txt`);
    assert.ok(lines.some((l) => l.includes("NotCapable")), lines.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
