/**
 * Progressive tool discovery: under `toolSearch` the model first sees the
 * search tool (and the tools named always visible); a search names the
 * matching tools with one-line summaries, and from the next step their full
 * definitions are in the request. The found tools are read off the
 * transcript (the search results in it), so they stay loaded for the run,
 * across a resume from JSON, and the list only grows, in the order found.
 *
 * @module
 */

import { DuplicateToolError, ToolError } from "./errors.ts";
import type { Message } from "./messages.ts";
import { rawTool } from "./tool.ts";
import type { ToolDef } from "./tool.ts";
import { snapshotTools, type ToolSnapshot } from "./_chain.ts";
import { SEARCH_TOOLS, type ToolSearchOptions } from "./tool_search.ts";
import { type LinearRegex, linearRegex, LinearRegexError } from "./_regex.ts";

export { SEARCH_TOOLS };
export type { ToolSearchOptions };

const DESCRIPTION_BM25 =
  "Finds tools by what they do. Only the tools you have found are available: " +
  "describe the tool you need in a few words (the action, the thing it acts " +
  "on, the service). The result names the matching tools with one-line " +
  "summaries; their full definitions are available from your next step, " +
  "and stay available. Search again with other words when none fits.";

const DESCRIPTION_REGEX =
  "Finds tools by a regular expression. Only the tools you have found are " +
  "available: the expression is matched, case-insensitively, against each " +
  "tool's name, title, description and server. It takes RE2 syntax: no " +
  "back-references or lookaround. The result names the " +
  "matching tools with one-line summaries; their full definitions are " +
  "available from your next step, and stay available.";

/** The longest one-line summary, in characters, before it is cut with `…`. */
const SUMMARY_MAX = 120;

/** The longest query, in characters (the model writes it; it is echoed back). */
const QUERY_MAX = 256;

/**
 * The first characters of each field a regular expression is matched
 * against: matching is linear, so the time per field is bounded by this
 * times the pattern's program size.
 */
const REGEX_FIELD_MAX = 2000;

/**
 * The most instructions a query's compiled program may have (counted
 * repetitions expanded: `.{100}` is about a hundred); a 256-character
 * query without large counts stays well below.
 */
const REGEX_PROGRAM_MAX = 500;

/** The search of one agent: its options, its definition, its index cache. */
export class ToolSearch {
  readonly #always: readonly string[];
  readonly #max: number;
  readonly #regex: boolean;
  readonly #serverOf?: (tool: ToolDef) => string | undefined;
  readonly #definition: ToolDef;
  #index?: { tools: readonly ToolDef[]; index: Bm25Index };

  constructor(options: ToolSearchOptions, fixed: readonly string[]) {
    this.#always = [...fixed, ...(options.alwaysVisible ?? [])];
    const max = options.maxResults;
    this.#max = max !== undefined && Number.isFinite(max) && max >= 1
      ? Math.min(50, Math.floor(max))
      : 5;
    if (
      options.match !== undefined && options.match !== "bm25" &&
      options.match !== "regex"
    ) {
      throw new TypeError(
        `new Agent(model, { toolSearch }): match must be "bm25" or "regex", not ${
          JSON.stringify(options.match)
        }`,
      );
    }
    this.#regex = options.match === "regex";
    this.#serverOf = options.serverOf;
    this.#definition = this.#bound([]);
  }

  /** The search tool as the model sees it (the same every step). */
  get tool(): ToolDef {
    return this.#definition;
  }

  // The search tool over `universe`: one definition (name, description,
  // schema), a handler per tool list, so runs never share a list.
  #bound(universe: readonly ToolDef[]): ToolDef {
    return rawTool({
      name: SEARCH_TOOLS,
      description: this.#regex ? DESCRIPTION_REGEX : DESCRIPTION_BM25,
      inputSchema: this.#definition?.inputSchema ?? {
        type: "object",
        properties: {
          query: {
            type: "string",
            description: this.#regex
              ? "A regular expression, e.g. issue|ticket"
              : "What the tool does, in a few words, e.g. create a GitHub issue",
          },
        },
        required: ["query"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      run: (args) => this.#run(args, universe),
    });
  }

