/**
 * Importing from the SDK's own skills server (`@modelcontextprotocol/server`
 * 2.4.0 `SkillsExtension.load`, behind `createMcpHandler` on 127.0.0.1,
 * which answers both eras) with `connectHttp` in each era: the skills are
 * listed into the instructions with zero `resources/read` at the server,
 * the load parks, the approval reads and verifies `SKILL.md` (one read),
 * and a file read verifies against the SDK's digests.
 */

import assert from "node:assert/strict";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import {
  memorySkillFiles,
  SkillsExtension,
} from "@modelcontextprotocol/server/ext/skills";
import { Agent, approve, connectHttp } from "../../mod.ts";
import { memoryStore } from "../../store.ts";
import { callTools, say, script } from "../../testing.ts";
import { importSkills } from "../../skills.ts";
import { PDF_SKILL_MD, skillFiles } from "../fixtures/skills.ts";
import { passOn } from "../_helpers/pass_on.ts";

const catalog = await SkillsExtension.load(memorySkillFiles(skillFiles()), {
  onWarning: () => {},
});

function listen() {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "sdk-skills", version: "2.4.0" }, {
      capabilities: {},
    });
    catalog.attach(server);
    return server;
  }, { legacy: "stateless", keepAliveMs: 0 });
  const methods: string[] = [];
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (received, info) => {
      const { text, request } = await passOn(received, info);
      if (request.method === "POST") {
        const body = JSON.parse(text);
        if (typeof body?.method === "string") methods.push(body.method);
      }
      return handler.fetch(request);
    },
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    reads: () => methods.filter((m) => m === "resources/read").length,
    async [Symbol.asyncDispose]() {
      await handler.close?.();
      await http.shutdown();
    },
  };
}

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`importSkills from the SDK's skills server (${era}): nothing read before the load; the approved load reads and verifies`, async () => {
    await using server = await listen();
    await using client = await connectHttp(server.url, {
      protocol: era,
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(client.getProtocolEra()?.era, era);
    await using store = memoryStore();
    const skills = await importSkills({ docs: client }, { store });
    assert.deepEqual(skills.skills.map((s) => s.name), [
      "refunds",
      "git-workflow",
      "logo-kit",
      "pdf-processing",
    ]);
    assert.match(
      skills.instructions,
      /- server "docs", skill "pdf-processing": Extract, fill, and assemble PDF documents/,
    );
    assert.equal(server.reads(), 0);
    const agent = (...turns: Parameters<typeof script>) =>
      new Agent(script(...turns), { tools: [...skills.tools] });
    const parked = await agent(
      callTools({
        name: "load_skill",
        args: { server: "docs", skill: "pdf-processing" },
      }),
    ).generate("go");
    assert.equal(parked.pending[0].approval?.reason, "skill_new");
    assert.equal(server.reads(), 0);
    const resumed = await agent(
      callTools({
        name: "read_skill_file",
        args: {
          server: "docs",
          skill: "pdf-processing",
          path: "templates/regional/eu-invoice.md",
        },
      }),
      say("done"),
    ).generate(parked.messages, {
      decisions: [approve(parked.pending[0].id)],
    });
    assert.equal(resumed.resumed[0].isError, false);
    assert.ok(resumed.resumed[0].content.endsWith(PDF_SKILL_MD));
    const results = resumed.messages.flatMap((m) =>
      m.role === "tool" ? m.content : []
    ).flatMap((p) => p.type === "tool_result" ? [p] : []);
    const file = results.find((p) => p.name === "read_skill_file")!;
    assert.equal(file.isError, false);
    assert.ok(file.content.endsWith("# EU invoice\n"));
    assert.equal(server.reads(), 2);
  });
}
