/**
 * `runCli`: the whole of `weft-mcp` as a function from arguments to an exit
 * code, with its output going through injected writers.
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
import { type ImportResult, importTools } from "../bridge/import.ts";
import {
  type CliCommand,
  type EnvSetting,
  parseCommandLine,
  type Target,
  UsageError,
} from "./args.ts";
import {
  connectTarget,
  type DefaultTarget,
  type OwnedClient,
  targetLabel,
  withProgress,
} from "./connect.ts";
import { formatInspection } from "./format.ts";
import { runConfig } from "./_config_session.ts";
import { runLogin } from "./login.ts";
import { ServerConnectError } from "../runtime/errors.ts";
import { ExitCode, USAGE } from "./usage.ts";

/** Where `runCli` writes; each call gets whole text, newlines included. */
export interface CliOutput {
  /** Results: the inspection, the tool's text, `--help`. */
  stdout(text: string): void;
  /** Progress and failures. */
  stderr(text: string): void;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Where output goes. Default: this process's stdout and stderr. */
  output?: CliOutput;
  /** The server used when no target is given. */
  defaultTarget?: DefaultTarget;
  /** Aborting (e.g. on SIGINT) closes the server and exits with 130. */
  signal?: AbortSignal;
}

/**
 * Runs `weft-mcp` with `argv` (the arguments after the program name) and
 * resolves to the exit code (see `ExitCode`). Never rejects for anything the
 * server or the user did: failures are a `weft-mcp: …` line on stderr and a
 * non-zero code. Every connection it opens is closed before it resolves.
 */
export async function runCli(
  argv: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const output = options.output ?? processOutput();
  let command: CliCommand;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${error.message}\n\n${USAGE}`);
    return ExitCode.usage;
  }
  if (command.kind === "help") {
    output.stdout(USAGE);
    return ExitCode.ok;
  }
  if (command.kind === "login") {
    const interrupt = options.signal ?? new AbortController().signal;
    const deadline = AbortSignal.any([
      interrupt,
      AbortSignal.timeout(command.timeout),
    ]);
    return await runLogin(command, output, deadline);
  }
  let env: Record<string, string>;
  try {
    env = serverEnv(command.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${error.message}\n`);
    return ExitCode.usage;
  }
  // Our own timer, cleared when done: a pending AbortSignal.timeout with
  // listeners keeps the event loop alive until it fires.
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(
      new DOMException(
        `weft-mcp: timed out after ${command.timeout} ms`,
        "TimeoutError",
      ),
    );
  }, command.timeout);
  try {
    return await new Session(command, options, output, deadline.signal, env)
      .run();
  } finally {
    clearTimeout(timer);
  }
}

class Session {
  readonly #command: Exclude<CliCommand, { kind: "help" | "login" }>;
  readonly #options: RunCliOptions;
  readonly #output: CliOutput;
  readonly #deadline: AbortSignal;
  readonly #signal: AbortSignal;
  readonly #label: string;
  readonly #env: Record<string, string>;

  constructor(
    command: Exclude<CliCommand, { kind: "help" | "login" }>,
    options: RunCliOptions,
    output: CliOutput,
    deadline: AbortSignal,
    env: Record<string, string>,
  ) {
    this.#command = command;
    this.#env = env;
    this.#options = options;
    this.#output = output;
    this.#deadline = deadline;
    this.#signal = options.signal
      ? AbortSignal.any([deadline, options.signal])
      : deadline;
    this.#label = targetLabel(command.target, options.defaultTarget);
  }

