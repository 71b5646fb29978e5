/**
 * RFC 6570 URI templates, levels 1 to 3, read the other way: which URI a
 * template matches, and the variable values it carries. Every level-3
 * operator is read — `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`,
 * `{;var}`, `{?var}`, `{&var}` — with several variables per expression
 * (`{x,y}`, `{?a,b}`). Level 4's modifiers (`{var*}` explode, `{var:3}`
 * prefix) are refused when the template is parsed.
 *
 * Matching reads each value as its expansion wrote it: a simple (`{var}`)
 * or label, path or parameter value stops at the characters its expansion
 * percent-encodes (`/`, `?`, `#`, `,` and the operator's own separator); a
 * reserved (`{+var}`, `{#var}`) value may hold them. Query variables
 * (`{?a,b}`, `{&c}`) match in any order and may be missing (then they
 * read as absent); an unknown query name makes the URI not match. Values
 * are percent-decoded; a URI with a malformed escape matches nothing.
 *
 * @module
 */

/** A parsed template: its variables, and its matcher. */
export interface UriTemplate {
  /** The template text, as given. */
  readonly text: string;
  /** Every variable name, in template order. */
  readonly variables: readonly string[];
  /** The variable values `uri` carries, or `undefined` when it does not match. */
  match(uri: string): Record<string, string> | undefined;
}

/** The operators of levels 2 and 3 (`""` is level 1's simple expansion). */
const OPERATORS = new Set(["", "+", "#", ".", "/", ";", "?", "&"]);

// A variable name: ALPHA / DIGIT / "_" / pct-encoded, dot-separated.
const VARNAME =
  /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

/** One `{…}` expression: its operator and variable names. */
interface Expression {
  readonly op: string;
  readonly names: readonly string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Parses `text` as a level 1–3 URI template. Throws a `TypeError` naming
 * `where` on an unclosed or empty expression, an unknown operator, a
 * malformed variable name, a level-4 modifier or a variable named twice.
 */
export function parseUriTemplate(text: string, where: string): UriTemplate {
  const parts: (string | Expression)[] = [];
  const variables: string[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("{", at);
    const close = text.indexOf("}", at);
    if (close !== -1 && (open === -1 || close < open)) {
      throw new TypeError(
        `${where}: "}" without "{" at ${close} in ${JSON.stringify(text)}`,
      );
    }
    if (open === -1) {
      parts.push(text.slice(at));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    const end = text.indexOf("}", open);
    if (end === -1) {
      throw new TypeError(
        `${where}: unclosed "{" at ${open} in ${JSON.stringify(text)}`,
      );
    }
    const body = text.slice(open + 1, end);
    const op = body !== "" && !/[A-Za-z0-9_%]/.test(body[0]) ? body[0] : "";
    if (!OPERATORS.has(op)) {
      throw new TypeError(
        `${where}: operator ${
          JSON.stringify(op)
        } of {${body}} is not an RFC 6570 operator (or is reserved)`,
      );
    }
    const names = body.slice(op.length).split(",");
    for (const name of names) {
      if (/[*:]/.test(name)) {
        throw new TypeError(
          `${where}: {${body}} uses a level-4 modifier (explode "*" or prefix ":n"); templates of levels 1 to 3 are supported`,
        );
      }
      if (!VARNAME.test(name)) {
        throw new TypeError(
          `${where}: {${body}} has a malformed variable name ${
            JSON.stringify(name)
          }`,
        );
      }
      if (variables.includes(name)) {
        throw new TypeError(
          `${where}: variable ${JSON.stringify(name)} appears twice in ${
            JSON.stringify(text)
          }`,
        );
      }
      variables.push(name);
    }
    parts.push({ op, names });
    at = end + 1;
  }
  return new Matcher(text, variables, parts);
}

/** What each capture group of the matcher's regular expression holds. */
type Capture =
  | { readonly kind: "value"; readonly name: string }
  | { readonly kind: "param"; readonly name: string }
  | { readonly kind: "query" };

class Matcher implements UriTemplate {
  readonly text: string;
  readonly variables: readonly string[];
  readonly #regex: RegExp;
  readonly #captures: readonly Capture[];
  readonly #queryNames: ReadonlySet<string>;

  constructor(
    text: string,
    variables: readonly string[],
    parts: readonly (string | Expression)[],
  ) {
    this.text = text;
    this.variables = variables;
    const captures: Capture[] = [];
    const queryNames = new Set<string>();
    let source = "";
    for (const part of parts) {
      if (typeof part === "string") {
        source += escapeRegExp(part);
        continue;
      }
      source += expressionSource(part, captures, queryNames);
    }
    this.#regex = new RegExp(`^${source}$`, "s");
    this.#captures = captures;
    this.#queryNames = queryNames;
  }

  match(uri: string): Record<string, string> | undefined {
    const found = this.#regex.exec(uri);
    if (found === null) return undefined;
    const values: Record<string, string> = {};
    try {
      for (let i = 0; i < this.#captures.length; i++) {
        const raw = found[i + 1];
        const capture = this.#captures[i];
        if (raw === undefined) {
          // `;name` with no `=`: the parameter is there, empty.
          if (capture.kind === "param") values[capture.name] = "";
          continue;
        }
        if (capture.kind === "query") {
          if (!this.#readQuery(raw, values)) return undefined;
        } else values[capture.name] = decodeURIComponent(raw);
      }
    } catch {
      // A malformed percent-escape: the URI is not one this template writes.
      return undefined;
    }
    return values;
  }

  /** Reads `a=1&b=2` into `values`; false on a name the template does not have. */
  #readQuery(raw: string, values: Record<string, string>): boolean {
    if (raw === "") return true;
    for (const pair of raw.split("&")) {
      const eq = pair.indexOf("=");
      const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      if (!this.#queryNames.has(name)) return false;
      values[name] = eq === -1 ? "" : decodeURIComponent(pair.slice(eq + 1));
    }
    return true;
  }
}

/** The regular expression source of one expression, its captures appended. */
function expressionSource(
  expr: Expression,
  captures: Capture[],
  queryNames: Set<string>,
): string {
  const { op, names } = expr;
  switch (op) {
    case "?":
    case "&":
      for (const name of names) queryNames.add(name);
      captures.push({ kind: "query" });
      return `(?:${escapeRegExp(op)}([^#]*))?`;
    case ";":
      return names.map((name) => {
        captures.push({ kind: "param", name });
        return `;${escapeRegExp(name)}(?:=([^;/?#]*))?`;
      }).join("");
    default: {
      const value = op === "+" || op === "#"
        ? names.length === 1 ? "(.*?)" : "([^,]*?)"
        : op === "."
        ? "([^/?#.,]*)"
        : "([^/?#,]*)";
      const separator = op === "." ? "\\." : op === "/" ? "/" : ",";
      const prefix = op === "" || op === "+" ? "" : escapeRegExp(op);
      for (const name of names) captures.push({ kind: "value", name });
      return prefix + names.map(() => value).join(separator);
    }
  }
}
