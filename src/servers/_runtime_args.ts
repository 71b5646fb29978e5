/**
 * An `mcpServers` entry's command line read the way `deno run` and `node`
 * read their own flags, so that its permissions cannot be widened from the
 * entry: clustered short flags (`-qA`), options that take their value as
 * the next argument (`--conditions x`), the module (or script) position
 * ending the runtime's flags. What is read comes back written one way only
 * (`--name=value`), without any flag that grants, denies or asks for a
 * permission; what cannot be read with certainty (an unknown flag, a `--`
 * deno would not take) is refused with a `ServerConfigError` naming the
 * server and the argument.
 *
 * @module
 */

import { ServerConfigError } from "./config.ts";

/** A runtime's command line, its permission flags taken out. */
export interface RuntimeArgs {
  /** deno's flags before `run` (`--quiet`, `--log-level=…`); none for node. */
  readonly global: readonly string[];
  /** The runtime's own flags, each one argument (`--name` or `--name=value`), permission flags dropped. */
  readonly flags: readonly string[];
  /** The module or script and its own arguments, as written (`--` first when the entry had it, for node). */
  readonly tail: readonly string[];
}

// How a flag takes a value: none; one always (`--x v` or `--x=v`); one
// only with `=` (`--x` or `--x=v`); one optionally as the next argument
// when it does not start with `-` (`--lock`, as clap reads it).
type Arity = "none" | "value" | "equals" | "optional";

/** `deno run`'s flags (deno 2), long names, by how they take a value. */
const DENO_LONG: ReadonlyMap<string, Arity> = new Map([
  ...[
    "--quiet",
    "--no-clear-screen",
    "--no-code-cache",
    "--use-env-proxy",
    "--no-remote",
    "--no-npm",
    "--no-config",
    "--no-lock",
    "--cached-only",
    "--unstable",
  ].map((f) => [f, "none"] as const),
  ...[
    "--ext",
    "--import-map",
    "--node-modules-linker",
    "--config",
    "--cert",
    "--min-dep-age",
    "--inspect-publish-uid",
    "--location",
    "--seed",
    "--preload",
    "--require",
    "--conditions",
    "--log-level",
  ].map((f) => [f, "value"] as const),
  ...[
    "--check",
    "--watch",
    "--hmr",
    "--watch-exclude",
    "--env-file",
    "--coverage",
    "--no-check",
    "--node-modules-dir",
    "--vendor",
    "--reload",
    "--frozen",
    "--frozen-lockfile",
    "--unsafely-ignore-certificate-errors",
    "--inspect",
    "--inspect-brk",
    "--inspect-wait",
    "--v8-flags",
  ].map((f) => [f, "equals"] as const),
  ["--lock", "optional"],
]);

/** Deno's short flags: their long name, or `null` for a permission flag. */
interface Short {
  readonly long: string | null;
  readonly arity: Arity;
}
const DENO_SHORT: ReadonlyMap<string, Short> = new Map<string, Short>([
  ["q", { long: "--quiet", arity: "none" }],
  ["c", { long: "--config", arity: "value" }],
  ["L", { long: "--log-level", arity: "value" }],
  ["r", { long: "--reload", arity: "equals" }],
  ["A", { long: null, arity: "none" }],
  ...["P", "R", "W", "I", "N", "E", "S"].map((c) =>
    [c, { long: null, arity: "equals" as Arity }] as const
  ),
]);

/** A deno flag that grants, denies, ignores or asks for a permission. */
function isDenoPermission(name: string): boolean {
  return name.startsWith("--allow-") || name.startsWith("--deny-") ||
    name.startsWith("--ignore-") || name === "--permission-set" ||
    name === "--no-prompt";
}

/**
 * `deno [-q|-L level] run <flags> <module> <args>` read as deno reads it:
 * the flags before `run` (only `--quiet` and `--log-level` are taken
 * there) and after it, permission flags dropped, up to the module.
 */
export function readDenoRun(
  server: string,
  args: readonly string[],
): RuntimeArgs {
  const refuse = refuser(server);
  const global: string[] = [];
  const flags: string[] = [];
  let i = 0;
  // deno's global flags, before the subcommand.
  for (; i < args.length && args[i].startsWith("-") && args[i] !== "-"; i++) {
    const read = readDenoFlag(args, i, refuse);
    const all = read.flag === undefined ? [] : [read.flag, ...read.more];
    const taken = (f: string) =>
      f === "--quiet" || f.startsWith("--log-level=");
    if (all.length === 0 || !all.every(taken)) {
      refuse(
        args[i],
        `is not taken before "run" (only -q/--quiet and -L/--log-level are): move it after "run"`,
      );
    }
    global.push(...all);
    i = read.next - 1;
  }
  if (args[i] !== "run") {
    throw new ServerConfigError(
      server,
      "permissions",
      `apply to "deno run"; this entry runs deno ${
        JSON.stringify(args[i] ?? "")
      }: write it as deno run <flags> <module>`,
    );
  }
  for (i++; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      refuse(
        arg,
        "ends no flags for deno run (without a module before it, deno runs a task instead): name the module, then its arguments",
      );
    }
    if (!arg.startsWith("-") || arg === "-") {
      return { global, flags, tail: args.slice(i) };
    }
    const read = readDenoFlag(args, i, refuse);
    if (read.flag !== undefined) flags.push(read.flag);
    flags.push(...read.more);
    i = read.next - 1;
  }
  throw new ServerConfigError(
    server,
    "args",
    "name no module after deno run: nothing to apply the permissions to",
  );
}

