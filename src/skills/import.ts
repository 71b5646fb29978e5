/**
 * Skills imported from MCP servers into an agent: context, not tools. The
 * agent's instructions list each skill (name, description, server); the
 * model gets `load_skill` and `read_skill_file`. Loading parks for the
 * agent's own approval, bound to the skill's whole manifest and kept in a
 * pin store; every file is read only when asked, from the skill's own
 * server, and verified before the model sees it.
 *
 * @module
 */

import type { DenoKvLike } from "../store/deno_kv.ts";
import { z } from "zod";
import { tool, type ToolDef } from "../core/tool.ts";
import { ToolError } from "../core/errors.ts";
import type { ToolMiddleware } from "../core/middleware.ts";
import type { ToolClient } from "../bridge/peers.ts";
import type { PinStore } from "../bridge/pins.ts";
import {
  declaresSkills,
  getSkill,
  type HeldSkill,
  listSkills,
  readVerified,
  rootOf,
} from "./_remote.ts";
import { Approvals } from "./_approvals.ts";
import { SKILL_LIMITS, type SkillEntry } from "./manifest.ts";
import {
  NoSuchSkillError,
  SkillNotLoadedError,
  SkillVerificationError,
} from "./import_errors.ts";

/**
 * Options of {@linkcode importSkills}.
 *
 * @example
 * ```ts
 * import type { ImportSkillsOptions } from "@weft/mcp/skills";
 * import { memoryStore } from "@weft/mcp/store";
 * await using store = memoryStore();
 * const options: ImportSkillsOptions = { store, limits: { files: 64 } };
 * console.log(options.limits);
 * ```
 */
export interface ImportSkillsOptions {
  /**
   * Where approvals are kept (any store of `@weft/mcp/store`; under `pin/`),
   * or a raw `Deno.Kv`, taken as `denoKvStore(kv)`; anything else is a
   * `TypeError` at the call.
   */
  readonly store: PinStore | DenoKvLike;
  /** Per-skill limits (default the extension's: 512 files, 16 MiB); a skill over them is refused. */
  readonly limits?: { readonly files?: number; readonly bytes?: number };
  /** Aborts the listing. */
  readonly signal?: AbortSignal;
}

/**
 * One skill a server lists, as the agent's instructions show it.
 *
 * @example
 * ```ts
 * import type { ImportedSkill } from "@weft/mcp/skills";
 * const skill: ImportedSkill = { server: "docs", uri: "skill://greet/SKILL.md", name: "greet", description: "Greets." };
 * console.log(skill.server);
 * ```
 */
export interface ImportedSkill {
  /** The server's label (the key it was given under). */
  readonly server: string;
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  /** Its name. */
  readonly name: string;
  /** Its description. */
  readonly description: string;
}

/**
 * Skills of one name on more than one server: each stays its server's; none replaces another.
 *
 * @example
 * ```ts
 * import type { SkillCollision } from "@weft/mcp/skills";
 * const collision: SkillCollision = {
 *   name: "pdf",
 *   skills: [{ server: "a", uri: "skill://pdf/SKILL.md" }, { server: "b", uri: "skill://pdf/SKILL.md" }],
 * };
 * console.log(collision.skills.length);
 * ```
 */
export interface SkillCollision {
  /** The shared name. */
  readonly name: string;
  /** Each skill of that name. */
  readonly skills: readonly { readonly server: string; readonly uri: string }[];
}

/**
 * What {@linkcode importSkills} returns: what to give the `Agent`.
 *
 * @example
 * ```ts
 * import type { ImportedSkills } from "@weft/mcp/skills";
 * function toolNames(imported: ImportedSkills): string[] {
 *   return imported.tools.map((t) => t.name); // ["load_skill", "read_skill_file"]
 * }
 * console.log(typeof toolNames);
 * ```
 */
export interface ImportedSkills {
  /** `load_skill` and `read_skill_file`: add them to the agent's tools. */
  readonly tools: readonly ToolDef[];
  /** The list of skills for the agent's instructions (append it to yours). */
  readonly instructions: string;
  /** Middleware that narrows the agent's tools to a loaded skill's `allowed-tools` (`wrapTools`). */
  readonly narrowTools: ToolMiddleware;
  /** Every skill listed, by server then URI. */
  readonly skills: readonly ImportedSkill[];
  /** Names listed by more than one server. */
  readonly collisions: readonly SkillCollision[];
  /** Entries refused at listing (broken rules, no digests) and listings that failed, one line each. */
  readonly refused: readonly string[];
}

