/**
 * The command line of `weft-mcp`, parsed into a plain command. Pure: no I/O,
 * no `Deno.*`.
 *
 * @module
 */

/** The default of `--timeout`, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Which server a command talks to: the bundled example (no target given),
 * a child process speaking stdio (`-- <command> [args…]`), a Streamable
 * HTTP endpoint (an `http:` or `https:` URL), or every server of an
 * `mcpServers` file (`--config <file>`).
 */
export type Target =
  | { readonly kind: "default" }
  | {
    readonly kind: "config";
    readonly path: string;
    /**
     * The Deno KV file `login` stored tokens in (`--kv`): servers whose
     * entry says `"auth": "oauth"` use them.
     */
    readonly kv?: string;
    /** The loopback port `login` used (`--port`), which names the client. */
    readonly port?: number;
  }
  | {
    readonly kind: "command";
    readonly command: string;
    readonly args: readonly string[];
  }
  | { readonly kind: "url"; readonly url: URL };

/**
 * One `--env` option: `--env NAME=VALUE` gives `["NAME", "VALUE"]`;
 * `--env NAME` gives `["NAME", undefined]`, the value to be taken from
 * `weft-mcp`'s own environment.
 */
export type EnvSetting = readonly [name: string, value: string | undefined];

/** A parsed command line. */
export type CliCommand =
  | { readonly kind: "help" }
  | {
    readonly kind: "inspect";
    readonly target: Target;
    readonly timeout: number;
    /** Variables for a server command (`--env`), in order; empty when none. */
    readonly env: readonly EnvSetting[];
  }
  | {
    readonly kind: "call";
    readonly target: Target;
    readonly timeout: number;
    /** Variables for a server command (`--env`), in order; empty when none. */
    readonly env: readonly EnvSetting[];
    /** The tool's name as the server lists it. */
    readonly tool: string;
    /** The argument text, passed to the tool unchanged; `{}` when omitted. */
    readonly args: string;
  }
  | {
    readonly kind: "login";
    /** The mcpServers file naming the server. */
    readonly config: string;
    /** The server's name in it. */
    readonly server: string;
    /** The Deno KV file the tokens go to; memory when absent. */
    readonly kv?: string;
    /** The loopback port the browser comes back to. */
    readonly port: number;
    readonly timeout: number;
    readonly env: readonly EnvSetting[];
  };

/**
 * A command line `parseCommandLine` refuses. The message starts
 * `weft-mcp: ` and says what was wrong; the usage text is printed after it.
 */
export class UsageError extends Error {
  /** Builds the error from its full message. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Parses `weft-mcp`'s arguments (without the program name). No arguments
 * means `inspect` of the bundled example. Options may come anywhere before
 * `--`; everything after `--` is the server's command line.
 *
 * @example Using `parseCommandLine`
 * ```ts
 * import { parseCommandLine } from "@weft/mcp/cli";
 * import assert from "node:assert/strict";
 * const cmd = parseCommandLine(["call", "lookup_order", '{"order_id":"7"}', "--", "deno", "run", "server.ts"]);
 * assert.ok(cmd.kind === "call" && cmd.tool === "lookup_order");
 * assert.ok(cmd.kind === "call" && cmd.target.kind === "command" && cmd.target.args.length === 2);
 * ```
 */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  const dash = argv.indexOf("--");
  const before = dash === -1 ? argv : argv.slice(0, dash);
  const after = dash === -1 ? undefined : argv.slice(dash + 1);
  const positionals: string[] = [];
  let timeout = DEFAULT_TIMEOUT_MS;
  let config: string | undefined;
  let kv: string | undefined;
  let port = DEFAULT_LOGIN_PORT;
  let timeoutGiven = false;
  const env: EnvSetting[] = [];
  for (let i = 0; i < before.length; i++) {
    const arg = before[i];
    if (arg === "-h" || arg === "--help") return { kind: "help" };
    if (arg === "--env" || arg.startsWith("--env=")) {
      env.push(envSetting(arg === "--env" ? before[++i] : arg.slice(6)));
      continue;
    }
    if (arg === "--config" || arg.startsWith("--config=")) {
      const value = arg === "--config"
        ? before[++i]
        : arg.slice("--config=".length);
      if (value === undefined || value === "") {
        throw new UsageError("weft-mcp: --config needs a file");
      }
      config = value;
      continue;
    }
    if (arg === "--kv" || arg.startsWith("--kv=")) {
      kv = arg === "--kv" ? before[++i] : arg.slice("--kv=".length);
      if (kv === undefined || kv === "") {
        throw new UsageError("weft-mcp: --kv needs a file");
      }
      continue;
    }
    if (arg === "--port" || arg.startsWith("--port=")) {
      const value = Number(
        arg === "--port" ? before[++i] : arg.slice("--port=".length),
      );
      if (!Number.isInteger(value) || value < 0 || value > 65535) {
        throw new UsageError("weft-mcp: --port needs a port number");
      }
      port = value;
      continue;
    }
    if (arg === "--timeout" || arg.startsWith("--timeout=")) {
      timeoutGiven = true;
      const value = arg === "--timeout"
        ? before[++i]
        : arg.slice("--timeout=".length);
      timeout = parseTimeout(value);
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`weft-mcp: unknown option ${arg}`);
    } else {
      positionals.push(arg);
    }
  }
  const [name = "inspect", ...rest] = positionals;
  switch (name) {
    case "help":
      return { kind: "help" };
    case "inspect": {
      const target = withConfig(targetOf(rest, after), config, { kv, port });
      return { kind: "inspect", target, timeout, env: withEnv(env, target) };
    }
    case "login": {
      const [server, ...extra] = rest;
      if (config === undefined || server === undefined || extra.length > 0) {
        throw new UsageError(
          "weft-mcp: login needs --config <file> and one server name",
        );
      }
      return {
        kind: "login",
        config,
        server,
        ...(kv === undefined ? {} : { kv }),
        port,
        // A person is in the loop: five minutes unless told.
        timeout: timeoutGiven ? timeout : 300_000,
        env: [],
      };
    }
    case "call": {
      const call = parseCall(rest, after, timeout);
      if (call.kind !== "call") return call;
      const target = withConfig(call.target, config, { kv, port });
      return { ...call, target, env: withEnv(env, target) };
    }
    default:
      throw new UsageError(`weft-mcp: unknown command ${JSON.stringify(name)}`);
  }
}

