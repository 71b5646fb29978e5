/**
 * The runtime's error classes. Callers branch with `instanceof`; the
 * messages carry no `mcp: ` prefix — the import bridge adds the one prefix
 * a model sees (`server process exited with code 3`) — and are pinned
 * in docs/errors.md.
 *
 * @module
 */

/** The default cap on one stdio line, in bytes: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** The default cap on one HTTP request body, in bytes: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * A line longer than the cap arrived. The line is dropped, the stream goes
 * on. Reads `line exceeds the <limit>-byte limit (maxLineBytes)`.
 *
 * @example Using `LineTooLongError`
 * ```ts
 * import { LineTooLongError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * const err = new LineTooLongError(16);
 * assert.equal(err.message, "line exceeds the 16-byte limit (maxLineBytes)");
 * ```
 */
export class LineTooLongError extends Error {
  /** The cap that was exceeded, in bytes. */
  readonly limit: number;

  /** Builds the error for the cap `limit`. */
  constructor(limit: number) {
    super(`line exceeds the ${limit}-byte limit (maxLineBytes)`);
    this.name = "LineTooLongError";
    this.limit = limit;
  }
}

/**
 * A line that is not a JSON-RPC message: `kind` is `"parse"` for text that
 * is not JSON (answered with -32700), `"invalid"` for JSON that is not a
 * JSON-RPC 2.0 message (answered with -32600 unless it looks like a
 * response). Reads `malformed line: <reason>`.
 */
export class MalformedMessageError extends Error {
  /** Which JSON-RPC failure this is. */
  readonly kind: "parse" | "invalid";
  /** The line's first 80 characters (invalid UTF-8 replaced), when known. */
  readonly excerpt?: string;

  /** Builds the error from the failure's kind, a reason, the underlying cause and the line's first characters. */
  constructor(
    kind: "parse" | "invalid",
    reason: string,
    options?: ErrorOptions & { excerpt?: string },
  ) {
    super(`malformed line: ${reason}`, options);
    this.name = "MalformedMessageError";
    this.kind = kind;
    if (options?.excerpt !== undefined) this.excerpt = options.excerpt;
  }
}

/**
 * The peer sent an error response no request can claim (`id` null or
 * absent) — typically its answer to something it could not parse. Reads
 * `peer reported error <code>: <message>`.
 */
export class PeerProtocolError extends Error {
  /** The JSON-RPC error code the peer sent. */
  readonly code: number;

  /** Builds the error from the peer's code and message. */
  constructor(code: number, message: string) {
    super(`peer reported error ${code}: ${message}`);
    this.name = "PeerProtocolError";
    this.code = code;
  }
}

/** A send on a transport that is closed. Reads `transport is closed`. */
export class TransportClosedError extends Error {
  /** Builds the sentinel. */
  constructor(options?: ErrorOptions) {
    super("transport is closed", options);
    this.name = "TransportClosedError";
  }
}

/**
 * The connection to a server ended while requests were pending: the calls
 * fail with this error at once instead of waiting for an answer that cannot
 * come. The message names the cause, without an `mcp: ` prefix
 * (`server closed its stdout`).
 */
export class ConnectionLostError extends Error {
  /** Builds the error from its full message. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectionLostError";
  }
}

/**
 * The server process of a stdio connection ended. Reads
 * `server process exited with code <n>`, or
 * `server process was killed by <SIGNAL>`.
 *
 * @example Using `ServerExitError`
 * ```ts
 * import { ServerExitError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 * assert.equal(new ServerExitError(3, null).message, "server process exited with code 3");
 * assert.equal(new ServerExitError(null, "SIGKILL").message, "server process was killed by SIGKILL");
 * ```
 */
export class ServerExitError extends ConnectionLostError {
  /** The exit code, or `null` when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended the process, or `null`. */
  readonly signal: string | null;