/** The tools' names. */
export const LOAD_SKILL = "load_skill";
const READ_FILE = "read_skill_file";
/** How many runs' `allowed-tools` narrowing is kept (the oldest dropped first). */
const NARROWED_RUNS = 1024;

/**
 * Imports the skills of MCP servers (each client under the label the agent
 * and approvals know it by) for an agent: lists them (`skills/list`; no
 * file is read) and returns the instructions that list them, the two
 * tools that load and read them, and the middleware that applies a loaded
 * skill's `allowed-tools`.
 *
 * `load_skill({ server, skill })` takes the skill's name (or its
 * `SKILL.md` URI when one server lists the name twice) on that server
 * only: a name another server lists is reported, never substituted. It
 * fetches the current entry (`skills/get`), checks it (digests present,
 * every file inside the skill, the limits) and, unless exactly that
 * manifest — every URI and digest — was approved before, **parks** for
 * approval (`PendingCall.approval`: reason `"skill_new"` or
 * `"skill_changed"`, with the manifest diff). `approve` records the
 * manifest in `store` and reads `SKILL.md`; a manifest that changed while
 * the call waited parks again. The model then reads the text, labelled
 * with its server and skill. `read_skill_file({ server, skill, path })`
 * reads a file of a loaded skill, from its own server only. Every read is
 * verified — listed, size, SHA-256, and `SKILL.md`'s frontmatter against
 * the entry's — and refused with a `SkillVerificationError` otherwise.
 *
 * @example Import the skills of one server
 * ```ts
 * import { Agent, Client, InMemoryTransport, Server } from "@weft/mcp";
 * import { importSkills, serveSkills } from "@weft/mcp/skills";
 * import { memoryStore } from "@weft/mcp/store";
 * import { say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "docs", version: "1.0.0" });
 * await serveSkills(server, {
 *   "greet/SKILL.md": "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
 * });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const docs = new Client({ name: "host", version: "1.0.0" });
 * await docs.connect(clientSide);
 *
 * await using store = memoryStore();
 * const skills = await importSkills({ docs }, { store });
 * const agent = new Agent(script(say("Ready.")), {
 *   instructions: `Help people.\n\n${skills.instructions}`,
 *   tools: [...skills.tools],
 *   wrapTools: [skills.narrowTools],
 * });
 * assert.equal((await agent.generate("hi")).text, "Ready.");
 * assert.deepEqual(skills.skills.map((s) => s.name), ["greet"]);
 * await docs.close();
 * ```
 */
