/**
 * Cross-server shadowing: across the servers of one set, a tool whose name
 * equals or looks like another server's tool (case, homoglyphs, invisible
 * characters, the `-`, `_`, `.`, `:`, `/` separators), and a description
 * that names another server's tool (spelled the same ways).
 *
 * @module
 */

import { ApprovalRequiredError } from "../core/errors.ts";
import type { ToolDef } from "../core/tool.ts";

/**
 * One shadowing finding (`ServerStatus.shadowing`): `tool` of `server`
 * shadows `other.tool` of `other.server`.
 *
 * - `"confusable_name"`: the two names are equal, or equal once case,
 *   homoglyphs (Cyrillic and Greek look-alikes, `0`/`o`, `1`/`l`/`i`),
 *   invisible characters (zero-width ones, the soft hyphen) and separators
 *   (`-`, `_`, `.`, `:`, `/`) are set aside. The later server in config
 *   order is the one reported.
 * - `"names_other_tool"`: `tool`'s description names `other.tool` (its
 *   name as the server lists it, or as the model sees it, in any case,
 *   with any separators, invisible characters or look-alikes), a tool its
 *   own server does not have. The name must be a whole identifier of the
 *   description: words joined on by `_` or `-` make another name
 *   (`list_issues` names no `list`, `send_email_now` no `send_email`),
 *   while `.`, `:` and `/` qualify one (`mail/send_email` names both).
 */
export interface ShadowFinding {
  /** What was found. */
  readonly kind: "confusable_name" | "names_other_tool";
  /** The server of the shadowing tool. */
  readonly server: string;
  /** The shadowing tool as the model sees it (prefixed). */
  readonly tool: string;
  /** The tool it shadows. */
  readonly other: { readonly server: string; readonly tool: string };
  /** One line for a person. */
  readonly message: string;
}

/** One server's tools, as the set merges them. */
export interface ShadowInput {
  readonly server: string;
  readonly prefix: string;
  readonly tools: readonly ToolDef[];
}

const CONFUSABLE: Readonly<Record<string, string>> = {
  // Cyrillic
  "а": "a",
  "в": "b",
  "е": "e",
  "ё": "e",
  "к": "k",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "с": "c",
  "т": "t",
  "у": "y",
  "х": "x",
  "і": "l",
  "ї": "l",
  "ј": "j",
  "ѕ": "s",
  "ԁ": "d",
  "һ": "h",
  "ӏ": "l",
  "ԛ": "q",
  "ԝ": "w",
  // Greek
  "α": "a",
  "β": "b",
  "ε": "e",
  "η": "n",
  "ι": "l",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
  "ω": "w",
  // Latin and digits that read alike
  "ɡ": "g",
  "ı": "l",
  "i": "l",
  "1": "l",
  "|": "l",
  "0": "o",
};

// Characters that show as nothing: zero-width space, non-joiner and
// joiner, word joiner, BOM, soft hyphen. Dropped before any comparison.
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

/** What separates the words of a name: all of them read alike. */
const SEPARATORS = /[-_.:/\s]+/u;

/**
 * The skeleton two names are compared by: invisible characters (zero-width
 * ones, the soft hyphen) dropped, compatibility-decomposed, accents
 * dropped, case-folded, look-alikes mapped to one letter, the separators
 * `-`, `_`, `.`, `:`, `/` and spaces removed.
 */
export function skeleton(name: string): string {
  // Printable ASCII needs no decomposition (the common case, made fast).
  const folded = /^[\x21-\x7e]*$/.test(name)
    ? name.toLowerCase()
    : name.replace(INVISIBLE, "").normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "").replace(INVISIBLE, "").toLowerCase();
  let out = "";
  for (const ch of folded) {
    if (ch === "-" || ch === "_" || ch === "." || ch === ":" || ch === "/") {
      continue;
    }
    if (/\s/.test(ch)) continue;
    out += CONFUSABLE[ch] ?? ch;
  }
  return out;
}

// Names this short match too much prose to mean anything in a description.
const MIN_NAMED = 4;

