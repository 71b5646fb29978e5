// The real npm:@modelcontextprotocol/server-filesystem@2026.8.31 under an
// entry's permissions instead of -A: it reads its directory, a write it was
// not granted fails at once with a tool error naming --allow-write, and a
// read outside `read` never reaches the disk (the server's own check and
// Deno's both stand between). With pins on, a second start reports zero
// drift on the real servers.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../../mod.ts";
import { memoryStore } from "../../store.ts";
import { ServerPermissionError } from "../../servers.ts";
import { npmServer } from "../fixtures/npm_servers.ts";

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("server-filesystem under permissions: reads granted, a write not granted fails naming --allow-write, no hang", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "weft-trust-fs-" }),
  );
  const outside = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "weft-trust-out-" }),
  );
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "granted");
    await Deno.writeTextFile(`${outside}/s.txt`, "secret");
    await using servers = await connectServers({
      files: {
        ...npmServer("server-filesystem", [dir]),
        // What it reads at start (minimatch's platform override), and
        // nothing else of the environment.
        permissions: { read: [dir], env: ["__MINIMATCH_TESTING_PLATFORM__"] },
      },
    }, {
      signal: AbortSignal.timeout(30_000),
      stderr: "ignore",
      reconnect: false,
    });
    assert.equal(servers.error, undefined, servers.error?.message);
    const launch = servers.servers()[0].launch ?? "";
    assert.match(launch, / run --no-prompt --allow-read=/);
    assert.doesNotMatch(launch, / -A /);
    const signal = AbortSignal.timeout(20_000);
    const read = byName(servers.tools, "files_read_text_file");
    assert.equal(
      await read.invoke(JSON.stringify({ path: `${dir}/a.txt` }), { signal }),
      '{"content":"granted"}',
    );
    await assert.rejects(
      byName(servers.tools, "files_write_file").invoke(
        JSON.stringify({ path: `${dir}/b.txt`, content: "x" }),
        { signal },
      ),
      (error: Error) => {
        assert.equal(
          error.message,
          `Requires write access to "${dir}/b.txt", run again with the --allow-write flag`,
        );
        return true;
      },
    );
    await assert.rejects(
      read.invoke(JSON.stringify({ path: `${outside}/s.txt` }), { signal }),
      /Access denied/,
    );
    await assert.rejects(Deno.stat(`${dir}/b.txt`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("server-filesystem without the variable it reads at start: the start fails at once naming the env permission", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-trust-fs-" });
  try {
    await using servers = await connectServers({
      files: {
        ...npmServer("server-filesystem", [dir]),
        permissions: { read: [dir] },
      },
    }, {
      signal: AbortSignal.timeout(30_000),
      stderr: "ignore",
      reconnect: false,
    });
    const failure = servers.error?.failures[0];
    assert.ok(failure !== undefined);
    assert.equal(failure.phase, "initialize");
    const cause = failure.cause;
    assert.ok(cause instanceof ServerPermissionError, String(cause));
    assert.equal(cause.permission, "env");
    assert.equal(cause.target, "__MINIMATCH_TESTING_PLATFORM__");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pins on the real servers: first contact imports every tool unchanged, a second start reports zero drift", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-trust-pins-" });
  const config = {
    everything: npmServer("server-everything", ["stdio"]),
    memory: npmServer("server-memory", [], {
      MEMORY_FILE_PATH: `${dir}/memory.jsonl`,
    }),
    files: npmServer("server-filesystem", [dir]),
  };
  const shape = (tools: readonly ToolDef[]) =>
    tools.map((
      t,
    ) => [t.name, t.description, JSON.stringify(t.inputSchema.raw)]);
  try {
    await using store = memoryStore();
    let plain: unknown;
    {
      await using servers = await connectServers(config, {
        signal: AbortSignal.timeout(30_000),
        stderr: "ignore",
      });
      plain = shape(servers.tools);
    }
    for (const firstContact of [true, false]) {
      await using servers = await connectServers(config, {
        signal: AbortSignal.timeout(30_000),
        stderr: "ignore",
        pins: { store },
      });
      assert.equal(servers.error, undefined, servers.error?.message);
      assert.deepEqual(shape(servers.tools), plain);
      for (const status of servers.servers()) {
        // server-everything lists again at once (list_changed): the report
        // is the last listing's, so the first start checks no drift only.
        assert.deepEqual(
          { ...status.pins, firstContact: undefined },
          { firstContact: undefined, changed: [], added: [], removed: [] },
          status.name,
        );
        if (!firstContact) assert.equal(status.pins?.firstContact, false);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