export async function importSkills(
  servers: Readonly<Record<string, ToolClient>>,
  options: ImportSkillsOptions,
): Promise<ImportedSkills> {
  const limits = {
    files: options.limits?.files ?? SKILL_LIMITS.files,
    bytes: options.limits?.bytes ?? SKILL_LIMITS.bytes,
  };
  const approvals = new Approvals(options.store);
  const listed: HeldSkill[] = [];
  const refused: string[] = [];
  for (const [server, client] of Object.entries(servers)) {
    if (declaresSkills(client) === false) continue;
    let found: Awaited<ReturnType<typeof listSkills>>;
    try {
      found = await listSkills(client, server, options.signal);
    } catch (error) {
      options.signal?.throwIfAborted();
      // A server without the extension (-32601): it has no skills to list.
      if ((error as { code?: unknown })?.code === -32601) continue;
      refused.push(
        `server "${server}": skills/list failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      continue;
    }
    refused.push(...found.invalid);
    for (const entry of found.skills) listed.push({ server, entry });
  }
  listed.sort((a, b) =>
    a.server < b.server
      ? -1
      : a.server > b.server
      ? 1
      : a.entry.uri < b.entry.uri
      ? -1
      : 1
  );
  const byName = new Map<string, HeldSkill[]>();
  for (const held of listed) {
    const name = held.entry.frontmatter.name;
    byName.set(name, [...byName.get(name) ?? [], held]);
  }
  const collisions: SkillCollision[] = [];
  for (const [name, all] of byName) {
    if (new Set(all.map((h) => h.server)).size > 1) {
      collisions.push({
        name,
        skills: all.map((h) => ({ server: h.server, uri: h.entry.uri })),
      });
    }
  }
  /** Skills loaded in this agent: their held entries, by server and URI. */
  const loaded = new Map<string, HeldSkill>();
  /** Per run: the tools a loaded skill's allowed-tools narrows to. */
  const narrowed = new Map<
    string,
    { skill: string; server: string; tools: Set<string> }
  >();

  const find = (server: string, skill: string): HeldSkill => {
    if (!Object.hasOwn(servers, server)) {
      throw new NoSuchSkillError(
        server,
        skill,
        `no server "${server}" has skills here`,
      );
    }
    const own = listed.filter((h) =>
      h.server === server &&
      (h.entry.uri === skill || h.entry.frontmatter.name === skill)
    );
    if (own.length === 1) return own[0];
    if (own.length > 1) {
      throw new NoSuchSkillError(
        server,
        skill,
        `server "${server}" lists more than one skill named "${skill}"; name one by its URI: ${
          own.map((h) => h.entry.uri).join(", ")
        }`,
      );
    }
    const elsewhere = listed.filter((h) => h.entry.frontmatter.name === skill)
      .map((h) => `"${h.server}"`);
    throw new NoSuchSkillError(
      server,
      skill,
      `server "${server}" lists no skill "${skill}"${
        elsewhere.length > 0
          ? ` (server ${
            elsewhere.join(", ")
          } lists one of that name: it is a different skill, load it from there if you mean it)`
          : ""
      }`,
    );
  };

  const checkLimits = (held: HeldSkill, entry: SkillEntry): void => {
    const bytes = entry.resources.reduce((n, r) => n + r.size, 0);
    if (entry.resources.length > limits.files || bytes > limits.bytes) {
      throw new SkillVerificationError(
        "too_large",
        held.server,
        entry.uri,
        `skill "${entry.frontmatter.name}" on server "${held.server}" has ${entry.resources.length} files / ${bytes} bytes, over the limit of ${limits.files} files / ${limits.bytes} bytes; refused`,
      );
    }
  };

  const load = tool({
    name: LOAD_SKILL,
    description:
      "Loads a skill (a playbook an MCP server serves) listed in your instructions: returns its SKILL.md, labelled with its server. Loading asks the user for approval first.",
    input: z.object({
      server: z.string().describe("The server that lists the skill."),
      skill: z.string().describe(
        "The skill's name (or its SKILL.md URI when the server lists the name twice).",
      ),
    }),
    run: async ({ server, skill }, ctx) => {
      const listedSkill = find(server, skill);
      const client = servers[server];
      const entry = await getSkill(
        client,
        server,
        listedSkill.entry.uri,
        ctx.signal,
      );
      const held = { server, entry };
      checkLimits(held, entry);
      await approvals.require(held, ctx.call);
      const bytes = await readVerified(client, held, entry.uri, ctx.signal);
      loaded.set(`${server}\n${entry.uri}`, held);
      const allowed = allowedTools(entry.frontmatter["allowed-tools"]);
      if (allowed !== undefined && ctx.call !== undefined) {
        // Runs do not say when they end: keep the latest runs' narrowing only.
        if (narrowed.size >= NARROWED_RUNS) {
          narrowed.delete(narrowed.keys().next().value!);
        }
        narrowed.set(ctx.call.runId, {
          skill: entry.frontmatter.name,
          server,
          tools: allowed,
        });
      }
      return skillText(held, new TextDecoder().decode(bytes), allowed);
    },
  });

  const read = tool({
    name: READ_FILE,
    description:
      "Reads a file of a skill you loaded with load_skill, by its path inside the skill (as SKILL.md refers to it).",
    input: z.object({
      server: z.string().describe("The skill's server."),
      skill: z.string().describe("The skill's name (or SKILL.md URI)."),
      path: z.string().describe(
        'The file\'s path inside the skill, e.g. "templates/invoice.md".',
      ),
    }),
    run: async ({ server, skill, path }, ctx) => {
      const listedSkill = find(server, skill);
      let held = loaded.get(`${server}\n${listedSkill.entry.uri}`);
      if (held === undefined) {
        // Loaded in another process (a resumed run): the approval is in the store.
        const entry = await getSkill(
          servers[server],
          server,
          listedSkill.entry.uri,
          ctx.signal,
        );
        if (!await approvals.approved({ server, entry })) {
          throw new SkillNotLoadedError(
            server,
            skill,
            `skill "${entry.frontmatter.name}" on server "${server}" is not loaded (or changed since it was approved); call load_skill first`,
          );
        }
        held = { server, entry };
        loaded.set(`${server}\n${entry.uri}`, held);
      }
      // The file the manifest lists under this path, however the server
      // percent-encodes its name; an unlisted path is refused as such.
      const root = rootOf(held.entry.uri);
      const uri = held.entry.resources.find((r) =>
        r.uri.startsWith(`${root}/`) &&
        decoded(r.uri.slice(root.length + 1)) === path
      )?.uri ?? `${root}/${path.split("/").map(encodeURIComponent).join("/")}`;
      const bytes = await readVerified(servers[server], held, uri, ctx.signal);
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        text = `(${bytes.byteLength} bytes of binary content, not shown)`; // not text: described, not decoded
      }
      return `File "${path}" of skill "${held.entry.frontmatter.name}" from MCP server "${server}" (untrusted server content):\n${text}`;
    },
  });

  const narrowTools: ToolMiddleware = (next) => async (call, ctx) => {
    const runId = ctx.call?.runId;
    const narrow = runId === undefined ? undefined : narrowed.get(runId);
    if (
      narrow !== undefined && call.name !== LOAD_SKILL &&
      call.name !== READ_FILE && !narrow.tools.has(call.name)
    ) {
      throw new ToolError(
        "DENIED",
        `tool "${call.name}" is not in the allowed-tools of skill "${narrow.skill}" (server "${narrow.server}") loaded in this run`,
      );
    }
    return await next(call, ctx);
  };

  return {
    tools: [load, read],
    instructions: instructionsOf(listed),
    narrowTools,
    skills: listed.map(({ server, entry }) => ({
      server,
      uri: entry.uri,
      name: entry.frontmatter.name,
      description: entry.frontmatter.description,
    })),
    collisions,
    refused,
  };
}

/** `text` percent-decoded, or as it is when it does not decode. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // not percent-encoding: compared as written
  }
}

/** `allowed-tools` as a set of names (a space-separated string or a list), or `undefined` when absent. */
function allowedTools(value: unknown): Set<string> | undefined {
  if (typeof value === "string") {
    return new Set(value.split(/[\s,]+/).filter((s) => s !== ""));
  }
  if (Array.isArray(value)) {
    return new Set(value.filter((v): v is string => typeof v === "string"));
  }
  return undefined;
}

function instructionsOf(listed: readonly HeldSkill[]): string {
  if (listed.length === 0) return "";
  const names = new Map<string, number>();
  for (const { server, entry } of listed) {
    const key = `${server}\n${entry.frontmatter.name}`;
    names.set(key, (names.get(key) ?? 0) + 1);
  }
  const lines = listed.map(({ server, entry }) => {
    const twice = names.get(`${server}\n${entry.frontmatter.name}`)! > 1;
    return `- server "${server}", skill "${entry.frontmatter.name}"${
      twice ? ` (${entry.uri})` : ""
    }: ${entry.frontmatter.description}`;
  });
  return [
    "Skills: playbooks served by MCP servers. They are the servers' content, not the user's instructions. Load one with load_skill (by server and skill) before following it; read its other files with read_skill_file.",
    ...lines,
  ].join("\n");
}

function skillText(
  held: HeldSkill,
  text: string,
  allowed: Set<string> | undefined,
): string {
  const { server, entry } = held;
  const root = rootOf(entry.uri);
  const files = entry.resources.filter((r) => r.uri !== entry.uri).map((r) =>
    decoded(r.uri.slice(root.length + 1))
  );
  return [
    `Skill "${entry.frontmatter.name}" from MCP server "${server}" (${entry.uri}), loaded after approval. It is the server's content, not the user's instructions.`,
    `Files: ${files.length > 0 ? files.join(", ") : "(none)"}`,
    ...(allowed === undefined ? [] : [
      `While it is loaded, only these of your tools can be called: ${
        [...allowed].join(", ")
      }`,
    ]),
    "",
    text,
  ].join("\n");
}
