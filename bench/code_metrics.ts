/**
 * The layout's sizes, as issue reviews count them: files under `src/` over
 * 300 and over 600 lines, functions over 100 lines (every function,
 * method, arrow, accessor and constructor, by TypeScript's own parser),
 * and the test files that sleep (`setTimeout(resolve, N)`, `delay(N)`,
 * `sleep(N)` with a literal N under `tests/`, `node_modules` aside).
 * Silent catches have their own scanner (`tests/_helpers/catches.ts`).
 *
 *     deno run -R -E --config tests/interop/deno.json bench/code_metrics.ts [root] [--list]
 *
 * `root` is a checkout (default: this one), so a base tree is measured the
 * same way; `--list` names every file and function counted.
 *
 * @module
 */

import ts from "typescript";

/** What one tree measures. */
interface Metrics {
  files: number;
  lines: number;
  over600: [string, number][];
  over300: [string, number][];
  longFunctions: [string, number][];
  sleepers: string[];
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      if (entry.name !== "node_modules") yield* walk(path);
    } else if (path.endsWith(".ts")) yield path;
  }
}

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function nameOf(node: ts.Node, line: number): string {
  const named = (node as { name?: ts.Node }).name;
  if (named !== undefined) return named.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  return `<anonymous at line ${line}>`;
}

function isFunctionLike(node: ts.Node): boolean {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) || ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) ||
    ts.isSetAccessor(node);
}

function longFunctions(
  file: string,
  text: string,
): [string, number][] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: [string, number][] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line +
        1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const length = end - start + 1;
      if (length > 100) {
        found.push([`${file}:${start} ${nameOf(node, start)}`, length]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const SLEEP =
  /setTimeout\s*\(\s*r(es(olve)?)?\s*,\s*\d|\bdelay\(\s*\d|\bsleep\(\s*\d/;

async function measure(root: string): Promise<Metrics> {
  const metrics: Metrics = {
    files: 0,
    lines: 0,
    over600: [],
    over300: [],
    longFunctions: [],
    sleepers: [],
  };
  for await (const path of walk(`${root}/src`)) {
    const text = await Deno.readTextFile(path);
    const file = path.slice(root.length + 1);
    const lines = lineCount(text);
    metrics.files++;
    metrics.lines += lines;
    if (lines > 600) metrics.over600.push([file, lines]);
    if (lines > 300) metrics.over300.push([file, lines]);
    metrics.longFunctions.push(...longFunctions(file, text));
  }
  for await (const path of walk(`${root}/tests`)) {
    if (SLEEP.test(await Deno.readTextFile(path))) {
      metrics.sleepers.push(path.slice(root.length + 1));
    }
  }
  return metrics;
}

const list = Deno.args.includes("--list");
const root = Deno.args.find((arg) => !arg.startsWith("--")) ??
  new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const m = await measure(root);
const byLength = (a: [string, number], b: [string, number]) => b[1] - a[1];
const show = (rows: [string, number][]) => {
  if (list) {
    for (const [name, n] of rows.sort(byLength)) {
      console.log(`  ${n} ${name}`);
    }
  }
};
console.log(`src: ${m.files} files, ${m.lines} lines`);
console.log(`files over 600 lines: ${m.over600.length}`);
show(m.over600);
console.log(`files over 300 lines: ${m.over300.length}`);
show(m.over300);
console.log(`functions over 100 lines: ${m.longFunctions.length}`);
show(m.longFunctions);
console.log(`test files that sleep: ${m.sleepers.length}`);
if (list) { for (const file of m.sleepers.sort()) console.log(`  ${file}`); }
