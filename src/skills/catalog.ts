/**
 * A catalog of skills to serve: every skill folder (a folder with a
 * `SKILL.md`) under a root, each with its manifest — every file's URI,
 * size and SHA-256 digest, computed from the bytes that will be served —
 * and its frontmatter, read strictly.
 *
 * @module
 */

import { FrontmatterError, parseSkillMarkdown } from "./_frontmatter.ts";
import {
  charCount,
  digestOf,
  mimeTypeOf,
  SKILL_LIMITS,
  SKILL_NAME,
  type SkillEntry,
  type SkillFileEntry,
  type SkillFilesMap,
  type SkillFrontmatter,
} from "./manifest.ts";
import { folderStorage, mapStorage, type SkillStorage } from "./_storage.ts";
import { SkillChangedError, SkillLoadError } from "./errors.ts";

/**
 * Where skills are read from: a folder's path, or a map of `"skill-name/FILE"` paths to contents.
 *
 * @example
 * ```ts
 * import type { SkillSource } from "@weft/mcp/skills";
 * const folder: SkillSource = "./skills";
 * const map: SkillSource = { "greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n" };
 * console.log(folder, map);
 * ```
 */
export type SkillSource = string | SkillFilesMap;

/**
 * Options of {@linkcode loadSkills}.
 *
 * @example
 * ```ts
 * import type { LoadSkillsOptions } from "@weft/mcp/skills";
 * const options: LoadSkillsOptions = { prefix: "acme", limits: { files: 64 } };
 * ```
 */
export interface LoadSkillsOptions {
  /** Path segments before every skill's own (`"acme"` serves `skill://acme/<skill>/…`). */
  readonly prefix?: string;
  /**
   * Per-skill limits (default the extension's: 512 files, 16 MiB). A skill
   * over either is refused with a `SkillLoadError` naming it.
   */
  readonly limits?: { readonly files?: number; readonly bytes?: number };
}

/**
 * A child of a skill folder, as `resources/directory/read` lists it.
 *
 * @example
 * ```ts
 * import type { SkillDirectoryChild } from "@weft/mcp/skills";
 * const child: SkillDirectoryChild = { uri: "skill://pdf/templates", name: "templates", mimeType: "inode/directory" };
 * console.log(child.name);
 * ```
 */
export interface SkillDirectoryChild {
  /** Its URI (a folder's has no trailing slash). */
  readonly uri: string;
  /** Its file or folder name. */
  readonly name: string;
  /** `inode/directory` for a folder. */
  readonly mimeType: string;
  /** A file's size in bytes. */
  readonly size?: number;
}

/**
 * A file as served: its checked bytes and MIME type.
 *
 * @example
 * ```ts
 * import { loadSkills, type ServedSkillFile } from "@weft/mcp/skills";
 * const skills = await loadSkills({ "greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n" });
 * const file: ServedSkillFile | undefined = await skills.read("skill://greet/SKILL.md");
 * console.log(file?.mimeType); // "text/markdown"
 * ```
 */
export interface ServedSkillFile {
  /** The bytes, equal to the manifest's size and digest. */
  readonly bytes: Uint8Array;
  /** Its MIME type. */
  readonly mimeType: string;
}

/**
 * Loaded skills, ready to serve with `serveSkills`.
 *
 * @example
 * ```ts
 * import { loadSkills } from "@weft/mcp/skills";
 * import assert from "node:assert/strict";
 *
 * const skills = await loadSkills({
 *   "greet/SKILL.md": "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
 * });
 * assert.equal(skills.entries[0].uri, "skill://greet/SKILL.md");
 * ```
 */
export interface SkillCatalog {
  /** Every skill, sorted by URI. */
  readonly entries: readonly SkillEntry[];
  /** The skill whose `SKILL.md` is at `uri`. */
  get(uri: string): SkillEntry | undefined;
  /** Whether a file (not a folder) is served at `uri`. */
  has(uri: string): boolean;
  /**
   * Reads a served file now and checks it against its manifest; throws a
   * `SkillChangedError` when the bytes changed since the load. `undefined`
   * when no file is served at `uri`.
   */
  read(uri: string): Promise<ServedSkillFile | undefined>;
  /** A skill folder's direct children, or `undefined` when `uri` is not one. */
  directory(uri: string): readonly SkillDirectoryChild[] | undefined;
  /**
   * Reads the source again and swaps the new manifests in at once (all or
   * nothing: on failure the old ones stay and the `SkillLoadError` is
   * thrown).
   */
  reload(): Promise<void>;
}