  /**
   * The tools the model sees at this point of the transcript: the search
   * tool, the always-visible ones, then every tool a search in `messages`
   * named, in the order first named. `all` is every tool the agent has.
   */
  view(all: ToolSnapshot, messages: readonly Message[]): ToolSnapshot {
    if (all.has(SEARCH_TOOLS)) throw new DuplicateToolError(SEARCH_TOOLS);
    const visible = new Map<string, ToolDef>();
    visible.set(SEARCH_TOOLS, this.#bound(searchable(all)));
    for (const name of this.#always) {
      const tool = all.get(name);
      if (tool !== undefined && !visible.has(name)) visible.set(name, tool);
    }
    for (const name of foundNames(messages, all)) {
      if (!visible.has(name)) visible.set(name, all.get(name)!);
    }
    return visible;
  }

  /** Every tool plus the search tool: what `Agent.callTool` dispatches against. */
  withSearch(all: ToolSnapshot): ToolSnapshot {
    return new Map([[SEARCH_TOOLS, this.#bound(searchable(all))], ...all]);
  }

  #run(args: string, universe: readonly ToolDef[]): string {
    let query: unknown;
    try {
      query = (JSON.parse(args) as { query?: unknown } | null)?.query;
    } catch {
      query = undefined;
    }
    if (typeof query !== "string" || query.trim() === "") {
      throw new ToolError(
        "INVALID_INPUT",
        `tool "${SEARCH_TOOLS}": "query" must be a non-empty string`,
      );
    }
    if (query.length > QUERY_MAX) {
      throw new ToolError(
        "INVALID_INPUT",
        `tool "${SEARCH_TOOLS}": "query" must be at most ${QUERY_MAX} characters`,
      );
    }
    const found = this.#regex
      ? this.#byRegex(universe, query)
      : this.#byWords(universe, query);
    // A name that spans lines could forge a result line naming another
    // tool: such a tool is never listed.
    const listable = found.filter((tool) => !/[\r\n]/.test(tool.name));
    return resultText(query, listable.slice(0, this.#max));
  }

  #byRegex(universe: readonly ToolDef[], query: string): ToolDef[] {
    // The model writes the pattern: it is matched by automata, in time
    // linear in each field, never by V8's backtracking engine.
    let pattern: LinearRegex;
    try {
      pattern = linearRegex(query, {
        ignoreCase: true,
        maxProgram: REGEX_PROGRAM_MAX,
      });
    } catch (err) {
      if (!(err instanceof LinearRegexError)) throw err;
      throw new ToolError("INVALID_INPUT", regexRefusal(err));
    }
    return universe.filter((tool) =>
      fieldsOf(tool, this.#serverOf).some((text) =>
        pattern.test(text.slice(0, REGEX_FIELD_MAX))
      )
    );
  }

  #byWords(universe: readonly ToolDef[], query: string): ToolDef[] {
    const cached = this.#index;
    let index: Bm25Index;
    if (cached !== undefined && sameTools(cached.tools, universe)) {
      index = cached.index;
    } else {
      index = new Bm25Index(universe, this.#serverOf);
      this.#index = { tools: universe, index };
    }
    return index.search(query).map((i) => universe[i]);
  }
}

/**
 * The tools of one step: every tool (registered, then the source's), or,
 * under a search, the ones the model sees at this point of `messages`.
 */
export function stepTools(
  config: {
    readonly tools: readonly ToolDef[];
    readonly toolSource?: () => readonly (ToolDef | null | undefined)[];
    readonly search?: ToolSearch;
  },
  messages: readonly Message[],
): ToolSnapshot {
  const all = snapshotTools(config.tools, config.toolSource?.());
  return config.search?.view(all, messages) ?? all;
}

/** The model-visible text of a search's result. */
export function resultText(query: string, found: readonly ToolDef[]): string {
  if (found.length === 0) {
    return `No tools found for ${JSON.stringify(query)}. ` +
      "Search again with other words: what the tool does, or the service it works on.";
  }
  const head = found.length === 1
    ? `1 tool found for ${JSON.stringify(query)}`
    : `${found.length} tools found for ${JSON.stringify(query)}`;
  const lines = found.map((tool) => `- ${tool.name}: ${summaryOf(tool)}`);
  return `${head}; call ${
    found.length === 1 ? "it" : "them"
  } from your next step:\n${lines.join("\n")}`;
}

/** A tool's one-line summary: its description's first sentence, at most 120 characters. */
export function summaryOf(tool: ToolDef): string {
  const text = tool.description.replace(/\s+/g, " ").trim();
  if (text === "") return tool.annotations?.title ?? "(no description)";
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? text.slice(0, end + 1) : text;
  const chars = [...sentence];
  return chars.length <= SUMMARY_MAX
    ? sentence
    : chars.slice(0, SUMMARY_MAX - 1).join("").trimEnd() + "…";
}

/**
 * The names the search results in `messages` list, in the order first
 * listed, kept only when `all` has a tool of that name. A result line is
 * `- <name>: <summary>`; an error result lists nothing.
 */
export function foundNames(
  messages: readonly Message[],
  all: ToolSnapshot,
): string[] {
  const found = new Set<string>();
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (
        part.type !== "tool_result" || part.name !== SEARCH_TOOLS ||
        part.isError
      ) continue;
      for (const line of part.content.split("\n")) {
        if (!line.startsWith("- ")) continue;
        const name = listedName(line, all);
        if (name !== undefined) found.add(name);
      }
    }
  }
  return [...found];
}

// The tool name a result line starts with: the longest prefix before a
// ": " that names a tool (a name may itself hold ": ").
function listedName(line: string, all: ToolSnapshot): string | undefined {
  const rest = line.slice(2);
  let at = rest.lastIndexOf(": ");
  while (at > 0) {
    const name = rest.slice(0, at);
    if (all.has(name)) return name;
    at = rest.lastIndexOf(": ", at - 1);
  }
  return undefined;
}

/** The model-visible text refusing a `match: "regex"` query. */
function regexRefusal(err: LinearRegexError): string {
  const head = `tool "${SEARCH_TOOLS}": "query"`;
  switch (err.kind) {
    case "unsupported":
      return `${head} uses syntax this search does not support: it takes ` +
        "RE2 syntax, matched in linear time, without back-references or " +
        `lookaround (${err.detail})`;
    case "too_large":
      return `${head} is too large a regular expression: its repetitions ` +
        `expand to ${err.detail}, at most ${REGEX_PROGRAM_MAX}; use smaller counts`;
    default:
      return `${head} is not a regular expression: ${err.detail}`;
  }
}

function searchable(all: ToolSnapshot): ToolDef[] {
  return [...all.values()].filter((t) => t.name !== SEARCH_TOOLS);
}

function sameTools(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function fieldsOf(
  tool: ToolDef,
  serverOf: ((tool: ToolDef) => string | undefined) | undefined,
): string[] {
  const fields = [tool.name, tool.description];
  const title = tool.annotations?.title;
  if (title !== undefined) fields.push(title);
  const server = serverOf?.(tool);
  if (server !== undefined) fields.push(server);
  return fields;
}

// ---------------------------------------------------------------------------
// BM25 over the tools' words. Each tool is one document; its name, title
// and server count three times, twice and twice, its description once.

const K1 = 1.2;
const B = 0.75;

const STOPWORDS = new Set(
  ("a an and are as at be by can do for from get has have how i in into is " +
    "it its me my of on or please show that the their them then there this " +
    "to up use what when which with you your").split(" "),
);

/** The words of `text`: camelCase and snake_case split, lower-cased, stop words out, plural and -ing endings off. */
export function words(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase();
  const out: string[] = [];
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (raw === "" || STOPWORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return word.slice(0, -3) + "y";
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(sh|ch|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3);
  return word;
}

/** The BM25 index of one tool list (exported for the tests that pin its scores). */
export class Bm25Index {
  readonly #docs: Map<string, number>[] = [];
  readonly #lengths: number[] = [];
  readonly #df = new Map<string, number>();
  readonly #avg: number;

  constructor(
    tools: readonly ToolDef[],
    serverOf: ((tool: ToolDef) => string | undefined) | undefined,
  ) {
    let total = 0;
    for (const tool of tools) {
      const terms = new Map<string, number>();
      let length = 0;
      const add = (text: string | undefined, weight: number): void => {
        if (text === undefined) return;
        for (const w of words(text)) {
          terms.set(w, (terms.get(w) ?? 0) + weight);
          length += weight;
        }
      };
      add(tool.name, 3);
      add(tool.annotations?.title, 2);
      add(serverOf?.(tool), 2);
      add(tool.description, 1);
      for (const term of terms.keys()) {
        this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
      }
      this.#docs.push(terms);
      this.#lengths.push(length);
      total += length;
    }
    this.#avg = tools.length > 0 ? total / tools.length : 1;
  }

  /** The indexes of the documents matching `query`, best first (ties in list order). */
  search(query: string): number[] {
    return this.ranked(query).map((s) => s.i);
  }

  /** The documents matching `query` with their scores, best first (ties in list order). */
  ranked(query: string): { i: number; score: number }[] {
    const terms = [...new Set(words(query))];
    const n = this.#docs.length;
    const scored: { i: number; score: number }[] = [];
    for (let i = 0; i < n; i++) {
      const doc = this.#docs[i];
      let score = 0;
      for (const term of terms) {
        const tf = doc.get(term);
        if (tf === undefined) continue;
        const df = this.#df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const norm = tf * (K1 + 1) /
          (tf + K1 * (1 - B + B * this.#lengths[i] / this.#avg));
        score += idf * norm;
      }
      if (score > 0) scored.push({ i, score });
    }
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored;
  }
}
