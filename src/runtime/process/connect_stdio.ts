/**
 * `connectStdio`: spawn an MCP server process and return a connected client
 * that owns it.
 *
 * @module
 */

import { withAppsCapability } from "../app_capability.ts";
import type { ClientCapabilities, Implementation } from "../sdk_types.ts";
import {
  closeClientOnAbort,
  DEFAULT_CLIENT_INFO,
  handshake,
  McpClient,
} from "../client/disposable_client.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  CommandNotFoundError,
  ConnectionLostError,
  DEFAULT_MAX_LINE_BYTES,
  MalformedMessageError,
  ServerConnectError,
  ServerExitError,
} from "../errors.ts";
import { commandLine, resolveCommand, serverNameOf } from "./command.ts";
import { LineSplitStream } from "./_line_splitter.ts";
import { endWithHost } from "./_host_signals.ts";
import {
  DEFAULT_KILL_GRACE,
  settleWithin,
  type SpawnedProcess,
  spawnProcess,
  terminateProcess,
} from "./process_group.ts";
import { LineTransport } from "./_line_transport.ts";
import { bufferSource, type ByteSource, streamSink } from "./_byte_pipe.ts";
import {
  EraClientTransport,
  type EraInfo,
  type ProtocolPreference,
} from "../era/era_client.ts";
import { acceptEraStore, type EraStore } from "../era/era_store.ts";
import { passedThrough, passthroughOf } from "./_env_passthrough.ts";

/**
 * Options of {@link connectStdio}.
 *
 * @example The command line, environment and directory of a server
 * ```ts
 * import type { ConnectStdioOptions } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const options: ConnectStdioOptions = {
 *   args: ["run", "-A", "server.ts"],
 *   env: { LOG_LEVEL: "debug" },
 *   cwd: "/srv/orders",
 * };
 * // await using client = await connectStdio("deno", options);
 * assert.deepEqual(options.args, ["run", "-A", "server.ts"]);
 * ```
 */
export interface ConnectStdioOptions {
  /** The server's arguments. */
  args?: string[];
  /**
   * Variables set for the server, on top of the inherited few in
   * {@link DEFAULT_INHERITED_ENV} and those `envPassthrough` names
   * (nothing else is inherited); `env` wins over both.
   */
  env?: Record<string, string>;
  /**
   * More of this process's variables to pass on to the server when set:
   * names, or prefixes ending in `*` (`["OTEL_*"]`). Default: `["OTEL_*"]`
   * when this process runs with `OTEL_DENO=true` (Deno's built-in
   * OpenTelemetry), so the server's spans reach the same collector and join
   * the caller's trace; else none. `[]` passes nothing more. A variable
   * this process may not read (no `--allow-env`) fails the connect when
   * named here, and is left out under the default.
   */
  envPassthrough?: readonly string[];
  /**
   * The variables of this process the server inherits, names or prefixes
   * ending in `*` (`["HOME", "PATH", "OTEL_*"]`), in place of
   * {@link DEFAULT_INHERITED_ENV} and `envPassthrough`: an allowlist.
   * `[]`: the server gets only `env`.
   */
  inheritEnv?: readonly string[];
  /** The server's working directory; ours when absent. */
  cwd?: string;
  /** Aborting ends the connection (and the process); during the handshake, rejects with its reason. */
  signal?: AbortSignal;
  /**
   * The server's name in its stderr lines (`[<name>] …`) and in errors.
   * Default: the package or script the command runs, not the launcher —
   * `server-filesystem` for `npx -y @modelcontextprotocol/server-filesystem`,
   * `pkg` for `deno run -A npm:@scope/pkg@1.0.0` — else the program's name.
   */
  name?: string;
  /**
   * Milliseconds the server has to answer `initialize`; then the connect
   * rejects with a {@link ServerConnectError} (phase `initialize`, cause
   * an `InitializeTimeoutError`). Default 30000.
   */
  initializeTimeout?: number;
  /**
   * Where the server's stderr goes. Default: to our stderr line by line,
   * each line prefixed `[<name>] `. A function gets each line
   * (without the newline; lines over 64 KiB come in pieces). `"inherit"`
   * hands the server our stderr as is; `"ignore"` discards it.
   */
  stderr?: "inherit" | "ignore" | ((line: string) => void);
  /** Milliseconds between SIGTERM and SIGKILL when the connection ends. Default 2000. */
  killGrace?: number;
  /**
   * Forward a SIGINT or SIGTERM this process gets to the server's process
   * group (which the terminal's Ctrl-C does not reach). Default true.
   * `false` for a host that ends its servers itself (`close()` from its own
   * signal listener): then no signal listener is installed for this server;
   * this process's exit still sends the group SIGTERM.
   */
  forwardSignals?: boolean;
  /** The longest line read from the server, in bytes. Default 16 MiB. */
  maxLineBytes?: number;
  /** How the client introduces itself. Default `{ name: "weft-mcp", version: "0.1.0" }`. */
  clientInfo?: Implementation;
  /**
   * The client capabilities to advertise. Default `{ elicitation: {} }`:
   * a server may ask for input during a call, which `importTools` answers
   * (its `onInput`) or parks in the agent run for `answer`.
   */
  capabilities?: ClientCapabilities;
  /**
   * MCP Apps: declare the `io.modelcontextprotocol/ui` extension
   * (`mimeTypes: ["text/html;profile=mcp-app"]`) on top of `capabilities`.
   * Pair with `importTools`' `apps`. Default false.
   */
  apps?: boolean;
  /**
   * Installed as the client's `onerror` before the handshake, so nothing
   * the transport reports (a malformed line, an over-long line) is missed.
   */
  onerror?: (error: Error) => void;
  /**
   * The protocol era. `"auto"` (the default) sends `server/discover` first
   * and speaks 2026-07-28 to a server that answers it; an error answer, or
   * silence for `probeTimeout` ms, means the `initialize` handshake (a
   * modern answer arriving late still wins). The verdict is kept (see
   * `eraStore`). `"legacy"` pins the handshake and sends no probe: pin it
   * for a server that exits on a request it does not know before
   * `initialize` (it is not started twice to find out). `"modern"` never
   * falls back: a server that does not answer `server/discover` fails the
   * connect.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  protocol?: ProtocolPreference;
  /**
   * Where each server's era is kept, keyed by its command line and
   * directory: a store of `@weft/mcp/store`, or a `Deno.Kv` (taken as
   * `denoKvStore(kv)`); anything else is a `TypeError` at the call.
   * Default: this process's memory; a persistent store keeps it across
   * restarts of this process. A kept legacy verdict spares a restart the
   * probe (and a silent server's wait); a modern server is sent
   * `server/discover` at every start all the same, as the sign that the
   * process is alive.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  eraStore?: EraStore;
  /** Milliseconds a silent server gets to answer `server/discover` before it is taken for legacy. Default 1500. */
  probeTimeout?: number;
}