interface ReadFlag {
  /** The flag as one argument; `undefined` when it was a permission flag (dropped). */
  readonly flag?: string;
  /** More flags a cluster held (`-qc x`: `--config=x` after `--quiet`). */
  readonly more: string[];
  /** The index after it (and its value). */
  readonly next: number;
}

function readDenoFlag(
  args: readonly string[],
  i: number,
  refuse: Refuse,
): ReadFlag {
  const arg = args[i];
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (isDenoPermission(name)) return { more: [], next: i + 1 };
    const arity = DENO_LONG.get(name) ??
      (name.startsWith("--unstable-") ? "none" : undefined);
    if (arity === undefined) {
      refuse(
        arg,
        "is not a deno run flag this check knows, so it cannot tell how deno reads it and the permissions could not be held: leave it out, or put it after the module if it is the server's own",
      );
    }
    if (eq >= 0) {
      if (arity === "none") refuse(arg, `takes no value: write ${name}`);
      return { flag: arg, more: [], next: i + 1 };
    }
    if (arity === "value") {
      if (i + 1 >= args.length) refuse(arg, "needs a value");
      return { flag: `${name}=${args[i + 1]}`, more: [], next: i + 2 };
    }
    if (
      arity === "optional" && i + 1 < args.length &&
      !args[i + 1].startsWith("-")
    ) {
      return { flag: `${name}=${args[i + 1]}`, more: [], next: i + 2 };
    }
    // Bare, `--lock` would take the module as its value once a dropped
    // flag no longer stands between them: its default, written out.
    if (arity === "optional") {
      return { flag: `${name}=./deno.lock`, more: [], next: i + 1 };
    }
    return { flag: arg, more: [], next: i + 1 };
  }
  // A cluster of short flags, as clap reads it: `-qA` is `-q -A`; a flag
  // taking a value takes the rest of the cluster (`-cdeno.json`,
  // `-c=deno.json`) or the next argument; an optional `=` value ends it.
  const out: string[] = [];
  let next = i + 1;
  for (let k = 1; k < arg.length; k++) {
    const short = DENO_SHORT.get(arg[k]);
    if (short === undefined) {
      refuse(
        arg,
        `holds -${
          arg[k]
        }, not a deno run flag this check knows: write each flag apart, in its --long=value form`,
      );
    }
    const rest = arg.slice(k + 1);
    if (short.arity === "value") {
      let value: string;
      if (rest !== "") value = rest.startsWith("=") ? rest.slice(1) : rest;
      else if (next < args.length) value = args[next++];
      else refuse(arg, "needs a value");
      out.push(`${short.long}=${value}`);
      break;
    }
    if (short.arity === "equals" && rest !== "") {
      if (rest.startsWith("=")) {
        if (short.long !== null) out.push(`${short.long}=${rest.slice(1)}`);
        break;
      }
      if (!DENO_SHORT.has(rest[0])) {
        // deno reads the rest as this flag's value (`-R/tmp`): a
        // permission flag's is dropped with it; another's is not guessed.
        if (short.long === null) break;
        refuse(
          arg,
          `cannot be read with certainty: write ${short.long}=<value>`,
        );
      }
    }
    if (short.long !== null) out.push(short.long);
  }
  return { flag: out[0], more: out.slice(1), next };
}

/** Node's options that take a value (`--x v` or `--x=v`). */
const NODE_VALUE = new Set([
  "-r",
  "--require",
  "--import",
  "-C",
  "--conditions",
  "--loader",
  "--experimental-loader",
  "--input-type",
  "-e",
  "--eval",
  "-p",
  "--print",
  "--title",
  "--env-file",
  "--env-file-if-exists",
  "--diagnostic-dir",
  "--dns-result-order",
  "--heapsnapshot-signal",
  "--heapsnapshot-near-heap-limit",
  "--icu-data-dir",
  "--inspect-port",
  "--debug-port",
  "--inspect-publish-uid",
  "--max-http-header-size",
  "--openssl-config",
  "--redirect-warnings",
  "--report-dir",
  "--report-directory",
  "--report-filename",
  "--report-signal",
  "--secure-heap",
  "--secure-heap-min",
  "--tls-cipher-list",
  "--tls-keylog",
  "--unhandled-rejections",
  "--use-largepages",
  "--experimental-default-type",
  "--experimental-policy",
  "--policy-integrity",
  "--snapshot-blob",
  "--watch-path",
  "--disable-warning",
  "--allow-fs-read",
  "--allow-fs-write",
]);

