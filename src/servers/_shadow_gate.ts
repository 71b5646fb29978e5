/**
 * Shadowing across a set's merged list: the findings (`_shadow.ts`), the
 * new ones after the start reported, and under `"quarantine"` each
 * shadowing tool replaced by its gated version, whose calls wait for
 * approval.
 *
 * @module
 */

import type { ToolDef } from "../core/tool.ts";
import { findShadowing, quarantined, type ShadowFinding } from "./_shadow.ts";
import type { ManagedServer } from "./_server.ts";

/** What one look at the merged list needs. */
export interface ShadeOptions {
  /** Each listed tool's server; a gated tool is added as its own entry. */
  readonly owners: Map<ToolDef, ManagedServer>;
  /** The set's servers, in config order. */
  readonly members: readonly ManagedServer[];
  /** Where new findings go; absent at the first start (they are on the status). */
  readonly report?: (error: Error) => void;
}

/** The set's shadowing findings and its quarantine. */
export class ShadowGate {
  readonly #quarantine: boolean;
  #findings: readonly ShadowFinding[] = [];
  /** The quarantined version of each shadowing tool, kept while it shadows. */
  #gated = new WeakMap<ToolDef, { message: string; tool: ToolDef }>();

  /** `shadowing` as `connectServers` was given it; anything else is a `TypeError`. */
  constructor(option: unknown) {
    const shadowing = option ?? "report";
    if (shadowing !== "report" && shadowing !== "quarantine") {
      throw new TypeError(
        `connectServers: shadowing must be "report" or "quarantine", got ${
          JSON.stringify(shadowing)
        }`,
      );
    }
    this.#quarantine = shadowing === "quarantine";
  }

  /** The findings of the last look. */
  get findings(): readonly ShadowFinding[] {
    return this.#findings;
  }

  /**
   * The findings across `merged`; under `"quarantine"` each shadowing tool
   * replaced by its gated version. New findings go to `report`.
   */
  shade(merged: ToolDef[], options: ShadeOptions): ToolDef[] {
    const { owners, members, report } = options;
    const byServer = new Map<ManagedServer, ToolDef[]>();
    for (const tool of merged) {
      const owner = owners.get(tool)!;
      const list = byServer.get(owner);
      if (list === undefined) byServer.set(owner, [tool]);
      else list.push(tool);
    }
    const findings = findShadowing(members.map((server) => ({
      server: server.spec.name,
      prefix: server.spec.prefix,
      tools: byServer.get(server) ?? [],
    })));
    const before = new Set(this.#findings.map((f) => f.message));
    this.#findings = findings;
    if (report !== undefined) {
      for (const finding of findings) {
        if (!before.has(finding.message)) {
          report(new Error(`shadowing: ${finding.message}`));
        }
      }
    }
    if (!this.#quarantine || findings.length === 0) return merged;
    const byTool = new Map<string, ShadowFinding[]>();
    for (const finding of findings) {
      const list = byTool.get(finding.tool);
      if (list === undefined) byTool.set(finding.tool, [finding]);
      else list.push(finding);
    }
    return merged.map((tool) => {
      const own = byTool.get(tool.name);
      if (own === undefined) return tool;
      const message = own.map((f) => f.message).join("\n");
      let gated = this.#gated.get(tool);
      if (gated === undefined || gated.message !== message) {
        gated = { message, tool: quarantined(tool, own) };
        this.#gated.set(tool, gated);
      }
      owners.set(gated.tool, owners.get(tool)!);
      return gated.tool;
    });
  }
}