/**
 * The variables a server process inherits from ours when set (the SDK's
 * list, after sudo's), per platform: on Unix `HOME LOGNAME PATH SHELL TERM
 * USER`. The platform is read when a server starts, not when this module
 * loads, so the module imports where `Deno` is absent.
 *
 * @example The names a server on this machine inherits
 * ```ts
 * import { DEFAULT_INHERITED_ENV } from "@weft/mcp/runtime";
 *
 * console.log(DEFAULT_INHERITED_ENV.unix.join(" "));
 * ```
 */
export const DEFAULT_INHERITED_ENV: {
  readonly unix: readonly string[];
  readonly windows: readonly string[];
} = {
  windows: [
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
  ],
  unix: ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"],
};

export { DEFAULT_INITIALIZE_TIMEOUT } from "../client/disposable_client.ts";

/** How long a closed stdout waits for the exit status, so calls name the real cause. */
const EXIT_STATUS_WAIT = 250;
/** Stderr lines are cut into pieces of this many bytes. */
const STDERR_LINE_BYTES = 64 * 1024;

/**
 * Spawns `command` as an MCP server speaking newline-delimited JSON-RPC on
 * its stdin/stdout (as `stdioTransport` does, so big integers keep
 * their digits both ways) and resolves to a connected, initialized client.
 *
 * The client owns the process. `close()` or `await using` ends it and its
 * descendants: the server runs as the leader of its own process group
 * (through `setsid`), its stdin is closed and SIGTERM goes to the whole
 * group at once, SIGKILL to whatever is left after `killGrace` ms; close
 * resolves when the server has exited. Where `setsid` is missing (macOS) or
 * on Windows only the server itself is signalled.
 *
 * A server that exits on its own fails every pending call at once with a
 * {@link ServerExitError} (`server process exited with code 1`), and a
 * server that closes its stdout but lives on with a `ConnectionLostError` —
 * never a hang. A handshake that fails (the command is missing, the server
 * exits, the signal aborts) rejects and leaves no process behind: with the
 * signal's reason when the signal ended it, else with a
 * {@link ServerConnectError} naming the server, the command line and the
 * phase — `spawn` (`command not found: <command>`) or `initialize` (the
 * server exited, closed its stdout, or did not answer within
 * `initializeTimeout`).
 *
 * A line the server writes to stdout that is not JSON-RPC (a stray log
 * line) is dropped, reported on stderr through the `stderr` sink with its
 * first bytes and a hint, and passed to `onerror`.
 *
 * While the server runs, a SIGINT or SIGTERM to this process is forwarded
 * to the server's group (unless `forwardSignals` is `false`); then this
 * process ends as it would have — or, when it listens for that signal
 * itself, its listener has had the signal once and decides. The host's
 * exit sends the group SIGTERM (see docs/runtime.md: nothing covers a
 * SIGKILL of the host).
 *
 * The environment is explicit: the server gets only the variables in
 * {@link DEFAULT_INHERITED_ENV} that are set here, those `envPassthrough`
 * names (`OTEL_*` by default when `OTEL_DENO=true`), plus `env`. Its stderr is
 * never lost (see `stderr`); its stdout carries protocol only.
 *
 * @example Using `connectStdio`
 * ```ts ignore
 * import { connectStdio } from "@weft/mcp";
 * await using client = await connectStdio("deno", { args: ["run", "server.ts"] });
 * const { tools } = await client.listTools();
 * ```
 */
