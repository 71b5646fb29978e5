/**
 * Least privilege for local servers: an `mcpServers` entry's `permissions`
 * turned into the exact flags of the runtime that runs it — Deno's
 * `--allow-*` in place of `-A` for `deno run`, Node's permission model for
 * `node` — and a permission a server was denied recognised in what it says.
 *
 * @module
 */

import { ServerConfigError, type ServerPermissions } from "./config.ts";
import { readDenoRun, readNode } from "./_runtime_args.ts";

/** The permissions, in the order they are printed and applied. */
export const PERMISSION_NAMES: readonly ["read", "write", "net", "env", "run"] =
  [
    "read",
    "write",
    "net",
    "env",
    "run",
  ];

/** One permission's name. */
export type PermissionName = typeof PERMISSION_NAMES[number];

/** How a stdio server is started once its permissions are applied. */
export interface Launch {
  /** The program. */
  readonly command: string;
  /** Its arguments, permission flags included. */
  readonly args: readonly string[];
}

/** The program's base name, without a Windows `.exe`. */
function programOf(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.toLowerCase().replace(/\.exe$/, "");
}

/**
 * Deno's flags for `permissions`: `--no-prompt` (a denied access fails at
 * once, never waits on a prompt) and one `--allow-<name>` per granted
 * permission (`true`: all; a list: those). `env` also allows the names the
 * entry sets in `env` (those without `,` or `*`).
 */
export function denoFlags(
  permissions: ServerPermissions,
  env: Readonly<Record<string, string>> = {},
): string[] {
  const flags = ["--no-prompt"];
  for (const name of PERMISSION_NAMES) {
    let grant = permissions[name];
    if (name === "env" && grant !== true) {
      // A variable the entry sets is granted by its name only: a name
      // holding "," or "*" would widen the flag to other variables.
      const set = Object.keys(env).filter((key) => !/[,*]/.test(key));
      const names = [...(grant ?? []), ...set];
      grant = names.length > 0 ? [...new Set(names)] : undefined;
    }
    if (grant === true) flags.push(`--allow-${name}`);
    else if (grant !== undefined && grant.length > 0) {
      flags.push(`--allow-${name}=${grant.join(",")}`);
    }
  }
  return flags;
}

/**
 * How the server `name` (`command` with `args`) is started under
 * `permissions`. A `deno run` gets {@link denoFlags} in place of every
 * permission flag it had (`-A` included); `node` runs under its permission
 * model (`nodeMajor.minor` picks `--permission`, or before 22.13 and on
 * 23.0 to 23.4 `--experimental-permission`: {@link nodePermissionFlag}). Any other program, or a `deno` subcommand
 * other than `run`, is refused with a `ServerConfigError` naming the
 * server: nothing could enforce the permissions.
 */
export function applyPermissions(
  name: string,
  command: string,
  args: readonly string[],
  permissions: ServerPermissions,
  options: {
    readonly env?: Readonly<Record<string, string>>;
    readonly inheritEnv?: readonly string[];
    readonly nodeVersion?: () => readonly [number, number] | undefined;
  } = {},
): Launch {
  const program = programOf(command);
  if (program === "deno") {
    return denoLaunch(name, command, args, permissions, options.env);
  }
  if (program === "node") {
    return nodeLaunch(name, command, args, permissions, options);
  }
  throw new ServerConfigError(
    name,
    "permissions",
    `apply to servers run by deno (deno run npm:<package>, jsr:<package> or a script) or node; ${
      JSON.stringify(program)
    } cannot enforce them: run the package as "deno run npm:<package>"`,
  );
}

function denoLaunch(
  name: string,
  command: string,
  args: readonly string[],
  permissions: ServerPermissions,
  env: Readonly<Record<string, string>> | undefined,
): Launch {
  const { global, flags, tail } = readDenoRun(name, args);
  return {
    command,
    args: [...global, "run", ...denoFlags(permissions, env), ...flags, ...tail],
  };
}

function nodeLaunch(
  name: string,
  command: string,
  args: readonly string[],
  permissions: ServerPermissions,
  options: {
    readonly env?: Readonly<Record<string, string>>;
    readonly inheritEnv?: readonly string[];
    readonly nodeVersion?: () => readonly [number, number] | undefined;
  },
): Launch {
  const version = options.nodeVersion?.();
  if (version === undefined || version[0] < 20) {
    throw new ServerConfigError(
      name,
      "permissions",
      `need Node.js 20 or later (its permission model)${
        version === undefined
          ? "; node --version could not be read"
          : `; this node is ${version.join(".")}`
      }`,
    );
  }
  if (permissions.net !== true) {
    throw new ServerConfigError(
      name,
      "permissions",
      `node's permission model cannot restrict network access: grant "net": true (node does not restrict it), or run the server with deno`,
    );
  }
  refuseNodeOptions(name, options.env, options.inheritEnv);
  const { flags: kept, tail } = readNode(name, args);
  const flags: string[] = [nodePermissionFlag(version)];
  for (
    const [grant, flag] of [
      [permissions.read, "--allow-fs-read"],
      [permissions.write, "--allow-fs-write"],
    ] as const
  ) {
    if (grant === true) flags.push(`${flag}=*`);
    else if (grant !== undefined) {
      // One flag per path: a comma list is one path to Node 20.
      for (const path of grant) flags.push(`${flag}=${path}`);
    }
  }
  if (
    permissions.run === true ||
    (permissions.run !== undefined && permissions.run.length > 0)
  ) {
    flags.push("--allow-child-process");
  }
  // Ours first: should node ever end its flags earlier than this check
  // read (and take what follows as the script's), the model is on already.
  return { command, args: [...flags, ...kept, ...tail] };
}