// The most words of a name looked for in a description.
const MAX_WORDS = 16;

/** One listed tool, with what the check derives from it. */
interface Entry {
  /** Its place across the set, in config order. */
  readonly at: number;
  readonly server: string;
  /** As the model sees it (prefixed). */
  readonly tool: string;
  /** As its server lists it. */
  readonly own: string;
  readonly derived: Derived;
}

/** What one tool definition yields, computed once per definition. */
interface Derived {
  /** The skeletons of its prefixed and own names (one when they fold alike). */
  readonly keys: readonly string[];
  /** Its prefixed and own names, as looked for in descriptions (one when they fold alike). */
  readonly names: readonly NameForm[];
  /** Its description's runs of name characters, word by word. */
  readonly runs: readonly Run[];
  /** How many words its longest name has. */
  readonly words: number;
}

/** A name as descriptions are searched for it. */
interface NameForm {
  readonly name: string;
  readonly key: string;
  /** The skeletons of its first word, first two words, …, all its words. */
  readonly starts: readonly string[];
  /** A one-word name, as written (it counts only so). */
  readonly exact?: string;
}

function nameForm(name: string): NameForm {
  const words = wordsOf(name);
  const starts: string[] = [];
  let start = "";
  for (const word of words) starts.push(start += wordSkeleton(word));
  const key = skeleton(name);
  return words.length === 1
    ? { name, key, starts, exact: words[0] }
    : { name, key, starts };
}

// A definition's derived data, kept while the definition is listed: a
// server that lists again re-derives only its own tools.
const derivedOf = new WeakMap<ToolDef, Map<string, Derived>>();

function derive(def: ToolDef, own: string): Derived {
  let byOwn = derivedOf.get(def);
  const cached = byOwn?.get(own);
  if (cached !== undefined) return cached;
  const prefixed = cachedIn(formsByName, def.name, nameForm);
  const forms = own === def.name
    ? [prefixed]
    : [prefixed, cachedIn(formsByName, own, nameForm)];
  const names = forms.filter((f, i) => i === 0 || f.key !== forms[0].key);
  const derived: Derived = {
    keys: names.map((f) => f.key),
    names,
    runs: cachedIn(runsByText, def.description, runsOf),
    words: Math.max(...forms.map((f) => f.starts.length)),
  };
  if (byOwn === undefined) derivedOf.set(def, byOwn = new Map());
  byOwn.set(own, derived);
  return derived;
}

// Names and descriptions as last derived, by text: a server listing again
// (new definitions, mostly the same texts) re-derives only what changed.
const formsByName = new Map<string, NameForm>();
const runsByText = new Map<string, readonly Run[]>();

// The most texts each cache keeps: past it, it starts again (a bound on
// memory, not a loss: what is looked up again is derived again).
const CACHE_MAX = 20_000;

function cachedIn<T>(
  cache: Map<string, T>,
  text: string,
  make: (text: string) => T,
): T {
  let value = cache.get(text);
  if (value === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(text, value = make(text));
  }
  return value;
}

function wordsOf(name: string): string[] {
  return name.replace(INVISIBLE, "").split(SEPARATORS).filter((w) => w !== "");
}

/** A run of name characters of a description: its words, as written and as skeletons. */
interface Run {
  readonly words: readonly string[];
  readonly keys: readonly string[];
  /**
   * `joined[k]`: word `k` is joined to the word before it by `_` or `-`
   * only (`joined[0]`: the run starts so; `joined[words.length]`: it ends
   * so). Words so joined are one identifier: a name is mentioned only
   * where it starts and ends one (`list` is not named by `list_issues`).
   */
  readonly joined: readonly boolean[];
}

// The separators that join the words of one identifier (`list_issues`);
// `.`, `:` and `/` join a qualified name's parts (`mail/send_email`).
const JOINERS = /^[-_]+$/;

