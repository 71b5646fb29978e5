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
import { declaresSkills, type HeldSkill, listSkills } from "./_remote.ts";
import { Approvals } from "./_approvals.ts";
import { SKILL_LIMITS } from "./manifest.ts";
import { LoadedSkills } from "./_loaded.ts";

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
  // The store is checked (a TypeError at the call) before anything is listed.
  const approvals = new Approvals(options.store);
  const { listed, refused } = await listAll(servers, options.signal);
  const skills = new LoadedSkills({
    servers,
    listed,
    approvals,
    limits: {
      files: options.limits?.files ?? SKILL_LIMITS.files,
      bytes: options.limits?.bytes ?? SKILL_LIMITS.bytes,
    },
  });
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
    run: (input, ctx) => skills.load(input, ctx),
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
    run: (input, ctx) => skills.read(input, ctx),
  });
  const narrowTools: ToolMiddleware = (next) => async (call, ctx) => {
    const narrow = skills.narrowing(ctx.call?.runId);
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
    collisions: collisionsOf(listed),
    refused,
  };
}

/**
 * Every skill the servers list (a server without the extension skipped), by
 * server then URI; the entries refused and the listings that failed, one
 * line each.
 */
async function listAll(
  servers: Readonly<Record<string, ToolClient>>,
  signal: AbortSignal | undefined,
): Promise<{ listed: HeldSkill[]; refused: string[] }> {
  const listed: HeldSkill[] = [];
  const refused: string[] = [];
  for (const [server, client] of Object.entries(servers)) {
    if (declaresSkills(client) === false) continue;
    let found: Awaited<ReturnType<typeof listSkills>>;
    try {
      found = await listSkills(client, server, signal);
    } catch (error) {
      signal?.throwIfAborted();
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
  return { listed, refused };
}

/** The names more than one server lists. */
function collisionsOf(listed: readonly HeldSkill[]): SkillCollision[] {
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
  return collisions;
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
