/**
 * The typed refusals of imported skills: what the model reads when a skill
 * it asked for cannot be loaded or one of its files cannot be read.
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";

/**
 * Why a skill file (or a whole skill) failed verification.
 *
 * @example
 * ```ts
 * import type { SkillVerificationReason } from "@weft/mcp/skills";
 * const reason: SkillVerificationReason = "digest";
 * console.log(reason);
 * ```
 */
export type SkillVerificationReason =
  | "unlisted"
  | "size"
  | "digest"
  | "frontmatter"
  | "too_large"
  | "dynamic"
  | "invalid_entry";

/**
 * A skill or one of its files is not what its manifest says — a file not
 * listed, a size or SHA-256 digest that differs, frontmatter that differs
 * from the entry's, a skill over the limits, one without digests
 * (`"dynamic"`), or an entry that breaks the extension's rules. Nothing of
 * it reaches the model. Renders `SKILL_UNVERIFIED: <detail>`.
 *
 * @example
 * ```ts
 * import { SkillVerificationError } from "@weft/mcp/skills";
 * const e = new SkillVerificationError("digest", "docs", "skill://a/SKILL.md", "x");
 * console.log(e.reason, e.server);
 * ```
 */
export class SkillVerificationError extends ToolError {
  /** What failed. */
  readonly reason: SkillVerificationReason;
  /** The server's label. */
  readonly server: string;
  /** The file's (or the skill's `SKILL.md`) URI. */
  readonly uri: string;

  /** Builds the error: what failed, on which server, at which URI, and the text the model reads. */
  constructor(
    reason: SkillVerificationReason,
    server: string,
    uri: string,
    detail: string,
  ) {
    super("SKILL_UNVERIFIED", detail);
    this.name = "SkillVerificationError";
    this.reason = reason;
    this.server = server;
    this.uri = uri;
  }
}

/**
 * The model named a skill no server lists under that name (or a server
 * that has no skills): renders `NO_SUCH_SKILL: <detail>`, naming the
 * servers that do list the name — never loading one of theirs instead.
 *
 * @example
 * ```ts
 * import { NoSuchSkillError } from "@weft/mcp/skills";
 * console.log(new NoSuchSkillError("docs", "pdf", "no skill").message);
 * ```
 */
export class NoSuchSkillError extends ToolError {
  /** The server named. */
  readonly server: string;
  /** The skill named. */
  readonly skill: string;

  /** Builds the error for the skill asked of `server`, with the text the model reads. */
  constructor(server: string, skill: string, detail: string) {
    super("NO_SUCH_SKILL", detail);
    this.name = "NoSuchSkillError";
    this.server = server;
    this.skill = skill;
  }
}

/**
 * A file of a skill that was not loaded (approved) in this agent, or
 * whose manifest changed since it was: renders
 * `SKILL_NOT_LOADED: <detail>`; loading it again asks again.
 *
 * @example
 * ```ts
 * import { SkillNotLoadedError } from "@weft/mcp/skills";
 * console.log(new SkillNotLoadedError("docs", "pdf", "load it").code);
 * ```
 */
export class SkillNotLoadedError extends ToolError {
  /** The server named. */
  readonly server: string;
  /** The skill named. */
  readonly skill: string;

  /** Builds the error for the skill asked of `server`, with the text the model reads. */
  constructor(server: string, skill: string, detail: string) {
    super("SKILL_NOT_LOADED", detail);
    this.name = "SkillNotLoadedError";
    this.server = server;
    this.skill = skill;
  }
}
