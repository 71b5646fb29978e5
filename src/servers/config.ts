/**
 * The `mcpServers` configuration every MCP host reads (Claude Desktop,
 * Cursor, VS Code, Windsurf), checked field by field.
 *
 * @module
 */

import type { ImportPolicy } from "../bridge/import.ts";
import type { ResultRendering } from "../bridge/render.ts";

/** Fields every server entry may carry beside its connection. */
export interface ServerEntryOptions {
  /**
   * Prepended to each of the server's tool names. Default `<name>_` (the
   * config key and an underscore); `""` for none.
   */
  prefix?: string;
  /**
   * Tool options for every tool of this server (`importTools`' `policy`):
   * `{ requireApproval: true }` gates them all, `{ requireApproval: ["delete_file"] }`
   * the ones named (the server's names, or the prefixed ones), a function
   * the ones it picks by the server's name.
   */
  policy?: ImportPolicy;
  /**
   * What the model reads of a result with structured content (`importTools`'
   * `render`): `"structured"`, `"text"` or `"both"`. Default: the
   * `connectServers` option, else `"structured"`.
   */
  render?: ResultRendering;
  /** A host's switch (Cline, Roo): a disabled server is not started. */
  disabled?: boolean;
  /** Milliseconds the server has to answer `initialize`. Default: the `connectServers` option, else 30000. */
  initializeTimeout?: number;
  /**
   * The protocol era: `"auto"` (the default) finds it out, `"modern"`
   * (2026-07-28) or `"legacy"` (the `initialize` handshake) pins it (see
   * `connectHttp`'s and `connectStdio`'s `protocol`). Ignored for `type: "sse"`.
   */
  protocol?: "auto" | "modern" | "legacy";
  /**
   * MCP Apps for this server (see `importTools`' `apps`): the client
   * declares the extension, tools carry their views, app-only tools are
   * kept from the model. Default: the `connectServers` option, else false.
   */
  apps?: boolean;
}

/**
 * What a local server may touch (a stdio entry's `permissions`): each
 * permission `true` (all of it), or a list (those paths, hosts, variable
 * names or `PREFIX*` patterns, programs); absent, nothing. A `deno run`
 * server gets exactly these as Deno flags in place of `-A`
 * (`--allow-read=/data`, ..., and `--no-prompt`); a `node` server runs
 * under Node's permission model (`read`, `write`, `run`; `net` must be
 * `true`, Node cannot restrict it). Another program is refused: nothing
 * would enforce them.
 *
 * @example A filesystem server that may read one directory and nothing else
 * ```ts
 * import type { ServerPermissions } from "@weft/mcp/servers";
 * const permissions: ServerPermissions = { read: ["/srv/docs"], env: ["OTEL_*"] };
 * console.log(Object.keys(permissions));
 * ```
 */
export interface ServerPermissions {
  /** Paths it may read (`--allow-read`). */
  readonly read?: true | readonly string[];
  /** Paths it may write (`--allow-write`). */
  readonly write?: true | readonly string[];
  /** Hosts (`host` or `host:port`) it may reach (`--allow-net`). */
  readonly net?: true | readonly string[];
  /** Variables it may read, names or `PREFIX*` (`--allow-env`); the names the entry sets in `env` are added. */
  readonly env?: true | readonly string[];
  /** Programs it may run (`--allow-run`). */
  readonly run?: true | readonly string[];
}

/** A server process speaking MCP on its stdin and stdout. */
export interface StdioServerConfig extends ServerEntryOptions {
  /** `"stdio"`, or absent. */
  type?: "stdio";
  /** The program: `npx`, `uvx`, `deno`, a path. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Variables set for it, on top of the few inherited ones (`DEFAULT_INHERITED_ENV`, and `OTEL_*` when this process runs with `OTEL_DENO=true`: see `connectStdio`'s `envPassthrough`). */
  env?: Record<string, string>;
  /** Its working directory; ours when absent. */
  cwd?: string;
  /**
   * What it may touch (see {@link ServerPermissions}): a `deno run` server
   * runs with exactly these instead of `-A`. Absent: it runs as its
   * command line says.
   */
  permissions?: ServerPermissions;
  /**
   * The variables of this process it inherits: names, or prefixes ending
   * in `*` (`["HOME", "PATH", "OTEL_*"]`), instead of the default few
   * (`DEFAULT_INHERITED_ENV`, and `OTEL_*` under `OTEL_DENO=true`). `[]`:
   * only what `env` sets.
   */
  inheritEnv?: string[];
}

