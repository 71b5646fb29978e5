// connectServers over real npm servers (server-everything, server-memory,
// server-filesystem, pinned in deno.json), plus a command that does not
// exist and a server that never answers, all under one deadline.

import assert from "node:assert/strict";
import { Agent, connectServers, type ToolDef } from "../../mod.ts";
import { CommandNotFoundError, ServerConnectError } from "../../runtime.ts";
import { callTools, say, script } from "../../testing.ts";
import { fixtureServer, npmServer } from "../fixtures/npm_servers.ts";

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("connectServers: three real npm servers usable, a missing command and a silent server named with their phase, one deadline", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "weft-servers-" });
  const stderr: string[] = [];
  const retried: Error[] = [];
  // One deadline for all: the silent server is cut by it, not by its own
  // 30-second initialize limit.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException("deadline", "TimeoutError")),
    15_000,
  );
  const servers = await connectServers({
    mcpServers: {
      everything: npmServer("server-everything", ["stdio"]),
      memory: npmServer("server-memory", [], {
        MEMORY_FILE_PATH: `${dir}/memory.jsonl`,
      }),
      files: { ...npmServer("server-filesystem", [dir]), prefix: "fs_" },
      ghost: { command: "weft-no-such-server", args: ["--stdio"] },
      silent: fixtureServer("silent"),
    },
  }, {
    signal: deadline.signal,
    stderr: (server, line) => stderr.push(`[${server}] ${line}`),
    // The retries of ghost and silent report here (how many depends on time).
    onError: (error) => retried.push(error),
  });
  clearTimeout(timer);
  try {
    await t.step(
      "the two bad servers are named, with their phase and cause",
      () => {
        const error = servers.error;
        assert.ok(error !== undefined);
        assert.deepEqual(
          error.failures.map((f) => [f.server, f.phase]),
          [["ghost", "spawn"], ["silent", "initialize"]],
        );
        const [ghost, silent] = error.failures;
        assert.ok(ghost instanceof ServerConnectError);
        assert.ok(ghost.cause instanceof CommandNotFoundError);
        assert.equal(
          ghost.message,
          'server "ghost" (weft-no-such-server --stdio): spawn failed: command not found: weft-no-such-server',
        );
        assert.equal((silent.cause as DOMException).name, "TimeoutError");
        assert.ok(error.message.startsWith("mcp: 2 server(s) failed: "));
        assert.deepEqual(error.skipped, []);
        // Both are started again in the background (the reconnect policy).
        const states = servers.servers().map((s) => [s.name, s.state]);
        assert.deepEqual(states, [
          ["everything", "connected"],
          ["memory", "connected"],
          ["files", "connected"],
          ["ghost", "retrying"],
          ["silent", "retrying"],
        ]);
      },
    );

    await t.step(
      "the good servers' tools are prefixed and callable",
      async () => {
        const names = servers.tools.map((x) => x.name);
        assert.ok(names.includes("everything_echo"), names.join(", "));
        assert.ok(names.includes("memory_read_graph"));
        assert.ok(names.includes("fs_list_directory"));
        assert.ok(names.every((n) => /^(everything_|memory_|fs_)/.test(n)));
        assert.equal(
          await byName(servers.tools, "everything_echo").invoke(
            '{"message":"hi"}',
          ),
          "Echo: hi",
        );
        await byName(servers.tools, "fs_write_file").invoke(
          JSON.stringify({ path: `${dir}/note.txt`, content: "weft" }),
        );
        assert.equal(
          await byName(servers.tools, "fs_read_text_file").invoke(
            JSON.stringify({ path: `${dir}/note.txt` }),
          ),
          '{"content":"weft"}', // structuredContent, as import renders it by default
        );
      },
    );

    await t.step(
      "an agent reads them through toolSource and calls two servers in one step",
      async () => {
        const model = script(
          callTools(
            {
              name: "memory_create_entities",
              args: {
                entities: [{
                  name: "weft",
                  entityType: "project",
                  observations: ["bridges MCP"],
                }],
              },
            },
            { name: "fs_list_directory", args: { path: dir } },
          ),
          say("done"),
        );
        const agent = new Agent(model, { toolSource: servers.toolSource });
        const result = await agent.generate("remember weft, list the files");
        assert.equal(result.text, "done");
        const sent = model.requests()[0].tools.map((x) => x.name);
        assert.deepEqual(sent, servers.tools.map((x) => x.name));
        const results = result.messages.flatMap((m) =>
          m.content.filter((p) => p.type === "tool_result")
        );
        assert.equal(results.length, 2);
        for (const part of results) {
          assert.equal(part.type === "tool_result" && part.isError, false);
        }
        const graph = await byName(servers.tools, "memory_read_graph").invoke(
          "{}",
        );
        assert.ok(graph.includes("bridges MCP"), graph);
      },
    );
  } finally {
    await servers.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(
    servers.servers().every((s) => s.state !== "connected"),
    "a server still connected after close",
  );
});