// The runs of name characters (letters, digits, marks, separators; the
// invisible ones dropped) of `text`.
function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  for (const [run] of text.replace(INVISIBLE, "").matchAll(RUN)) {
    if (!HAS_SEPARATOR.test(run)) {
      // One word (most prose): nothing joins it to another.
      const key = wordSkeleton(run);
      if (key !== "") {
        runs.push({ words: [run], keys: [key], joined: [false, false] });
      }
      continue;
    }
    const words: string[] = [];
    const keys: string[] = [];
    const joined: boolean[] = [];
    let joins = false;
    // Words at even places, the separators between them at odd ones.
    const parts = run.split(SEPARATOR_RUNS);
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      if (k % 2 === 1) {
        joins ||= JOINERS.test(part);
        continue;
      }
      const key = part === "" ? "" : wordSkeleton(part);
      if (key === "") continue;
      words.push(part);
      keys.push(key);
      joined.push(joins);
      joins = false;
    }
    if (words.length === 0) continue;
    joined.push(joins);
    runs.push({ words, keys, joined });
  }
  return runs;
}

const SEPARATOR_RUNS = /([-_.:/\s]+)/u;
const HAS_SEPARATOR = /[-_.:/\s]/u;

// Descriptions share most of their words: each is folded once.
const folded = new Map<string, string>();

function wordSkeleton(word: string): string {
  return cachedIn(folded, word, skeleton);
}

const RUN = /[\p{L}\p{N}\p{M}_.:/-]+/gu;

/** A name of another server's tool, by skeleton. */
interface Named {
  readonly entry: Entry;
  /** The name as written in the finding: the prefixed one, or the server's own. */
  readonly name: string;
  /**
   * A one-word name (`list`, `search`) is a mention only as written, its
   * case included: in any case it would match plain prose ("List the…").
   */
  readonly exact?: string;
}

/**
 * Every shadowing finding across `servers` (in config order). The cost is
 * linear in the tools and the length of their descriptions (each name
 * and description word is folded once per definition, then looked up in
 * maps), so a large server listing again often stays cheap.
 */
export function findShadowing(
  servers: readonly ShadowInput[],
): ShadowFinding[] {
  const all = entriesOf(servers);
  const findings = confusableNames(all);
  const index = indexNames(all);
  for (const entry of all) {
    const best = namedIn(entry, index);
    if (best === undefined) continue;
    findings.push({
      kind: "names_other_tool",
      server: entry.server,
      tool: entry.tool,
      other: { server: best.entry.server, tool: best.entry.tool },
      message: `the description of tool ${
        JSON.stringify(entry.tool)
      } of server ${JSON.stringify(entry.server)} names ${
        JSON.stringify(best.name)
      }, a tool of server ${JSON.stringify(best.entry.server)}`,
    });
  }
  return findings;
}

// Every tool of every server, in config order, its forms derived.
function entriesOf(servers: readonly ShadowInput[]): Entry[] {
  const all: Entry[] = [];
  for (const s of servers) {
    for (const t of s.tools) {
      const own = t.name.startsWith(s.prefix)
        ? t.name.slice(s.prefix.length)
        : t.name;
      all.push({
        at: all.length,
        server: s.server,
        tool: t.name,
        own,
        derived: derive(t, own),
      });
    }
  }
  return all;
}

// Each tool whose name is equal or confusable with an earlier server's
// tool: the later one is reported, against the first it meets.
function confusableNames(all: readonly Entry[]): ShadowFinding[] {
  const findings: ShadowFinding[] = [];
  const seen = new Map<string, Entry>();
  for (const entry of all) {
    let shadowed: Entry | undefined;
    for (const key of entry.derived.keys) {
      const first = seen.get(key);
      if (first !== undefined && first.server !== entry.server) {
        shadowed = first;
        break;
      }
    }
    if (shadowed !== undefined) {
      findings.push({
        kind: "confusable_name",
        server: entry.server,
        tool: entry.tool,
        other: { server: shadowed.server, tool: shadowed.tool },
        message: `tool ${JSON.stringify(entry.tool)} of server ${
          JSON.stringify(entry.server)
        } has a name equal or confusable with ${
          JSON.stringify(shadowed.tool)
        } of server ${JSON.stringify(shadowed.server)}`,
      });
    }
    for (const key of entry.derived.keys) {
      if (!seen.has(key)) seen.set(key, entry);
    }
  }
  return findings;
}

