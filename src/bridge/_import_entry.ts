/**
 * One entry of a server's tool listing imported as a weft tool: its name,
 * schemas, annotations and approval rule checked (the first failing check
 * decides why it is skipped), its calls sent to the server (`_remote_call.ts`)
 * or to a body the import made itself (`read_resource`).
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
import { SchemaError } from "../core/errors.ts";
import type { Schema } from "../core/schema.ts";
import { adoptSchema, annotationsOf, build } from "../core/bridge.ts";
import type {
  InvokeOptions,
  ToolAnnotations,
  ToolArguments,
  ToolDef,
} from "../core/tool.ts";
import {
  DuplicateNameError,
  EmptyNameError,
  NonObjectEntryError,
} from "./import_error.ts";
import { remoteInvoke, type RemoteOptions } from "./_remote_call.ts";
import { listedTaskSupport } from "./_remote_task.ts";
import { tagAppTool, toolUi } from "./app_meta.ts";
import type { InvokeBody } from "./_read_resource.ts";
import type { ApprovalRule, ImportPolicy } from "./import_options.ts";

/** A tool as a server lists it, as an {@link ApprovalRule} function sees it. */
type ListedTool = Parameters<
  Extract<ApprovalRule, (...args: never[]) => unknown>
>[1];

/** What every entry of one listing is imported with. */
export interface EntryRules {
  readonly prefix: string;
  readonly policy: ImportPolicy;
  /** Whether the tool the server lists so waits for approval. */
  readonly gated: (serverName: string, tool: ListedTool) => boolean;
  readonly render: RemoteOptions;
  /** Invoke bodies of tools the import made itself (`read_resource`), by server-side name. */
  readonly local?: ReadonlyMap<string, InvokeBody>;
  /** With `apps`: the server name views are labelled with. */
  readonly apps?: string;
  /** Wraps each tool's invoke body (the pin guard). */
  readonly wrap?: (
    invoke: (args: ToolArguments, options: InvokeOptions) => Promise<string>,
  ) => (args: ToolArguments, options: InvokeOptions) => Promise<string>;
}

// The per-entry pipeline: the first failing check decides the cause.
export function importEntry(
  client: Client,
  entry: unknown,
  { prefix, policy, gated, render, wrap, local, apps }: EntryRules,
  imported: ReadonlySet<string>,
): ToolDef | Error {
  if (!isRecord(entry)) return new NonObjectEntryError();
  const serverName = entry.name;
  if (typeof serverName !== "string" || serverName === "") {
    return new EmptyNameError();
  }
  const name = prefix + serverName;
  if (imported.has(name)) return new DuplicateNameError(serverName);
  // The schema as it came off the wire, adopted rather than copied:
  // the entry is the transport's, fresh from its JSON reader (over
  // the in-memory transport, the server's own object, never frozen or
  // written). A string is a JSON string value (a double-encoded schema), not
  // a document to parse: it is refused as "not a JSON object", like every
  // other non-object.
  let inputSchema: Schema;
  try {
    inputSchema = adoptSchema(entry.inputSchema);
  } catch (err) {
    if (err instanceof SchemaError) return err;
    throw err;
  }
  const annotations = withTitle(
    annotationsOf(entry.annotations),
    entry.title,
  );
  const readOnly = annotations?.readOnlyHint === true;
  const description = typeof entry.description === "string"
    ? entry.description
    : "";
  const ui = apps === undefined ? undefined : toolUi(entry);
  const invoke = local?.get(serverName) ??
    remoteInvoke(client, serverName, name, {
      ...render,
      taskSupport: listedTaskSupport(entry),
      ...(ui?.resourceUri === undefined
        ? {}
        : { view: { server: apps!, resourceUri: ui.resourceUri } }),
    });
  // What rawTool builds, minus what a remote call does not use: the
  // handler's context (only the signal and progress matter, and only when
  // given) and the check that the handler resolved a string (renderContent
  // always does), with the promise hop it costs every call.
  const tool = build(
    {
      description,
      origin: policy.origin !== undefined ? policy.origin : "mcp",
      sequential: !readOnly || policy.sequential === true,
      requireApproval: gated(serverName, {
        name: serverName,
        ...(annotations?.title !== undefined
          ? { title: annotations.title }
          : {}),
        description,
        annotations: annotations ?? EMPTY_ANNOTATIONS,
      }),
      strictInput: policy.strictInput,
      timeout: policy.timeout,
      maxResultBytes: policy.maxResultBytes,
      wrap: policy.wrap,
      annotations,
    },
    {
      name,
      inputSchema,
      outputSchema: objectOutputSchema(entry.outputSchema),
    },
    wrap === undefined ? invoke : wrap(invoke),
  );
  if (ui !== undefined) {
    tagAppTool(tool, { server: apps!, tool: serverName, ...ui });
  }
  return tool;
}

// The approval rule as one test of the server's name, checked before any
// listing: a value of another type would otherwise gate nothing, silently.
export function approvalTest(
  rule: unknown,
  prefix: string,
): (serverName: string, tool: ListedTool) => boolean {
  if (rule === undefined || rule === false) return () => false;
  if (rule === true) return () => true;
  if (typeof rule === "function") {
    // Always both arguments: what a rule reads is its own choice, never
    // guessed from how many parameters it declares.
    return (name, tool) =>
      (rule as (name: string, tool: ListedTool) => unknown)(name, tool) ===
        true;
  }
  if (Array.isArray(rule) && rule.every((n) => typeof n === "string")) {
    const names = new Set<string>(rule);
    return (name) => names.has(name) || names.has(prefix + name);
  }
  throw new TypeError(
    `importTools: policy.requireApproval must be true, false, an array of tool names or a function, got ${
      Array.isArray(rule) ? "an array with a non-string" : typeof rule
    }`,
  );
}

/** The annotations a rule sees for a tool the server sent none for. */
const EMPTY_ANNOTATIONS: ToolAnnotations = Object.freeze({});

// The server's annotations, with the tool's top-level `title` as the title:
// MCP's display name, which takes precedence over `annotations.title`.
function withTitle(
  annotations: ToolAnnotations | undefined,
  title: unknown,
): ToolAnnotations | undefined {
  if (typeof title !== "string" || annotations?.title === title) {
    return annotations;
  }
  return Object.freeze({ ...annotations, title });
}

function objectOutputSchema(value: unknown): Schema | undefined {
  if (!isRecord(value)) return undefined;
  try {
    return adoptSchema(value);
  } catch (err) {
    if (err instanceof SchemaError) return undefined;
    throw err;
  }
}

// SkippedTool.name: the server-side name, "" when there is none to give.
export function skippedName(entry: unknown): string {
  return isRecord(entry) && typeof entry.name === "string" ? entry.name : "";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
