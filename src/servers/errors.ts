/**
 * What `connectServers` reports: the servers that failed and the tools that
 * were left out, in one error beside the tools that work.
 *
 * @module
 */

import type { ServerConnectError } from "../runtime/errors.ts";

/** One tool `connectServers` left out, and from which server. */
export interface SkippedServerTool {
  /** The server's name (its config key). */
  readonly server: string;
  /** The tool's name as the server lists it; `""` when the name itself was the problem. */
  readonly name: string;
  /** Why: an `importTools` cause, or a {@link ToolNameTakenError}. */
  readonly error: Error;
}

/**
 * Another server already has a tool under this (prefixed) name: the later
 * server in config order loses it. Reads
 * `name "<prefixed name>" is already server "<other>"'s tool`.
 */
export class ToolNameTakenError extends Error {
  /** The prefixed name the two servers share. */
  readonly tool: string;
  /** The server that keeps the name. */
  readonly owner: string;

  /** Builds the error for the name `tool`, kept by server `owner`. */
  constructor(tool: string, owner: string) {
    super(
      `name ${JSON.stringify(tool)} is already server ${
        JSON.stringify(owner)
      }'s tool`,
    );
    this.name = "ToolNameTakenError";
    this.tool = tool;
    this.owner = owner;
  }
}

/**
 * A server kept failing: it was reconnected `attempts` times in a row
 * without a call getting through, and is no longer retried. Reads
 * `gave up after <n> reconnect attempt(s): <last cause>`.
 */
export class ReconnectLimitError extends Error {
  /** How many attempts were made. */
  readonly attempts: number;

