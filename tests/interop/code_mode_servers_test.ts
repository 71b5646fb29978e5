// An agent in code mode over two real npm servers (server-filesystem and
// server-memory 2026.8.31): one type-checked program writes and reads a
// file and records and reads an entity, through the imported tools.

import assert from "node:assert/strict";
import { Agent, connectServers } from "../../mod.ts";
import { callTools, say, script } from "../../testing.ts";
import { subprocessExecutor } from "../../sandbox.ts";
import { npmServer } from "../fixtures/npm_servers.ts";

Deno.test("an agent in code mode drives server-filesystem and server-memory in one type-checked program", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "weft-code-" }),
  );
  // The servers' own stderr (their start banners), kept for a failure's
  // message instead of printed.
  const said: string[] = [];
  const servers = await connectServers({
    mcpServers: {
      memory: npmServer("server-memory", [], {
        MEMORY_FILE_PATH: `${dir}/memory.jsonl`,
      }),
      files: { ...npmServer("server-filesystem", [dir]), prefix: "fs_" },
    },
  }, {
    signal: AbortSignal.timeout(30_000),
    stderr: (server, line) => void said.push(`[${server}] ${line}`),
  });
  await using executor = subprocessExecutor({ timeout: 30_000 });
  try {
    const code = `async () => {
  const path = ${JSON.stringify(`${dir}/note.txt`)};
  await codemode.memory_create_entities({
    entities: [{ name: "weft", entityType: "project", observations: ["bridges MCP"] }],
  });
  await codemode.fs_write_file({ path, content: "weft bridges MCP" });
  const file = await codemode.fs_read_text_file({ path }) as { content: string };
  const graph = await codemode.memory_read_graph({}) as { entities: { name: string }[] };
  return { content: file.content, entities: graph.entities.map((e) => e.name) };
}`;
    const model = script(
      callTools({ name: "code", args: { code } }),
      say("done"),
    );
    const agent = new Agent(model, {
      toolSource: servers.toolSource,
      codeMode: { executor, typeCheck: true },
    });
    // One tool sent, its description the typed API of both servers' tools.
    const sent = agent.tools.map((t) => t.name);
    assert.deepEqual(sent, ["code"]);
    assert.match(agent.tools[0].description, /fs_write_file\(input: \{/);
    assert.match(
      agent.tools[0].description,
      /memory_create_entities\(input: \{/,
    );
    const result = await agent.generate("Note that weft bridges MCP.");
    const part = result.steps[0].results[0];
    assert.equal(part.isError, false, [part.content, ...said].join("\n"));
    assert.deepEqual(JSON.parse(part.content), {
      content: "weft bridges MCP",
      entities: ["weft"],
    });
    assert.equal(
      await Deno.readTextFile(`${dir}/note.txt`),
      "weft bridges MCP",
    );
  } finally {
    await servers.close();
    await Deno.remove(dir, { recursive: true });
  }
});
