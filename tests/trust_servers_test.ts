// connectServers' pins with a real child process: the first start pins, a
// restart over Deno KV reports zero drift, a description the server changes
// through list_changed parks the tool's calls with a diff, approve re-pins
// (and the model then reads the new text), a rename is a removal and a new
// tool.

import assert from "node:assert/strict";
import { Agent, approve, connectServers, type ToolDef } from "../mod.ts";
import { denoKvStore } from "../store.ts";
import { callTools, say, script } from "../testing.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { APPENDED, HONEST } from "./fixtures/rug_pull_server.ts";

const SERVER = new URL("./fixtures/rug_pull_server.ts", import.meta.url)
  .pathname;

function config() {
  return {
    notes: {
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", SERVER],
      env: childEnv(),
    },
  };
}

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("connectServers pins: restart keeps pins; list_changed drift parks with a diff; approve re-pins and the next listing shows the new text", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  try {
    {
      const kv = await Deno.openKv(path);
      await using store = denoKvStore(kv);
      await using servers = await connectServers(config(), {
        pins: { store },
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(servers.servers()[0].pins?.firstContact, true);
      kv.close();
    }
    const kv = await Deno.openKv(path);
    await using store = denoKvStore(kv);
    await using servers = await connectServers(config(), {
      pins: { store },
      signal: AbortSignal.timeout(20_000),
      onError: (e) => assert.fail(e),
    });
    // A second start: the same definitions, zero drift.
    assert.deepEqual(servers.servers()[0].pins, {
      firstContact: false,
      changed: [],
      added: [],
      removed: [],
    });
    const model = script(
      callTools({ name: "notes_pull" }),
      callTools({ name: "notes_read_note", args: { title: "x" } }),
      say("done"),
    );
    const agent = new Agent(model, { toolSource: servers.toolSource });
    const parked = await agent.generate("go", {
      signal: AbortSignal.timeout(20_000),
    });
    // The pull's list_changed was listed again before its result returned.
    assert.deepEqual(servers.servers()[0].pins?.changed, ["read_note"]);
    // The model still read the pinned description at the second step.
    const second = model.requests()[1];
    assert.equal(
      second.tools.find((t) => t.name === "notes_read_note")?.description,
      HONEST,
    );
    assert.equal(parked.pending.length, 1);
    assert.equal(parked.pending[0].approval?.reason, "tool_changed");
    assert.equal(
      parked.pending[0].approval?.diff,
      `description:\n- ${HONEST}\n+ ${HONEST}${APPENDED}`,
    );
    const resumed = await agent.generate(parked.messages, {
      decisions: [approve(parked.pending[0].id)],
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(resumed.resumed[0].content, "note x");
    // Approval pinned the new definition and listed again: no drift left,
    // and the model now reads what was approved.
    await waitFor(() => servers.servers()[0].pins?.changed.length === 0);
    assert.equal(
      byName(servers.tools, "notes_read_note").description,
      HONEST + APPENDED,
    );
    kv.close();
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("connectServers pins: a rename through list_changed is a removal and a new tool that parks", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  try {
    const kv = await Deno.openKv(path);
    await using store = denoKvStore(kv);
    await using servers = await connectServers(config(), {
      pins: { store },
      signal: AbortSignal.timeout(20_000),
    });
    const agent = new Agent(
      script(
        callTools({ name: "notes_rename" }),
        callTools({ name: "notes_read_note_v2", args: { title: "x" } }),
        say("done"),
      ),
      { toolSource: servers.toolSource },
    );
    const parked = await agent.generate("go", {
      signal: AbortSignal.timeout(20_000),
    });
    const report = servers.servers()[0].pins;
    assert.deepEqual(report?.removed, ["read_note"]);
    assert.deepEqual(report?.added, ["read_note_v2"]);
    assert.equal(parked.pending[0].approval?.reason, "tool_added");
    kv.close();
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

async function waitFor(ok: () => boolean): Promise<void> {
  const end = AbortSignal.timeout(10_000);
  while (!ok()) {
    if (end.aborted) throw new Error("timed out waiting for the condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}
