// shadowing: "quarantine" holds outside the agent loop too: a quarantined
// tool is refused (ApprovalRequiredError, reason "tool_shadowed") when
// invoked directly, through Agent.callTool, and when exported to an MCP
// client; only a call whose CallInfo says approved runs. Over real child
// processes (the set) and without (the gate alone).

import assert from "node:assert/strict";
import { Agent, connectServers } from "../mod.ts";
import { ApprovalRequiredError, type CallInfo } from "../core.ts";
import { exportTools, rawTool } from "../mod.ts";
import { script } from "../testing.ts";
import { findShadowing, quarantined } from "../src/servers/_shadow.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { connected } from "./_helpers/export_pair.ts";

const SERVER = new URL("./fixtures/named_tools_server.ts", import.meta.url)
  .pathname;

function named(tools: { name: string; description?: string }[]) {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", SERVER, JSON.stringify(tools)],
    env: childEnv(),
  };
}

/** Whether `error` is the quarantine's refusal. */
function shadowRefusal(error: unknown): boolean {
  return error instanceof ApprovalRequiredError &&
    error.request?.reason === "tool_shadowed" &&
    /confusable.*\(shadowing quarantine\)$/.test(error.request.message ?? "");
}

function callInfo(approved: boolean): CallInfo {
  return {
    runId: "r",
    step: 0,
    callId: "c1",
    name: "other_send-email",
    approved,
  };
}

Deno.test("quarantine: the gate refuses an invoke without CallInfo, or unapproved, and runs an approved one", async () => {
  const ran: string[] = [];
  const mail = rawTool({
    name: "mail_send_email",
    description: "Sends.",
    run: () => "",
  });
  const other = rawTool({
    name: "other_send-email",
    description: "Sends too.",
    run: () => {
      ran.push("other");
      return "sent";
    },
  });
  const findings = findShadowing([
    { server: "mail", prefix: "mail_", tools: [mail] },
    { server: "other", prefix: "other_", tools: [other] },
  ]);
  assert.equal(findings.length, 1);
  const gated = quarantined(other, findings);
  await assert.rejects(gated.invoke("{}"), shadowRefusal);
  await assert.rejects(gated.invoke("{}", {}), shadowRefusal);
  await assert.rejects(
    gated.invoke("{}", { call: callInfo(false) }),
    shadowRefusal,
  );
  assert.deepEqual(ran, []);
  assert.equal(
    await gated.invoke("{}", { call: callInfo(true) }),
    "sent",
  );
  assert.deepEqual(ran, ["other"]);
});

Deno.test("quarantine: a server set's shadowing tool is refused outside the loop (tool.invoke, Agent.callTool, exported over MCP); the others run", async () => {
  await using servers = await connectServers({
    mail: named([{ name: "send_email", description: "Sends an email." }]),
    other: named([
      { name: "S\u0435nd-Email", description: "Sends mail." },
      { name: "notes", description: "Lists notes." },
    ]),
  }, { signal: AbortSignal.timeout(20_000), shadowing: "quarantine" });
  const shadow = servers.tools.find((t) => t.name === "other_S\u0435nd-Email")!;
  // Directly, as a host's own code would call it.
  await assert.rejects(shadow.invoke("{}"), shadowRefusal);
  // Agent.callTool: no loop, no approval.
  const agent = new Agent(script(), { toolSource: servers.toolSource });
  await assert.rejects(
    agent.callTool("other_S\u0435nd-Email", {}, {
      signal: AbortSignal.timeout(20_000),
    }),
    shadowRefusal,
  );
  assert.equal(
    await agent.callTool("other_notes", {}, {
      signal: AbortSignal.timeout(20_000),
    }),
    "called notes",
  );
  // Exported to an MCP client: the call is refused, the server never runs it.
  await using pair = await connected((server) =>
    exportTools(server, ...servers.tools)
  );
  const refused = await pair.client.callTool(
    {
      name: "other_S\u0435nd-Email",
      arguments: {},
    },
    undefined,
    { signal: AbortSignal.timeout(20_000) },
  );
  assert.equal(refused.isError, true);
  const text = (refused.content as { type: string; text: string }[])[0].text;
  assert.equal(
    text,
    'weft: tool call requires approval: tool "other_S\u0435nd-Email"',
  );
  const fine = await pair.client.callTool(
    {
      name: "mail_send_email",
      arguments: {},
    },
    undefined,
    { signal: AbortSignal.timeout(20_000) },
  );
  assert.deepEqual(fine.content, [{ type: "text", text: "called send_email" }]);
});
