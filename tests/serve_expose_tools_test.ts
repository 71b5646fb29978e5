/**
 * serveAgent's `exposeTools`: by default the agent tool and the agent's
 * registered tools are listed (and callable); `exposeTools: false` serves
 * the agent alone — one tool taking a `prompt` — whose tools still run
 * inside its own steps. Over the SDK's real Client, in memory.
 */

import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/sdk/server";
import { Agent } from "../src/core/agent.ts";
import { rawTool } from "../src/core/tool.ts";
import { serveAgent } from "../src/bridge/serve.ts";
import { callTools, say, script } from "../testing.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";

function support(ran: { count: number }): Agent {
  const lookup = rawTool({
    name: "lookup",
    description: "Looks an order up.",
    run: () => (ran.count++, "shipped"),
  });
  return new Agent(
    script(callTools({ name: "lookup" }), say("your order shipped")),
    { name: "support", tools: [lookup] },
  );
}

Deno.test("serveAgent: by default the agent tool and the agent's tools are listed, and its tools callable", async () => {
  const ran = { count: 0 };
  await using pair = await connected((server) =>
    serveAgent(server, support(ran), "Answer order questions.")
  );
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "support",
    "lookup",
  ]);
  assert.equal(onlyText(await callRaw(pair.client, "lookup")), "shipped");
  assert.equal(ran.count, 1);
});

Deno.test("serveAgent with exposeTools: false lists one tool taking a prompt; its tools run only inside the agent", async () => {
  const ran = { count: 0 };
  await using pair = await connected((server) =>
    serveAgent(server, support(ran), "Answer order questions.", {
      exposeTools: false,
    })
  );
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["support"]);
  assert.deepEqual(Object.keys(tools[0].inputSchema.properties ?? {}), [
    "prompt",
  ]);
  await assert.rejects(callRaw(pair.client, "lookup"), /unknown tool "lookup"/);
  assert.equal(ran.count, 0);
  assert.equal(
    onlyText(await callRaw(pair.client, "support", { prompt: "where?" })),
    "your order shipped",
  );
  assert.equal(ran.count, 1);
});

Deno.test("serveAgent: an exposeTools that is not a boolean is refused at once, registering nothing", () => {
  const server = new Server({ name: "demo", version: "0" });
  assert.throws(
    () =>
      serveAgent(server, support({ count: 0 }), "d", {
        exposeTools: "no" as unknown as boolean,
      }),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "serveAgent: the exposeTools option must be true or false, got string",
  );
});
