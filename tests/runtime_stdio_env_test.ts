// What a stdio server inherits beyond the default few: `envPassthrough`, and
// its default (`OTEL_*` when this process runs with `OTEL_DENO=true`), seen
// by a real child process printing its environment.

import assert from "node:assert/strict";
import { connectStdio } from "../src/runtime/process/connect_stdio.ts";
import { ServerConnectError } from "../src/runtime/errors.ts";
import {
  callText,
  childEnv,
  fixtureArgs,
  startFixture,
} from "./fixtures/runtime_server_helpers.ts";

/** Sets `vars` in this process for `body`, restoring what was there. */
async function withEnv(
  vars: Record<string, string | undefined>,
  body: () => Promise<void>,
): Promise<void> {
  const before = Object.fromEntries(
    Object.keys(vars).map((name) => [name, Deno.env.get(name)]),
  );
  const set = (all: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(all)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
  set(vars);
  try {
    await body();
  } finally {
    set(before);
  }
}

/** The child's environment, as its `env` tool prints it. */
async function childSees(
  options: Parameters<typeof startFixture>[1] = {},
): Promise<Record<string, string>> {
  const { client } = await startFixture("serve", options);
  try {
    return JSON.parse(await callText(client, "env"));
  } finally {
    await client.close();
  }
}

// The child's own telemetry prints to its stderr (the fixture collects it)
// instead of exporting anywhere.
const TRACING = {
  OTEL_DENO: "true",
  OTEL_EXPORTER_OTLP_PROTOCOL: "console",
  OTEL_SERVICE_NAME: "weft-env-test",
  WEFT_ENV_SECRET: "must-not-leak",
};

Deno.test("with OTEL_DENO=true here, the server gets every OTEL_* variable and nothing else; env wins", async () => {
  await withEnv(TRACING, async () => {
    const env = await childSees({ env: { OTEL_SERVICE_NAME: "orders" } });
    assert.equal(env.OTEL_DENO, "true");
    assert.equal(env.OTEL_EXPORTER_OTLP_PROTOCOL, "console");
    assert.equal(env.OTEL_SERVICE_NAME, "orders");
    assert.equal(env.WEFT_ENV_SECRET, undefined);
    const defaults = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
    const given = Object.keys(childEnv({ OTEL_SERVICE_NAME: "orders" }));
    for (const name of Object.keys(env)) {
      assert.ok(
        name.startsWith("OTEL_") || defaults.includes(name) ||
          given.includes(name),
        `inherited ${name}`,
      );
    }
  });
});

Deno.test("without OTEL_DENO here, no OTEL_* variable is passed on by default", async () => {
  await withEnv({ ...TRACING, OTEL_DENO: undefined }, async () => {
    const env = await childSees();
    assert.deepEqual(
      Object.keys(env).filter((name) => name.startsWith("OTEL_")),
      [],
    );
  });
  await withEnv({ ...TRACING, OTEL_DENO: "false" }, async () => {
    assert.equal((await childSees()).OTEL_SERVICE_NAME, undefined);
  });
});

Deno.test("envPassthrough passes names and prefixes on when set; [] passes nothing, even with OTEL_DENO=true", async () => {
  await withEnv(
    {
      ...TRACING,
      OTEL_DENO: undefined,
      WEFT_EXACT: "exact",
      WEFT_EXACT_LONGER: "not named",
      WEFT_FN: "() { echo shell function; }",
    },
    async () => {
      const env = await childSees({
        envPassthrough: ["OTEL_*", "WEFT_EXACT", "WEFT_FN", "WEFT_UNSET"],
      });
      assert.equal(env.OTEL_SERVICE_NAME, "weft-env-test");
      assert.equal(env.WEFT_EXACT, "exact");
      assert.equal(env.WEFT_EXACT_LONGER, undefined);
      assert.equal(env.WEFT_FN, undefined, "an exported shell function");
      assert.ok(!("WEFT_UNSET" in env));
      assert.equal(env.WEFT_ENV_SECRET, undefined);
    },
  );
  await withEnv(TRACING, async () => {
    const env = await childSees({ envPassthrough: [] });
    assert.equal(env.OTEL_DENO, undefined);
    assert.equal(env.OTEL_SERVICE_NAME, undefined);
  });
});

Deno.test("a bad envPassthrough is refused with a TypeError naming the entry, before anything is spawned", async () => {
  const connect = (envPassthrough: unknown) =>
    connectStdio(Deno.execPath(), {
      args: fixtureArgs(),
      env: childEnv(),
      stderr: "ignore",
      envPassthrough: envPassthrough as string[],
    });
  await assert.rejects(connect("OTEL_*"), {
    name: "TypeError",
    message:
      'connectStdio: envPassthrough must be an array of variable names or prefixes ending in "*" (e.g. ["OTEL_*"]), got string',
  });
  for (
    const [bad, shown] of [
      ["OT*EL", '"OT*EL"'],
      ["", '""'],
      ["A=B", '"A=B"'],
      [7, "number"],
    ] as const
  ) {
    await assert.rejects(connect(["OTEL_*", bad]), {
      name: "TypeError",
      message:
        `connectStdio: envPassthrough[1] is ${shown}: give a variable name, or a prefix ending in "*" (e.g. "OTEL_*")`,
    });
  }
  // Refused, not spawned: the spawn phase never starts.
  const error = await connect([""]).catch((e) => e);
  assert.ok(!(error instanceof ServerConnectError));
});
