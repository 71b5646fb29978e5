// examples/many_tools.ts: toolSearch over four servers, and a cold start
// with a warm catalog that starts only the server whose tool is called.

import assert from "node:assert/strict";
import { FINAL_TEXT, run } from "../examples/many_tools.ts";

Deno.test("many_tools.ts: the model sees the search first, the cold start starts one server only", async () => {
  const logs: string[] = [];
  const result = await run((line) => logs.push(line));
  assert.equal(result.text, FINAL_TEXT);
  const cold = logs.indexOf("cold start (the catalog is warm):");
  assert.ok(cold > 0, logs.join("\n"));
  assert.equal(
    logs[cold + 1],
    "started: shop=cached warehouse=cached billing=cached support=cached",
  );
  assert.equal(logs[cold + 2], "tools per model request: 1, 4, 4 (of 9)");
  assert.equal(
    logs.at(-1),
    "after the run: shop=cached warehouse=connected billing=cached support=cached",
  );
  assert.ok(
    logs.includes(
      'warehouse_lookup_order -> {"id":"1234","status":"shipped"}',
    ),
  );
});