/** Node's (and V8's) options that take a value only after `=`. */
const NODE_EQUALS = new Set([
  "--inspect",
  "--inspect-brk",
  "--inspect-wait",
  "--max-old-space-size",
  "--max-semi-space-size",
  "--stack-size",
  "--stack-trace-limit",
]);

/** Node's options that take none (every `--no-…` also takes none). */
const NODE_NONE = new Set([
  "-c",
  "--check",
  "-i",
  "--interactive",
  "--enable-source-maps",
  "--trace-warnings",
  "--trace-deprecation",
  "--throw-deprecation",
  "--pending-deprecation",
  "--trace-uncaught",
  "--trace-exit",
  "--trace-sigint",
  "--abort-on-uncaught-exception",
  "--preserve-symlinks",
  "--preserve-symlinks-main",
  "--expose-gc",
  "--frozen-intrinsics",
  "--jitless",
  "--inspect",
  "--inspect-brk",
  "--inspect-wait",
  "--watch",
  "--watch-preserve-output",
  "--use-openssl-ca",
  "--use-bundled-ca",
  "--experimental-vm-modules",
  "--experimental-strip-types",
  "--experimental-transform-types",
  "--experimental-require-module",
  "--experimental-detect-module",
  "--experimental-wasm-modules",
  "--experimental-import-meta-resolve",
  "--experimental-websocket",
  "--experimental-eventsource",
  "--experimental-sqlite",
  "--experimental-json-modules",
]);

/** A node flag of its permission model: the entry's is dropped, ours is put in. */
function isNodePermission(flag: string): boolean {
  // `--no-permission` after ours would turn the model off: a negation is one too.
  const name = flag.startsWith("--no-") ? `--${flag.slice(5)}` : flag;
  return name.startsWith("--allow-") || name.startsWith("--permission") ||
    name === "--experimental-permission";
}

/**
 * `node <flags> <script> <args>` read as node reads it: its flags up to
 * the script (or `--`), its permission-model flags dropped (`--allow-*`,
 * `--permission`, `--experimental-permission`). A flag written without
 * `=` that this check does not know is refused: whether node would take
 * the next argument as its value cannot be told.
 */
export function readNode(server: string, args: readonly string[]): RuntimeArgs {
  const refuse = refuser(server);
  const flags: string[] = [];
  let evaluates = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" || !arg.startsWith("-") || arg === "-") {
      return { global: [], flags, tail: args.slice(i) };
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    // Node takes `_` for `-` in a name: `--allow_fs_read` is `--allow-fs-read`.
    const written = eq < 0 ? arg : arg.slice(0, eq);
    const name = written.startsWith("--")
      ? `--${written.slice(2).replaceAll("_", "-")}`
      : written;
    const valued = NODE_VALUE.has(name);
    if (eq < 0 && valued && i + 1 >= args.length) refuse(arg, "needs a value");
    if (
      name === "-e" || name === "--eval" || name === "-p" || name === "--print"
    ) {
      evaluates = true;
    }
    if (name === "--env-file" || name === "--env-file-if-exists") {
      refuse(
        arg,
        "loads a file of variables, and node reads NODE_OPTIONS from it as flags that would widen the permissions: set the variables in the entry's env instead",
      );
    }
    if (isNodePermission(name)) {
      if (eq < 0 && valued) i++;
      continue;
    }
    if (eq >= 0) {
      // Only where a value is known to be taken: node also takes one on a
      // switch (`--expose-internals=1` turns it on).
      if (!valued && !NODE_EQUALS.has(name)) {
        refuse(
          arg,
          `is not a node option this check knows to take a value: leave it out`,
        );
      }
      flags.push(`${name}${arg.slice(eq)}`);
      continue;
    }
    if (valued) {
      // The pair as written: node always reads the next one as its value.
      flags.push(name, args[++i]);
      continue;
    }
    if (!NODE_NONE.has(name) && !name.startsWith("--no-")) {
      refuse(
        arg,
        `is not a node flag this check knows: it cannot tell whether node reads the next argument as its value; write it as ${name}=<value> if it takes one, or leave it out`,
      );
    }
    flags.push(name);
  }
  if (!evaluates) {
    throw new ServerConfigError(
      server,
      "args",
      "name no script for node: nothing to apply the permissions to",
    );
  }
  return { global: [], flags, tail: [] };
}

type Refuse = (arg: string, why: string) => never;

function refuser(server: string): Refuse {
  return (arg, why) => {
    throw new ServerConfigError(
      server,
      "args",
      `hold ${JSON.stringify(arg)}, which ${why}`,
    );
  };
}
