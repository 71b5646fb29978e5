/**
 * Reads the results of one conformance run (the `checks.json` files the
 * official suite writes with `-o`), judges every scenario, compares the
 * outcomes with the committed baseline `expected_failures.json`, and prints
 * one line per scenario plus the summary line
 * `conformance: N passed, N expected-failed, N failed`.
 *
 * Exits 1 when a scenario outside the baseline fails, when a baseline
 * scenario passes (the baseline must stay honest), or when the baseline
 * names a scenario the suite does not have.
 *
 * Usage: deno run --allow-read tests/conformance/summarize.ts OUT_DIR [--markdown]
 *
 * OUT_DIR holds `server-scenarios.txt` (the output of `conformance list
 * --server`), `server/` (the `-o` directory of the server run),
 * `client-scenarios.txt` (one scenario name a line), and per client
 * scenario `client/NAME/` (its `-o` directory) and `client/NAME.rc` (the
 * suite's exit code for it).
 *
 * @module
 */

/** One check as the suite writes it to `checks.json`. */
export interface Check {
  /** The check's id. */
  readonly id: string;
  /** Its display name. */
  readonly name?: string;
  /** SUCCESS, FAILURE, WARNING or INFO. */
  readonly status: string;
  /** What the check verifies. */
  readonly description?: string;
  /** Why it failed or warned. */
  readonly errorMessage?: string;
}

/** Which side of the bridge a scenario tests. */
export type Side = "server" | "client";

/** A scenario's outcome against the baseline. */
export type Outcome =
  | "passed"
  | "expected-failed"
  | "failed"
  | "unexpected-pass";

/** One judged scenario. */
export interface Judged {
  /** The side under test. */
  readonly side: Side;
  /** The suite's scenario name. */
  readonly scenario: string;
  /** The outcome against the baseline. */
  readonly outcome: Outcome;
  /** The first failing check, or the baseline's reason. */
  readonly detail: string;
  /** For an expected failure: what actually failed (the first bad check). */
  readonly observed?: string;
}

/** The committed baseline: scenario name to a one-line reason, per side. */
export interface Baseline {
  /** Server scenarios expected to fail. */
  readonly server: Readonly<Record<string, string>>;
  /** Client scenarios expected to fail. */
  readonly client: Readonly<Record<string, string>>;
}

/**
 * Whether a scenario passed, and if not, why. A scenario passes when its
 * checks were written, none is a FAILURE or a WARNING (the rule the suite's
 * own `--expected-failures` applies), at least one is a SUCCESS (a run of
 * INFO lines proves nothing), and, for a client scenario, the suite exited 0.
 */
export function verdict(
  checks: readonly Check[] | undefined,
  options: { exitCode?: number } = {},
): { passed: boolean; why: string } {
  if (checks === undefined) {
    return { passed: false, why: "no checks.json was written" };
  }
  const bad = checks.find((c) =>
    c.status === "FAILURE" || c.status === "WARNING"
  );
  if (bad !== undefined) {
    const message = bad.errorMessage || bad.description || "";
    return {
      passed: false,
      why: `${bad.status} ${bad.name ?? bad.id}: ${oneLine(message)}`,
    };
  }
  if (!checks.some((c) => c.status === "SUCCESS")) {
    return { passed: false, why: "no check succeeded" };
  }
  if (options.exitCode !== undefined && options.exitCode !== 0) {
    return {
      passed: false,
      why: `the suite exited ${options.exitCode} (client failed or timed out)`,
    };
  }
  return { passed: true, why: "" };
}

/** Compares one scenario's verdict with the baseline. */
export function judge(
  side: Side,
  scenario: string,
  result: { passed: boolean; why: string },
  baseline: Baseline,
): Judged {
  const reason = baseline[side][scenario];
  if (reason === undefined) {
    return result.passed
      ? { side, scenario, outcome: "passed", detail: "" }
      : { side, scenario, outcome: "failed", detail: result.why };
  }
  return result.passed
    ? {
      side,
      scenario,
      outcome: "unexpected-pass",
      detail:
        "passes but is in the baseline: remove it from tests/conformance/expected_failures.json",
    }
    : {
      side,
      scenario,
      outcome: "expected-failed",
      detail: reason,
      observed: result.why,
    };
}

/** Baseline entries that name no scenario the suite ran. */
export function unknownEntries(
  baseline: Baseline,
  scenarios: { server: readonly string[]; client: readonly string[] },
): Judged[] {
  const out: Judged[] = [];
  for (const side of ["server", "client"] as const) {
    for (const name of Object.keys(baseline[side])) {
      if (!scenarios[side].includes(name)) {
        out.push({
          side,
          scenario: name,
          outcome: "failed",
          detail: "the baseline names a scenario the suite did not run",
        });
      }
    }
  }
  return out;
}

