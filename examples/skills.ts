/**
 * Skills over MCP, both ways: a server serves the folder examples/skills
 * (`serveSkills`), and an agent imports its skills (`importSkills`) — as
 * context: its instructions list them, and the model loads one with
 * `load_skill`. The load parks for approval; approved, the skill's
 * SKILL.md is read, verified against its manifest and given to the model
 * labelled with its server, and its `allowed-tools` narrows the tools the
 * agent may call while it is loaded.
 *
 *     deno run -A examples/skills.ts
 *
 * The model is scripted (`@weft/mcp/testing`), so this runs offline.
 *
 * @module
 */

import { z } from "zod";
import {
  Agent,
  approve,
  Client,
  InMemoryTransport,
  Server,
  tool,
} from "../mod.ts";
import type { ToolResultPart } from "../core.ts";
import { memoryStore } from "../store.ts";
import { callTools, say, script } from "../testing.ts";
import { importSkills, serveSkills } from "../skills.ts";

const folder = new URL("./skills", import.meta.url).pathname;

// The server: the folder's skills, each file's digest from its bytes.
const server = new Server({ name: "playbooks", version: "1.0.0" });
await serveSkills(server, folder);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "host", version: "1.0.0" });
await client.connect(clientSide);

// The agent: the skills in its instructions, two tools to load and read them.
await using store = memoryStore(); // approvals; denoKvStore(kv) keeps them
const skills = await importSkills({ playbooks: client }, { store });
const lookupOrder = tool({
  name: "lookup_order",
  description: "Looks an order up.",
  input: z.object({ id: z.string() }),
  run: ({ id }) => ({ id, customer: "Ada", total: "42.00 EUR" }),
});
const agent = (...turns: Parameters<typeof script>) =>
  new Agent(script(...turns), {
    instructions: `You handle orders.\n\n${skills.instructions}`,
    tools: [...skills.tools, lookupOrder],
    wrapTools: [skills.narrowTools],
  });

console.log(skills.instructions);
const parked = await agent(
  callTools({
    name: "load_skill",
    args: { server: "playbooks", skill: "invoice-filling" },
  }),
).generate("Invoice order A-7.");
const [call] = parked.pending;
console.log(`\nparked: ${call.approval?.message}\n${call.approval?.diff}`);

// The person approves; the run resumes (from JSON, in any process).
const resumed = await agent(
  callTools({
    name: "read_skill_file",
    args: {
      server: "playbooks",
      skill: "invoice-filling",
      path: "templates/invoice.md",
    },
  }),
  say("Invoice A-7: Ada, 42.00 EUR."),
).generate(JSON.parse(JSON.stringify(parked.messages)), {
  decisions: [approve(call.id)],
});
console.log(`\nthe model read:\n${resumed.resumed[0].content}`);
const file = resumed.messages.flatMap((m) => m.role === "tool" ? m.content : [])
  .find((p): p is ToolResultPart =>
    p.type === "tool_result" && p.name === "read_skill_file"
  );
console.log(`\n${file?.content}`);
console.log(`answer: ${resumed.text}`);
await client.close();