interface Snapshot {
  readonly entries: readonly SkillEntry[];
  readonly skills: ReadonlyMap<string, SkillEntry>;
  readonly files: ReadonlyMap<
    string,
    { path: string; digest: string; size: number; mimeType: string }
  >;
  readonly dirs: ReadonlyMap<string, readonly SkillDirectoryChild[]>;
}

/**
 * Loads skills from a folder (every folder under it holding a `SKILL.md`;
 * needs read access) or a map of files (`{ "pdf/SKILL.md": "…" }`, for a
 * host without a filesystem). Each skill's manifest lists every file
 * below its folder with its size and SHA-256 digest, from the bytes read
 * now; its frontmatter is read strictly (see the docs for the YAML read).
 * Throws a `SkillLoadError` listing every problem: a `SKILL.md` without
 * frontmatter, a `name` that is not 1-64 lowercase letters, digits and
 * single hyphens or does not match its folder, a `description` that is
 * not 1-1024 characters, a skill over the limits, a symlink, a name that
 * cannot be written in a URI, or no skill at all.
 *
 * @example Load a map of files
 * ```ts
 * import { loadSkills } from "@weft/mcp/skills";
 * import assert from "node:assert/strict";
 *
 * const skills = await loadSkills({
 *   "greet/SKILL.md": "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
 *   "greet/examples/formal.md": "Good morning.",
 * });
 * assert.deepEqual(skills.entries[0].resources.map((r) => r.uri), [
 *   "skill://greet/SKILL.md",
 *   "skill://greet/examples/formal.md",
 * ]);
 * ```
 */
export async function loadSkills(
  source: SkillSource,
  options?: LoadSkillsOptions,
): Promise<SkillCatalog> {
  const storage = typeof source === "string"
    ? folderStorage(source)
    : typeof source === "object" && source !== null
    ? mapStorage(source)
    : undefined;
  if (storage === undefined) {
    throw new TypeError(
      "loadSkills(source): source must be a folder path or a map of files",
    );
  }
  const prefix = (options?.prefix ?? "").split("/").filter((s) => s !== "");
  const limits = {
    files: options?.limits?.files ?? SKILL_LIMITS.files,
    bytes: options?.limits?.bytes ?? SKILL_LIMITS.bytes,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(
        `loadSkills: limits.${name} must be a positive integer, got ${value}`,
      );
    }
  }
  let current = await build(storage, prefix, limits);
  return {
    get entries() {
      return current.entries;
    },
    get: (uri) => current.skills.get(canonical(uri) ?? ""),
    has: (uri) => current.files.has(canonical(uri) ?? ""),
    async read(uri) {
      const file = current.files.get(canonical(uri) ?? "");
      if (file === undefined) return undefined;
      let bytes: Uint8Array;
      try {
        bytes = await storage.read(file.path);
      } catch (cause) {
        throw new SkillChangedError(uri, { cause });
      }
      if (
        bytes.byteLength !== file.size || await digestOf(bytes) !== file.digest
      ) {
        throw new SkillChangedError(uri);
      }
      return { bytes, mimeType: file.mimeType };
    },
    directory: (uri) => current.dirs.get(canonical(uri) ?? ""),
    async reload() {
      current = await build(storage, prefix, limits);
    },
  };
}

/** The WHATWG spelling of `uri`, or `undefined` when it does not parse. */
function canonical(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined; // not a URI: nothing is served at it
  }
}

