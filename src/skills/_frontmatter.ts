/**
 * A strict reader of a `SKILL.md`'s YAML frontmatter: the subset skills
 * use, read as YAML 1.2's core schema reads it, and a refusal (a
 * `FrontmatterError` naming the line) for anything outside it, so that
 * what is read never differs from what a full YAML parser would read.
 *
 * Read: `key: value` lines; values plain (typed: null, booleans, integers,
 * floats, else strings), single- or double-quoted strings, one-line flow
 * sequences of scalars (`[a, "b"]`), and under an empty value either a
 * block sequence of scalars (`  - item`) or a block mapping of scalars
 * (`  key: value`, one level). Comments and blank lines are skipped.
 * Refused: block scalars (`|`, `>`), multi-line plain scalars, anchors,
 * tags, aliases, flow mappings, nested collections beyond one level,
 * repeated keys and the key `__proto__`.
 *
 * @module
 */

/** The frontmatter could not be read: `line` counts from the file's first line. */
export class FrontmatterError extends Error {
  /** The line of `SKILL.md` at fault, when one is. */
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "FrontmatterError";
    this.line = line;
  }
}

/** A `SKILL.md` split: its frontmatter as JSON, and the markdown after it. */
export interface SkillMarkdown {
  readonly frontmatter: Record<string, unknown>;
  readonly body: string;
}

/** Reads `SKILL.md`'s text (BOM and CRLF allowed). */
export function parseSkillMarkdown(markdown: string): SkillMarkdown {
  let text = markdown.replaceAll("\r\n", "\n");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.startsWith("---\n")) {
    throw new FrontmatterError('SKILL.md must begin with a "---" line', 1);
  }
  const lines = text.slice(4).split("\n");
  const close = lines.findIndex((line) => /^---[\t ]*$/.test(line));
  if (close === -1) {
    throw new FrontmatterError('the frontmatter has no closing "---" line');
  }
  const frontmatter = readMapping(lines.slice(0, close), 2);
  return { frontmatter, body: lines.slice(close + 1).join("\n") };
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.\/-]*):(?:[ \t]+(.*))?$/;

function isSkipped(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

function indentOf(line: string, no: number): number {
  const m = /^( *)/.exec(line)!;
  if (line[m[1].length] === "\t") {
    throw new FrontmatterError("tabs may not indent YAML", no);
  }
  return m[1].length;
}

function setKey(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
  no: number,
): void {
  if (key === "__proto__") {
    throw new FrontmatterError('the key "__proto__" is refused', no);
  }
  if (Object.hasOwn(target, key)) {
    throw new FrontmatterError(`the key "${key}" is given twice`, no);
  }
  target[key] = value;
}

function readMapping(
  lines: readonly string[],
  first: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const no = first + i;
    const line = lines[i];
    if (isSkipped(line)) {
      i++;
      continue;
    }
    if (indentOf(line, no) !== 0) {
      throw new FrontmatterError("unexpected indentation", no);
    }
    const m = KEY.exec(line.trimEnd());
    if (m === null) {
      throw new FrontmatterError(
        'expected "key: value" (only the YAML subset skills use is read)',
        no,
      );
    }
    const rest = stripComment(m[2] ?? "", no);
    i++;
    if (rest !== "") {
      setKey(out, m[1], scalarOrFlow(rest, no), no);
      continue;
    }
    // An empty value: a nested block, or null.
    const block: string[] = [];
    const blockFirst = first + i;
    while (
      i < lines.length &&
      (isSkipped(lines[i]) || indentOf(lines[i], first + i) > 0 ||
        lines[i].startsWith("- "))
    ) {
      block.push(lines[i]);
      i++;
    }
    setKey(out, m[1], readBlock(block, blockFirst), no);
  }
  return out;
}