/** A Streamable HTTP endpoint (or a legacy HTTP+SSE one, `type: "sse"`). */
export interface HttpServerConfig extends ServerEntryOptions {
  /** `"http"` or `"streamable-http"` (the same), `"sse"` for the legacy transport; absent means `"http"`. */
  type?: "http" | "streamable-http" | "sse";
  /** The endpoint. */
  url: string;
  /** Headers sent with every request (an `Authorization` header, say). */
  headers?: Record<string, string>;
  /**
   * `"oauth"`: the server requires OAuth; `connectServers`' `auth` option
   * names the client (`oauthClient`) for it.
   */
  auth?: "oauth";
  /**
   * The hosts its connection may reach beyond its own URL's origin (OAuth
   * authorization servers, a CDN it redirects to): `host:port`, a bare
   * hostname (any port), or `*.example.com`, reached over https only;
   * written `http://host[:port]`, that host over plain http too. Given,
   * every request — the
   * endpoint, redirects (followed hop by hop), OAuth discovery, metadata and
   * token URLs — to any other host is refused with an `EgressRefusedError`
   * naming it, and a redirect that leaves the origin drops `Authorization`,
   * cookies and this entry's `headers`. Absent: no restriction.
   */
  allowedHosts?: string[];
}

/** One entry of `mcpServers`. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * The `mcpServers` object (server name → entry), or a whole document
 * holding it under `mcpServers` (or VS Code's `servers`).
 */
export type ServersConfig =
  | Readonly<Record<string, ServerConfig>>
  | { readonly mcpServers: Readonly<Record<string, ServerConfig>> }
  | { readonly servers: Readonly<Record<string, ServerConfig>> };

/** One checked entry, in config order. */
export type ServerSpec =
  & { readonly name: string; readonly prefix: string }
  & (
    | {
      readonly kind: "stdio";
      readonly config: StdioServerConfig;
    }
    | {
      readonly kind: "http" | "sse";
      readonly config: HttpServerConfig;
    }
  );

/**
 * A configuration `connectServers` refuses, before starting anything. The
 * message names the server and the field:
 * `mcpServers "files": "args" must be an array of strings`.
 *
 * @example Using `ServerConfigError`
 * ```ts
 * import assert from "node:assert/strict";
 * import { ServerConfigError } from "@weft/mcp/servers";
 * const error = new ServerConfigError("files", "args", "must be an array of strings");
 * assert.equal(error.message, 'mcpServers "files": "args" must be an array of strings');
 * ```
 */
export class ServerConfigError extends Error {
  /** The server's name; `""` when the document itself is wrong. */
  readonly server: string;
  /** The field; `""` for the entry as a whole. */
  readonly field: string;

  /** Builds the error for `server`'s `field`. */
  constructor(server: string, field: string, problem: string) {
    super(
      server === ""
        ? `mcpServers: ${problem}`
        : `mcpServers ${JSON.stringify(server)}: ${
          field === "" ? "" : `${JSON.stringify(field)} `
        }${problem}`,
    );
    this.name = "ServerConfigError";
    this.server = server;
    this.field = field;
  }
}

const STDIO_FIELDS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "prefix",
  "policy",
  "disabled",
  "initializeTimeout",
  "render",
  "protocol",
  "apps",
  "permissions",
  "inheritEnv",
  // Host-specific fields other hosts ignore, accepted and not used.
  "envFile",
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "description",
]);
const HTTP_FIELDS = new Set([
  "type",
  "url",
  "headers",
  "auth",
  "allowedHosts",
  "prefix",
  "policy",
  "disabled",
  "initializeTimeout",
  "render",
  "protocol",
  "apps",
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "description",
]);

/**
 * Checks a configuration and returns its enabled servers in order. Throws a
 * {@link ServerConfigError} naming the first server and field that is
 * wrong: a missing or empty `command` or `url`, a `type` other than
 * `stdio`, `http`, `streamable-http` or `sse`, `args` that are not strings,
 * an `env` or `headers` value that is not a string, a `url` that is not
 * http(s), a `policy.requireApproval` that is not `true`, `false`, a list of
 * names or a function, a `render` other than `"structured"`, `"text"` or
 * `"both"`, an unknown field (a typo such as `"arg"` would otherwise be
 * ignored silently).
 *
 * @example Using `parseServersConfig`
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseServersConfig } from "@weft/mcp/servers";
 * const specs = parseServersConfig({
 *   mcpServers: {
 *     memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
 *     docs: { type: "http", url: "https://example.com/mcp", prefix: "" },
 *   },
 * });
 * assert.deepEqual(specs.map((s) => [s.name, s.kind, s.prefix]), [
 *   ["memory", "stdio", "memory_"],
 *   ["docs", "http", ""],
 * ]);
 * ```
 */
export function parseServersConfig(config: unknown): ServerSpec[] {
  const servers = serversOf(config);
  const specs: ServerSpec[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (name === "") {
      throw new ServerConfigError("", "", "a server name must not be empty");
    }
    if (!isRecord(entry)) {
      throw new ServerConfigError(name, "", "must be an object");
    }
    const spec = checkEntry(name, entry);
    if (entry.disabled !== true) specs.push(spec);
  }
  return specs;
}

