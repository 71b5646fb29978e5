/**
 * The verdict rule and the baseline comparison of the conformance run
 * (ADR 0050): pure functions over the suite's checks, used by
 * `summarize.ts` and pinned by `summarize_test.ts`.
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