/** The loopback port `login` listens on for the redirect. */
const DEFAULT_LOGIN_PORT = 8976;

function parseCall(
  rest: readonly string[],
  after: string[] | undefined,
  timeout: number,
): CliCommand {
  const [tool, ...more] = rest;
  if (tool === undefined || tool === "") {
    throw new UsageError("weft-mcp: call needs a tool name");
  }
  const urls = more.filter(isUrlText);
  const json = more.filter((arg) => !isUrlText(arg));
  if (json.length > 1) {
    throw new UsageError(
      `weft-mcp: call takes one JSON argument, got ${json.length}`,
    );
  }
  return {
    kind: "call",
    tool,
    args: json[0] ?? "{}",
    target: targetOf(urls, after),
    timeout,
    env: [],
  };
}

// `NAME=VALUE` or `NAME`: the name is what comes before the first `=`.
function envSetting(text: string | undefined): EnvSetting {
  const at = text === undefined ? -1 : text.indexOf("=");
  const name = at === -1 ? text : text!.slice(0, at);
  if (name === undefined || name === "" || /\s/.test(name)) {
    throw new UsageError(
      `weft-mcp: --env needs NAME=VALUE or NAME, got ${
        text === undefined ? "nothing" : JSON.stringify(text)
      }`,
    );
  }
  return at === -1 ? [name, undefined] : [name, text!.slice(at + 1)];
}

// --env is for a server process: the bundled one, or one after --.
function withEnv(env: EnvSetting[], target: Target): EnvSetting[] {
  if (env.length === 0 || target.kind === "command") return env;
  if (target.kind === "default") return env;
  throw new UsageError(
    target.kind === "url"
      ? "weft-mcp: --env sets variables of a server command (-- <command>); an HTTP server has its own environment"
      : 'weft-mcp: --env sets variables of a server command (-- <command>); with --config, give each server an "env" in the file',
  );
}

// --config is the target; it goes with no other.
function withConfig(
  target: Target,
  config: string | undefined,
  oauth: { readonly kv?: string; readonly port: number } = { port: 0 },
): Target {
  if (config === undefined) return target;
  if (target.kind !== "default") {
    throw new UsageError(
      "weft-mcp: give either --config <file> or a target, not both",
    );
  }
  return {
    kind: "config",
    path: config,
    ...(oauth.kv === undefined ? {} : { kv: oauth.kv, port: oauth.port }),
  };
}

function targetOf(
  positionals: readonly string[],
  after: string[] | undefined,
): Target {
  if (positionals.length > 1) {
    throw new UsageError(
      `weft-mcp: more than one target: ${positionals.join(" ")}`,
    );
  }
  const [text] = positionals;
  if (text !== undefined && after !== undefined) {
    throw new UsageError(
      "weft-mcp: give either a URL or -- <command>, not both",
    );
  }
  if (after !== undefined) {
    const [command, ...args] = after;
    if (command === undefined || command === "") {
      throw new UsageError("weft-mcp: -- must be followed by a command");
    }
    return { kind: "command", command, args };
  }
  if (text === undefined) return { kind: "default" };
  if (!isUrlText(text)) {
    throw new UsageError(
      `weft-mcp: not an http(s) URL: ${text} (put a server command after --)`,
    );
  }
  return { kind: "url", url: new URL(text) };
}

function isUrlText(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  return URL.canParse(text);
}

function parseTimeout(value: string | undefined): number {
  const ms = value === undefined || value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new UsageError(
      `weft-mcp: --timeout needs a positive number of milliseconds, got ${
        value ?? "nothing"
      }`,
    );
  }
  return ms;
}
