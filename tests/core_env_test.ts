import assert from "node:assert/strict";
import { modelRequestsAllowed } from "../src/core/env.ts";

const VARIABLE = "WEFT_MODEL_REQUESTS";

function withEnv(value: string | undefined, body: () => void): void {
  const before = Deno.env.get(VARIABLE);
  try {
    if (value === undefined) Deno.env.delete(VARIABLE);
    else Deno.env.set(VARIABLE, value);
    body();
  } finally {
    if (before === undefined) Deno.env.delete(VARIABLE);
    else Deno.env.set(VARIABLE, before);
  }
}

Deno.test("model requests are allowed when the variable is unset", () => {
  withEnv(undefined, () => assert.equal(modelRequestsAllowed(), true));
});

Deno.test("model requests are denied exactly when the variable is deny", () => {
  withEnv("deny", () => assert.equal(modelRequestsAllowed(), false));
  for (const value of ["DENY", "deny ", "", "allow", "0"]) {
    withEnv(
      value,
      () => assert.equal(modelRequestsAllowed(), true, JSON.stringify(value)),
    );
  }
});

Deno.test("the variable is read on every call", () => {
  withEnv("deny", () => {
    assert.equal(modelRequestsAllowed(), false);
    Deno.env.set(VARIABLE, "allow");
    assert.equal(modelRequestsAllowed(), true);
  });
});

async function runWithout(flags: string[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/probe.ts`;
    const env = new URL("../src/core/env.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { modelRequestsAllowed } from ${
        JSON.stringify(env)
      };\nconsole.log(modelRequestsAllowed());\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--no-lock", ...flags, script],
      env: { [VARIABLE]: "deny" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("without env permission the switch reads as allowed", async () => {
  assert.equal(await runWithout([]), "true");
});

Deno.test("with env permission for the variable the switch is read", async () => {
  assert.equal(await runWithout([`--allow-env=${VARIABLE}`]), "false");
});
