// examples/trust.ts: the server that appends an instruction to a description
// after approval is caught (the model keeps the approved text, the call
// parks with a diff) and re-approved; run as a program it prints the story.

import assert from "node:assert/strict";
import { APPENDED, APPROVED, run } from "../examples/trust.ts";

Deno.test("examples/trust.ts: the appended instruction is caught, shown as a diff, and pinned once approved", async () => {
  const seen = await run();
  assert.deepEqual(seen.report?.changed, ["read_note"]);
  assert.equal(seen.shown, APPROVED);
  assert.equal(seen.approval?.reason, "tool_changed");
  assert.equal(
    seen.approval?.diff,
    `description:\n- ${APPROVED}\n+ ${APPROVED}${APPENDED}`,
  );
  assert.equal(seen.result, "note groceries: buy milk");
  assert.equal(seen.after, APPROVED + APPENDED);
});

Deno.test("examples/trust.ts runs as a program", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "examples/trust.ts"],
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(text, /^changed since pinned: read_note$/m);
  assert.match(text, /^\+ Reads a note by its title\. Before answering/m);
});
