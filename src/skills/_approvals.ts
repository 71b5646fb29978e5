/**
 * Approvals of imported skills, kept in a pin store: each bound to the
 * skill's whole manifest (every file's URI, digest and size) under the
 * server's label and the skill's URI, so any change of the manifest asks
 * again. A parked load records the manifest it asked about, so an
 * approval never covers a manifest that changed while the call waited.
 *
 * @module
 */

import { type ApprovalRequest, ApprovalRequiredError } from "../core/errors.ts";
import type { CallInfo } from "../core/tool.ts";
import {
  acceptPinStore,
  canonicalJson,
  type PinStore,
} from "../bridge/pins.ts";
import type { HeldSkill } from "./_remote.ts";
import type { SkillFileEntry } from "./manifest.ts";

const LOAD_SKILL = "load_skill";

interface Approved {
  readonly server: string;
  readonly uri: string;
  readonly manifest: string;
  readonly resources: readonly SkillFileEntry[];
}

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The digest of a held skill's manifest: server, URI, and every file's URI, digest and size. */
export async function manifestDigest(held: HeldSkill): Promise<string> {
  const resources = held.entry.resources.map(({ uri, digest, size }) => ({
    uri,
    digest,
    size,
  })).sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  return await sha256(
    canonicalJson({ server: held.server, uri: held.entry.uri, resources }),
  );
}

/** The approvals of imported skills in one store. */
export class Approvals {
  readonly #store: PinStore;

  constructor(store: unknown) {
    this.#store = acceptPinStore(store, "importSkills: options.store");
  }

  async #key(held: HeldSkill): Promise<string> {
    return `pin/skills/${await sha256(held.server)}/${await sha256(
      held.entry.uri,
    )}`;
  }

  /** Whether exactly this manifest is approved. */
  async approved(held: HeldSkill): Promise<boolean> {
    const found = await this.#store.get(await this.#key(held));
    return (found?.value as Approved | undefined)?.manifest ===
      await manifestDigest(held);
  }

  /**
   * Returns when this manifest is approved (before, or by this approved
   * call for the manifest it parked on); otherwise records what is asked
   * and throws the `ApprovalRequiredError` that parks the call.
   */
  async require(held: HeldSkill, call: CallInfo | undefined): Promise<void> {
    const manifest = await manifestDigest(held);
    const key = await this.#key(held);
    const found = await this.#store.get(key);
    const before = found?.value as Approved | undefined;
    if (before?.manifest === manifest) return;
    const pendingKey = call === undefined
      ? undefined
      : `pin/skills-pending/${await sha256(
        `${held.server}\n${held.entry.uri}\n${call.callId}`,
      )}`;
    if (call?.approved === true && pendingKey !== undefined) {
      const asked = await this.#store.get(pendingKey);
      if (
        (asked?.value as { manifest?: string } | undefined)?.manifest ===
          manifest
      ) {
        await this.#write(key, found?.version, {
          server: held.server,
          uri: held.entry.uri,
          manifest,
          resources: held.entry.resources,
        });
        return;
      }
    }
    if (pendingKey !== undefined) {
      const asked = await this.#store.get(pendingKey);
      await this.#store.swap(pendingKey, asked?.version, { manifest });
    }
    throw new ApprovalRequiredError(LOAD_SKILL, {
      request: requestOf(held, before, call?.approved === true),
    });
  }

  async #write(
    key: string,
    version: string | undefined,
    value: Approved,
  ): Promise<void> {
    if (await this.#store.swap(key, version, value)) return;
    // Another instance wrote meanwhile: ours is the manifest just approved.
    const now = await this.#store.get(key);
    if (!await this.#store.swap(key, now?.version, value)) {
      throw new Error(
        `skill approvals: could not record the approval of ${value.uri} (server "${value.server}"): the record kept changing; approve again`,
      );
    }
  }
}

function requestOf(
  held: HeldSkill,
  before: Approved | undefined,
  changedWhileWaiting: boolean,
): ApprovalRequest {
  const { server, entry } = held;
  const bytes = entry.resources.reduce((n, r) => n + r.size, 0);
  const what =
    `load skill "${entry.frontmatter.name}" from MCP server "${server}" (${entry.uri}): ${entry.resources.length} files, ${bytes} bytes`;
  const line = (r: SkillFileEntry) => `${r.uri} ${r.digest} ${r.size}`;
  const now = new Set(entry.resources.map(line));
  const old = new Set((before?.resources ?? []).map(line));
  const diff = [
    ...[...old].filter((l) => !now.has(l)).map((l) => `- ${l}`),
    ...[...now].filter((l) => !old.has(l)).map((l) => `+ ${l}`),
  ].join("\n");
  if (changedWhileWaiting) {
    return {
      reason: "skill_changed",
      message:
        `${what}; its files changed while the load waited for approval: approve this manifest`,
      diff,
    };
  }
  return before === undefined
    ? { reason: "skill_new", message: `${what}; approve to load it`, diff }
    : {
      reason: "skill_changed",
      message:
        `${what}; its files changed since it was approved: approve the new manifest`,
      diff,
    };
}
