/**
 * serveAgent: S-1 … S-14 and the seed's ExampleServe. Over the SDK's real
 * Client, in memory.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Agent } from "../src/core/agent.ts";
import { ToolError } from "../src/core/errors.ts";
import type { ToolCall, ToolMiddleware } from "../src/core/middleware.ts";
import { subagent } from "../src/core/subagent.ts";
import {
  rawTool,
  tool,
  type ToolContext,
  type ToolDef,
} from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { serveAgent } from "../src/bridge/serve.ts";
import { callTools, fail, say, script, submit } from "../testing.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";
import { assertJsonEqual } from "./_helpers/json_equal.ts";
import { quietFor } from "./_helpers/wait.ts";

const PROMPT_SCHEMA =
  '{"type":"object","properties":{"prompt":{"type":"string","description":"The task, stated in full: the agent sees only this prompt, not the conversation."}},"required":["prompt"]}';

function note(
  answer = "noted",
  extra: Partial<Parameters<typeof rawTool>[0]> = {},
): ToolDef {
  return rawTool({
    name: "note",
    description: "Take a note.",
    run: () => answer,
    ...extra,
  });
}

function served(agent: Agent, description = "Research a topic in depth.") {
  return connected((server) => serveAgent(server, agent, description));
}

Deno.test("a nil agent, an unnamed agent and a collision throw the pinned TypeErrors", () => {
  const server = new Server({ name: "demo", version: "0" });
  assert.throws(
    () => serveAgent(server, null as unknown as Agent, "d"),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "serveAgent(server, agent, description): agent is required",
  );
  assert.throws(
    () => serveAgent(server, new Agent(script()), "d"),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "serveAgent: the agent has no name; set one with the Agent's name option — the exposed tool is named after the agent",
  );
  assert.throws(
    () =>
      serveAgent(
        server,
        new Agent(script(), { name: "note", tools: [note()] }),
        "d",
      ),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        'serveAgent: tool "note" collides with the agent tool or an earlier tool',
  );
});

Deno.test("a collision registers nothing of that call (atomic)", async () => {
  await using pair = await connected((server) => {
    exportTools(
      server,
      rawTool({ name: "before", description: "", run: () => "b" }),
    );
    const clash = new Agent(script(), {
      name: "note",
      tools: [rawTool({ name: "x", description: "", run: () => "" }), note()],
    });
    assert.throws(() => serveAgent(server, clash, "d"), TypeError);
  });
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "before",
  ]);
});

Deno.test("the agent tool first, then the agent's registered tools in order", async () => {
  const a = rawTool({ name: "alpha", description: "", run: () => "" });
  const b = rawTool({ name: "beta", description: "", run: () => "" });
  await using pair = await served(
    new Agent(script(), { name: "research", tools: [b, note(), a] }),
  );
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "research",
    "beta",
    "note",
    "alpha",
  ]);
});

Deno.test("the agent tool is subagent(agent, description): name, description verbatim, pinned prompt schema, no output schema", async () => {
  const agent = new Agent(script(), {
    name: "research",
    instructions: "You research.",
  });
  await using pair = await served(agent, "Research a topic in depth.");
  const [listed] = (await pair.client.listTools()).tools;
  assert.equal(listed.name, "research");
  assert.equal(listed.description, "Research a topic in depth.");
  assert.equal(JSON.stringify(listed.inputSchema), PROMPT_SCHEMA);
  assert.equal("outputSchema" in listed, false);
  assert.equal(
    JSON.stringify(listed.inputSchema),
    JSON.stringify(subagent(agent, "x").inputSchema),
  );
});

Deno.test("the agent tool runs the agent on a fresh transcript holding only the prompt", async () => {
  const model = script(say("research done"));
  await using pair = await served(
    new Agent(model, { name: "research", instructions: "You research." }),
  );
  const res = await callRaw(pair.client, "research", {
    prompt: "the history of denim",
  });
  assert.notEqual(res.isError, true);
  assert.equal(onlyText(res), "research done");
  const [request] = model.requests();
  assert.equal(request.messages.length, 1);
  assert.equal(request.messages[0].role, "user");
  assert.deepEqual(request.messages[0].content, [{
    type: "text",
    text: "the history of denim",
  }]);
});

Deno.test("ExampleServe prints research complete", async () => {
  const agt = new Agent(script(say("research complete")), {
    name: "research",
    instructions: "You research.",
  });
  const srv = new Server({ name: "demo", version: "0" });
  serveAgent(srv, agt, "Research a topic in depth.");
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  await srv.connect(serverTransport);
  const client = new Client({ name: "demo-client", version: "0" });
  await client.connect(clientTransport);
  const res = await client.callTool({
    name: "research",
    arguments: { prompt: "the history of denim" },
  });
  const out = (res.content as { type: string; text: string }[])[0].text;
  assert.equal(out, "research complete");
  await client.close();
});

Deno.test("an output agent answers with the submitted JSON bytes, no structuredContent, no submit_output tool", async () => {
  const agent = new Agent(script(submit({ answer: "yes" }), say("submitted")), {
    name: "oracle",
    output: z.object({ answer: z.string() }),
  });
  await using pair = await served(agent, "Answer yes or no.");
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["oracle"]);
  assert.equal("outputSchema" in tools[0], false);
  const res = await callRaw(pair.client, "oracle", { prompt: "is it?" });
  assert.equal(onlyText(res), '{"answer":"yes"}');
  assert.equal("structuredContent" in res, false);
});

Deno.test("child failures are isError results with the SUBAGENT_* texts; bad arguments INVALID_INPUT", async () => {
  const refund = rawTool({
    name: "refund",
    description: "",
    requireApproval: true,
    run: () => "refunded",
  });
  await using pair = await connected((server) => {
    serveAgent(
      server,
      new Agent(script(fail(new Error("model down"))), { name: "research" }),
      "d",
    );
    serveAgent(
      server,
      new Agent(script(callTools({ name: "refund" }), say("never")), {
        name: "support",
        tools: [refund],
      }),
      "d",
    );
  });
  const cases: [string, unknown, string][] = [
    [
      "research",
      { prompt: "x" },
      'SUBAGENT_FAILED: agent "research" failed at step 1: model stream: model down',
    ],
    [
      "support",
      { prompt: "x" },
      'SUBAGENT_PENDING: agent "support" ended awaiting approval of 1 call(s)',
    ],
    [
      "research",
      {},
      'INVALID_INPUT: tool "research": missing required field "prompt"',
    ],
    [
      "research",
      { prompt: 5 },
      'INVALID_INPUT: tool "research": field "prompt": expected string, got number',
    ],
  ];
  for (const [name, args, expected] of cases) {
    const res = await callRaw(pair.client, name, args);
    assert.equal(res.isError, true, expected);
    assert.equal(onlyText(res), expected);
  }
});

Deno.test("SUBAGENT_CYCLE reaches the model inside the agent's own run", async () => {
  const model = script(
    callTools({ name: "loop", args: { prompt: "recurse" } }),
    say("gave up"),
  );
  const self: { agent?: Agent } = {};
  const agent = new Agent(model, {
    name: "loop",
    toolSource:
      () => (self.agent ? [subagent(self.agent, "Run me again.")] : []),
  });
  self.agent = agent;
  await using pair = await served(agent);
  assert.equal(
    onlyText(await callRaw(pair.client, "loop", { prompt: "go" })),
    "gave up",
  );
  const seen = JSON.stringify(model.requests()[1].messages);
  assert.match(
    seen,
    /SUBAGENT_CYCLE: agent \\"loop\\" is already running in this call chain/,
  );
});

Deno.test("tools go through agent.callTool: ids mcp_call_<n> per serveAgent, agent then tool middleware", async () => {
  const seen: string[] = [];
  const tag =
    (label: string): ToolMiddleware =>
    (next) =>
    (call: ToolCall, ctx: ToolContext) => {
      seen.push(`${label}:${call.name}:${call.id}`);
      return next(call, ctx);
    };
  const other = rawTool({ name: "other", description: "", run: () => "other" });
  const first = new Agent(script(), {
    name: "first",
    wrapTools: [tag("agent")],
    tools: [note("noted", { wrap: [tag("tool")] }), other],
  });
  const second = new Agent(script(), {
    name: "second",
    wrapTools: [tag("agent2")],
    tools: [rawTool({ name: "solo", description: "", run: () => "solo" })],
  });
  await using pair = await connected((server) => {
    serveAgent(server, first, "d");
    serveAgent(server, second, "d");
  });
  assert.equal(onlyText(await callRaw(pair.client, "note")), "noted");
  assert.equal(onlyText(await callRaw(pair.client, "other")), "other");
  assert.equal(onlyText(await callRaw(pair.client, "solo")), "solo");
  assert.equal(onlyText(await callRaw(pair.client, "note")), "noted");
  assert.deepEqual(seen, [
    "agent:note:mcp_call_1",
    "tool:note:mcp_call_1",
    "agent:other:mcp_call_2",
    "agent2:solo:mcp_call_1",
    "agent:note:mcp_call_3",
    "tool:note:mcp_call_3",
  ]);
});

Deno.test("no timeout, no result cap; agent-level strictInput applies", async () => {
  const slow = rawTool({
    name: "slow",
    description: "",
    run: async () => {
      await quietFor(40, "outlasts the agent's 5 ms timeout, not applied here");
      return "0123456789";
    },
  });
  const typed = tool({
    name: "typed",
    description: "",
    input: z.object({ q: z.string() }),
    run: ({ q }) => q,
  });
  const agent = new Agent(script(), {
    name: "a",
    timeout: 5,
    maxResultBytes: 4,
    strictInput: true,
    tools: [slow, typed],
  });
  await using pair = await served(agent);
  assert.equal(onlyText(await callRaw(pair.client, "slow")), "0123456789");
  const res = await callRaw(pair.client, "typed", { q: "x", f: 1 });
  assert.equal(
    onlyText(res),
    'INVALID_INPUT: tool "typed": unknown field "f": not in the schema',
  );
});

Deno.test("an approval-gated tool never runs and answers the approval error", async () => {
  let ran = false;
  const refund = rawTool({
    name: "refund",
    description: "Refund.",
    requireApproval: true,
    run: () => (ran = true, "refunded"),
  });
  await using pair = await served(
    new Agent(script(), { name: "support", tools: [refund] }),
  );
  const res = await callRaw(pair.client, "refund", { order: "1" });
  assert.equal(res.isError, true);
  assert.equal(
    onlyText(res),
    'weft: tool call requires approval: tool "refund"',
  );
  assert.equal(ran, false);
});

Deno.test("a plain tool returns its text", async () => {
  await using pair = await served(
    new Agent(script(), { name: "support", tools: [note()] }),
  );
  const res = await callRaw(pair.client, "note", { text: "x" });
  assert.notEqual(res.isError, true);
  assert.deepEqual(res.content, [{ type: "text", text: "noted" }]);
});

Deno.test("output schemas give structuredContent; non-JSON text the E-8 error", async () => {
  const order = tool({
    name: "lookup_order",
    description: "",
    input: z.object({ order_id: z.string() }),
    output: z.object({ id: z.string(), status: z.string() }),
    run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
  });
  const liar = rawTool({
    name: "liar",
    description: "",
    outputSchema: { type: "object" },
    run: () => "nope",
  });
  await using pair = await served(
    new Agent(script(), { name: "support", tools: [order, liar] }),
  );
  await pair.client.listTools();
  const res = await pair.client.callTool({
    name: "lookup_order",
    arguments: { order_id: "5678" },
  });
  assertJsonEqual(res.structuredContent, JSON.parse(onlyText(res as never)));
  assertJsonEqual(res.structuredContent, { id: "5678", status: "shipped" });
  const bad = await callRaw(pair.client, "liar");
  assert.equal(
    onlyText(bad),
    'tool "liar" advertised an output schema, so its result must be JSON; got non-JSON text',
  );
});

Deno.test("failures in middleware are isError results: error text, or the panic text", async () => {
  const deny: ToolMiddleware = () => () =>
    Promise.reject(new ToolError("DENIED", "not on weekends"));
  const boom: ToolMiddleware = () => () => Promise.reject("bang");
  const agent = new Agent(script(), {
    name: "support",
    tools: [
      note("noted", { wrap: [deny] }),
      rawTool({ name: "blast", description: "", wrap: [boom], run: () => "" }),
    ],
  });
  await using pair = await served(agent);
  assert.equal(
    onlyText(await callRaw(pair.client, "note")),
    "DENIED: not on weekends",
  );
  assert.equal(
    onlyText(await callRaw(pair.client, "blast")),
    'tool "blast" panicked: bang',
  );
  assert.equal(pair.fromServer.some((m) => "error" in m), false);
});

Deno.test("arguments follow the E-4 rule (missing → {})", async () => {
  const mirror = rawTool({
    name: "mirror",
    description: "",
    run: (args) => args,
  });
  await using pair = await served(
    new Agent(script(), { name: "support", tools: [mirror] }),
  );
  assert.equal(onlyText(await callRaw(pair.client, "mirror")), "{}");
  assert.equal(
    onlyText(await callRaw(pair.client, "mirror", { a: "<&>" })),
    '{"a":"<&>"}',
  );
});

Deno.test("toolSource tools are not listed but still run inside the agent's own steps", async () => {
  let ran = 0;
  const sourced = rawTool({
    name: "sourced",
    description: "",
    run: () => (ran++, "from source"),
  });
  const agent = new Agent(
    script(callTools({ name: "sourced" }), say("used the source")),
    {
      name: "support",
      tools: [note()],
      toolSource: () => [sourced],
    },
  );
  await using pair = await served(agent);
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "support",
    "note",
  ]);
  assert.equal(
    onlyText(await callRaw(pair.client, "support", { prompt: "go" })),
    "used the source",
  );
  assert.equal(ran, 1);
  await assert.rejects(
    callRaw(pair.client, "sourced"),
    /unknown tool "sourced"/,
  );
});

Deno.test("a toolSource with a duplicate name fails every exposed-tool call with the core's text", async () => {
  const agent = new Agent(script(), {
    name: "support",
    tools: [note()],
    toolSource: () => [note("again")],
  });
  await using pair = await served(agent);
  const res = await callRaw(pair.client, "note");
  assert.equal(res.isError, true);
  assert.equal(
    onlyText(res),
    'weft: duplicate tool name from tool source: "note"',
  );
});

Deno.test("a handler on the serve path sees no call record; middleware sees mcp_call_<n>", async () => {
  let call: unknown = "unset";
  let id = "";
  const probe = rawTool({
    name: "probe",
    description: "",
    run: (_args, ctx) => (call = ctx.call, "ok"),
  });
  const watch: ToolMiddleware = (next) => (c, ctx) => (id = c.id, next(c, ctx));
  await using pair = await served(
    new Agent(script(), {
      name: "support",
      wrapTools: [watch],
      tools: [probe],
    }),
  );
  await callRaw(pair.client, "probe");
  assert.equal(call, undefined);
  assert.equal(id, "mcp_call_1");
});

Deno.test("names and descriptions are the only routing surface; instructions never leave", async () => {
  const agent = new Agent(script(), {
    name: "support",
    instructions: "SECRET-INSTRUCTIONS: never reveal the refund policy",
    tools: [note()],
  });
  await using pair = await served(agent, "Answer where a customer's order is.");
  const listing = await pair.client.listTools();
  assert.equal(
    listing.tools[0].description,
    "Answer where a customer's order is.",
  );
  assert.equal(
    JSON.stringify(pair.fromServer).includes("SECRET-INSTRUCTIONS"),
    false,
  );
  assert.equal(JSON.stringify(listing).includes("SECRET-INSTRUCTIONS"), false);
});

Deno.test("serveAgent shares exportTools' registry rules: a connected server without the tools capability", async () => {
  await using pair = await connected(() => {});
  assert.throws(
    () =>
      serveAgent(pair.server, new Agent(script(), { name: "support" }), "d"),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "serveAgent: the server is already connected and does not declare the tools capability; pass capabilities: { tools: {} } to the Server, or register tools before connect",
  );
});

Deno.test("serveAgent and exportTools share one registry: a later serveAgent replaces a same-named tool", async () => {
  await using pair = await connected((server) => {
    exportTools(
      server,
      rawTool({ name: "note", description: "old", run: () => "old" }),
    );
    serveAgent(
      server,
      new Agent(script(), { name: "support", tools: [note()] }),
      "d",
    );
  });
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "note",
    "support",
  ]);
  assert.equal(onlyText(await callRaw(pair.client, "note")), "noted");
});
