/**
 * A server's skills as a host sees them: listed (`skills/list`, every
 * page), refreshed (`skills/get`), checked against the extension's rules
 * and limits, and each file read (`resources/read`) and verified against
 * the held entry — listed, size, SHA-256, and for `SKILL.md` its
 * frontmatter field by field.
 *
 * @module
 */

import { z } from "zod";
import type { ToolClient } from "../bridge/peers.ts";
import { canonicalJson } from "../bridge/pins.ts";
import { FrontmatterError, parseSkillMarkdown } from "./_frontmatter.ts";
import {
  DIGEST,
  digestOf,
  type SkillEntry,
  SKILLS_EXTENSION,
} from "./manifest.ts";
import { SkillVerificationError } from "./import_errors.ts";

const Loose = z.looseObject({});
const MAX_PAGES = 100;

/** One listed skill of one server, as the host holds it. */
export interface HeldSkill {
  readonly server: string;
  readonly entry: SkillEntry;
}

/** Whether `client`'s server declared the extension (`undefined`: the client cannot say). */
export function declaresSkills(client: ToolClient): boolean | undefined {
  const caps = (client as {
    getServerCapabilities?: () => Record<string, unknown> | undefined;
  }).getServerCapabilities?.();
  if (caps === undefined) return undefined;
  const extensions = caps.extensions as Record<string, unknown> | undefined;
  return extensions?.[SKILLS_EXTENSION] !== undefined;
}

/** Every page of `skills/list`; entries that break the rules are dropped and reported. */
export async function listSkills(
  client: ToolClient,
  server: string,
  signal?: AbortSignal,
): Promise<{ skills: SkillEntry[]; invalid: string[] }> {
  const skills: SkillEntry[] = [];
  const invalid: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      {
        method: "skills/list",
        params: cursor === undefined ? {} : { cursor },
      },
      Loose,
      signal === undefined ? undefined : { signal },
    ) as { skills?: unknown; nextCursor?: unknown };
    for (const raw of Array.isArray(result.skills) ? result.skills : []) {
      const problem = entryProblem(raw);
      if (problem === undefined) skills.push(raw as SkillEntry);
      else invalid.push(`server "${server}": ${problem}`);
    }
    if (typeof result.nextCursor !== "string") return { skills, invalid };
    cursor = result.nextCursor;
  }
  invalid.push(
    `server "${server}": skills/list had more than ${MAX_PAGES} pages; the rest was not read`,
  );
  return { skills, invalid };
}

/** The entry the server holds for `uri` now (`skills/get`), checked. */
export async function getSkill(
  client: ToolClient,
  server: string,
  uri: string,
  signal: AbortSignal,
): Promise<SkillEntry> {
  const result = await client.request(
    { method: "skills/get", params: { uri } },
    Loose,
    { signal },
  ) as { skill?: unknown };
  const problem = entryProblem(result.skill);
  if (problem !== undefined) {
    throw new SkillVerificationError(
      problem.includes('"dynamic"') ? "dynamic" : "invalid_entry",
      server,
      uri,
      `the entry server "${server}" gives for ${uri} is refused: ${problem}`,
    );
  }
  const skill = result.skill as SkillEntry;
  if (skill.uri !== uri) {
    throw new SkillVerificationError(
      "invalid_entry",
      server,
      uri,
      `server "${server}" answered skills/get for ${uri} with another skill (${skill.uri}); refused`,
    );
  }
  return skill;
}

/** The root of a skill: its `SKILL.md` URI without `/SKILL.md`. */
export function rootOf(uri: string): string {
  return uri.slice(0, -"/SKILL.md".length);
}

