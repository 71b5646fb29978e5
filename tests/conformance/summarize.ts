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

import {
  type Check,
  judge,
  type Judged,
  markdownTable,
  parseBaseline,
  parseScenarioList,
  scenarioLine,
  summaryLine,
  unknownEntries,
  verdict,
} from "./judge.ts";

const timestamp = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

async function readChecks(dir: string): Promise<Check[] | undefined> {
  const text = await readText(`${dir}/checks.json`);
  if (text === undefined) return undefined;
  const doc: unknown = JSON.parse(text);
  return Array.isArray(doc) ? doc as Check[] : undefined;
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
  const checks = await findChecks(`${out}/client/${name}`);
  return { checks, exitCode: rc === undefined ? 1 : Number(rc.trim()) };
}

/**
 * The checks under a client scenario's `-o` directory: the suite writes
 * them to `NAME-TIMESTAMP/checks.json`, where a NAME with a slash
 * (`auth/metadata-default`) adds a level.
 */
async function findChecks(dir: string): Promise<Check[] | undefined> {
  let checks: Check[] | undefined;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isDirectory) continue;
      const path = `${dir}/${entry.name}`;
      checks = await readChecks(path) ?? await findChecks(path) ?? checks;
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return checks;
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
