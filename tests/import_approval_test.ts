// importTools' requireApproval picks tools: true, false, a list of names
// (the server's or the prefixed), a function of the server's name; a rule
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
