/**
 * A connected server's resources and prompts, read from weft: the lists
 * (every page, following `nextCursor`, up to a limit), one resource's
 * contents and one prompt's messages, over any client the bridge takes
 * (`connectHttp`'s, `connectStdio`'s, an SDK `Client`).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  GetPromptResultSchema,
  ReadResourceResultSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ResourceContents } from "../core/content.ts";
import type { PromptMessage } from "./prompt_def.ts";
import { linkSignal } from "../core/abort.ts";
import type { ToolClient as Client } from "./peers.ts";

/** A resource as a server lists it (`resources/list`). */
export interface Resource {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** Its URI: what `readResource` takes. */
  readonly uri: string;
  /** Its name. */
  readonly name: string;
  /** A display name, when given. */
  readonly title?: string;
  /** What it holds, when given. */
  readonly description?: string;
  /** Its MIME type, when known. */
  readonly mimeType?: string;
  /** Its size in bytes, when known. */
  readonly size?: number;
}

/** A resource template as a server lists it (`resources/templates/list`): an RFC 6570 URI template. */
export interface ResourceTemplate {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** The URI template (`file:///{path}`). */
  readonly uriTemplate: string;
  /** Its name. */
  readonly name: string;
  /** A display name, when given. */
  readonly title?: string;
  /** What its resources hold, when given. */
  readonly description?: string;
  /** The MIME type of its resources, when they share one. */
  readonly mimeType?: string;
}

/** One argument of a prompt. */
export interface PromptArgument {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** Its name: a key of `getPrompt`'s `arguments`. */
  readonly name: string;
  /** What it is for, when given. */
  readonly description?: string;
  /** Whether the prompt needs it. */
  readonly required?: boolean;
}

/** A prompt as a server lists it (`prompts/list`). */
export interface Prompt {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** Its name: what `getPrompt` takes. */
  readonly name: string;
  /** A display name, when given. */
  readonly title?: string;
  /** What it is for, when given. */
  readonly description?: string;
  /** Its arguments, when it takes any. */
  readonly arguments?: readonly PromptArgument[];
}

/** A resource's contents (`resources/read`). */
export interface ReadResourceResult {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** Text items (`text`) or binary ones (`blob`, base64), as the server sent them. */
  readonly contents: readonly ResourceContents[];
}

/** A prompt with its arguments filled in (`prompts/get`). */
export interface GetPromptResult {
  /** Any other field the server sent (icons, `_meta`, …), as sent. */
  readonly [key: string]: unknown;
  /** What the prompt is for, when the server says. */
  readonly description?: string;
  /** Its messages, in order. */
  readonly messages: readonly PromptMessage[];
}

/** The default of `ListOptions.limit`: at most 1000 items per listing. */
const DEFAULT_LIST_LIMIT = 1000;

/**
 * Options of the list helpers.
 *
 * @example At most 50 resources, within 10 s
 * ```ts
 * import type { ListOptions } from "@weft/mcp/bridge";
 * const options: ListOptions = { limit: 50, signal: AbortSignal.timeout(10_000) };
 * console.log(options.limit);
 * ```
 */
export interface ListOptions {
  /**
   * The most items one listing takes, over every page; a server that lists
   * more is refused with {@link ListLimitError}.
   * @default 1000
   */
  limit?: number;
  /** Ends the listing; it rejects with the signal's reason, unchanged. */
  signal?: AbortSignal;
}

/**
 * A server listed more items than the listing's `limit` allows.
 *
 * @example
 * ```ts
 * import { ListLimitError } from "@weft/mcp/bridge";
 * const err = new ListLimitError("resources/list", 10);
 * console.log(err.message);
 * ```
 */
export class ListLimitError extends Error {
  /** The list method. */
  readonly method: string;
  /** The limit that was reached. */
  readonly limit: number;

  /** The refusal of `method`'s listing at `limit` items. */
  constructor(method: string, limit: number) {
    super(
      `${method}: the server listed more than ${limit} items; pass a higher limit to read more`,
    );
    this.name = "ListLimitError";
    this.method = method;
    this.limit = limit;
  }
}

/**
 * A list result the bridge cannot read: no array under its key, a cursor
 * that is not a string, or a cursor given twice (a server looping).
 */
export class ListResultError extends Error {
  /** The list method. */
  readonly method: string;

  /** The refusal of `method`'s page `page` (from 0) for `reason`. */
  constructor(method: string, page: number, reason: string) {
    super(`${method}: page ${page + 1}: ${reason}`);
    this.name = "ListResultError";
    this.method = method;
  }
}