/**
 * Node reads `NODE_OPTIONS` as more flags (`--allow-fs-read=*` among them,
 * where no check of the entry's args sees it): a node server with
 * `permissions` may neither set it in `env` nor inherit it.
 */
function refuseNodeOptions(
  name: string,
  env: Readonly<Record<string, string>> | undefined,
  inheritEnv: readonly string[] | undefined,
): void {
  if (env !== undefined && Object.hasOwn(env, "NODE_OPTIONS")) {
    throw new ServerConfigError(
      name,
      "env",
      "sets NODE_OPTIONS, which node reads as flags that would widen the permissions: put node's flags in args (they are checked there) or drop permissions",
    );
  }
  const inherits = (inheritEnv ?? []).find((pattern) =>
    pattern.endsWith("*")
      ? "NODE_OPTIONS".startsWith(pattern.slice(0, -1))
      : pattern === "NODE_OPTIONS"
  );
  if (inherits !== undefined) {
    throw new ServerConfigError(
      name,
      "inheritEnv",
      `holds ${
        JSON.stringify(inherits)
      }, which passes NODE_OPTIONS on to a node server with permissions: node would read it as flags that widen them; name the variables the server needs instead`,
    );
  }
}

/** What a server said when a permission it was not granted was needed. */
export interface PermissionDenial {
  /** Deno's name of the permission (`read`, `write`, `net`, `env`, `run`, `sys`, `ffi`, `import`). */
  readonly permission: string;
  /** What it tried to reach, as Deno wrote it. */
  readonly target: string;
  /** The line it came in. */
  readonly line: string;
}

const DENO_DENIAL =
  /Requires (\w+) access to "?([^",]*)"?, (?:run again with|specify the required permissions)[^\n]*?--allow-(\w+)/;
const NODE_DENIAL =
  /ERR_ACCESS_DENIED[\s\S]{0,300}?permission: '(FileSystemRead|FileSystemWrite|ChildProcess|Worker)'(?:,?\s*resource: '([^']*)')?/;

/**
 * Deno's `NotCapable` text (`Requires read access to "/x", run again with
 * the --allow-read flag`) or Node's `ERR_ACCESS_DENIED`, found in `text`;
 * `undefined` when there is none.
 */
export function permissionDenial(text: string): PermissionDenial | undefined {
  const deno = DENO_DENIAL.exec(text);
  if (deno !== null) {
    return {
      permission: deno[3],
      target: deno[2],
      line: lineAt(text, deno.index),
    };
  }
  const node = NODE_DENIAL.exec(text);
  if (node !== null) {
    const permission = node[1] === "FileSystemRead"
      ? "read"
      : node[1] === "FileSystemWrite"
      ? "write"
      : "run";
    return {
      permission,
      target: node[2] ?? "",
      line: lineAt(text, node.index),
    };
  }
  return undefined;
}

function lineAt(text: string, index: number): string {
  const start = text.lastIndexOf("\n", index) + 1;
  const end = text.indexOf("\n", index);
  return text.slice(start, end < 0 ? text.length : end).trim();
}

/**
 * How the stdio server `spec` is started: its command line as written, or
 * with its `permissions` applied (a `node` command is asked its version
 * first). Rejects with a `ServerConfigError` when they cannot be applied.
 */
export async function launchOf(
  name: string,
  config: {
    readonly command: string;
    readonly args?: readonly string[];
    readonly env?: Readonly<Record<string, string>>;
    readonly inheritEnv?: readonly string[];
    readonly permissions?: ServerPermissions;
  },
): Promise<Launch> {
  const args = config.args ?? [];
  if (config.permissions === undefined) {
    return { command: config.command, args };
  }
  const version = programOf(config.command) === "node"
    ? await nodeVersionOf(config.command)
    : undefined;
  return applyPermissions(name, config.command, args, config.permissions, {
    env: config.env,
    inheritEnv: config.inheritEnv,
    nodeVersion: () => version,
  });
}

/**
 * The flag that turns node's permission model on for node `major.minor`:
 * `--permission` from 22.13 on the 22 line and from 23.5 on (where the
 * model became stable; 23.0 to 23.4 know only the old name), else
 * `--experimental-permission` (20.0 to 22.12, 23.0 to 23.4).
 */
export function nodePermissionFlag(
  version: readonly [number, number],
): "--permission" | "--experimental-permission" {
  const [major, minor] = version;
  const stable = major > 23 || (major === 23 && minor >= 5) ||
    (major === 22 && minor >= 13);
  return stable ? "--permission" : "--experimental-permission";
}

/** `node --version`'s output (`v22.13.0`) as `[major, minor]`, or `undefined`. */
export function parseNodeVersion(
  text: string,
): readonly [number, number] | undefined {
  const match = /^v(\d+)\.(\d+)/.exec(text);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

async function nodeVersionOf(
  command: string,
): Promise<readonly [number, number] | undefined> {
  try {
    const out = await new Deno.Command(command, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return parseNodeVersion(new TextDecoder().decode(out.stdout));
  } catch {
    return undefined;
  }
}
