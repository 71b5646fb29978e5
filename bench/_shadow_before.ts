/**
 * THE BENCH'S BASELINE: src/servers/_shadow.ts as it was before the check
 * was made near-linear (kept verbatim, for bench/shadow_bench.ts only).
 *
 * Cross-server shadowing: across the servers of one set, a tool whose name
 * equals or looks like another server's tool (case, homoglyphs, the `-`,
 * `_`, `.` separators), and a description that names another server's tool.
 *
 * @module
 */

import { ApprovalRequiredError } from "../src/core/errors.ts";
import type { ToolDef } from "../src/core/tool.ts";

/**
 * One shadowing finding (`ServerStatus.shadowing`): `tool` of `server`
 * shadows `other.tool` of `other.server`.
 *
 * - `"confusable_name"`: the two names are equal, or equal once case,
 *   homoglyphs (Cyrillic and Greek look-alikes, `0`/`o`, `1`/`l`/`i`) and
 *   separators are set aside. The later server in config order is the one
 *   reported.
 * - `"names_other_tool"`: `tool`'s description names `other.tool` (its
 *   name as the server lists it, or as the model sees it), a tool its own
 *   server does not have.
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

/**
 * The skeleton two names are compared by: compatibility-decomposed,
 * accents dropped, lower-cased, look-alikes mapped to one letter, the
 * separators `-`, `_`, `.` and spaces removed.
 */
export function skeleton(name: string): string {
  const folded = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
  let out = "";
  for (const ch of folded) {
    if (ch === "-" || ch === "_" || ch === "." || /\s/.test(ch)) continue;
    out += CONFUSABLE[ch] ?? ch;
  }
  return out;
}

// Names this short match too much prose to mean anything in a description.
const MIN_NAMED = 4;

/** Every shadowing finding across `servers` (in config order). */
export function findShadowing(
  servers: readonly ShadowInput[],
): ShadowFinding[] {
  const findings: ShadowFinding[] = [];
  const seen = new Map<string, { server: string; tool: string }>();
  const all = servers.flatMap((s) =>
    s.tools.map((t) => ({
      server: s.server,
      tool: t.name,
      own: t.name.startsWith(s.prefix) ? t.name.slice(s.prefix.length) : t.name,
      def: t,
    }))
  );
  for (const entry of all) {
    const keys = new Set([skeleton(entry.own), skeleton(entry.tool)]);
    let shadowed: { server: string; tool: string } | undefined;
    for (const key of keys) {
      const first = seen.get(key);
      if (first !== undefined && first.server !== entry.server) {
        shadowed = { server: first.server, tool: first.tool };
        break;
      }
    }
    if (shadowed !== undefined) {
      findings.push({
        kind: "confusable_name",
        server: entry.server,
        tool: entry.tool,
        other: shadowed,
        message: `tool ${JSON.stringify(entry.tool)} of server ${
          JSON.stringify(entry.server)
        } has a name equal or confusable with ${
          JSON.stringify(shadowed.tool)
        } of server ${JSON.stringify(shadowed.server)}`,
      });
    }
    for (const key of keys) {
      if (!seen.has(key)) seen.set(key, entry);
    }
  }
  for (const entry of all) {
    const text = entry.def.description;
    if (text === "") continue;
    const ownNames = new Set(
      all.filter((o) => o.server === entry.server).flatMap((o) => [
        o.own,
        o.tool,
      ]),
    );
    for (const other of all) {
      if (other.server === entry.server) continue;
      const named = [other.tool, other.own].find((n) =>
        n.length >= MIN_NAMED && !ownNames.has(n) && mentions(text, n)
      );
      if (named === undefined) continue;
      findings.push({
        kind: "names_other_tool",
        server: entry.server,
        tool: entry.tool,
        other: { server: other.server, tool: other.tool },
        message: `the description of tool ${
          JSON.stringify(entry.tool)
        } of server ${JSON.stringify(entry.server)} names ${
          JSON.stringify(named)
        }, a tool of server ${JSON.stringify(other.server)}`,
      });
      break;
    }
  }
  return findings;
}

// `name` as a whole word of `text`: not inside a longer identifier.
function mentions(text: string, name: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) return false;
    const before = at === 0 ? "" : text[at - 1];
    const after = text[at + name.length] ?? "";
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = at + 1;
  }
}

function isWordChar(ch: string): boolean {
  return ch !== "" && /[\p{L}\p{N}_-]/u.test(ch);
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
