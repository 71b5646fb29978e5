/**
 * Pinned tool definitions: what a server's tools looked like when they were
 * first trusted, kept in a store, so a definition that changes later (a
 * "rug pull" through `notifications/tools/list_changed`, a new release) waits
 * for a person's approval instead of reaching the model and its calls.
 *
 * @module
 */

import { type ApprovalRequest, ApprovalRequiredError } from "../core/errors.ts";
import type { InvokeOptions, ToolArguments } from "../core/tool.ts";
import { definitionDiff, PINNED_FIELDS } from "./_pin_diff.ts";
import { acceptStore, hasMethods } from "../store/accept.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";

/**
 * Where pins are kept: any store of `@weft/mcp/store` (`memoryStore`,
 * `denoKvStore`, `redisStore`, `postgresStore`) fits, and a raw `Deno.Kv`
 * is taken as `denoKvStore(kv)`; pins live under the `pin/` namespace, one
 * record per server. Another object with these two methods still works
 * but is deprecated: pass a contract store.
 *
 * @deprecated As an option's type, pass a contract store from
 * `@weft/mcp/store` (or a `Deno.Kv`); this shape becomes internal in a
 * later release.
 */
export interface PinStore {
  /** The value at `key` with its version, or `undefined`. */
  get(
    key: string,
  ): Promise<{ readonly value: unknown; readonly version: string } | undefined>;
  /** Writes `value` at `key` only when it is still at `version` (`undefined`: absent). */
  swap(
    key: string,
    version: string | undefined,
    value: unknown,
  ): Promise<boolean>;
}

/**
 * Pinning for one server's tools (`importTools`' `pins`).
 *
 * Each listed tool's definition — its name, title, description, input and
 * output schemas and annotations — is reduced to a digest (SHA-256 of its
 * JSON with keys sorted) and compared with the pin kept for `server`:
 *
 * - **First contact** (no pins for `server` yet): `onNewServer: "trust"`
 *   (the default, trust on first use) pins every tool as listed;
 *   `"approve"` pins nothing, and each tool waits for approval (reason
 *   `"server_new"`).
 * - **Same digest**: the tool works as usual.
 * - **Changed digest** (reason `"tool_changed"`): the model keeps seeing
 *   the pinned definition, and a call to the tool waits for approval like a
 *   `requireApproval` tool, its `PendingCall.approval` carrying the reason,
 *   a diff of the old and new definitions and the new one's digest.
 *   `approve(pending)` pins the definition shown (its digest) and runs the
 *   call — if the server lists another one by then, the call parks again
 *   with the new diff; `deny` keeps the old pin (the next call waits again).
 * - **A tool not pinned on a pinned server** (reason `"tool_added"`): waits
 *   for approval the same way. A renamed tool is a removed one and a new one.
 *
 * @example Pins for a server reached by hand
 * ```ts
 * import { Client, exportTools, importTools, InMemoryTransport, rawTool, Server } from "@weft/mcp";
 * import { memoryStore } from "@weft/mcp/store";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "notes", version: "1.0.0" });
 * exportTools(server, rawTool({ name: "read", description: "Reads a note.", run: () => "hi" }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * await using store = memoryStore();
 * const { pins } = await importTools(client, { pins: { store, server: "notes" } });
 * assert.equal(pins?.firstContact, true);
 * const again = await importTools(client, { pins: { store, server: "notes" } });
 * assert.deepEqual(again.pins?.changed, []);
 * await client.close();
 * ```
 */
export interface ToolPins {
  /** Where the pins are kept: a store of `@weft/mcp/store`, or a `Deno.Kv` (taken as `denoKvStore(kv)`). */
  readonly store: PinStore | DenoKvLike;
  /**
   * The server's identity: its pins are kept under it (`connectServers`
   * uses the config key with the URL, or with the command and arguments).
   */
  readonly server: string;
  /**
   * First contact: `"trust"` (the default) pins the tools as first listed;
   * `"approve"` makes each wait for approval.
   * @default "trust"
   */
  readonly onNewServer?: "trust" | "approve";
  /** Called after an approved call pinned a tool's new definition, with the server's name for it. */
  readonly onPin?: (tool: string) => void;
}

/**
 * How a listing compared with the pins (`ImportResult.pins`): names are the
 * server's (before the prefix).
 *
 * @example
 * ```ts
 * import type { PinReport } from "@weft/mcp/bridge";
 * const report: PinReport = { firstContact: false, changed: ["read"], added: [], removed: [] };
 * console.log(report.changed.length);
 * ```
 */
export interface PinReport {
  /** No pins existed for the server before this listing. */
  readonly firstContact: boolean;
  /** Tools whose definition differs from the pin: they wait for approval. */
  readonly changed: readonly string[];
  /** Tools listed and not pinned (on a pinned server, or every tool under `onNewServer: "approve"`): they wait for approval. */
  readonly added: readonly string[];
  /** Pinned tools the server no longer lists. */
  readonly removed: readonly string[];
}

