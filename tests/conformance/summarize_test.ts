import assert from "node:assert/strict";
import {
  type Baseline,
  type Check,
  judge,
  markdownTable,
  parseBaseline,
  parseScenarioList,
  scenarioLine,
  summaryLine,
  unknownEntries,
  verdict,
} from "./judge.ts";

const ok: Check = { id: "a", name: "A", status: "SUCCESS" };
const info: Check = { id: "i", status: "INFO" };
const warn: Check = {
  id: "w",
  name: "W",
  status: "WARNING",
  errorMessage: "no priming\nevent",
};
const fail: Check = {
  id: "f",
  name: "F",
  status: "FAILURE",
  errorMessage: "Method not found",
};
const baseline: Baseline = {
  server: { "resources-list": "no resources" },
  client: {},
};

Deno.test("verdict", async (t) => {
  await t.step("passes with a success and no failure or warning", () => {
    assert.deepEqual(verdict([info, ok]), { passed: true, why: "" });
  });
  await t.step("a missing checks.json fails", () => {
    assert.deepEqual(verdict(undefined), {
      passed: false,
      why: "no checks.json was written",
    });
  });
  await t.step("a FAILURE fails, naming the check", () => {
    assert.deepEqual(verdict([ok, fail]), {
      passed: false,
      why: "FAILURE F: Method not found",
    });
  });
  await t.step(
    "a WARNING fails, as the suite's own baseline rule has it",
    () => {
      assert.deepEqual(verdict([ok, warn]), {
        passed: false,
        why: "WARNING W: no priming event",
      });
    },
  );
  await t.step("only INFO checks prove nothing", () => {
    assert.deepEqual(verdict([info]), {
      passed: false,
      why: "no check succeeded",
    });
  });
  await t.step("a client run that exited non-zero fails", () => {
    assert.equal(verdict([ok], { exitCode: 1 }).passed, false);
    assert.equal(verdict([ok], { exitCode: 0 }).passed, true);
  });
});

Deno.test("judge against the baseline", async (t) => {
  const pass = { passed: true, why: "" };
  const broken = { passed: false, why: "FAILURE F: x" };
  await t.step("pass outside the baseline", () => {
    assert.equal(judge("server", "ping", pass, baseline).outcome, "passed");
  });
  await t.step("failure outside the baseline", () => {
    assert.deepEqual(judge("server", "ping", broken, baseline), {
      side: "server",
      scenario: "ping",
      outcome: "failed",
      detail: "FAILURE F: x",
    });
  });
  await t.step(
    "failure in the baseline carries the reason and what failed",
    () => {
      assert.deepEqual(judge("server", "resources-list", broken, baseline), {
        side: "server",
        scenario: "resources-list",
        outcome: "expected-failed",
        detail: "no resources",
        observed: "FAILURE F: x",
      });
    },
  );
  await t.step("pass in the baseline is a stale entry", () => {
    assert.equal(
      judge("server", "resources-list", pass, baseline).outcome,
      "unexpected-pass",
    );
  });
  await t.step("the baseline is per side", () => {
    assert.equal(
      judge("client", "resources-list", broken, baseline).outcome,
      "failed",
    );
  });
});

Deno.test("baseline entries must name scenarios the suite ran", () => {
  const unknown = unknownEntries(baseline, { server: ["ping"], client: [] });
  assert.deepEqual(unknown.map((u) => [u.scenario, u.outcome]), [[
    "resources-list",
    "failed",
  ]]);
  assert.deepEqual(
    unknownEntries(baseline, { server: ["resources-list"], client: [] }),
    [],
  );
});

Deno.test("parseBaseline", async (t) => {
  await t.step("reads both sides; a missing side is empty", () => {
    assert.deepEqual(parseBaseline('{"server":{"x":"why"}}'), {
      server: { x: "why" },
      client: {},
    });
  });
  await t.step(
    "refuses a reason that is empty, multi-line or not a string",
    () => {
      assert.throws(() => parseBaseline('{"server":{"x":""}}'), TypeError);
      assert.throws(() => parseBaseline('{"server":{"x":"a\\nb"}}'), TypeError);
      assert.throws(() => parseBaseline('{"server":{"x":1}}'), TypeError);
      assert.throws(() => parseBaseline('{"server":["x"]}'), TypeError);
      assert.throws(() => parseBaseline("[]"), TypeError);
    },
  );
});

Deno.test("parseScenarioList reads `conformance list` output", () => {
  const text = "Server scenarios (test against a server):\n" +
    "  - server-initialize [2025-06-18,2025-11-25]\n  - ping [2025-06-18]\n";
  assert.deepEqual(parseScenarioList(text), ["server-initialize", "ping"]);
});

Deno.test("report lines", () => {
  const results = [
    judge("server", "ping", { passed: true, why: "" }, baseline),
    judge("server", "resources-list", { passed: false, why: "x" }, baseline),
    judge(
      "server",
      "tools-list",
      { passed: false, why: "FAILURE F: x" },
      baseline,
    ),
    judge("server", "resources-list", { passed: true, why: "" }, baseline),
  ];
  assert.equal(
    summaryLine(results),
    "conformance: 1 passed, 1 expected-failed, 2 failed",
  );
  assert.deepEqual(results.map(scenarioLine), [
    "conformance: server ping: passed",
    "conformance: server resources-list: expected-failed - no resources [got: x]",
    "conformance: server tools-list: FAILED - FAILURE F: x",
    "conformance: server resources-list: FAILED (unexpected pass) - passes but is in the baseline: " +
    "remove it from tests/conformance/expected_failures.json",
  ]);
  assert.match(
    markdownTable(results),
    /^\| side \| scenario \| result \| reason \|\n/,
  );
  assert.ok(markdownTable(results).includes("| server | `ping` | passed |  |"));
});

Deno.test("the committed baseline names only scenarios of the pinned suite", async () => {
  const text = await Deno.readTextFile(
    new URL("./expected_failures.json", import.meta.url),
  );
  const committed = parseBaseline(text);
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--cached-only",
      // The suite is a test-only package: tests/interop's import map and
      // lock hold it, and the root lock must not gain it.
      "--config",
      new URL("../interop/deno.json", import.meta.url).pathname,
      "npm:@modelcontextprotocol/conformance@0.1.16",
      "list",
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(code, 0);
  const listed = new TextDecoder().decode(stdout);
  const [serverPart, clientPart] = listed.split("Client scenarios");
  const known = {
    server: parseScenarioList(serverPart),
    client: parseScenarioList(clientPart),
  };
  assert.ok(
    known.server.includes("tools-list") && known.client.includes("tools_call"),
  );
  assert.deepEqual(unknownEntries(committed, known), []);
});
