/**
 * The `mcpServers` configuration every MCP host reads (Claude Desktop,
 * Cursor, VS Code, Windsurf), checked field by field.
 *
 * @module
 */

import type { ImportPolicy } from "../bridge/import.ts";
import type { ResultRendering } from "../bridge/render.ts";
import { ServerConfigError } from "./_config_error.ts";
import { checkEntry, isRecord, PERMISSION_KEYS } from "./_entry_check.ts";

export { ServerConfigError } from "./_config_error.ts";

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
