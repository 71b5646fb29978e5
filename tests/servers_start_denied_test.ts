/**
 * A stdio server that dies of a permission while it starts (before it
 * answers `initialize`): its start failure names the permission, read from
 * its stderr — not only a call's. Holds `startFailure`'s denial branch and
 * the denial tap's count at the start, a Node denial still waiting for
 * its target line when the server exits included.
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

Deno.test("permissions: a Node denial whose target line never comes (the server exits first) still names the permission at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-node-" });
  try {
    const script = `${dir}/server.ts`;
    // Node writes ERR_ACCESS_DENIED over several lines, the resource last;
    // this child writes the lines up to the permission, then exits before
    // any resource line: the denial is still waiting for its target.
    await Deno.writeTextFile(
      script,
      `const text = "Error: Access to this API has been restricted\\n" +
  "  code: 'ERR_ACCESS_DENIED',\\n" +
  "  permission: 'FileSystemRead'\\n";
Deno.stderr.writeSync(new TextEncoder().encode(text));
Deno.exit(1);
`,
    );
    const lines: string[] = [];
    await using servers = await connectServers({
      early: {
        command: Deno.execPath(),
        args: ["run", "--quiet", script],
        env: childEnv(),
        permissions: { read: [dir] },
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
    const cause = error.cause;
    assert.ok(
      cause instanceof ServerPermissionError,
      `${String(cause)}\n${lines.join("\n")}`,
    );
    assert.equal(cause.permission, "read");
    // No resource line came: the denial names no target.
    assert.equal(cause.target, "");
    assert.equal(lines.at(-1), "  permission: 'FileSystemRead'");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
