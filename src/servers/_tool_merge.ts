/**
 * The tools of every server of a set, merged into one list in config
 * order: a name an earlier server has is skipped (`ToolNameTakenError`),
 * and a collision the set has not seen before is news.
 *
 * @module
 */

import type { ToolDef } from "../core/tool.ts";
import { type SkippedServerTool, ToolNameTakenError } from "./errors.ts";
import type { ManagedServer } from "./_server.ts";

/** The merged list. */
export interface MergedTools {
  /** Every server's tools, in config order, then listing order. */
  readonly tools: ToolDef[];
  /** The tools left out: skipped by their server's listing, or a name taken. */
  readonly skipped: SkippedServerTool[];
  /** Each listed tool's server. */
  readonly owners: Map<ToolDef, ManagedServer>;
}

/** Every server's tools; a name an earlier server has is skipped. */
export function mergeTools(members: readonly ManagedServer[]): MergedTools {
  const tools: ToolDef[] = [];
  const skipped: SkippedServerTool[] = [];
  const names = new Map<string, string>();
  const owners = new Map<ToolDef, ManagedServer>();
  for (const server of members) {
    const name = server.spec.name;
    for (const entry of server.skipped?.skipped ?? []) {
      skipped.push({ server: name, name: entry.name, error: entry.error });
    }
    for (const tool of server.tools) {
      const owner = names.get(tool.name);
      if (owner !== undefined) {
        skipped.push({
          server: name,
          name: tool.name.slice(server.spec.prefix.length),
          error: new ToolNameTakenError(tool.name, owner),
        });
        continue;
      }
      names.set(tool.name, name);
      owners.set(tool, server);
      tools.push(tool);
    }
  }
  return { tools, skipped, owners };
}

/** The name collisions seen so far: only new ones are news. */
export class CollisionLog {
  /** As `<server>\0<name>`. */
  #seen = new Set<string>();

  /**
   * The collisions of `skipped` not seen at the last look; the ones seen
   * now replace those (a collision that went and came back is news again).
   */
  fresh(skipped: readonly SkippedServerTool[]): SkippedServerTool[] {
    const collisions = new Set<string>();
    const fresh: SkippedServerTool[] = [];
    for (const entry of skipped) {
      if (!(entry.error instanceof ToolNameTakenError)) continue;
      const key = `${entry.server}\0${entry.name}`;
      collisions.add(key);
      if (!this.#seen.has(key)) fresh.push(entry);
    }
    this.#seen = collisions;
    return fresh;
  }
}
