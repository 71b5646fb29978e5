/**
 * What the skills extension's manifests share on both sides: the entry
 * shapes, `sha256:` digests, the per-skill limits, the name rule, and the
 * MIME types files are served with.
 *
 * @module
 */

/**
 * The extension's identifier, under `capabilities.extensions`.
 *
 * @example
 * ```ts
 * import { SKILLS_EXTENSION } from "@weft/mcp/skills";
 * console.log(SKILLS_EXTENSION); // "io.modelcontextprotocol/skills"
 * ```
 */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * Files by their `/`-separated path under the root: text (UTF-8) or bytes.
 *
 * @example
 * ```ts
 * import type { SkillFilesMap } from "@weft/mcp/skills";
 * const files: SkillFilesMap = { "greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n" };
 * console.log(Object.keys(files));
 * ```
 */
export type SkillFilesMap = Readonly<Record<string, string | Uint8Array>>;

/**
 * One file of a skill, as its manifest lists it.
 *
 * @example
 * ```ts
 * import type { SkillFileEntry } from "@weft/mcp/skills";
 * const file: SkillFileEntry = { uri: "skill://greet/SKILL.md", digest: `sha256:${"0".repeat(64)}`, size: 40 };
 * console.log(file.size);
 * ```
 */
export interface SkillFileEntry {
  /** The file's resource URI. */
  readonly uri: string;
  /** `sha256:` and the 64 lowercase hex digits of the file's bytes. */
  readonly digest: string;
  /** The file's length in bytes. */
  readonly size: number;
}

/**
 * A skill's `SKILL.md` frontmatter, as JSON.
 *
 * @example
 * ```ts
 * import type { SkillFrontmatter } from "@weft/mcp/skills";
 * const fm: SkillFrontmatter = { name: "greet", description: "Greets people.", license: "MIT" };
 * console.log(fm.name);
 * ```
 */
export interface SkillFrontmatter {
  /** The skill's name: the last segment of its path. */
  readonly name: string;
  /** What it is for and when to use it. */
  readonly description: string;
  /** Every other field, as the author wrote it. */
  readonly [field: string]: unknown;
}

/**
 * One skill, as `skills/list` and `skills/get` carry it.
 *
 * @example
 * ```ts
 * import { loadSkills, type SkillEntry } from "@weft/mcp/skills";
 * const skills = await loadSkills({ "greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n" });
 * const entry: SkillEntry = skills.entries[0];
 * console.log(entry.uri); // "skill://greet/SKILL.md"
 * ```
 */
export interface SkillEntry {
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  /** Its frontmatter. */
  readonly frontmatter: SkillFrontmatter;
  /** Every file of the skill, `SKILL.md` included, sorted by URI. */
  readonly resources: readonly SkillFileEntry[];
}

/**
 * The per-skill limits of the extension: what every host accepts.
 *
 * @example
 * ```ts
 * import { SKILL_LIMITS } from "@weft/mcp/skills";
 * console.log(SKILL_LIMITS.files, SKILL_LIMITS.bytes); // 512 16777216
 * ```
 */
export const SKILL_LIMITS: Readonly<{ files: number; bytes: number }> = Object
  .freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** Lowercase letters, digits and single hyphens, 1 to 64 of them. */
export const SKILL_NAME = /^[0-9a-z]+(?:-[0-9a-z]+)*$/;

/** `sha256:` and 64 lowercase hex digits. */
export const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The `sha256:` digest of `bytes`. */
export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const b of hash) hex += b.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

const MIME: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "application/x-sh",
  js: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
};

/** The MIME type a file is served with, from its extension. */
export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return MIME[name.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}

/** The number of characters (code points) of `text`. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
