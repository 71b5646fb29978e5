/**
 * Skills of servers connected with `connectServers`: `servers.clients()`
 * gives `importSkills` each server under its config key, over HTTP on
 * 127.0.0.1 in both eras; a server without the extension has no skills
 * (skipped, not refused), and the load reads through the managed
 * connection. (connectServers lists tools: the skills server has one.)
 */

import assert from "node:assert/strict";
import {
  Agent,
  approve,
  connectServers,
  exportTools,
  httpHandler,
  rawTool,
  Server,
} from "../mod.ts";
import { memoryStore } from "../store.ts";
import { callTools, say, script } from "../testing.ts";
import { importSkills, loadSkills, serveSkills } from "../skills.ts";
import { PDF_SKILL_MD, skillFiles } from "./fixtures/skills.ts";

function listen(
  factory: () => Server,
): { url: string; ac: AbortController; done: Promise<void> } {
  const ac = new AbortController();
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    httpHandler(factory, { signal: ac.signal }),
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    ac,
    done: http.finished,
  };
}

for (const protocol of ["legacy", "modern"] as const) {
  Deno.test(`connectServers' clients() give importSkills each server by its key (${protocol})`, async () => {
    const catalog = await loadSkills(skillFiles());
    const docs = listen(() => {
      const server = new Server({ name: "docs", version: "1.0.0" });
      exportTools(
        server,
        rawTool({
          name: "fill",
          description: "Fills a PDF.",
          run: () => "filled",
        }),
      );
      void serveSkills(server, catalog);
      return server;
    });
    const plain = listen(() => {
      const server = new Server({ name: "plain", version: "1.0.0" });
      exportTools(
        server,
        rawTool({ name: "ping", description: "Pings.", run: () => "pong" }),
      );
      return server;
    });
    try {
      await using servers = await connectServers({
        docs: { url: docs.url, protocol },
        plain: { url: plain.url, protocol },
      }, { signal: AbortSignal.timeout(10_000) });
      assert.equal(servers.error, undefined);
      assert.deepEqual(Object.keys(servers.clients()), ["docs", "plain"]);
      await using store = memoryStore();
      const skills = await importSkills(servers.clients(), { store });
      assert.deepEqual(skills.refused, []);
      assert.deepEqual(
        new Set(skills.skills.map((s) => s.server)),
        new Set(["docs"]),
      );
      const agent = (...turns: Parameters<typeof script>) =>
        new Agent(script(...turns), {
          tools: [...skills.tools, ...servers.tools],
        });
      const parked = await agent(
        callTools({
          name: "load_skill",
          args: { server: "docs", skill: "pdf-processing" },
        }),
      ).generate("go");
      assert.equal(parked.pending[0].approval?.reason, "skill_new");
      const resumed = await agent(say("done")).generate(parked.messages, {
        decisions: [approve(parked.pending[0].id)],
      });
      assert.equal(resumed.resumed[0].isError, false);
      assert.ok(resumed.resumed[0].content.endsWith(PDF_SKILL_MD));
    } finally {
      docs.ac.abort();
      plain.ac.abort();
      await docs.done;
      await plain.done;
    }
  });
}
