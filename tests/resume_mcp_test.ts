/**
 * Resume end to end over MCP: an imported tool gated with
 * `policy: { requireApproval: true }` parks; approved, it runs on the real
 * server and the run continues; denied, it never reaches the server. Once
 * over the SDK's in-memory transport (our exportTools on the server side,
 * importTools on the client side) and once over stdio (connectStdio and a
 * fixture server process).
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  Agent,
  approve,
  connectStdio,
  deny,
  importTools,
  type RunEvent,
} from "../mod.ts";
import type { ToolResultPart } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { filesServer } from "./fixtures/files_server.ts";

const FILES_SERVER = new URL("./fixtures/files_server.ts", import.meta.url)
  .pathname;

const ARGS = '{"path":"notes.txt","text":"hello"}';

function writeThenAnswer() {
  return script(
    callTools({ id: "w1", name: "write_file", args: ARGS }),
    say("Saved notes.txt."),
  );
}

function lastResults(
  messages: readonly { role: string; content: readonly { type: string }[] }[],
): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

/** Our exportTools server and the SDK client over an in-memory pair; `calls` counts every tools/call sent. */
async function inMemory() {
  const { server, written } = filesServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const calls: JSONRPCMessage[] = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    if ("method" in message && message.method === "tools/call") {
      calls.push(message);
    }
    return send(message, options);
  };
  await server.connect(serverSide);
  const client = new Client({ name: "resume-test", version: "0" });
  await client.connect(clientSide);
  return { client, written, calls };
}

Deno.test("in memory: a gated imported tool parks, is approved, runs on the server, and the run continues", async () => {
  const { client, written, calls } = await inMemory();
  try {
    const { tools } = await importTools(client, {
      policy: { requireApproval: true },
    });
    const model = writeThenAnswer();
    const agent = new Agent(model, { tools });
    const events: RunEvent[] = [];
    const parked = await agent.generate("Save a note.", {
      onEvent: (e) => events.push(e),
    });
    assert.deepEqual(parked.pending, [{
      id: "w1",
      name: "write_file",
      args: ARGS,
    }]);
    assert.equal(parked.text, "");
    assert.deepEqual(
      events.filter((e) => e.type.startsWith("tool_")).map(
        (e) => e.type,
      ),
      ["tool_start"],
    );
    assert.equal(calls.length, 0);
    assert.deepEqual(written, []);

    const resumed = await agent.generate(parked.messages, {
      decisions: [approve("w1")],
    });
    assert.deepEqual(written, [{ path: "notes.txt", text: "hello" }]);
    assert.equal(calls.length, 1);
    assert.deepEqual(lastResults(resumed.messages), [{
      type: "tool_result",
      callId: "w1",
      name: "write_file",
      content: "wrote 5 bytes to notes.txt",
      isError: false,
    }]);
    assert.equal(resumed.text, "Saved notes.txt.");
    assert.deepEqual(resumed.pending, []);
    // The model's next turn read the server's answer.
    assert.deepEqual(
      lastResults(model.requests()[1].messages)[0].content,
      "wrote 5 bytes to notes.txt",
    );
  } finally {
    await client.close();
  }
});

Deno.test("in memory: a denied imported call never reaches the server", async () => {
  const { client, written, calls } = await inMemory();
  try {
    const { tools } = await importTools(client, {
      policy: { requireApproval: true },
    });
    const agent = new Agent(
      script(
        callTools({ id: "w1", name: "write_file", args: ARGS }),
        say("Understood, not saving."),
      ),
      { tools },
    );
    const parked = await agent.generate("Save a note.");
    const resumed = await agent.generate(parked.messages, {
      decisions: [deny("w1", "notes are read-only today")],
    });
    assert.equal(calls.length, 0);
    assert.deepEqual(written, []);
    assert.deepEqual(lastResults(resumed.messages), [{
      type: "tool_result",
      callId: "w1",
      name: "write_file",
      content: "DENIED: notes are read-only today",
      isError: true,
    }]);
    assert.equal(resumed.text, "Understood, not saving.");
  } finally {
    await client.close();
  }
});

/** What the stdio server has written, asked over the same session (not through the gate). */
async function writtenOver(client: Client): Promise<unknown> {
  const result = await client.callTool({ name: "written", arguments: {} });
  const content = result.content as { type: string; text: string }[];
  return JSON.parse(content[0].text);
}

Deno.test("stdio: a gated imported tool on a server process parks, is approved and runs there; a denied one never does", async (t) => {
  await using client = await connectStdio(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FILES_SERVER],
    stderr: "ignore",
  });
  const { tools } = await importTools(client, {
    policy: { requireApproval: true },
  });
  await t.step("denied: the server writes nothing", async () => {
    const agent = new Agent(
      script(
        callTools({ id: "w1", name: "write_file", args: ARGS }),
        say("Not saved."),
      ),
      { tools },
    );
    const parked = await agent.generate("Save a note.");
    assert.deepEqual(parked.pending.map((p) => p.id), ["w1"]);
    const resumed = await agent.generate(parked.messages, {
      decisions: [deny("w1", "no")],
    });
    assert.equal(lastResults(resumed.messages)[0].content, "DENIED: no");
    assert.deepEqual(await writtenOver(client), []);
  });
  await t.step("approved: the server writes, the run continues", async () => {
    const agent = new Agent(writeThenAnswer(), { tools });
    const parked = await agent.generate("Save a note.");
    assert.deepEqual(await writtenOver(client), []);
    const resumed = await agent.generate(parked.messages, {
      decisions: [approve("w1")],
    });
    assert.deepEqual(await writtenOver(client), [{
      path: "notes.txt",
      text: "hello",
    }]);
    assert.equal(
      lastResults(resumed.messages)[0].content,
      "wrote 5 bytes to notes.txt",
    );
    assert.equal(resumed.text, "Saved notes.txt.");
  });
});
