// Tool search's BM25 ranking pinned: the field weights (name 3, title 2,
// server 2, description 1), k1 1.2, b 0.75, the idf, and the tie order
// (list order), as exact scores over a small corpus and as the order a
// search lists. A changed weight, constant or tie-break fails here. The
// scores were worked out apart from the code (by hand from the documented
// formula: idf = ln(1 + (n - df + 0.5) / (df + 0.5)), tf weighted by field,
// length over the average 58 / 5) and agree with it.

import assert from "node:assert/strict";
import { Agent, rawTool, type ToolDef } from "../mod.ts";
import { script } from "../testing.ts";
import { Bm25Index } from "../src/core/_tool_search.ts";

const SERVERS: Record<string, string> = {
  mail_send: "mail",
  notes_write: "notes",
  calendar_event: "calendar",
  x_ping: "net",
  y_ping: "net",
};

function corpus(): ToolDef[] {
  const make = (name: string, description: string, title?: string) =>
    rawTool({
      name,
      description,
      ...(title === undefined ? {} : { annotations: { title } }),
      run: () => name,
    });
  return [
    make("mail_send", "Sends an email.", "Postman"),
    make("notes_write", "Writes a note; send it later."),
    make("calendar_event", "Creates an event.", "Send invite"),
    make("x_ping", "Pings a host."),
    make("y_ping", "Pings a host."),
  ];
}

const serverOf = (tool: ToolDef) => SERVERS[tool.name];

/** `name score` per hit, best first, the score to 6 places. */
function ranked(tools: readonly ToolDef[], query: string): string[] {
  return new Bm25Index(tools, serverOf).ranked(query).map(({ i, score }) =>
    `${tools[i].name} ${score.toFixed(6)}`
  );
}

Deno.test("tool search ranking: BM25 scores pinned per field weight (name 3, title 2, server 2, description 1)", () => {
  const tools = corpus();
  // "send" is in a name (3), a title (2) and a description (1).
  assert.deepEqual(ranked(tools, "send"), [
    "mail_send 0.906736",
    "calendar_event 0.700366",
    "notes_write 0.531499",
  ]);
  // "mail": name 3 + server 2 of one tool, "email" matches nothing.
  assert.deepEqual(ranked(tools, "mail"), ["mail_send 2.447304"]);
  // A title word alone, a server word alone.
  assert.deepEqual(ranked(tools, "postman"), ["mail_send 1.887846"]);
  assert.deepEqual(ranked(tools, "notes"), ["notes_write 2.530632"]);
  // Two terms add up; idf weighs the rarer one more.
  assert.deepEqual(ranked(tools, "send event"), [
    "calendar_event 2.965298",
    "mail_send 0.906736",
    "notes_write 0.531499",
  ]);
});

Deno.test("tool search ranking: equal scores keep list order, in the index and in what a search lists", async () => {
  const tools = corpus();
  assert.deepEqual(ranked(tools, "ping"), [
    "x_ping 1.517796",
    "y_ping 1.517796",
  ]);
  const reversed = [...tools].reverse();
  assert.deepEqual(ranked(reversed, "ping"), [
    "y_ping 1.517796",
    "x_ping 1.517796",
  ]);
  for (const list of [tools, reversed]) {
    const agent = new Agent(
      script(),
      { tools: list, toolSearch: { serverOf } },
    );
    const first = list.findIndex((t) => t.name.endsWith("_ping"));
    const [a, b] = first === 3 ? ["x_ping", "y_ping"] : ["y_ping", "x_ping"];
    assert.equal(
      await agent.callTool("search_tools", { query: "ping host" }),
      '2 tools found for "ping host"; call them from your next step:\n' +
        `- ${a}: Pings a host.\n- ${b}: Pings a host.`,
    );
  }
});