/** Why `raw` is not a skill entry a host may hold, or `undefined`. */
export function entryProblem(raw: unknown): string | undefined {
  const entry = raw as Partial<SkillEntry> | null;
  if (typeof entry !== "object" || entry === null) {
    return "an entry is not an object";
  }
  const uri = entry.uri;
  if (typeof uri !== "string" || !uri.endsWith("/SKILL.md")) {
    return `entry ${JSON.stringify(uri)}: uri must end in /SKILL.md`;
  }
  const fm = entry.frontmatter as Record<string, unknown> | undefined;
  if (
    typeof fm !== "object" || fm === null || typeof fm.name !== "string" ||
    typeof fm.description !== "string"
  ) {
    return `${uri}: frontmatter must hold string name and description`;
  }
  const root = rootOf(uri);
  if (root.slice(root.lastIndexOf("/") + 1) !== fm.name) {
    return `${uri}: frontmatter name "${fm.name}" must be the last segment of its path`;
  }
  if (entry.resources === ("dynamic" as unknown)) {
    return `${uri}: resources is "dynamic" (no digests to verify against)`;
  }
  if (!Array.isArray(entry.resources)) {
    return `${uri}: resources must be a list`;
  }
  let self = false;
  const seen = new Set<string>();
  for (const r of entry.resources) {
    if (
      typeof r?.uri !== "string" || typeof r.digest !== "string" ||
      !DIGEST.test(r.digest) || !Number.isSafeInteger(r.size) || r.size < 0
    ) {
      return `${uri}: a resource lacks a uri, a sha256 digest or a size`;
    }
    if (seen.has(r.uri)) return `${uri}: ${r.uri} is listed twice`;
    seen.add(r.uri);
    if (r.uri === uri) self = true;
    else if (
      !r.uri.startsWith(`${root}/`) ||
      r.uri.slice(root.length + 1).split("/").some((s: string) =>
        s === "" || s === "." || s === ".." || /%2e%2e|%2f|[?#]/i.test(s)
      )
    ) {
      return `${uri}: ${r.uri} is outside the skill's folder`;
    }
  }
  if (!self) return `${uri}: resources must list the SKILL.md itself`;
  return undefined;
}

/**
 * Reads `uri` from the skill's own server and verifies it against the
 * held entry: listed, size, SHA-256, and for the skill's `SKILL.md` its
 * frontmatter. Returns the bytes.
 */
export async function readVerified(
  client: ToolClient,
  held: HeldSkill,
  uri: string,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const { server, entry } = held;
  const listed = entry.resources.find((r) => r.uri === uri);
  if (listed === undefined) {
    throw new SkillVerificationError(
      "unlisted",
      server,
      uri,
      `${uri} is not in the manifest of skill "${entry.frontmatter.name}" on server "${server}"; refused`,
    );
  }
  const result = await client.request(
    { method: "resources/read", params: { uri } },
    Loose,
    { signal },
  ) as { contents?: { uri?: string; text?: unknown; blob?: unknown }[] };
  const item = result.contents?.[0];
  const bytes = typeof item?.text === "string"
    ? new TextEncoder().encode(item.text)
    : typeof item?.blob === "string"
    ? Uint8Array.from(atob(item.blob), (c) => c.charCodeAt(0))
    : undefined;
  if (bytes === undefined || bytes.byteLength !== listed.size) {
    throw new SkillVerificationError(
      "size",
      server,
      uri,
      `${uri} from server "${server}" is ${
        bytes?.byteLength ?? 0
      } bytes, its manifest says ${listed.size}; refused`,
    );
  }
  if (await digestOf(bytes) !== listed.digest) {
    throw new SkillVerificationError(
      "digest",
      server,
      uri,
      `${uri} from server "${server}" does not match the SHA-256 digest of its manifest; refused`,
    );
  }
  if (uri === entry.uri) checkFrontmatter(held, bytes);
  return bytes;
}

function checkFrontmatter(held: HeldSkill, bytes: Uint8Array): void {
  const { server, entry } = held;
  let read: Record<string, unknown>;
  try {
    read = parseSkillMarkdown(
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    ).frontmatter;
  } catch (error) {
    const why = error instanceof FrontmatterError
      ? error.message
      : "not valid UTF-8";
    throw new SkillVerificationError(
      "frontmatter",
      server,
      entry.uri,
      `the frontmatter of ${entry.uri} from server "${server}" cannot be read (${why}); refused`,
    );
  }
  const fields = new Set([
    ...Object.keys(read),
    ...Object.keys(entry.frontmatter),
  ]);
  const differing = [...fields].sort().filter((f) =>
    canonicalJson(read[f]) !== canonicalJson(entry.frontmatter[f])
  );
  if (differing.length > 0) {
    throw new SkillVerificationError(
      "frontmatter",
      server,
      entry.uri,
      `the frontmatter of ${entry.uri} from server "${server}" differs from its manifest (${
        differing.join(", ")
      }); refused`,
    );
  }
}
