// `weft-mcp inspect` (and `deno task start`) run as a child process over stdio and HTTP, and on a server with a read-only tool and a skipped one.

import assert from "node:assert/strict";
import { ExitCode } from "../cli.ts";
import {
  BUNDLED,
  cli,
  ERA_SHOWN,
  run,
  SERVER_COMMAND,
  withHttpServer,
  withOddServer,
  withoutEra,
} from "./_helpers/cli.ts";

Deno.test("deno task start prints the inspection of the bundled server", async () => {
  const ran = await run(["task", "start"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(withoutEra(ran.stdout), BUNDLED);
});

Deno.test("inspect", async (t) => {
  await t.step("with no target: the bundled server", async () => {
    const ran = await cli("inspect");
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(withoutEra(ran.stdout), BUNDLED);
    assert.match(ran.stdout, ERA_SHOWN);
  });
  await t.step("a stdio command after --", async () => {
    const ran = await cli("inspect", "--", ...SERVER_COMMAND);
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(withoutEra(ran.stdout), BUNDLED);
    assert.match(ran.stdout, ERA_SHOWN);
  });
  await t.step("a Streamable HTTP URL", async () => {
    await withHttpServer(async (url) => {
      const ran = await cli("inspect", url.href);
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(withoutEra(ran.stdout), BUNDLED);
      assert.match(ran.stdout, ERA_SHOWN);
    });
  });
  await t.step(
    "a slow start shows progress on stderr, stdout stays the inspection",
    async () => {
      const ran = await cli(
        "inspect",
        "--",
        "sh",
        "-c",
        'sleep 1.5; exec "$0" run -A --quiet examples/server.ts',
        Deno.execPath(),
      );
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(withoutEra(ran.stdout), BUNDLED);
      assert.match(ran.stdout, ERA_SHOWN);
      assert.match(
        ran.stderr,
        /^weft-mcp: connecting to sh -c 'sleep 1\.5; exec "\$0" run .*' \S+ \(1s\)$/m,
      );
    },
  );
});

Deno.test("inspect and call a server with a read-only tool and a skipped one", async (t) => {
  await withOddServer(false, async (url) => {
    await t.step(
      "inspect shows the parallel tool and the skipped one, exit 0",
      async () => {
        const ran = await cli("inspect", url);
        assert.equal(ran.code, ExitCode.ok, ran.stderr);
        assert.equal(
          withoutEra(ran.stdout),
          `server odd 1: 1 tool imported, 1 skipped

search
  runs: parallel: the server marked it readOnlyHint
  description: Search.
  input schema: {"type":"object","properties":{"q":{"type":"string","minLength":1}}}
  kept beyond the core's view: minLength at /properties/q
  output schema: none

skipped 1 tool:
  "broken": weft: parseSchema: top-level type must be "object", got "array"
`,
        );
      },
    );
    await t.step(
      "call of a skipped tool says why it is not there, exit 2",
      async () => {
        const ran = await cli("call", "broken", url);
        assert.equal(ran.code, ExitCode.failure);
        assert.equal(
          ran.stderr,
          'weft-mcp: tool "broken" was not imported: weft: parseSchema: top-level type must be "object", got "array"\n',
        );
      },
    );
  });
  await withOddServer(true, async (url) => {
    await t.step(
      "a failing tools/list: exit 2 with the server's error",
      async () => {
        const ran = await cli("inspect", url);
        assert.equal(ran.code, ExitCode.failure);
        assert.equal(ran.stdout, "");
        assert.equal(
          ran.stderr,
          `weft-mcp: cannot list the tools of ${url}: MCP error -32603: listing is down\n`,
        );
      },
    );
  });
});
