/**
 * Serving skills over MCP (the skills extension, `io.modelcontextprotocol/skills`):
 * `skills/list`, `skills/get`, `resources/directory/read`, and the files
 * through `resources/read` — a `skill://{+path}` template registered into
 * the server's one resource registry (`exportResources`).
 *
 * @module
 */

import { z } from "zod";
import type { ToolServer as Server } from "../bridge/peers.ts";
import { exportResources } from "../bridge/resources.ts";
import { resourceTemplate } from "../bridge/resource_def.ts";
import { isModernRequest } from "../bridge/task_hook.ts";
import { SKILLS_EXTENSION } from "./manifest.ts";
import {
  loadSkills,
  type LoadSkillsOptions,
  type SkillCatalog,
  type SkillSource,
} from "./catalog.ts";

/**
 * Options of {@linkcode serveSkills}.
 *
 * @example
 * ```ts
 * import type { ServeSkillsOptions } from "@weft/mcp/skills";
 * const options: ServeSkillsOptions = {
 *   pageSize: 20,
 *   cacheHint: { ttlMs: 60_000, cacheScope: "public" },
 * };
 * ```
 */
export interface ServeSkillsOptions extends LoadSkillsOptions {
  /** Entries per `skills/list` and `resources/directory/read` page (default 100, at most 1000). */
  readonly pageSize?: number;
  /**
   * `ttlMs` and `cacheScope` of `skills/list`, `skills/get` and directory
   * reads to 2026-07-28 clients (default `0` / `"private"`).
   */
  readonly cacheHint?: {
    readonly ttlMs: number;
    readonly cacheScope: "public" | "private";
  };
  /** Answer `resources/directory/read` (declared as `directoryRead: true`; default `true`). */
  readonly directoryRead?: boolean;
}

const served = new WeakSet<object>();

class SkillsProtocolError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "SkillsProtocolError";
    this.code = code;
  }
}

const INVALID_PARAMS = -32602;
const CURSOR = "skills:";

function pageOf<T extends { uri: string }>(
  items: readonly T[],
  cursor: unknown,
  size: number,
  method: string,
): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    let after: string | undefined;
    try {
      const text = typeof cursor === "string" ? atob(cursor) : "";
      after = text.startsWith(CURSOR) ? text.slice(CURSOR.length) : undefined;
    } catch {
      after = undefined; // not base64: not a cursor written here
    }
    if (after === undefined) {
      throw new SkillsProtocolError(
        INVALID_PARAMS,
        `invalid cursor for ${method}`,
      );
    }
    start = items.findIndex((item) => item.uri > after);
    if (start === -1) start = items.length;
  }
  const page = items.slice(start, start + size);
  return start + size < items.length
    ? { page, nextCursor: btoa(CURSOR + page[page.length - 1].uri) }
    : { page };
}

/**
 * Serves skills on an MCP server, in both protocol eras: declares the
 * extension under `capabilities.extensions["io.modelcontextprotocol/skills"]`
 * (with `directoryRead: true` unless turned off) and the `resources`
 * capability; answers `skills/list` (paginated, an opaque cursor),
 * `skills/get` (-32602 for a URI that is no skill's `SKILL.md`) and
 * `resources/directory/read` (-32602 for a URI that is no skill folder),
 * with `ttlMs` and `cacheScope` to 2026-07-28 clients; and serves every
 * file through `resources/read` under `skill://…` — a template in the
 * server's resource registry, beside any `exportResources` of its own.
 *
 * `source` is a folder path (needs read access), a map of files
 * (`{ "pdf/SKILL.md": "…" }`), or a catalog `loadSkills` made: load once
 * and serve it on every server a factory makes. Digests are computed from
 * the bytes served; each read re-reads the file and checks it, so a file
 * changed after the load is refused (`-32603 resource "<uri>" could not
 * be read: <uri> changed since the skills were loaded …`) until the
 * catalog's `reload()`. The returned promise resolves to the catalog once
 * the handlers are in place; call it before the server connects (a
 * connected server is refused with a `TypeError`). A source that cannot be
 * loaded rejects with a `SkillLoadError` and registers nothing.
 *
 * @example Serve a map of files and list it
 * ```ts
 * import { Server } from "@weft/mcp";
 * import { serveSkills } from "@weft/mcp/skills";
 *
 * const server = new Server({ name: "playbooks", version: "1.0.0" });
 * const skills = await serveSkills(server, {
 *   "greet/SKILL.md": "---\nname: greet\ndescription: Greets people.\n---\nSay hello.\n",
 * });
 * console.log(skills.entries.map((s) => s.uri));
 * ```
 */
export async function serveSkills(
  server: Server,
  source: SkillSource | SkillCatalog,
  options?: ServeSkillsOptions,
): Promise<SkillCatalog> {
  const caller = "serveSkills";
  const pageSize = options?.pageSize ?? 100;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 1000) {
    throw new RangeError(
      `${caller}: pageSize must be an integer from 1 to 1000, got ${pageSize}`,
    );
  }
  const hint = options?.cacheHint;
  if (
    hint !== undefined &&
    (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0 ||
      (hint.cacheScope !== "public" && hint.cacheScope !== "private"))
  ) {
    throw new TypeError(
      `${caller}: cacheHint must be { ttlMs: a non-negative integer, cacheScope: "public" | "private" }`,
    );
  }
  const catalog = isCatalog(source)
    ? source
    : await loadSkills(source, options);
  register(server, catalog, pageSize, options, caller);
  return catalog;
}

