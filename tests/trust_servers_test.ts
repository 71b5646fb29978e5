// connectServers' pins with a real child process: the first start pins, a
// restart over Deno KV reports zero drift, a description the server changes
// through list_changed parks the tool's calls with a diff, approve re-pins
// (and the model then reads the new text), a rename is a removal and a new
// tool.

import assert from "node:assert/strict";
import { Agent, approve, connectServers, type ToolDef } from "../mod.ts";
import { denoKvStore, memoryStore } from "../store.ts";
import { PinDriftError } from "../servers.ts";
import { callTools, say, script } from "../testing.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { APPENDED, HONEST } from "./fixtures/rug_pull_server.ts";
import { waitFor } from "./_helpers/wait.ts";

const SERVER = new URL("./fixtures/rug_pull_server.ts", import.meta.url)
  .pathname;

function config(file?: string) {
  return {
    notes: {
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", SERVER, ...(file ? [file] : [])],
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
    const errors: Error[] = [];
    await using servers = await connectServers(config(), {
      pins: { store },
      signal: AbortSignal.timeout(20_000),
      onError: (e) => errors.push(e),
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
    // Reported once to onError, as a PinDriftError.
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof PinDriftError);
    assert.equal(
      errors[0].message,
      'server "notes": tool definitions changed since they were pinned: read_note (their calls wait for approval)',
    );
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
      decisions: [approve(parked.pending[0])],
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(resumed.resumed[0].content, "note x");
    // Approval pinned the new definition and listed again: no drift left,
    // and the model now reads what was approved.
    await until(() => servers.servers()[0].pins?.changed.length === 0);
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
    const errors: Error[] = [];
    await using servers = await connectServers(config(), {
      pins: { store },
      signal: AbortSignal.timeout(20_000),
      onError: (e) => errors.push(e),
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
    // The new tool is reported once to onError, as a PinDriftError.
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof PinDriftError);
    assert.equal(
      errors[0].message,
      'server "notes": new: read_note_v2 (their calls wait for approval)',
    );
    kv.close();
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("connectServers pins: a reconnect's listing is checked too — a restarted server with a changed description is held", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-trust-" });
  try {
    const file = `${dir}/description.txt`;
    await Deno.writeTextFile(file, HONEST);
    await using store = memoryStore();
    const errors: Error[] = [];
    await using servers = await connectServers(config(file), {
      pins: { store },
      signal: AbortSignal.timeout(20_000),
      reconnect: { maxAttempts: 3, initialDelay: 1, maxDelay: 10 },
      onError: (e) => errors.push(e),
    });
    assert.equal(servers.servers()[0].pins?.firstContact, true);
    // The next process will list another description.
    await Deno.writeTextFile(file, HONEST + APPENDED);
    const signal = AbortSignal.timeout(15_000);
    assert.equal(
      await byName(servers.tools, "notes_exit").invoke("{}", { signal }),
      "bye",
    );
    await until(() => servers.servers()[0].state === "lost");
    // Any call brings the server back; its listing goes through the pins.
    await byName(servers.tools, "notes_pull").invoke("{}", { signal });
    await until(() => servers.servers()[0].pins?.changed.length === 1);
    assert.ok(errors.some((e) => e instanceof PinDriftError), String(errors));
    assert.equal(byName(servers.tools, "notes_read_note").description, HONEST);
    const agent = new Agent(
      script(
        callTools({ name: "notes_read_note", args: { title: "x" } }),
        say("done"),
      ),
      { toolSource: servers.toolSource },
    );
    const parked = await agent.generate("go", { signal });
    assert.equal(parked.pending[0].approval?.reason, "tool_changed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Polls `ok` until it holds (10 s deadline). */
function until(ok: () => boolean): Promise<unknown> {
  return waitFor(ok, "the condition", { everyMs: 10 });
}