/** Parses and checks the baseline document. */
export function parseBaseline(text: string): Baseline {
  const doc: unknown = JSON.parse(text);
  if (!isRecord(doc)) throw new TypeError("baseline: not a JSON object");
  const sides: Record<Side, Record<string, string>> = {
    server: {},
    client: {},
  };
  for (const side of ["server", "client"] as const) {
    const entries = doc[side] ?? {};
    if (!isRecord(entries)) {
      throw new TypeError(`baseline: "${side}" is not an object`);
    }
    for (const [name, reason] of Object.entries(entries)) {
      if (
        typeof reason !== "string" || reason.trim() === "" ||
        reason.includes("\n")
      ) {
        throw new TypeError(
          `baseline: ${side} "${name}" needs a one-line reason`,
        );
      }
      sides[side][name] = reason;
    }
  }
  return sides;
}

/** The scenario names in the output of `conformance list`. */
export function parseScenarioList(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  return names;
}

/** The summary line. Unexpected passes count as failed: they fail CI. */
export function summaryLine(results: readonly Judged[]): string {
  const n = (o: Outcome): number =>
    results.filter((r) => r.outcome === o).length;
  const failed = n("failed") + n("unexpected-pass");
  return `conformance: ${n("passed")} passed, ${
    n("expected-failed")
  } expected-failed, ${failed} failed`;
}

/** One line per scenario. */
export function scenarioLine(r: Judged): string {
  const label = r.outcome === "unexpected-pass"
    ? "FAILED (unexpected pass)"
    : r.outcome === "failed"
    ? "FAILED"
    : r.outcome;
  const detail = r.detail === "" ? "" : ` - ${r.detail}`;
  const observed = r.observed === undefined ? "" : ` [got: ${r.observed}]`;
  return `conformance: ${r.side} ${r.scenario}: ${label}${detail}${observed}`;
}

/** The results as the markdown table docs/conformance.md carries. */
export function markdownTable(results: readonly Judged[]): string {
  const rows = [
    "| side | scenario | result | reason |",
    "| --- | --- | --- | --- |",
  ];
  for (const r of results) {
    const reason = r.outcome === "passed"
      ? ""
      : r.detail.replaceAll("|", "\\|");
    rows.push(`| ${r.side} | \`${r.scenario}\` | ${r.outcome} | ${reason} |`);
  }
  return rows.join("\n");
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const timestamp = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

async function readChecks(dir: string): Promise<Check[] | undefined> {
  try {
    const doc: unknown = JSON.parse(
      await Deno.readTextFile(`${dir}/checks.json`),
    );
    return Array.isArray(doc) ? doc as Check[] : undefined;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

async function serverResults(
  out: string,
): Promise<Map<string, Check[] | undefined>> {
  const found = new Map<string, Check[] | undefined>();
  try {
    for await (const entry of Deno.readDir(`${out}/server`)) {
      if (!entry.isDirectory || !entry.name.startsWith("server-")) continue;
      const name = entry.name.slice("server-".length).replace(timestamp, "");
      found.set(name, await readChecks(`${out}/server/${entry.name}`));
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return found;
}

async function clientResult(
  out: string,
  name: string,
): Promise<{ checks?: Check[]; exitCode?: number }> {
  const rc = await readText(`${out}/client/${name}.rc`);
  let checks: Check[] | undefined;
  try {
    for await (const entry of Deno.readDir(`${out}/client/${name}`)) {
      if (entry.isDirectory) {
        checks = await readChecks(`${out}/client/${name}/${entry.name}`);
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return { checks, exitCode: rc === undefined ? 1 : Number(rc.trim()) };
}

async function main(args: string[]): Promise<number> {
  const out = args.find((a) => !a.startsWith("--"));
  if (out === undefined) {
    console.error("usage: summarize.ts OUT_DIR [--markdown]");
    return 2;
  }
  const baselineUrl = new URL("./expected_failures.json", import.meta.url);
  const baseline = parseBaseline(await Deno.readTextFile(baselineUrl));
  const serverNames = parseScenarioList(
    await readText(`${out}/server-scenarios.txt`) ?? "",
  );
  const clientNames = (await readText(`${out}/client-scenarios.txt`) ?? "")
    .split("\n").filter((s) => s !== "");
  if (serverNames.length === 0) {
    console.error("conformance: the suite listed no server scenarios");
    return 1;
  }
  const results: Judged[] = [];
  const ran = await serverResults(out);
  for (const name of serverNames) {
    results.push(judge("server", name, verdict(ran.get(name)), baseline));
  }
  for (const name of clientNames) {
    const { checks, exitCode } = await clientResult(out, name);
    results.push(
      judge("client", name, verdict(checks, { exitCode }), baseline),
    );
  }
  results.push(
    ...unknownEntries(baseline, { server: serverNames, client: clientNames }),
  );

  if (args.includes("--markdown")) console.log(markdownTable(results));
  else for (const r of results) console.log(scenarioLine(r));
  console.log(summaryLine(results));
  return results.some((r) =>
      r.outcome === "failed" || r.outcome === "unexpected-pass"
    )
    ? 1
    : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
