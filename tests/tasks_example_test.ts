/**
 * examples/tasks.ts: a served agent called as a task over HTTP, the caller
 * restarted halfway, the result fetched by the task id alone — the agent's
 * slow tool ran once per step, never again for the second connection.
 */

import assert from "node:assert/strict";
import { run } from "../examples/tasks.ts";

Deno.test({
  name:
    "examples/tasks.ts: the caller restarts mid-task and still gets the one result",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const outcome = await run(60);
    // Working or already done, by the machine's speed: either way one result.
    assert.ok(["working", "completed"].includes(outcome.seenAfterRestart));
    assert.equal(outcome.text, "Report: three findings.");
    assert.equal(outcome.steps, 3);
  },
});