  async run(): Promise<number> {
    const target = this.#command.target;
    if (target.kind === "config") {
      return await runConfig({
        path: target.path,
        ...(target.kv === undefined
          ? {}
          : { oauth: { kv: target.kv, port: target.port ?? 8976 } }),
        signal: this.#signal,
        stdout: (text) => this.#output.stdout(text),
        stderr: (text) => this.#output.stderr(text),
        fail: (error, doing, what) => this.#fail(error, doing, what),
      }, this.#command.kind === "call" ? this.#command : undefined);
    }
    let client: OwnedClient;
    try {
      client = await withProgress(this.#connect(this.#command.target), {
        label: this.#label,
        write: (line) => this.#output.stderr(line),
      });
    } catch (error) {
      return this.#fail(
        error,
        `connecting to ${this.#label}`,
        `cannot connect to ${this.#label}`,
      );
    }
    try {
      let imported: ImportResult;
      try {
        imported = await importTools(client, { signal: this.#signal });
      } catch (error) {
        const doing = `listing the tools of ${this.#label}`;
        return this.#fail(
          error,
          doing,
          `cannot list the tools of ${this.#label}`,
        );
      }
      if (this.#command.kind === "inspect") {
        const info = client.getServerVersion();
        const server = info === undefined
          ? undefined
          : { name: info.name, version: info.version };
        const era = client.getProtocolEra?.();
        const protocol = era === undefined
          ? undefined
          : { era: era.era, version: era.version };
        this.#output.stdout(
          formatInspection({ server, protocol, ...imported }),
        );
        return ExitCode.ok;
      }
      return await this.#call(this.#command.tool, this.#command.args, imported);
    } finally {
      await client.close().catch(() => {
        // Nothing lost: the command's outcome is already decided; the process exits next.
      });
    }
  }

  #connect(target: Target): Promise<OwnedClient> {
    return connectTarget(target, {
      signal: this.#signal,
      defaultTarget: this.#options.defaultTarget,
      env: this.#env,
    });
  }

  async #call(
    name: string,
    args: string,
    imported: ImportResult,
  ): Promise<number> {
    const tool: ToolDef | undefined = imported.tools.find((t) =>
      t.name === name
    );
    if (tool === undefined) {
      const skipped = imported.skipped?.skipped.find((s) => s.name === name);
      const listed = imported.tools.map((t) => t.name).join(", ") || "none";
      this.#output.stderr(
        skipped !== undefined
          ? `weft-mcp: tool ${
            JSON.stringify(name)
          } was not imported: ${skipped.error.message}\n`
          : `weft-mcp: ${this.#label} has no tool named ${
            JSON.stringify(name)
          } (its tools: ${listed})\n`,
      );
      return ExitCode.failure;
    }
    let text: string;
    try {
      text = await tool.invoke(args, { signal: this.#signal });
    } catch (error) {
      if (this.#signal.aborted) {
        return this.#fail(error, `calling ${name} on ${this.#label}`, "");
      }
      this.#output.stdout(`${failureText(tool.name, error)}\n`);
      return ExitCode.toolError;
    }
    this.#output.stdout(
      `${
        truncateResult(text, tool.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES)
      }\n`,
    );
    return ExitCode.ok;
  }

  // A failure: the deadline, an interrupt, or the error itself, in that order.
  #fail(error: unknown, doing: string, what: string): number {
    if (this.#deadline.aborted) {
      const ms = this.#command.timeout;
      this.#output.stderr(
        `weft-mcp: timed out after ${ms} ms ${doing} (--timeout)\n`,
      );
      return ExitCode.failure;
    }
    if (this.#options.signal?.aborted) {
      this.#output.stderr(`weft-mcp: interrupted while ${doing}\n`);
      return ExitCode.interrupted;
    }
    if (error instanceof ServerConnectError) {
      this.#output.stderr(`weft-mcp: ${error.message}\n`);
      return ExitCode.failure;
    }
    const text = errorText(error);
    this.#output.stderr(
      `${
        text.startsWith("weft-mcp: ") ? text : `weft-mcp: ${what}: ${text}`
      }\n`,
    );
    return ExitCode.failure;
  }
}

// The `--env` settings as variables: a bare name takes our value, which
// must be there (a server silently missing its token is the failure to avoid).
function serverEnv(settings: readonly EnvSetting[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of settings) {
    if (value !== undefined) {
      env[name] = value;
      continue;
    }
    let ours: string | undefined;
    try {
      ours = Deno.env.get(name);
    } catch {
      throw new UsageError(
        `weft-mcp: --env ${name}: cannot read this process's environment (run with --allow-env, or give --env ${name}=<value>)`,
      );
    }
    if (ours === undefined) {
      throw new UsageError(
        `weft-mcp: --env ${name}: not set here, so there is nothing to pass on (set it, or give --env ${name}=<value>)`,
      );
    }
    env[name] = ours;
  }
  return env;
}

function processOutput(): CliOutput {
  const encoder = new TextEncoder();
  const writeAll = (
    file: { writeSync(p: Uint8Array): number },
    text: string,
  ) => {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
  };
  return {
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: (text) => writeAll(Deno.stderr, text),
  };
}