function serversOf(config: unknown): Record<string, unknown> {
  if (!isRecord(config)) {
    throw new ServerConfigError(
      "",
      "",
      "the configuration must be an object (the mcpServers object, or a document holding it)",
    );
  }
  for (const key of ["mcpServers", "servers"]) {
    const inner = config[key];
    if (inner !== undefined && !looksLikeEntry(inner)) {
      if (!isRecord(inner)) {
        throw new ServerConfigError("", "", `"${key}" must be an object`);
      }
      return inner;
    }
  }
  return config;
}

// A server named "servers" is still a server: it has a command or a url.
function looksLikeEntry(value: unknown): boolean {
  return isRecord(value) && ("command" in value || "url" in value);
}

// One entry, checked field by field in a fixed order (the first wrong
// field is the one named): its kind and fields, what every server has,
// then what its kind has.
function checkEntry(name: string, entry: Record<string, unknown>): ServerSpec {
  const type = entry.type;
  const stdio = checkKind(name, entry);
  const prefix = checkCommon(name, entry);
  if (stdio) {
    checkStdio(name, entry);
    return {
      name,
      prefix,
      kind: "stdio",
      config: entry as unknown as StdioServerConfig,
    };
  }
  checkHttp(name, entry);
  return {
    name,
    prefix,
    kind: type === "sse" ? "sse" : "http",
    config: entry as unknown as HttpServerConfig,
  };
}

// The entry's `type`, and whether it is a stdio server: a known type, a
// `command` or a `url` for it, and no field its kind does not have.
function checkKind(name: string, entry: Record<string, unknown>): boolean {
  const type = entry.type;
  if (
    type !== undefined && type !== "stdio" && type !== "http" &&
    type !== "streamable-http" && type !== "sse"
  ) {
    throw new ServerConfigError(
      name,
      "type",
      `must be "stdio", "http", "streamable-http" or "sse", got ${
        JSON.stringify(type)
      }`,
    );
  }
  const stdio = type === "stdio" || (type === undefined && "command" in entry);
  if (!stdio && !("url" in entry)) {
    throw new ServerConfigError(
      name,
      "",
      type === undefined
        ? 'needs "command" (a server process) or "url" (an HTTP endpoint)'
        : `of type ${JSON.stringify(type)} needs "url"`,
    );
  }
  const allowed = stdio ? STDIO_FIELDS : HTTP_FIELDS;
  for (const key of Object.keys(entry)) {
    if (!allowed.has(key)) {
      throw new ServerConfigError(
        name,
        key,
        `is not a field of ${stdio ? "a stdio" : "an HTTP"} server (${
          [...allowed].slice(0, stdio ? 10 : 8).join(", ")
        })`,
      );
    }
  }
  return stdio;
}

// The fields every server has; resolves to its prefix.
function checkCommon(name: string, entry: Record<string, unknown>): string {
  const prefix = entry.prefix === undefined ? `${name}_` : entry.prefix;
  if (typeof prefix !== "string") {
    throw new ServerConfigError(name, "prefix", "must be a string");
  }
  if (entry.policy !== undefined && !isRecord(entry.policy)) {
    throw new ServerConfigError(name, "policy", "must be an object");
  }
  const rule = isRecord(entry.policy)
    ? entry.policy.requireApproval
    : undefined;
  if (
    rule !== undefined && typeof rule !== "boolean" &&
    typeof rule !== "function" &&
    !(Array.isArray(rule) && rule.every((n) => typeof n === "string"))
  ) {
    throw new ServerConfigError(
      name,
      "policy.requireApproval",
      `must be true, false, an array of tool names or a function, got ${
        JSON.stringify(rule)
      }`,
    );
  }
  const render = entry.render;
  if (
    render !== undefined && render !== "structured" && render !== "text" &&
    render !== "both"
  ) {
    throw new ServerConfigError(
      name,
      "render",
      `must be "structured", "text" or "both", got ${JSON.stringify(render)}`,
    );
  }
  if (entry.disabled !== undefined && typeof entry.disabled !== "boolean") {
    throw new ServerConfigError(name, "disabled", "must be a boolean");
  }
  const limit = entry.initializeTimeout;
  if (
    limit !== undefined &&
    (typeof limit !== "number" || !Number.isFinite(limit) || limit <= 0)
  ) {
    throw new ServerConfigError(
      name,
      "initializeTimeout",
      "must be a positive number of milliseconds",
    );
  }
  const protocol = entry.protocol;
  if (
    protocol !== undefined && protocol !== "auto" && protocol !== "modern" &&
    protocol !== "legacy"
  ) {
    throw new ServerConfigError(
      name,
      "protocol",
      `must be "auto", "modern" or "legacy", got ${JSON.stringify(protocol)}`,
    );
  }
  return prefix;
}

