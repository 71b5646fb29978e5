// examples/servers.ts: connectServers over a config with a good and a bad
// server, as a function and as a program.

import assert from "node:assert/strict";
import { FINAL_TEXT, run } from "../examples/servers.ts";

const ROOT = new URL("../", import.meta.url).pathname;

Deno.test("servers.ts: the good server's tools prefixed, the bad one named with its phase, the agent's answer", async (t) => {
  await t.step("as a function", async () => {
    const logs: string[] = [];
    const result = await run((line) => logs.push(line));
    assert.equal(result.text, FINAL_TEXT);
    assert.deepEqual(logs, [
      'mcp: 1 server(s) failed: server "legacy" (weft-example-no-such-server --stdio): spawn failed: command not found: weft-example-no-such-server',
      'shop_lookup_order -> {"id":"1234","status":"shipped"}',
    ]);
  });
  await t.step("as a program", async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "examples/servers.ts"],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), `${FINAL_TEXT}\n`);
    assert.match(stderr, /spawn failed: command not found/);
  });
});