function readBlock(lines: readonly string[], first: number): unknown {
  const used = lines.map((line, k) => ({ line, no: first + k }))
    .filter(({ line }) => !isSkipped(line));
  if (used.length === 0) return null;
  const indent = indentOf(used[0].line, used[0].no);
  const isList = used[0].line.slice(indent).startsWith("-");
  if (isList) {
    return used.map(({ line, no }) => {
      if (indentOf(line, no) !== indent) {
        throw new FrontmatterError("nested collections are not read", no);
      }
      const m = /^-(?:[ \t]+(.*))?$/.exec(line.slice(indent).trimEnd());
      if (m === null) throw new FrontmatterError('expected "- item"', no);
      const item = stripComment(m[1] ?? "", no);
      if (item === "") return null;
      return scalar(item, no);
    });
  }
  const out: Record<string, unknown> = {};
  for (const { line, no } of used) {
    if (indentOf(line, no) !== indent) {
      throw new FrontmatterError("nested collections are not read", no);
    }
    const m = KEY.exec(line.slice(indent).trimEnd());
    if (m === null) throw new FrontmatterError('expected "key: value"', no);
    const rest = stripComment(m[2] ?? "", no);
    setKey(out, m[1], rest === "" ? null : scalar(rest, no), no);
  }
  return out;
}

/** `text` without a trailing ` # comment` outside quotes. */
function stripComment(text: string, no: number): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === "\\" && quote === '"') i++;
      else if (c === "'" && quote === "'" && text[i + 1] === "'") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s\[,]/.test(text[i - 1])) quote = c;
    } else if (c === "#" && i > 0 && /\s/.test(text[i - 1])) {
      return text.slice(0, i).trimEnd();
    }
  }
  if (quote !== undefined) {
    throw new FrontmatterError(
      "a quoted string does not close on its line (multi-line strings are not read)",
      no,
    );
  }
  return text.trimEnd();
}

function scalarOrFlow(text: string, no: number): unknown {
  if (!text.startsWith("[")) return scalar(text, no);
  if (!text.endsWith("]")) {
    throw new FrontmatterError("a flow sequence must close on its line", no);
  }
  const inner = text.slice(1, -1).trim();
  if (inner === "") return [];
  const items: unknown[] = [];
  let at = 0;
  while (at <= inner.length) {
    let end: number;
    if (inner[at] === '"' || inner[at] === "'") {
      end = closingQuote(inner, at, no) + 1;
    } else {
      end = inner.indexOf(",", at);
      if (end === -1) end = inner.length;
    }
    const item = inner.slice(at, end).trim();
    if (item === "") {
      throw new FrontmatterError("empty item in a flow sequence", no);
    }
    items.push(scalar(item, no, true));
    const comma = inner.slice(end).match(/^\s*(,|$)/);
    if (comma === null) {
      throw new FrontmatterError('expected "," in a flow sequence', no);
    }
    at = end + comma[0].length;
    if (comma[1] === "") break;
    while (inner[at] === " ") at++;
  }
  return items;
}

function closingQuote(text: string, start: number, no: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (q === '"' && text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") {
        i++;
        continue;
      }
      return i;
    }
  }
  throw new FrontmatterError("a quoted string does not close", no);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  "0": "\0",
};

function scalar(text: string, no: number, inFlow = false): unknown {
  const c = text[0];
  if (c === '"' || c === "'") {
    const end = closingQuote(text, 0, no);
    if (end !== text.length - 1) {
      throw new FrontmatterError("text after a quoted string", no);
    }
    const inner = text.slice(1, -1);
    if (c === "'") return inner.replaceAll("''", "'");
    let out = "";
    for (let i = 0; i < inner.length; i++) {
      if (inner[i] !== "\\") {
        out += inner[i];
        continue;
      }
      const e = inner[++i];
      if (e === "u" && /^[0-9a-fA-F]{4}$/.test(inner.slice(i + 1, i + 5))) {
        out += String.fromCharCode(parseInt(inner.slice(i + 1, i + 5), 16));
        i += 4;
      } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
      } else {
        throw new FrontmatterError(`the escape "\\${e ?? ""}" is not read`, no);
      }
    }
    return out;
  }
  if (/^[\[\]{}&*!|>%@`]/.test(text) || (c === "-" && text[1] === " ")) {
    throw new FrontmatterError(
      `"${text}" starts with a YAML indicator; quote it`,
      no,
    );
  }
  if (/:(\s|$)/.test(text) || (inFlow && /[\[\]{}]/.test(text))) {
    throw new FrontmatterError(`"${text}" is ambiguous in YAML; quote it`, no);
  }
  return typed(text, no);
}

/** A plain scalar as YAML 1.2's core schema types it. */
function typed(text: string, no: number): unknown {
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16);
  if (
    /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)
  ) {
    return Number(text);
  }
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/.test(text)) {
    throw new FrontmatterError(
      `"${text}" cannot be carried in JSON; quote it`,
      no,
    );
  }
  return text;
}