// A stdio server's own fields: its command line, environment, directory
// and permissions.
function checkStdio(name: string, entry: Record<string, unknown>): void {
  if (typeof entry.command !== "string" || entry.command.trim() === "") {
    throw new ServerConfigError(
      name,
      "command",
      "must be a non-empty string",
    );
  }
  if (
    entry.args !== undefined &&
    (!Array.isArray(entry.args) ||
      !entry.args.every((a) => typeof a === "string"))
  ) {
    throw new ServerConfigError(name, "args", "must be an array of strings");
  }
  checkStrings(name, "env", entry.env);
  if (entry.cwd !== undefined && typeof entry.cwd !== "string") {
    throw new ServerConfigError(name, "cwd", "must be a string");
  }
  checkPermissions(name, entry.permissions);
  if (
    entry.inheritEnv !== undefined &&
    !(Array.isArray(entry.inheritEnv) &&
      entry.inheritEnv.every(isVariablePattern))
  ) {
    throw new ServerConfigError(
      name,
      "inheritEnv",
      'must be an array of variable names or prefixes ending in "*" (e.g. ["HOME", "OTEL_*"])',
    );
  }
}

// An HTTP server's own fields: its URL, headers, hosts and auth.
function checkHttp(name: string, entry: Record<string, unknown>): void {
  const url = entry.url;
  if (
    typeof url !== "string" || !/^https?:\/\//i.test(url) || !URL.canParse(url)
  ) {
    throw new ServerConfigError(
      name,
      "url",
      `must be an http:// or https:// URL, got ${JSON.stringify(url)}`,
    );
  }
  checkStrings(name, "headers", entry.headers);
  const hosts = entry.allowedHosts;
  if (
    hosts !== undefined &&
    !(Array.isArray(hosts) &&
      hosts.every((h) =>
        typeof h === "string" && /^(https?:\/\/)?[^\/\s@?#]+$/i.test(h)
      ))
  ) {
    throw new ServerConfigError(
      name,
      "allowedHosts",
      'must be an array of hosts, reached over https ("auth.example.com", "127.0.0.1:8443", "*.example.com"), or with "http://" before one that may also be reached over plain http ("http://127.0.0.1:8080")',
    );
  }
  if (entry.auth !== undefined && entry.auth !== "oauth") {
    throw new ServerConfigError(
      name,
      "auth",
      `must be "oauth", got ${JSON.stringify(entry.auth)}`,
    );
  }
}

const PERMISSION_KEYS = ["read", "write", "net", "env", "run"];

function checkPermissions(name: string, value: unknown): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    throw new ServerConfigError(name, "permissions", "must be an object");
  }
  for (const [key, grant] of Object.entries(value)) {
    if (!PERMISSION_KEYS.includes(key)) {
      throw new ServerConfigError(
        name,
        `permissions.${key}`,
        `is not a permission (${PERMISSION_KEYS.join(", ")})`,
      );
    }
    const ok = grant === true ||
      (Array.isArray(grant) &&
        grant.every((g) =>
          typeof g === "string" && g !== "" && !g.includes(",")
        ));
    if (!ok) {
      throw new ServerConfigError(
        name,
        `permissions.${key}`,
        `must be true or an array of non-empty strings without commas, got ${
          JSON.stringify(grant)
        }`,
      );
    }
    if (key === "env" && Array.isArray(grant)) {
      if (!grant.every(isVariablePattern)) {
        throw new ServerConfigError(
          name,
          "permissions.env",
          'must name variables, or prefixes ending in "*"',
        );
      }
    }
  }
}

function isVariablePattern(value: unknown): boolean {
  return typeof value === "string" && value !== "" && !value.includes("=") &&
    !value.slice(0, -1).includes("*");
}

function checkStrings(name: string, field: string, value: unknown): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    throw new ServerConfigError(name, field, "must be an object of strings");
  }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") {
      throw new ServerConfigError(
        name,
        field,
        `value ${JSON.stringify(key)} must be a string, got ${typeof item}`,
      );
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A server's permissions as `weft-mcp inspect` prints them, every
 * permission named: `read=/srv/docs write=none net=none env=OTEL_* run=none`
 * (`all` for `true`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describePermissions } from "@weft/mcp/servers";
 * assert.equal(
 *   describePermissions({ read: ["/srv/docs"], net: true }),
 *   "read=/srv/docs write=none net=all env=none run=none",
 * );
 * ```
 */
export function describePermissions(permissions: ServerPermissions): string {
  return PERMISSION_KEYS.map((name) => {
    const grant = permissions[name as keyof ServerPermissions];
    const text = grant === true
      ? "all"
      : grant === undefined || grant.length === 0
      ? "none"
      : grant.join(",");
    return `${name}=${text}`;
  }).join(" ");
}
