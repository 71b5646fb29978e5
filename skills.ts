/**
 * Skills over MCP (the skills extension, `io.modelcontextprotocol/skills`):
 * {@link serveSkills} serves a folder (or a map) of skills — each a folder
 * with a `SKILL.md` — with their manifests (every file's URI, size and
 * SHA-256 digest) through `skills/list`, `skills/get`,
 * `resources/directory/read` and `resources/read`, in both protocol eras.
 *
 * @example Serve a folder of skills
 * ```ts
 * import { Server } from "@weft/mcp";
 * import { serveSkills } from "@weft/mcp/skills";
 *
 * const server = new Server({ name: "playbooks", version: "1.0.0" });
 * await serveSkills(server, {
 *   "greet/SKILL.md": "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
 * });
 * ```
 *
 * @module
 */

export {
  loadSkills,
  type LoadSkillsOptions,
  type ServedSkillFile,
  type SkillCatalog,
  type SkillDirectoryChild,
  type SkillSource,
} from "./src/skills/catalog.ts";
export { serveSkills, type ServeSkillsOptions } from "./src/skills/serve.ts";
export { SkillChangedError, SkillLoadError } from "./src/skills/errors.ts";
export {
  SKILL_LIMITS,
  type SkillEntry,
  type SkillFileEntry,
  type SkillFrontmatter,
  SKILLS_EXTENSION,
} from "./src/skills/manifest.ts";
export type { SkillFilesMap } from "./src/skills/manifest.ts";
export {
  type ImportedSkill,
  type ImportedSkills,
  importSkills,
  type ImportSkillsOptions,
  type SkillCollision,
} from "./src/skills/import.ts";
export {
  NoSuchSkillError,
  SkillNotLoadedError,
  SkillVerificationError,
  type SkillVerificationReason,
} from "./src/skills/import_errors.ts";
