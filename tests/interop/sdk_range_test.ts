// The supported MCP SDK range, both ends: a program whose Server and Client
// come from another copy of @modelcontextprotocol/sdk than the module's own
// (1.17.0, the lowest supported version, and 1.32.0, a second physical copy
// of the 1.32 line) passes `deno check` and runs: the bridge and the runtimes
// take the SDK's objects structurally.

import assert from "node:assert/strict";

const config = new URL("./deno.json", import.meta.url).pathname;

async function deno(
  ...args: string[]
): Promise<{ code: number; out: string; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  const [o, e] = [decoder.decode(stdout), decoder.decode(stderr)];
  return { code, out: o + e, stdout: o, stderr: e };
}

for (
  const [label, file] of [
    ["the lowest supported SDK (1.17.0)", "sdk_low.ts"],
    ["a second copy of SDK 1.32", "sdk_copy.ts"],
  ]
) {
  const fixture = new URL(`./fixtures/${file}`, import.meta.url).pathname;

  Deno.test(`a program on ${label} passes deno check`, async () => {
    const { code, out } = await deno("check", "--config", config, fixture);
    assert.equal(code, 0, out);
  });

  Deno.test(`a program on ${label} exports, imports and serves`, async () => {
    const { code, out, stdout, stderr } = await deno(
      "run",
      "--cached-only",
      "-A",
      "--config",
      config,
      fixture,
    );
    assert.equal(code, 0, out);
    assert.deepEqual(JSON.parse(stdout.trim().split("\n").at(-1)!), {
      text: '{"a":1}',
      status: 405,
    });
    // What the seam says of this copy, once per internal, on stderr: 1.17
    // keeps no per-session logging levels; 1.32 lacks nothing.
    const said = stderr.split("\n").filter((l) => l.startsWith("@weft/mcp:"));
    assert.deepEqual(
      said.map((l) => l.match(/\[(\w+)\]$/)?.[1]),
      file === "sdk_low.ts" ? ["loggingLevels"] : [],
      stderr,
    );
  });
}
