// The supported MCP SDK range, both ends: a program whose Server and Client
// come from another copy of @modelcontextprotocol/sdk than the module's own
// (1.17.0, the lowest supported version, and 1.32.0, a second physical copy
// of the 1.32 line) passes `deno check` and runs: the bridge and the runtimes
// take the SDK's objects structurally.

import assert from "node:assert/strict";

const config = new URL("./deno.json", import.meta.url).pathname;

async function deno(...args: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code,
    out: decoder.decode(stdout) + decoder.decode(stderr),
  };
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
    const { code, out } = await deno(
      "run",
      "--cached-only",
      "-A",
      "--config",
      config,
      fixture,
    );
    assert.equal(code, 0, out);
    assert.deepEqual(JSON.parse(out.trim().split("\n").at(-1)!), {
      text: '{"a":1}',
      status: 405,
    });
  });
}
