// importTools' requireApproval picks tools: true, false, a list of names
// (the server's or the prefixed), a function of the server's name and the
// tool as listed (its annotations: gate what may destroy); a rule
// of another type is refused before anything is listed.

import assert from "node:assert/strict";
import { Agent, type ApprovalRule, approve, importTools } from "../mod.ts";
import { callTools, say, script } from "../testing.ts";
import { entry, listedServer } from "./_helpers/mcp_servers.ts";

const NAMES = ["read_file", "write_file", "delete_file"];

async function gated(rule: ApprovalRule, prefix = ""): Promise<string[]> {
  await using peer = await listedServer({ tools: NAMES.map((n) => entry(n)) });
  const { tools } = await importTools(peer.client, {
    prefix,
    policy: { requireApproval: rule },
  });
  return tools.filter((t) => t.requiresApproval).map((t) => t.name);
}

Deno.test("requireApproval: true gates every tool, false none", async () => {
  assert.deepEqual(await gated(true), NAMES);
  assert.deepEqual(await gated(false), []);
});

Deno.test("requireApproval: a list gates the tools it names, by the server's name or the prefixed one", async () => {
  assert.deepEqual(await gated(["delete_file"]), ["delete_file"]);
  assert.deepEqual(await gated(["delete_file"], "fs_"), ["fs_delete_file"]);
  assert.deepEqual(await gated(["fs_write_file"], "fs_"), ["fs_write_file"]);
  // Exact names only: no prefix matching, no case folding.
  assert.deepEqual(await gated(["delete", "DELETE_FILE"]), []);
});

Deno.test("requireApproval: a function is asked once per tool with the server's name; true gates it", async () => {
  const asked: string[] = [];
  const rule = (name: string) => {
    asked.push(name);
    return name !== "read_file";
  };
  assert.deepEqual(await gated(rule, "fs_"), [
    "fs_write_file",
    "fs_delete_file",
  ]);
  assert.deepEqual(asked, NAMES);
  // Only `true` gates: a truthy value that is not `true` does not.
  const loose = (() => "yes") as unknown as ApprovalRule;
  assert.deepEqual(await gated(loose), []);
});

Deno.test("requireApproval of another type is refused before the listing, naming what it got", async () => {
  await using peer = await listedServer({ tools: [entry("x")] });
  for (
    const [rule, got] of [
      ["true", "string"],
      [1, "number"],
      [["a", 2], "an array with a non-string"],
    ] as const
  ) {
    await assert.rejects(
      importTools(peer.client, {
        policy: { requireApproval: rule as unknown as ApprovalRule },
      }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.equal(
          error.message,
          `importTools: policy.requireApproval must be true, false, an array of tool names or a function, got ${got}`,
        );
        return true;
      },
    );
  }
  assert.deepEqual(peer.cursors, []);
});

Deno.test("docs/import.md: the listed tools park for approval, the others run, approving runs them", async () => {
  await using peer = await listedServer({
    tools: ["read_file", "list_directory", "delete_file", "move_file"].map((
      n,
    ) => entry(n)),
    call: (call) => ({
      content: [{ type: "text", text: `${call.name} done` }],
    }),
  });
  const { tools } = await importTools(peer.client, {
    prefix: "fs_",
    policy: { requireApproval: ["delete_file", "move_file"] },
  });
  const model = script(
    callTools(
      { name: "fs_list_directory", args: { path: "/tmp" } },
      { name: "fs_delete_file", args: { path: "/tmp/old.log" } },
    ),
    say("Deleted."),
  );
  const agent = new Agent(model, { tools });
  const parked = await agent.generate("Tidy up /tmp: delete the old logs.");
  assert.deepEqual(
    parked.pending.map((call) => [call.name, call.args]),
    [["fs_delete_file", '{"path":"/tmp/old.log"}']],
  );
  assert.deepEqual(peer.calls.map((c) => c.name), ["list_directory"]);
  const done = await agent.generate(parked.messages, {
    decisions: parked.pending.map((call) => approve(call.id)),
  });
  assert.equal(done.text, "Deleted.");
  assert.deepEqual(peer.calls.map((c) => c.name), [
    "list_directory",
    "delete_file",
  ]);
});

Deno.test("requireApproval: a function gets the tool as the server lists it — name, title, description, annotations ({} when none)", async () => {
  await using peer = await listedServer({
    tools: [
      entry("delete_file", {
        title: "Delete a file",
        description: "Deletes a file.",
        annotations: { destructiveHint: true, readOnlyHint: false, x: 1 },
      }),
      entry("read_file", { annotations: { readOnlyHint: "yes" } }),
    ],
  });
  const seen: unknown[][] = [];
  await importTools(peer.client, {
    prefix: "fs_",
    policy: {
      requireApproval: (...args) => {
        seen.push(args);
        return false;
      },
    },
  });
  assert.deepEqual(seen, [
    ["delete_file", {
      name: "delete_file",
      title: "Delete a file",
      description: "Deletes a file.",
      annotations: {
        title: "Delete a file",
        readOnlyHint: false,
        destructiveHint: true,
      },
    }],
    // A hint of the wrong type is not a hint.
    ["read_file", { name: "read_file", description: "", annotations: {} }],
  ]);
  // What a rule sees cannot change what the tool carries.
  const [, first] = seen[0] as [string, { annotations: object }];
  assert.ok(Object.isFrozen(first.annotations));
});

Deno.test("requireApproval by annotations: a destructive tool parks, a read-only one runs, and approving runs the parked one", async () => {
  await using peer = await listedServer({
    tools: [
      entry("read_file", { annotations: { readOnlyHint: true } }),
      entry("append_log", {
        annotations: { readOnlyHint: false, destructiveHint: false },
      }),
      entry("delete_file", { annotations: { destructiveHint: true } }),
      // No hints: MCP's defaults, not read-only and destructive.
      entry("run_script"),
    ],
    call: (call) => ({
      content: [{ type: "text", text: `${call.name} done` }],
    }),
  });
  const { tools } = await importTools(peer.client, {
    policy: {
      requireApproval: (_name, { annotations }) =>
        annotations.readOnlyHint !== true &&
        annotations.destructiveHint !== false,
    },
  });
  assert.deepEqual(
    tools.filter((t) => t.requiresApproval).map((t) => t.name),
    ["delete_file", "run_script"],
  );
  const model = script(
    callTools(
      { name: "read_file", args: {} },
      { name: "delete_file", args: {} },
    ),
    say("Done."),
  );
  const agent = new Agent(model, { tools });
  const parked = await agent.generate("Read, then delete.");
  assert.deepEqual(parked.pending.map((call) => call.name), ["delete_file"]);
  assert.deepEqual(peer.calls.map((c) => c.name), ["read_file"]);
  const done = await agent.generate(parked.messages, {
    decisions: [approve(parked.pending[0].id)],
  });
  assert.equal(done.text, "Done.");
  assert.deepEqual(peer.calls.map((c) => c.name), ["read_file", "delete_file"]);
  assert.equal(done.resumed[0].content, "delete_file done");
});
