/**
 * `weft-mcp inspect --config <file>` and `weft-mcp call <server>.<tool>
 * --config <file>`: every server of an `mcpServers` file, through
 * `connectServers`.
 *
 * @module
 */

import { errorText } from "../core/errors.ts";
import {
  DEFAULT_MAX_RESULT_BYTES,
  failureText,
  truncateResult,
} from "../core/policy.ts";
import type { ToolDef } from "../core/tool.ts";
import { describePermissions, ServerConfigError } from "../servers/config.ts";
import {
  type ConnectedServers,
  connectServers,
  type ServerStatus,
} from "../servers/connect_servers.ts";
import type { ServersError } from "../servers/errors.ts";
import { formatTool } from "./format.ts";
import { ExitCode } from "./usage.ts";
import { oauthClient } from "../auth/client/oauth_client.ts";

/** What a config session needs from `runCli`. */
export interface ConfigSessionOptions {
  readonly path: string;
  /** The KV file with the tokens `login` stored, and its loopback port. */
  readonly oauth?: { readonly kv: string; readonly port: number };
  readonly signal: AbortSignal;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** How a failure that is the deadline or an interrupt is told; resolves to the exit code. */
  readonly fail: (error: unknown, doing: string, what: string) => number;
}

/**
 * Reads the file, connects every server, then inspects (no `call`) or
 * calls `call.tool` with `call.args`. Every server is closed before it
 * resolves to the exit code.
 */
export async function runConfig(
  options: ConfigSessionOptions,
  call?: { readonly tool: string; readonly args: string },
): Promise<number> {
  const { path, signal, stdout, stderr } = options;
  let config: unknown;
  try {
    config = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    stderr(`weft-mcp: cannot read ${path}: ${errorText(error)}\n`);
    return ExitCode.failure;
  }
  let servers: ConnectedServers;
  const kv = options.oauth === undefined
    ? undefined
    : await Deno.openKv(options.oauth.kv);
  try {
    // The client `login` used (same redirect URL, same store): its tokens,
    // refreshed as needed; a server with none fails saying to log in.
    const auth = options.oauth === undefined || kv === undefined
      ? undefined
      : oauthClient({
        redirectUrl: `http://127.0.0.1:${options.oauth.port}/callback`,
        clientName: "weft-mcp",
        store: kv,
      });
    servers = await connectServers(config as never, {
      signal,
      reconnect: false,
      onError: (error) => stderr(`weft-mcp: ${error.message}\n`),
      // A server's own stderr goes where the caller's output does, each
      // line prefixed with its name (runCli's default is this process's).
      stderr: (server, line) => stderr(`[${server}] ${line}\n`),
      ...(auth === undefined ? {} : { auth: () => auth }),
    });
  } catch (error) {
    kv?.close();
    if (error instanceof ServerConfigError) {
      stderr(`weft-mcp: ${path}: ${error.message}\n`);
      return ExitCode.failure;
    }
    return options.fail(error, `connecting the servers of ${path}`, "");
  }
  try {
    if (call === undefined) {
      stdout(formatServers(path, servers.servers(), servers.error));
      return servers.error?.failures.length ? ExitCode.failure : ExitCode.ok;
    }
    return await callOne(servers, call.tool, call.args, options);
  } finally {
    await servers.close();
    kv?.close();
  }
}

async function callOne(
  servers: ConnectedServers,
  name: string,
  args: string,
  options: ConfigSessionOptions,
): Promise<number> {
  const { stdout, stderr, signal } = options;
  const statuses = servers.servers();
  const dot = name.indexOf(".");
  const server = dot > 0
    ? statuses.find((s) => s.name === name.slice(0, dot))
    : undefined;
  let tool: ToolDef | undefined;
  if (server !== undefined) {
    if (server.error !== undefined) {
      stderr(`weft-mcp: ${server.error.message}\n`);
      return ExitCode.failure;
    }
    const wanted = server.prefix + name.slice(dot + 1);
    tool = server.tools.find((t) => t.name === wanted);
  } else {
    tool = servers.tools.find((t) => t.name === name);
  }
  if (tool === undefined) {
    const skipped = servers.error?.skipped.find((s) =>
      server !== undefined
        ? s.server === server.name && s.name === name.slice(dot + 1)
        : false
    );
    const listed = (server?.tools ?? servers.tools).map((t) => t.name).join(
      ", ",
    ) || "none";
    stderr(
      skipped !== undefined
        ? `weft-mcp: tool ${
          JSON.stringify(name)
        } was not imported: ${skipped.error.message}\n`
        : `weft-mcp: ${
          server !== undefined
            ? `server ${JSON.stringify(server.name)}`
            : options.path
        } has no tool named ${JSON.stringify(name)} (its tools: ${listed})\n`,
    );
    return ExitCode.failure;
  }
  let text: string;
  try {
    text = await tool.invoke(args, { signal });
  } catch (error) {
    if (signal.aborted) return options.fail(error, `calling ${name}`, "");
    stdout(`${failureText(tool.name, error)}\n`);
    return ExitCode.toolError;
  }
  stdout(
    `${
      truncateResult(text, tool.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES)
    }\n`,
  );
  return ExitCode.ok;
}

/**
 * The text of `inspect --config`: a summary line, then per server a header
 * (`== <name> (<serverInfo>, <era>): <n> tools, <k> skipped`, or
 * `== <name>: failed` with the error) and its tools as the model sees them,
 * prefixed, each with the lines `inspect` prints for one server.
 *
 * @example Using `formatServers`
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatServers } from "./_config_session.ts";
 * const text = formatServers("mcp.json", [], undefined);
 * assert.equal(text, "mcp.json: 0 servers, 0 connected, 0 failed, 0 tools\n");
 * ```
 */
export function formatServers(
  path: string,
  servers: readonly ServerStatus[],
  error: ServersError | undefined,
): string {
  const failed = servers.filter((s) => s.error !== undefined).length;
  const tools = servers.reduce((n, s) => n + s.tools.length, 0);
  const lines = [
    `${path}: ${count(servers.length, "server")}, ${
      servers.length - failed
    } connected, ${failed} failed, ${count(tools, "tool")}`,
  ];
  for (const server of servers) {
    lines.push("");
    if (server.error !== undefined) {
      lines.push(`== ${server.name}: failed`, `  ${server.error.message}`);
      lines.push(...permissionLines(server));
      continue;
    }
    const skipped = error?.skipped.filter((s) => s.server === server.name) ??
      [];
    const named = server.serverInfo === undefined
      ? "no serverInfo"
      : `${server.serverInfo.name} ${server.serverInfo.version}`;
    const info = server.protocol === undefined
      ? named
      : `${named}, ${server.protocol}`;
    lines.push(
      `== ${server.name} (${info}): ${
        count(server.tools.length, "tool")
      }, ${skipped.length} skipped`,
    );
    lines.push(...permissionLines(server));
    for (const tool of server.tools) lines.push("", ...formatTool(tool));
    if (skipped.length > 0) {
      lines.push("", `skipped ${count(skipped.length, "tool")}:`);
      for (const entry of skipped) {
        const label = entry.name !== ""
          ? JSON.stringify(entry.name)
          : "an entry";
        lines.push(`  ${label}: ${entry.error.message}`);
      }
    }
  }
  return lines.join("\n") + "\n";
}

// A server with permissions: the exact command line it runs with, and what
// it may touch.
function permissionLines(server: ServerStatus): string[] {
  if (server.permissions === undefined) return [];
  return [
    `  command: ${server.launch ?? server.target}`,
    `  permissions: ${describePermissions(server.permissions)}`,
  ];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
