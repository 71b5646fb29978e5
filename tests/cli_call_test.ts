// `weft-mcp call` run as a child process: the text the model sees, tool errors, unknown tools.

import assert from "node:assert/strict";
import { ExitCode } from "../cli.ts";
import { cli, SERVER_COMMAND, withHttpServer } from "./_helpers/cli.ts";

Deno.test("call", async (t) => {
  await t.step("prints the result text the model sees", async () => {
    const ran = await cli("call", "lookup_order", '{"order_id":"42"}');
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(ran.stdout, '{"id":"42","status":"shipped"}\n');
  });
  await t.step("over HTTP, the agent tool", async () => {
    await withHttpServer(async (url) => {
      const ran = await cli(
        "call",
        "getting-started",
        '{"prompt":"Where is 1234?"}',
        url.href,
      );
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(ran.stdout, "Order 1234 shipped and is on its way.\n");
    });
  });
  await t.step("a tool error prints its text and exits 1", async () => {
    const ran = await cli(
      "call",
      "lookup_order",
      "{}",
      "--",
      ...SERVER_COMMAND,
    );
    assert.equal(ran.code, ExitCode.toolError);
    assert.equal(
      ran.stdout,
      'INVALID_INPUT: tool "lookup_order": missing required field "order_id"\n',
    );
  });
  await t.step("an unknown tool names the ones there are, exit 2", async () => {
    const ran = await cli("call", "nope");
    assert.equal(ran.code, ExitCode.failure);
    assert.equal(ran.stdout, "");
    assert.equal(
      ran.stderr,
      'weft-mcp: examples/server.ts has no tool named "nope" (its tools: getting-started, lookup_order)\n',
    );
  });
});