/** The names a description may mention, as the search looks them up. */
interface NameIndex {
  /** Every name long enough to mean something, by skeleton, in config order. */
  readonly names: Map<string, Named[]>;
  /**
   * Every name's first words, folded: a description's words that start no
   * name are passed over after one look-up.
   */
  readonly starts: Set<string>;
  /** Each server's own skeletons (a name its own server has is not another's). */
  readonly ownKeys: Map<string, Set<string>>;
  /** The most words a name has (at most `MAX_WORDS`). */
  readonly longest: number;
}

function indexNames(all: readonly Entry[]): NameIndex {
  const names = new Map<string, Named[]>();
  const starts = new Set<string>();
  const ownKeys = new Map<string, Set<string>>();
  let longest = 1;
  for (const entry of all) {
    let keys = ownKeys.get(entry.server);
    if (keys === undefined) ownKeys.set(entry.server, keys = new Set());
    for (const key of entry.derived.keys) keys.add(key);
    longest = Math.max(longest, Math.min(MAX_WORDS, entry.derived.words));
    for (const form of entry.derived.names) {
      if (form.key.length < MIN_NAMED) continue;
      for (const start of form.starts) starts.add(start);
      const named: Named = { entry, name: form.name, exact: form.exact };
      const list = names.get(form.key);
      if (list === undefined) names.set(form.key, [named]);
      else list.push(named);
    }
  }
  return { names, starts, ownKeys, longest };
}

// The other server's tool `entry`'s description names, the earliest in
// config order (its prefixed name before its own at the same tool).
function namedIn(entry: Entry, index: NameIndex): Named | undefined {
  const { names, starts, longest } = index;
  const own = index.ownKeys.get(entry.server)!;
  let best: Named | undefined;
  for (const { words, keys, joined } of entry.derived.runs) {
    for (let i = 0; i < keys.length; i++) {
      // Most words start no name: one look-up of a string already hashed.
      // A word inside an identifier (`issues` of `list_issues`) starts none.
      if (joined[i] || !starts.has(keys[i])) continue;
      let key = "";
      for (let j = i; j < keys.length && j < i + longest; j++) {
        key = j === i ? keys[i] : key + keys[j];
        if (!starts.has(key)) break;
        const hits = names.get(key);
        // A name must end where the identifier does (`list_issues` names
        // no `list`), yet a longer name may still match from here.
        if (hits === undefined || own.has(key) || joined[j + 1]) continue;
        for (const hit of hits) {
          if (hit.entry.server === entry.server) continue;
          if (
            hit.exact !== undefined && (j > i || words[i] !== hit.exact)
          ) continue;
          if (
            best === undefined || hit.entry.at < best.entry.at ||
            (hit.entry.at === best.entry.at && hit.name === hit.entry.tool)
          ) best = hit;
          break; // the list is in config order: the first is the earliest
        }
      }
    }
  }
  return best;
}

/**
 * `tool` whose calls wait for approval because it shadows another
 * server's tool: an unapproved call is refused with an
 * `ApprovalRequiredError` carrying the reason (`"tool_shadowed"`); an
 * approved one runs.
 */
export function quarantined(
  tool: ToolDef,
  findings: readonly ShadowFinding[],
): ToolDef {
  const message = findings.map((f) => f.message).join("; ");
  const invoke = tool.invoke;
  return Object.freeze(
    {
      ...tool,
      invoke: (args, options) => {
        if (options?.call?.approved !== true) {
          return Promise.reject(
            new ApprovalRequiredError(tool.name, {
              request: {
                reason: "tool_shadowed",
                message:
                  `${message}: approve to run the call (shadowing quarantine)`,
              },
            }),
          );
        }
        return invoke(args, options);
      },
    } satisfies ToolDef,
  );
}