export async function connectStdio(
  command: string,
  options: ConnectStdioOptions = {},
): Promise<McpClient> {
  const signal = options.signal;
  signal?.throwIfAborted();
  // Checked before anything starts: a wrong store is a TypeError here.
  const eraStore = acceptEraStore(
    options.eraStore,
    "connectStdio: options.eraStore",
  );
  const args = options.args ?? [];
  const name = options.name ?? serverNameOf(command, args);
  const target = commandLine(command, args);
  const stderr = options.stderr ?? prefixedStderr(name);
  const passthrough = passthroughOf(options.envPassthrough);
  const allowlist = options.inheritEnv === undefined
    ? undefined
    : passthroughOf(options.inheritEnv, "inheritEnv");
  let proc: SpawnedProcess;
  try {
    const env = allowlist === undefined
      ? {
        ...defaultEnvironment(),
        ...passedThrough(passthrough),
        ...options.env,
      }
      : { ...passedThrough(allowlist), ...options.env };
    proc = spawnProcess({
      command: resolveCommand(command, env.PATH, options.cwd),
      args,
      env,
      cwd: options.cwd,
      stderr: typeof stderr === "function"
        ? "piped"
        : stderr === "ignore"
        ? "null"
        : "inherit",
    });
  } catch (error) {
    const cause = error instanceof Deno.errors.NotFound
      ? new CommandNotFoundError(command, { cause: error })
      : error;
    throw new ServerConnectError(name, target, "spawn", cause);
  }
  const grace = options.killGrace ?? DEFAULT_KILL_GRACE;
  endWithHost(proc, grace, { forwardSignals: options.forwardSignals });
  const report = typeof stderr === "function"
    ? stderr
    : (line: string) => console.error(`[${name}] ${line}`);
  const connection = new StdioConnection(proc, grace, stderr);
  const eraKey = options.cwd === undefined
    ? target
    : `${target} (in ${options.cwd})`;
  const era = new EraClientTransport(
    new StrayLineReporter(connection.transport(options.maxLineBytes), report),
    {
      transport: "stdio",
      protocol: options.protocol,
      store: eraStore,
      key: eraKey,
      probeTimeout: options.probeTimeout,
    },
  );
  connection.era = era;
  const client = new McpClient(
    options.clientInfo ?? DEFAULT_CLIENT_INFO,
    { capabilities: capabilitiesOf(options) },
    connection,
  );
  if (options.onerror !== undefined) client.onerror = options.onerror;
  await handshake(client, era, {
    signal,
    initializeTimeout: options.initializeTimeout,
    name,
    target,
  });
  connection.closeOnAbort(signal, client);
  return client;
}

/** The hint after a stray stdout line. */
const STRAY_HINT =
  "a stdio server must write only JSON-RPC messages to stdout; log to stderr instead";

/**
 * Passes everything through, and reports a line that is not JSON-RPC on
 * stderr (the SDK installs its own `onerror` on the transport at connect, so
 * the report is made here, before it).
 */