/**
 * Every resource the server lists, following `nextCursor` page by page.
 *
 * @example Read what a server offers
 * ```ts ignore
 * import { connectHttp } from "@weft/mcp";
 * import { listResources, readResource } from "@weft/mcp/bridge";
 * await using client = await connectHttp("http://127.0.0.1:8000/mcp");
 * for (const resource of await listResources(client)) {
 *   const { contents } = await readResource(client, resource.uri);
 *   console.log(resource.uri, contents.length);
 * }
 * ```
 */
export function listResources(
  client: Client,
  options?: ListOptions,
): Promise<Resource[]> {
  return listAll<Resource>(client, "resources/list", "resources", options);
}

/**
 * Every resource template (RFC 6570 URI template) the server lists.
 *
 * @example
 * ```ts ignore
 * import { listResourceTemplates } from "@weft/mcp/bridge";
 * const templates = await listResourceTemplates(client);
 * console.log(templates.map((t) => t.uriTemplate));
 * ```
 */
export function listResourceTemplates(
  client: Client,
  options?: ListOptions,
): Promise<ResourceTemplate[]> {
  return listAll<ResourceTemplate>(
    client,
    "resources/templates/list",
    "resourceTemplates",
    options,
  );
}

/**
 * Every prompt the server lists.
 *
 * @example
 * ```ts ignore
 * import { listPrompts } from "@weft/mcp/bridge";
 * const prompts = await listPrompts(client);
 * console.log(prompts.map((p) => p.name));
 * ```
 */
export function listPrompts(
  client: Client,
  options?: ListOptions,
): Promise<Prompt[]> {
  return listAll<Prompt>(client, "prompts/list", "prompts", options);
}

/**
 * One resource's contents (`resources/read`): text (`text`) or binary
 * (`blob`, base64) items, as the server sent them, checked by the SDK's
 * result schema.
 *
 * @example
 * ```ts ignore
 * import { readResource } from "@weft/mcp/bridge";
 * const { contents } = await readResource(client, "file:///README.md");
 * ```
 */
export async function readResource(
  client: Client,
  uri: string,
  options?: { signal?: AbortSignal },
): Promise<ReadResourceResult> {
  return await requestUnder(
    client,
    { method: "resources/read", params: { uri } },
    ReadResourceResultSchema,
    options?.signal,
  ) as ReadResourceResult;
}

/**
 * One prompt's messages (`prompts/get`), its arguments filled in.
 *
 * @example
 * ```ts ignore
 * import { getPrompt } from "@weft/mcp/bridge";
 * const { messages } = await getPrompt(client, "review", { code: "x = 1" });
 * ```
 */
export async function getPrompt(
  client: Client,
  name: string,
  options?: { arguments?: Record<string, string>; signal?: AbortSignal },
): Promise<GetPromptResult> {
  const params: Record<string, unknown> = { name };
  if (options?.arguments !== undefined) params.arguments = options.arguments;
  return await requestUnder(
    client,
    { method: "prompts/get", params },
    GetPromptResultSchema,
    options?.signal,
  ) as GetPromptResult;
}

async function listAll<T>(
  client: Client,
  method: string,
  key: string,
  options: ListOptions | undefined,
): Promise<T[]> {
  const limit = options?.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new TypeError(
      `${method}: limit must be a non-negative integer, got ${String(limit)}`,
    );
  }
  const signal = options?.signal;
  const items: T[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0;; page++) {
    signal?.throwIfAborted();
    const request = cursor === undefined
      ? { method }
      : { method, params: { cursor } };
    const result = await requestUnder(
      client,
      request,
      ResultSchema,
      signal,
    ) as Record<string, unknown>;
    const listed = result[key];
    if (!Array.isArray(listed)) {
      throw new ListResultError(
        method,
        page,
        `the result has no "${key}" array`,
      );
    }
    if (items.length + listed.length > limit) {
      throw new ListLimitError(method, limit);
    }
    for (const item of listed) items.push(item as T);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") return items;
    if (typeof next !== "string") {
      throw new ListResultError(method, page, '"nextCursor" is not a string');
    }
    if (cursors.has(next)) {
      throw new ListResultError(
        method,
        page,
        `cursor ${JSON.stringify(next)} was already given in this listing`,
      );
    }
    cursors.add(next);
    cursor = next;
  }
}

// One request under its own child of the caller's signal (the SDK keeps its
// abort listener); an abort rejects with the signal's reason, unchanged.
async function requestUnder(
  client: Client,
  request: { method: string; params?: Record<string, unknown> },
  schema: unknown,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  if (signal === undefined) return await client.request(request, schema);
  const link = linkSignal(signal);
  try {
    return await client.request(request, schema, { signal: link.signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    link.unlink();
  }
}
