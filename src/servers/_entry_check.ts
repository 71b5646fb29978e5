/**
 * One entry of an `mcpServers` configuration, checked field by field: its
 * kind and fields, what every server has, what a stdio or an HTTP server
 * has, and a stdio server's `permissions`. The first wrong field is the one
 * a `ServerConfigError` names.
 *
 * @module
 */

import { ServerConfigError } from "./_config_error.ts";
import type {
  HttpServerConfig,
  ServerSpec,
  StdioServerConfig,
} from "./config.ts";

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

// One entry, checked field by field in a fixed order (the first wrong
// field is the one named): its kind and fields, what every server has,
// then what its kind has.
export function checkEntry(
  name: string,
  entry: Record<string, unknown>,
): ServerSpec {
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

/** The permissions an entry's `permissions` may name, in the order they are printed. */
export const PERMISSION_KEYS: readonly string[] = [
  "read",
  "write",
  "net",
  "env",
  "run",
];

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

/** Whether `value` is a plain object (not `null`, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