class StrayLineReporter implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #inner: Transport;

  constructor(inner: Transport, report: (line: string) => void) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onmessage = (message) => this.onmessage?.(message);
    inner.onerror = (error) => {
      if (error instanceof MalformedMessageError) {
        report(strayLineText(error));
      }
      this.onerror?.(error);
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/**
 * The stderr report of a stray stdout line:
 * `stdout line is not JSON-RPC, ignored: "<first 80 characters>" (<hint>)`.
 */
export function strayLineText(error: MalformedMessageError): string {
  const excerpt = error.excerpt === undefined
    ? error.message
    : JSON.stringify(error.excerpt);
  return `stdout line is not JSON-RPC, ignored: ${excerpt} (${STRAY_HINT})`;
}

/** The inherited part of a server's environment: the variables of {@link DEFAULT_INHERITED_ENV} that are set. */
export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  const names = Deno.build.os === "windows"
    ? DEFAULT_INHERITED_ENV.windows
    : DEFAULT_INHERITED_ENV.unix;
  for (const name of names) {
    let value: string | undefined;
    try {
      value = Deno.env.get(name);
    } catch {
      value = undefined; // no --allow-env: inherit nothing
    }
    // A value starting "()" is an exported shell function; never pass one on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return env;
}

class StdioConnection {
  /** The era adapter, once built. */
  era?: EraClientTransport;
  readonly #proc: SpawnedProcess;
  readonly #grace: number;
  #lost?: ConnectionLostError;
  #closing?: Promise<void>;
  #stderrDone: Promise<void> = Promise.resolve();
  #stderrReader?: ReadableStreamDefaultReader<Uint8Array>;
  #unwatch: () => void = () => {};

  constructor(
    proc: SpawnedProcess,
    grace: number,
    stderr: ConnectStdioOptions["stderr"],
  ) {
    this.#proc = proc;
    this.#grace = grace;
    proc.status.then((status) => {
      this.#lost ??= new ServerExitError(
        status.signal === null ? status.code : null,
        status.signal,
      );
    });
    if (typeof stderr === "function") this.#pumpStderr(stderr);
  }

  transport(maxLineBytes: number | undefined): Transport {
    // On end of stdout, wait (briefly) for the exit status first, so pending
    // calls fail with the process's own story.
    // (The child's stdout read into one reused buffer, no stream between.)
    const stdout = bufferSource(this.#proc.child.stdout);
    let cancelled = false;
    const source: ByteSource = {
      read: async () => {
        const chunk = await stdout.read();
        // Our own cancel ends a pending read too: that is no loss.
        if (chunk !== null || cancelled) return chunk;
        await settleWithin(this.#proc.status, EXIT_STATUS_WAIT);
        // What it wrote on stderr as it died (a denied permission, say) is
        // read before its calls fail, so they can name it.
        await settleWithin(this.#stderrDone, EXIT_STATUS_WAIT);
        this.#lost ??= new ConnectionLostError("server closed its stdout");
        return null;
      },
      cancel: () => {
        cancelled = true;
        return stdout.cancel();
      },
    };
    const stdin = this.#proc.child.stdin;
    const transport = new LineTransport(
      () => ({ source, sink: streamSink(stdin, true) }),
      { maxLineBytes: maxLineBytes ?? DEFAULT_MAX_LINE_BYTES },
    );
    // A descendant may hold stdout open after the server died: the exit
    // ends the connection even without end of input.
    this.#proc.status.then(async () => {
      await settleWithin(this.#stderrDone, EXIT_STATUS_WAIT);
      if (this.#closing === undefined) void transport.close();
    });
    return transport;
  }

  lost(): ConnectionLostError | undefined {
    return this.#lost;
  }

  protocolEra(): EraInfo | undefined {
    return this.era?.era;
  }

  serverInfo(): Implementation | undefined {
    return this.era?.serverInfo;
  }

  close(closeProtocol: () => Promise<void>): Promise<void> {
    this.#closing ??= this.#shutdown(closeProtocol);
    return this.#closing;
  }

  closeOnAbort(signal: AbortSignal | undefined, client: McpClient): void {
    this.#unwatch = closeClientOnAbort(signal, client);
  }

  async #shutdown(closeProtocol: () => Promise<void>): Promise<void> {
    this.#unwatch();
    const protocolClosed = closeProtocol().catch(() => {
      // Nothing lost: the process is terminated next; the transport's errors went to its onerror.
    });
    await terminateProcess(this.#proc, this.#grace);
    await protocolClosed;
    await settleWithin(this.#stderrDone, 100);
    await this.#stderrReader?.cancel().catch(() => {
      // Nothing lost: the process has ended; its stderr is no longer read.
    });
    await this.#stderrDone;
  }

  #pumpStderr(onLine: (line: string) => void): void {
    const stderr = this.#proc.child.stderr;
    const lines = stderr.pipeThrough(
      new LineSplitStream({
        maxLineBytes: STDERR_LINE_BYTES,
        onTooLong: "split",
      }),
    );
    const reader = lines.getReader();
    this.#stderrReader = reader;
    this.#stderrDone = forwardLines(reader, onLine);
  }
}

async function forwardLines(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      try {
        onLine(decoder.decode(value));
      } catch {
        // A failing callback must not stop the pump: a full stderr pipe would block the server.
      }
    }
  } catch {
    // Cancelled or broken: the process is gone.
  }
}

function prefixedStderr(name: string): (line: string) => void {
  return (line) => console.error(`[${name}] ${line}`);
}

// The declared capabilities: the given ones (default elicitation), with the
// MCP Apps extension when asked.
function capabilitiesOf(
  options: { capabilities?: ClientCapabilities; apps?: boolean },
): ClientCapabilities {
  const base = options.capabilities ?? { elicitation: {} };
  return options.apps === true ? withAppsCapability(base) : base;
}
