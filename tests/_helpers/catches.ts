/**
 * Finds the catches that swallow silently: a `catch` block whose body is
 * empty or only whitespace, and a promise `.catch(…)` handler that does
 * nothing (`() => {}`, `() => undefined`, `() => void 0`, `() => null`) with
 * no comment inside its parentheses. A comment inside the block (or the
 * handler's parentheses) saying why nothing is lost makes it pass.
 *
 * The scanner blanks out string, template and regular-expression literals
 * (keeping comments and line breaks), so a `catch {}` inside a string is not
 * counted and the line numbers stay those of the file.
 *
 * Run as a script to count them: `deno run -R tests/_helpers/catches.ts [dir]`.
 */

/** One silent catch: where it is and what it looks like. */
export interface SilentCatch {
  file: string;
  line: number;
  text: string;
}

/** Keywords after which a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/** The source with every literal's content replaced by spaces (comments and line breaks kept). */
export function blankLiterals(src: string): string {
  const out = src.split("");
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  /** Brace depths at which a template literal's `${` was opened. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  /** The last significant character or word, to tell a regex from a division. */
  let last = "";
  const n = src.length;
  /** Scans a template body from `i` (after the backtick or `}`); stops after the closing backtick or at `${`. */
  const template = (): void => {
    const start = i;
    while (i < n) {
      const c = src[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "`") {
        blank(start, i);
        i++;
        last = "`";
        return;
      }
      if (c === "$" && src[i + 1] === "{") {
        blank(start, i);
        i += 2;
        templates.push(depth);
        depth++;
        last = "{";
        return;
      }
      i++;
    }
    blank(start, i);
  };
  while (i < n) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < n && src[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const start = ++i;
      while (i < n && src[i] !== c && src[i] !== "\n") {
        i += src[i] === "\\" ? 2 : 1;
      }
      blank(start, i);
      i++;
      last = c;
      continue;
    }
    if (c === "`") {
      i++;
      template();
      continue;
    }
    if (c === "/") {
      const regex = last === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) ||
        REGEX_AFTER_WORD.has(last);
      if (regex) {
        const start = ++i;
        let cls = false;
        while (i < n && src[i] !== "\n") {
          const d = src[i];
          if (d === "\\") {
            i += 2;
            continue;
          }
          if (d === "[") cls = true;
          else if (d === "]") cls = false;
          else if (d === "/" && !cls) break;
          i++;
        }
        blank(start, i);
        i++;
        while (i < n && /[a-z]/.test(src[i])) i++;
        last = "/regex";
        continue;
      }
    }
    if (c === "{") depth++;
    if (c === "}") {
      if (
        templates.length > 0 && templates[templates.length - 1] === depth - 1
      ) {
        templates.pop();
        depth--;
        i++;
        template();
        continue;
      }
      depth--;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const start = i;
      while (i < n && /[\w$]/.test(src[i])) i++;
      last = src.slice(start, i);
      continue;
    }
    if (!/\s/.test(c)) last = c;
    i++;
  }
  return out.join("");
}

/** A `catch` clause (optionally binding a name) whose block holds only whitespace. */
const EMPTY_BLOCK =
  /\bcatch\s*(?:\(\s*[\w$]*\s*(?::\s*[\w$]+\s*)?\))?\s*\{\s*\}/g;
/** A promise `.catch(…)` whose handler does nothing, with nothing but whitespace around it. */
const EMPTY_HANDLER =
  /\.catch\(\s*(?:\(\s*[\w$]*\s*(?::\s*[\w$]+\s*)?\)|[\w$]+)\s*=>\s*(?:\{\s*\}|undefined|void\s+0|null)\s*,?\s*\)/g;

/** The silent catches in one file's source. */
export function silentCatches(file: string, src: string): SilentCatch[] {
  const code = blankLiterals(src);
  const found: SilentCatch[] = [];
  for (const re of [EMPTY_BLOCK, EMPTY_HANDLER]) {
    for (const m of code.matchAll(re)) {
      const line = code.slice(0, m.index).split("\n").length;
      found.push({ file, line, text: m[0].replace(/\s+/g, " ") });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Every `.ts` file under `dir` (recursively), sorted. */
export async function tsFiles(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) files.push(...await tsFiles(url));
    else if (entry.name.endsWith(".ts")) files.push(url);
  }
  return files.sort((a, b) => a.href.localeCompare(b.href));
}

/** The silent catches in every `.ts` file under `dir`, paths relative to `root`. */
export async function silentCatchesUnder(
  dir: URL,
  root: URL,
): Promise<SilentCatch[]> {
  const found: SilentCatch[] = [];
  for (const url of await tsFiles(dir)) {
    const file = url.href.slice(root.href.length);
    found.push(...silentCatches(file, await Deno.readTextFile(url)));
  }
  return found;
}

if (import.meta.main) {
  const root = new URL("../../", import.meta.url);
  const dir = new URL((Deno.args[0] ?? "src").replace(/\/?$/, "/"), root);
  const found = await silentCatchesUnder(dir, root);
  for (const f of found) console.log(`${f.file}:${f.line}: ${f.text}`);
  console.log(`${found.length} silent catches`);
}