function isCatalog(source: unknown): source is SkillCatalog {
  return typeof source === "object" && source !== null &&
    typeof (source as SkillCatalog).read === "function" &&
    typeof (source as SkillCatalog).reload === "function" &&
    Array.isArray((source as SkillCatalog).entries);
}

type Handler = (request: unknown, extra: unknown) => unknown;

function register(
  server: Server,
  catalog: SkillCatalog,
  pageSize: number,
  options: ServeSkillsOptions | undefined,
  caller: string,
): void {
  const directoryRead = options?.directoryRead ?? true;
  const methods = ["skills/list", "skills/get"];
  if (directoryRead) methods.push("resources/directory/read");
  checkServable(server, methods, caller);
  exportResources(server, [filesOf(catalog)]);
  const hint = options?.cacheHint;
  setHandler(server, "skills/list", (params) => {
    const { page, nextCursor } = pageOf(
      catalog.entries,
      params.cursor,
      pageSize,
      "skills/list",
    );
    return {
      skills: page,
      ...(nextCursor !== undefined && { nextCursor }),
      ...cacheOf(params, hint),
    };
  });
  setHandler(server, "skills/get", (params) => {
    const uri = uriParam(params, "skills/get");
    const skill = catalog.get(uri);
    if (skill === undefined) {
      throw new SkillsProtocolError(
        INVALID_PARAMS,
        `No skill is served at ${uri}`,
      );
    }
    return { skill, ...cacheOf(params, hint) };
  });
  if (directoryRead) {
    setHandler(server, "resources/directory/read", (params) => {
      const uri = uriParam(params, "resources/directory/read");
      const children = catalog.directory(uri);
      if (children === undefined) {
        throw new SkillsProtocolError(
          INVALID_PARAMS,
          `${uri} is not a directory resource`,
        );
      }
      const { page, nextCursor } = pageOf(
        children,
        params.cursor,
        pageSize,
        "resources/directory/read",
      );
      return {
        resources: page,
        ...(nextCursor !== undefined && { nextCursor }),
        ...cacheOf(params, hint),
      };
    });
  }
  (server.registerCapabilities as (c: Record<string, unknown>) => void)({
    extensions: { [SKILLS_EXTENSION]: directoryRead ? { directoryRead } : {} },
  });
  served.add(server);
}

/** Refuses a connected server, a second catalog, and a method already handled. */
function checkServable(
  server: Server,
  methods: readonly string[],
  caller: string,
): void {
  if (server.transport !== undefined) {
    throw new TypeError(
      `${caller}: the server is already connected; serve skills before connect (in the server factory)`,
    );
  }
  if (served.has(server)) {
    throw new TypeError(
      `${caller}: this server already serves skills; serve one catalog per server (put every skill folder under one root)`,
    );
  }
  for (const method of methods) {
    try {
      server.assertCanSetRequestHandler(method);
    } catch (cause) {
      throw new TypeError(
        `${caller}: the server already has a ${method} handler; one skills extension per server`,
        { cause },
      );
    }
  }
}

/** The `skill://{+path}` template serving the catalog's files, and only them. */
function filesOf(catalog: SkillCatalog): ReturnType<typeof resourceTemplate> {
  const files = resourceTemplate({
    uriTemplate: "skill://{+path}",
    name: "skills",
    description: "The files of the skills this server serves.",
    read: async ({ uri }) => {
      const file = await catalog.read(uri);
      if (file === undefined) throw new Error(`no skill file at ${uri}`);
      const text = textOf(file.bytes);
      return [
        text === undefined
          ? { uri, mimeType: file.mimeType, blob: base64Of(file.bytes) }
          : { uri, mimeType: file.mimeType, text },
      ];
    },
  });
  // Only the URIs of served files match: any other skill:// URI is an
  // unknown resource (-32602), as the extension says.
  return Object.freeze({
    ...files,
    match: (uri: string) => catalog.has(uri) ? files.match(uri) : undefined,
  });
}

/** The cache hint of an answer: to 2026-07-28 clients only. */
function cacheOf(
  params: unknown,
  hint: ServeSkillsOptions["cacheHint"],
): Record<string, unknown> {
  return isModernRequest(params)
    ? {
      ttlMs: hint?.ttlMs ?? 0,
      cacheScope: hint?.cacheScope ?? "private",
    }
    : {};
}

/** Answers `method` with `handler`, its params checked to be an object. */
function setHandler(
  server: Server,
  method: string,
  handler: (params: Params) => unknown,
): void {
  (server.setRequestHandler as unknown as (s: unknown, h: Handler) => void)
    .call(
      server,
      z.looseObject({ method: z.literal(method) }),
      (request) => {
        const params = ((request as { params?: unknown }).params ??
          {}) as Params;
        if (typeof params !== "object" || params === null) {
          throw new SkillsProtocolError(
            INVALID_PARAMS,
            `invalid ${method} params: expected an object`,
          );
        }
        return handler(params);
      },
    );
}

type Params = Record<string, unknown>;

function uriParam(params: Params, method: string): string {
  if (typeof params.uri !== "string") {
    throw new SkillsProtocolError(
      INVALID_PARAMS,
      `invalid ${method} params: uri must be a string`,
    );
  }
  return params.uri;
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      bytes,
    );
  } catch {
    return undefined; // not UTF-8: sent as a base64 blob instead
  }
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