/**
 * The SHA-256 (hex) of a tool definition as a server lists it: its name,
 * title, description, input and output schemas and annotations, as JSON
 * with every object's keys sorted (so key order does not matter, and every
 * other change does).
 *
 * @example
 * ```ts
 * import { toolDigest } from "@weft/mcp/bridge";
 * import assert from "node:assert/strict";
 * const a = await toolDigest({ name: "t", inputSchema: { type: "object", properties: {} } });
 * const b = await toolDigest({ inputSchema: { properties: {}, type: "object" }, name: "t" });
 * assert.equal(a, b);
 * assert.notEqual(a, await toolDigest({ name: "t", description: "x", inputSchema: { type: "object" } }));
 * ```
 */
export async function toolDigest(tool: unknown): Promise<string> {
  return await sha256(canonicalJson(definitionOf(tool)));
}

/** The pinned fields of a listed entry, those present only. */
export function definitionOf(tool: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof tool !== "object" || tool === null) return out;
  const entry = tool as Record<string, unknown>;
  for (const field of PINNED_FIELDS) {
    if (entry[field] !== undefined) out[field] = entry[field];
  }
  return out;
}

/** JSON with every object's keys sorted; `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${
      value.map((v) => v === undefined ? "null" : canonicalJson(v)).join(",")
    }]`;
  }
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    const parts: string[] = [];
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined || typeof item === "function") continue;
      parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One pinned tool as stored. */
interface PinnedTool {
  readonly digest: string;
  readonly definition: Record<string, unknown>;
}

/** The record kept per server. */
interface PinRecord {
  readonly server: string;
  readonly tools: Readonly<Record<string, PinnedTool>>;
}

// The store's namespace for pins (STORE_NAMESPACES.pins).
const NAMESPACE = "pin/";

/** How one listed tool stands against the pins. */
export type PinVerdict =
  | { readonly kind: "trusted" }
  | { readonly kind: "changed"; readonly pinned: Record<string, unknown> }
  | { readonly kind: "added" }
  | { readonly kind: "server_new" };

/** One listed tool: its server name, its definition and digest. */
export interface ListedDefinition {
  readonly name: string;
  readonly definition: Record<string, unknown>;
  readonly digest: string;
}

/**
 * The pins of one server for one listing: compares the listing, pins on
 * first contact, and gates the calls of tools that are not pinned as listed.
 */
export class PinGuard {
  readonly #pins: ToolPins & { readonly store: PinStore };
  #key = "";
  #record?: PinRecord;
  #version?: string;

  private constructor(pins: ToolPins & { readonly store: PinStore }) {
    this.#pins = pins;
  }

  /**
   * Reads the pins of `pins.server` and compares `listed` with them; on
   * first contact under `"trust"`, pins every listed tool.
   */
  static async open(
    given: ToolPins,
    listed: readonly ListedDefinition[],
  ): Promise<{ guard: PinGuard; report: PinReport }> {
    checkPins(given);
    const pins = { ...given, store: acceptPinStore(given.store) };
    const guard = new PinGuard(pins);
    guard.#key = `${NAMESPACE}tools/${await sha256(pins.server)}`;
    await guard.#read();
    const firstContact = guard.#record === undefined;
    if (firstContact && (pins.onNewServer ?? "trust") === "trust") {
      const tools: Record<string, PinnedTool> = {};
      for (const tool of listed) {
        tools[tool.name] = { digest: tool.digest, definition: tool.definition };
      }
      const record: PinRecord = { server: pins.server, tools };
      if (await pins.store.swap(guard.#key, undefined, record)) {
        guard.#record = record;
      } else {
        await guard.#read(); // another instance pinned first: compare with its pins
      }
    }
    const changed: string[] = [];
    const added: string[] = [];
    for (const tool of listed) {
      const verdict = guard.verdict(tool);
      if (verdict.kind === "changed") changed.push(tool.name);
      else if (verdict.kind !== "trusted") added.push(tool.name);
    }
    const names = new Set(listed.map((t) => t.name));
    const removed = Object.keys(guard.#record?.tools ?? {}).filter((n) =>
      !names.has(n)
    );
    return { guard, report: { firstContact, changed, added, removed } };
  }

  async #read(): Promise<void> {
    const entry = await this.#pins.store.get(this.#key);
    if (entry === undefined) {
      this.#record = undefined;
      this.#version = undefined;
      return;
    }
    this.#record = recordOf(entry.value, this.#pins.server);
    this.#version = entry.version;
  }

  /** How `tool` stands against the pins as they are now. */
  verdict(tool: ListedDefinition): PinVerdict {
    const record = this.#record;
    if (record === undefined) return { kind: "server_new" };
    const pinned = Object.hasOwn(record.tools, tool.name)
      ? record.tools[tool.name]
      : undefined;
    if (pinned === undefined) return { kind: "added" };
    if (pinned.digest === tool.digest) return { kind: "trusted" };
    return { kind: "changed", pinned: pinned.definition };
  }