/** A path segment percent-encoded as a URL path keeps it (WHATWG), plus `%`, `/`, `\\`, `?` and `#`. */
function encodeSegment(segment: string): string {
  return segment.replace(
    /[^\w!$&'()*+,.:;=@[\]|~-]/gu,
    (char) => encodeURIComponent(char),
  );
}

/** `skill://` + the segments: the first (the authority) strictly encoded, the rest as a path keeps them. */
function uriOf(segments: readonly string[]): string {
  const [authority, ...rest] = segments;
  return `skill://${
    [encodeURIComponent(authority), ...rest.map(encodeSegment)].join("/")
  }`;
}

const dirOf = (path: string): string =>
  path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";

async function build(
  storage: SkillStorage,
  prefix: readonly string[],
  limits: { files: number; bytes: number },
): Promise<Snapshot> {
  const { paths, problems } = await storage.list();
  paths.sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  const skillDirs = paths.filter((p) =>
    p === "SKILL.md" || p.endsWith("/SKILL.md")
  )
    .map(dirOf);
  if (skillDirs.includes("")) {
    problems.push(
      "SKILL.md: a SKILL.md at the root has no skill folder; put it in a folder named as the skill",
    );
  }
  const uris = new Map<string, string>();
  for (const path of paths) {
    let uri: string;
    try {
      uri = uriOf([...prefix, ...path.split("/")]);
    } catch {
      uri = ""; // a lone surrogate: not writable in a URI, reported below
    }
    if (uri === "" || canonical(uri) !== uri) {
      problems.push(`${path}: this name cannot be written in a skill:// URI`);
    }
    uris.set(path, uri);
  }
  const hashed = new Map<string, { digest: string; size: number }>();
  const entries: SkillEntry[] = [];
  const files = new Map<
    string,
    { path: string; digest: string; size: number; mimeType: string }
  >();
  const dirs = new Map<string, SkillDirectoryChild[]>();
  for (const dir of skillDirs.filter((d) => d !== "")) {
    const inside = paths.filter((p) => p.startsWith(`${dir}/`));
    const resources: SkillFileEntry[] = [];
    let total = 0;
    let manifestBytes: Uint8Array | undefined;
    for (const path of inside) {
      let known = hashed.get(path);
      const bytes = known === undefined || path === `${dir}/SKILL.md`
        ? await storage.read(path)
        : undefined;
      if (bytes !== undefined && known === undefined) {
        known = { digest: await digestOf(bytes), size: bytes.byteLength };
        hashed.set(path, known);
      }
      if (path === `${dir}/SKILL.md`) manifestBytes = bytes;
      const uri = uris.get(path)!;
      resources.push({ uri, ...known! });
      files.set(uri, { path, ...known!, mimeType: mimeTypeOf(path) });
      total += known!.size;
    }
    resources.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
    const name = dir.slice(dir.lastIndexOf("/") + 1);
    if (inside.length > limits.files || total > limits.bytes) {
      problems.push(
        `${dir}: ${inside.length} files / ${total} bytes is over the limit of ${limits.files} files / ${limits.bytes} bytes a skill; split the skill or raise limits`,
      );
    }
    const frontmatter = frontmatterOf(dir, name, manifestBytes!, problems);
    if (frontmatter === undefined) continue;
    entries.push(
      Object.freeze({
        uri: uris.get(`${dir}/SKILL.md`)!,
        frontmatter: deepFreeze(frontmatter),
        resources: Object.freeze(resources.map((r) => Object.freeze(r))),
      }),
    );
    for (const path of inside) addToDirs(dirs, prefix, dir, path);
  }
  if (entries.length === 0 && problems.length === 0) {
    problems.push(
      ". : no skills found (a skill is a folder holding a SKILL.md)",
    );
  }
  if (problems.length > 0) throw new SkillLoadError(problems);
  entries.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  for (const children of dirs.values()) {
    children.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  }
  return {
    entries: Object.freeze(entries),
    skills: new Map(entries.map((e) => [e.uri, e])),
    files,
    dirs,
  };
}

function addToDirs(
  dirs: Map<string, SkillDirectoryChild[]>,
  prefix: readonly string[],
  skillDir: string,
  path: string,
): void {
  const segments = path.split("/");
  const base = skillDir.split("/").length;
  for (let depth = base; depth < segments.length; depth++) {
    const parent = uriOf([...prefix, ...segments.slice(0, depth)]);
    const own = segments.slice(0, depth + 1);
    const uri = uriOf([...prefix, ...own]);
    let children = dirs.get(parent);
    if (children === undefined) dirs.set(parent, children = []);
    if (children.some((c) => c.uri === uri)) continue;
    const name = own[own.length - 1];
    children.push(
      depth === segments.length - 1
        ? { uri, name, mimeType: mimeTypeOf(name) }
        : { uri, name, mimeType: "inode/directory" },
    );
  }
}

function frontmatterOf(
  dir: string,
  name: string,
  bytes: Uint8Array,
  problems: string[],
): SkillFrontmatter | undefined {
  const where = `${dir}/SKILL.md`;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problems.push(`${where}: not valid UTF-8`);
    return undefined;
  }
  let frontmatter: Record<string, unknown>;
  try {
    frontmatter = parseSkillMarkdown(text).frontmatter;
  } catch (error) {
    if (!(error instanceof FrontmatterError)) throw error;
    problems.push(`${where}: frontmatter ${error.message}`);
    return undefined;
  }
  const { name: given, description } = frontmatter;
  if (
    typeof given !== "string" || !SKILL_NAME.test(given) || given.length > 64
  ) {
    problems.push(
      `${where}: name must be 1-64 lowercase letters, digits and single hyphens`,
    );
    return undefined;
  }
  if (given !== name) {
    problems.push(
      `${where}: name "${given}" must equal its folder's name "${name}"`,
    );
    return undefined;
  }
  if (
    typeof description !== "string" || description === "" ||
    charCount(description) > 1024
  ) {
    problems.push(`${where}: description must be 1-1024 characters`);
    return undefined;
  }
  return frontmatter as SkillFrontmatter;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
