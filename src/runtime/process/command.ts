/**
 * What a stdio server's command line says about it: the name its stderr
 * lines carry, the text errors quote, and the program it resolves to.
 *
 * @module
 */

import { CommandNotFoundError } from "../errors.ts";

/** Launchers whose first non-option argument is the package or script that runs. */
const LAUNCHERS = new Set([
  "npx",
  "pnpx",
  "bunx",
  "uvx",
  "node",
  "bun",
  "python",
  "python3",
  "tsx",
  "ts-node",
]);

/** Launchers that take a subcommand (`deno run`, `uv run`, `pnpm dlx`, `npm exec`) before it. */
const SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  deno: new Set(["run", "serve"]),
  uv: new Set(["run"]),
  pnpm: new Set(["dlx", "exec"]),
  npm: new Set(["exec"]),
  yarn: new Set(["dlx"]),
  bun: new Set(["run", "x"]),
};

/** Options that take their value as the next argument (a small, common set). */
const VALUED = new Set([
  "-c",
  "--config",
  "--import-map",
  "--location",
  "--seed",
  "--env-file",
  "-p",
  "--package",
  "--from",
  "--with",
  "-r",
  "--require",
  "--import",
  "--cwd",
]);

/**
 * The name a stdio server goes by when none is given: the package or script
 * its command runs, not the launcher — `npx -y @modelcontextprotocol/server-filesystem /tmp`
 * gives `server-filesystem`, `deno run -A npm:@scope/pkg@1.2.3` gives
 * `pkg`, `node build/index.js` gives `index`, `python -m mcp_server_git`
 * gives `mcp_server_git`; any other program gives its own base name.
 */
export function serverNameOf(
  command: string,
  args: readonly string[],
): string {
  const program = baseName(command).replace(/\.exe$/i, "");
  const subcommands = SUBCOMMANDS[program];
  if (!LAUNCHERS.has(program) && subcommands === undefined) return program;
  let i = 0;
  if (subcommands !== undefined && subcommands.has(args[0] ?? "")) i = 1;
  else if (!LAUNCHERS.has(program)) return program;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-m" && i + 1 < args.length) return args[i + 1];
    if (arg === "--") continue;
    if (arg.startsWith("-")) {
      if (VALUED.has(arg)) i++;
      continue;
    }
    return packageOrScript(arg) || program;
  }
  return program;
}

// `npm:@scope/pkg@1.2` → `pkg`; `@scope/pkg@latest` → `pkg`; `./dir/server.ts` → `server`.
function packageOrScript(spec: string): string {
  let text = spec.replace(/^(npm|jsr):/, "");
  if (
    /^(https?|file):\/\//.test(text) ||
    /[\\/]/.test(text) && !text.startsWith("@")
  ) {
    return baseName(text.replace(/[?#].*$/, "")).replace(
      /\.[cm]?[jt]sx?$|\.py$/,
      "",
    );
  }
  if (text.startsWith("@")) text = text.slice(text.indexOf("/") + 1);
  const at = text.indexOf("@");
  if (at > 0) text = text.slice(0, at);
  const slash = text.indexOf("/");
  return slash > 0 ? text.slice(0, slash) : text;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/**
 * The command line as a shell would read it back: words a shell would split
 * or expand are single-quoted.
 */
export function commandLine(
  command: string,
  args: readonly string[],
): string {
  return [command, ...args].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  if (/^[\w./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The program `command` names, as the server's `PATH` finds it: a command
 * with a slash is taken relative to `cwd`; one without is looked up in each
 * `PATH` entry. Throws {@link CommandNotFoundError} when there is no such
 * executable file. Where we may not read the file system (no `--allow-read`)
 * or on Windows (`PATHEXT`), `command` is returned as is and the spawn
 * decides.
 */
export function resolveCommand(
  command: string,
  path: string | undefined,
  cwd: string | undefined,
): string {
  if (Deno.build.os === "windows" || command === "") return command;
  try {
    if (command.includes("/")) {
      const full = command.startsWith("/")
        ? command
        : `${cwd ?? Deno.cwd()}/${command}`;
      if (isExecutable(full)) return command;
      throw new CommandNotFoundError(command);
    }
    for (const dir of (path ?? "").split(":")) {
      const full = `${dir === "" ? "." : dir}/${command}`;
      if (isExecutable(full)) {
        return full.startsWith("/") ? full : `${cwd ?? Deno.cwd()}/${full}`;
      }
    }
  } catch (error) {
    if (error instanceof CommandNotFoundError) throw error;
    return command; // not allowed to look: let the spawn decide
  }
  throw new CommandNotFoundError(command);
}

function isExecutable(file: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    if (error instanceof Deno.errors.NotADirectory) return false;
    throw error;
  }
  return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
}