  /** Builds the error from the attempt count and the last failure. */
  constructor(attempts: number, cause: unknown) {
    super(
      `gave up after ${attempts} reconnect attempt(s): ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "ReconnectLimitError";
    this.attempts = attempts;
  }
}

/**
 * The servers that failed and the tools that were skipped, in one report
 * beside the tools that work (the `ImportError` shape: it travels with the
 * result, never instead of it). `.failures` holds one `ServerConnectError`
 * per failed server (its `server`, `target`, `phase` and `cause`),
 * `.skipped` each skipped tool, `.errors` both, failures first.
 *
 * The message lists every failure, then every skipped tool:
 * `mcp: 1 server(s) failed, 1 tool(s) not imported: server "ghost" (no-such-server): spawn failed: command not found: no-such-server; server "files", tool "x": …`.
 *
 * @example Using `ServersError`
 * ```ts
 * import assert from "node:assert/strict";
 * import { CommandNotFoundError, ServerConnectError } from "@weft/mcp/runtime";
 * import { ServersError } from "@weft/mcp/servers";
 * const failed = new ServerConnectError("ghost", "no-such-server", "spawn", new CommandNotFoundError("no-such-server"));
 * const error = new ServersError([failed], []);
 * assert.equal(
 *   error.message,
 *   'mcp: 1 server(s) failed: server "ghost" (no-such-server): spawn failed: command not found: no-such-server',
 * );
 * assert.equal(error.failures[0].phase, "spawn");
 * ```
 */
export class ServersError extends AggregateError {
  /** One error per server that failed, in config order. */
  readonly failures: readonly ServerConnectError[];
  /** The tools left out, in config order, then listing order. */
  readonly skipped: readonly SkippedServerTool[];

  /** Builds the report (at least one failure or skipped tool). */
  constructor(
    failures: readonly ServerConnectError[],
    skipped: readonly SkippedServerTool[],
  ) {
    super(
      [...failures, ...skipped.map((s) => s.error)],
      renderServersError(failures, skipped),
    );
    this.name = "ServersError";
    this.failures = failures.slice();
    this.skipped = skipped.slice();
  }
}

function renderServersError(
  failures: readonly ServerConnectError[],
  skipped: readonly SkippedServerTool[],
): string {
  const counts: string[] = [];
  if (failures.length > 0) counts.push(`${failures.length} server(s) failed`);
  if (skipped.length > 0) counts.push(`${skipped.length} tool(s) not imported`);
  const parts = [
    ...failures.map((f) => f.message),
    ...skipped.map((s) =>
      `server ${JSON.stringify(s.server)}, ${
        s.name === "" ? "an entry" : `tool ${JSON.stringify(s.name)}`
      }: ${s.error.message}`
    ),
  ];
  return `mcp: ${counts.join(", ")}: ${parts.join("; ")}`;
}

/**
 * A local server needed a permission its `mcpServers` entry does not grant
 * (Deno's `NotCapable`, Node's `ERR_ACCESS_DENIED`, read from what it wrote)
 * and the call failed. Reads
 * `server "files" was denied read access to "/etc/passwd": its permissions do not grant it (permissions.read in its mcpServers entry)`.
 *
 * @example
 * ```ts
 * import { ServerPermissionError } from "@weft/mcp/servers";
 * const error = new ServerPermissionError("files", "read", "/etc/passwd");
 * console.log(error.permission, error.message);
 * ```
 */
export class ServerPermissionError extends Error {
  /** The server's name. */
  readonly server: string;
  /** The permission: `read`, `write`, `net`, `env`, `run` (or another of Deno's: `sys`, `ffi`). */
  readonly permission: string;
  /** What it tried to reach; `""` when the server did not say. */
  readonly target: string;

  /** Builds the error for `server`, denied `permission` on `target`. */
  constructor(
    server: string,
    permission: string,
    target: string,
    options?: ErrorOptions,
  ) {
    super(
      `server ${JSON.stringify(server)} was denied ${permission} access${
        target === "" ? "" : ` to ${JSON.stringify(target)}`
      }: its permissions do not grant it (permissions.${permission} in its mcpServers entry)`,
      options,
    );
    this.name = "ServerPermissionError";
    this.server = server;
    this.permission = permission;
    this.target = target;
  }
}

/**
 * An HTTP server with `allowedHosts` was about to reach a host outside them
 * (a redirect, an OAuth metadata or token URL), or an allowed host over
 * plain http its entry does not allow: nothing was sent there.
 * Reads
 * `server "docs": refused to reach host "evil.example" (redirected from https://docs.example/mcp): it is not the server's host nor in its allowedHosts`.
 *
 * @example
 * ```ts
 * import { EgressRefusedError } from "@weft/mcp/servers";
 * const error = new EgressRefusedError("docs", new URL("https://evil.example/x"));
 * console.log(error.host, error.message);
 * ```
 */
export class EgressRefusedError extends Error {
  /** The server's name. */
  readonly server: string;
  /** The host refused (`hostname:port` when a port is given). */
  readonly host: string;
  /** The URL refused. */
  readonly url: string;
  /** The URL that redirected there, when a redirect did. */
  readonly redirectedFrom?: string;

  /** Builds the error for `server`, refused `url` (redirected from `from`). */
  constructor(server: string, url: URL, from?: URL, options?: ErrorOptions) {
    super(
      `server ${JSON.stringify(server)}: refused to reach host ${
        JSON.stringify(url.host)
      }${
        from === undefined ? "" : ` (redirected from ${from.href})`
      }: it is not the server's host nor in its allowedHosts${
        url.protocol === "http:"
          ? ` (over plain http only when its entry is written "http://${url.host}")`
          : ""
      }`,
      options,
    );
    this.name = "EgressRefusedError";
    this.server = server;
    this.host = url.host;
    this.url = url.href;
    if (from !== undefined) this.redirectedFrom = from.href;
  }
}

/**
 * A listing after the start found tools of a pinned server held for
 * approval (`connectServers`' `pins`): a definition changed since it was
 * pinned, or a tool the pins do not hold. Goes to `onError` once per tool
 * and change; the calls of those tools park for approval. Reads
 * `server "notes": tool definitions changed since they were pinned: read_note; new: export_all (their calls wait for approval)`.
 *
 * @example
 * ```ts
 * import { PinDriftError } from "@weft/mcp/servers";
 * const error = new PinDriftError("notes", ["read_note"], []);
 * console.log(error.changed, error.message);
 * ```
 */
export class PinDriftError extends Error {
  /** The server's name. */
  readonly server: string;
  /** Tools whose definition changed (the server's names). */
  readonly changed: readonly string[];
  /** Tools the pins do not hold. */
  readonly added: readonly string[];

  /** Builds the report for `server`. */
  constructor(
    server: string,
    changed: readonly string[],
    added: readonly string[],
  ) {
    const parts = [
      ...(changed.length > 0
        ? [
          `tool definitions changed since they were pinned: ${
            changed.join(", ")
          }`,
        ]
        : []),
      ...(added.length > 0 ? [`new: ${added.join(", ")}`] : []),
    ];
    super(
      `server ${JSON.stringify(server)}: ${
        parts.join("; ")
      } (their calls wait for approval)`,
    );
    this.name = "PinDriftError";
    this.server = server;
    this.changed = changed;
    this.added = added;
  }
}
