/**
 * The typed failures of skills, served and loaded.
 *
 * @module
 */

/**
 * A folder or map of skills could not be loaded for serving: each problem
 * names the file or folder and what to change. Nothing is served.
 *
 * @example
 * ```ts
 * import { loadSkills, SkillLoadError } from "@weft/mcp/skills";
 * import assert from "node:assert/strict";
 *
 * const failed = await loadSkills({ "a/SKILL.md": "no frontmatter" }).catch((e) => e);
 * assert.ok(failed instanceof SkillLoadError);
 * ```
 */
export class SkillLoadError extends Error {
  /** One line per problem, each naming its file or folder. */
  readonly problems: readonly string[];

  /** Builds the error from its problems, one line each. */
  constructor(problems: readonly string[]) {
    super(
      `skills could not be loaded: ${problems.join("; ")}`,
    );
    this.name = "SkillLoadError";
    this.problems = Object.freeze([...problems]);
  }
}

/**
 * A served skill file's bytes are no longer those its manifest lists (the
 * file changed after the catalog was loaded): the read is refused; call
 * the catalog's `reload()` to serve the new bytes under their new digest.
 *
 * @example
 * ```ts
 * import { SkillChangedError } from "@weft/mcp/skills";
 * const e = new SkillChangedError("skill://a/SKILL.md");
 * console.log(e.message);
 * ```
 */
export class SkillChangedError extends Error {
  /** The file's URI. */
  readonly uri: string;

  /** Builds the error for the file at `uri`. */
  constructor(uri: string, options?: ErrorOptions) {
    super(
      `${uri} changed since the skills were loaded; its old digest is not served — call reload() on the catalog`,
      options,
    );
    this.name = "SkillChangedError";
    this.uri = uri;
  }
}