  /** Builds the error from the process's exit code or signal. */
  constructor(code: number | null, signal: string | null) {
    super(
      signal !== null
        ? `server process was killed by ${signal}`
        : `server process exited with code ${code}`,
    );
    this.name = "ServerExitError";
    this.code = code;
    this.signal = signal;
  }
}

/**
 * The HTTP handler refused a request before it reached a server: a body over
 * the cap (413), a Host or Origin that fails the DNS-rebinding check (403).
 * Reported through the handler's `onerror`; the client sees a JSON-RPC error
 * body with a fixed message.
 */
export class HttpRefusalError extends Error {
  /** The HTTP status the client got. */
  readonly status: number;

  /** Builds the error from the status and the reason (our words, never the client's bytes). */
  constructor(status: number, reason: string) {
    super(`HTTP request refused (${status}): ${reason}`);
    this.name = "HttpRefusalError";
    this.status = status;
  }
}

/**
 * The steps of bringing a server up, in order: starting its process
 * (`spawn`, stdio only), the MCP handshake (`initialize`), listing its tools
 * (`list`, by `connectServers`), and a later call that found the server
 * gone (`call`).
 */
export type ConnectPhase = "spawn" | "initialize" | "list" | "call";

/**
 * A server's command is not a program we can run: it is not on the `PATH`
 * the server gets, or the path names no executable file. Reads
 * `command not found: <command>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CommandNotFoundError } from "@weft/mcp/runtime";
 * assert.equal(new CommandNotFoundError("npx").message, "command not found: npx");
 * ```
 */
export class CommandNotFoundError extends Error {
  /** The command as given. */
  readonly command: string;

  /** Builds the error for `command`. */
  constructor(command: string, options?: ErrorOptions) {
    super(`command not found: ${command}`, options);
    this.name = "CommandNotFoundError";
    this.command = command;
  }
}

/**
 * A server did not answer `initialize` in time. Reads
 * `no answer to initialize within <ms> ms (initializeTimeout)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InitializeTimeoutError } from "@weft/mcp/runtime";
 * assert.equal(
 *   new InitializeTimeoutError(500).message,
 *   "no answer to initialize within 500 ms (initializeTimeout)",
 * );
 * ```
 */
export class InitializeTimeoutError extends Error {
  /** The limit that ran out, in milliseconds. */
  readonly timeout: number;

  /** Builds the error for the limit `timeout` (ms). */
  constructor(timeout: number) {
    super(`no answer to initialize within ${timeout} ms (initializeTimeout)`);
    this.name = "InitializeTimeoutError";
    this.timeout = timeout;
  }
}

/**
 * A server could not be brought up, or was lost: which server (`server`,
 * its name), what was run or reached (`target`: the command line or the
 * URL), in which phase, and why (`cause`). Reads
 * `server "<name>" (<target>): <phase> failed: <cause>`, e.g.
 * `server "files" (npx -y @modelcontextprotocol/server-filesystem /tmp): spawn failed: command not found: npx`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CommandNotFoundError, ServerConnectError } from "@weft/mcp/runtime";
 * const error = new ServerConnectError("files", "npx -y pkg", "spawn", new CommandNotFoundError("npx"));
 * assert.equal(error.message, 'server "files" (npx -y pkg): spawn failed: command not found: npx');
 * assert.ok(error.cause instanceof CommandNotFoundError);
 * ```
 */
export class ServerConnectError extends Error {
  /** The server's name (the config key, or a connector's `name` option). */
  readonly server: string;
  /** The command line or URL. */
  readonly target: string;
  /** The phase that failed. */
  readonly phase: ConnectPhase;

  /** Builds the error; `cause` is what failed (its message is quoted). */
  constructor(
    server: string,
    target: string,
    phase: ConnectPhase,
    cause: unknown,
  ) {
    super(
      `server ${JSON.stringify(server)} (${target}): ${phase} failed: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "ServerConnectError";
    this.server = server;
    this.target = target;
    this.phase = phase;
  }
}