  /**
   * Wraps the invoke body of `tool` (imported as `toolName`): a call runs
   * when the tool is pinned as listed; otherwise a call approved for this
   * very definition (`CallInfo.approval.digest`, what the person was
   * shown) pins it first, and any other call — unapproved, approved
   * without the digest, or approved for a definition the server no longer
   * lists — is refused with an `ApprovalRequiredError` carrying the reason,
   * the diff and the digest of the definition listed now (the loop parks
   * it again).
   */
  gate(
    tool: ListedDefinition,
    toolName: string,
    invoke: (args: ToolArguments, options: InvokeOptions) => Promise<string>,
  ): (args: ToolArguments, options: InvokeOptions) => Promise<string> {
    return async (args, options) => {
      const verdict = this.verdict(tool);
      if (verdict.kind !== "trusted") {
        const call = options.call;
        if (call?.approved !== true || call.approval?.digest !== tool.digest) {
          throw new ApprovalRequiredError(toolName, {
            request: requestOf(toolName, tool, verdict),
          });
        }
        await this.pin(tool);
      }
      return await invoke(args, options);
    };
  }

  /** Pins `tool` as listed (compare-and-set, retried against other writers). */
  async pin(tool: ListedDefinition): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const base = this.#record;
      const record: PinRecord = {
        server: this.#pins.server,
        tools: {
          ...(base?.tools ?? {}),
          [tool.name]: { digest: tool.digest, definition: tool.definition },
        },
      };
      if (await this.#pins.store.swap(this.#key, this.#version, record)) {
        await this.#read();
        this.#pins.onPin?.(tool.name);
        return;
      }
      await this.#read();
    }
    throw new Error(
      `pins for ${
        JSON.stringify(this.#pins.server)
      }: could not pin tool ${tool.name} (the record kept changing under concurrent writers); approve the call again`,
    );
  }
}

function requestOf(
  toolName: string,
  tool: ListedDefinition,
  verdict: PinVerdict,
): ApprovalRequest {
  const quoted = JSON.stringify(toolName);
  switch (verdict.kind) {
    case "changed":
      return {
        reason: "tool_changed",
        message:
          `tool ${quoted} changed since it was pinned: approve to pin the new definition and run the call, deny to keep the old`,
        diff: definitionDiff(verdict.pinned, tool.definition),
        digest: tool.digest,
      };
    case "added":
      return {
        reason: "tool_added",
        message:
          `tool ${quoted} is new on a server whose tools were pinned: approve to pin it and run the call`,
        diff: definitionDiff({}, tool.definition),
        digest: tool.digest,
      };
    default:
      return {
        reason: "server_new",
        message:
          `tool ${quoted} belongs to a server met for the first time (onNewServer: "approve"): approve to pin it and run the call`,
        diff: definitionDiff({}, tool.definition),
        digest: tool.digest,
      };
  }
}

function recordOf(value: unknown, server: string): PinRecord {
  const tools: Record<string, PinnedTool> = {};
  const raw = (value as { tools?: unknown } | null)?.tools;
  if (typeof raw === "object" && raw !== null) {
    for (const [name, item] of Object.entries(raw)) {
      const digest = (item as { digest?: unknown } | null)?.digest;
      const definition = (item as { definition?: unknown } | null)?.definition;
      if (
        typeof digest === "string" && typeof definition === "object" &&
        definition !== null
      ) {
        tools[name] = {
          digest,
          definition: definition as Record<string, unknown>,
        };
      }
    }
  }
  return { server, tools };
}

/**
 * `store` as a pin store (see {@link acceptStore}): a contract store, a raw
 * `Deno.Kv` as `denoKvStore(kv)`, or a deprecated `{ get, swap }` object;
 * anything else is a `TypeError` naming `where`.
 */
export function acceptPinStore(
  store: unknown,
  where = "importTools: pins.store",
): PinStore {
  return acceptStore(
    store,
    where,
    (value): value is PinStore => hasMethods(value, "get", "swap"),
  );
}

/** Checks `importTools`' `pins` at the call: a `TypeError` naming what is wrong. */
export function checkPins(pins: ToolPins): void {
  if (typeof pins !== "object" || pins === null) {
    throw new TypeError(
      "importTools: pins must be { store, server } (a store of @weft/mcp/store and the server's name)",
    );
  }
  acceptPinStore(pins.store);
  if (typeof pins.server !== "string" || pins.server === "") {
    throw new TypeError(
      "importTools: pins.server must name the server (a non-empty string its pins are kept under)",
    );
  }
  const rule = pins.onNewServer;
  if (rule !== undefined && rule !== "trust" && rule !== "approve") {
    throw new TypeError(
      `importTools: pins.onNewServer must be "trust" or "approve", got ${
        JSON.stringify(rule)
      }`,
    );
  }
}
