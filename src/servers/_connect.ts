/**
 * Opening one configured server: the runtime connector its entry names.
 *
 * @module
 */

import { connectHttp } from "../runtime/client/connect_http.ts";
import { connectSse } from "../runtime/client/connect_sse.ts";
import type { McpClient } from "../runtime/client/disposable_client.ts";
import {
  connectStdio,
  type ConnectStdioOptions,
} from "../runtime/process/connect_stdio.ts";
import { ServerConfigError, type ServerSpec } from "./config.ts";
import type { EraStore } from "../runtime/era/era_store.ts";
import type { OAuthClientProvider } from "../auth/client/oauth_client.ts";
import type { Launch } from "./_permissions.ts";
import { egressFetch } from "./_egress.ts";
import type { EgressRefusedError } from "./errors.ts";

/** What every connection of a set shares. */
export interface ConnectSpecOptions {
  /** Ends the attempt (and, once connected, the connection). */
  readonly signal: AbortSignal;
  /** Milliseconds to answer `initialize`. */
  readonly initializeTimeout?: number;
  /** How the client introduces itself. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Where a stdio server's stderr goes; a function gets the server's name too. */
  readonly stderr?:
    | "inherit"
    | "ignore"
    | ((server: string, line: string) => void);
  /** The fetch for HTTP servers. */
  readonly fetch?: typeof globalThis.fetch;
  /** Whether the host's SIGINT and SIGTERM are forwarded to stdio servers. Default true. */
  readonly forwardSignals?: boolean;
  /** Where each server's protocol era is kept. */
  readonly eraStore?: EraStore;
  /** The OAuth client of an HTTP server, by its name. */
  readonly auth?: (server: string) => OAuthClientProvider | undefined;
  /** How a stdio server is started (its permissions applied); its command line as written when absent. */
  readonly launch?: Launch;
  /** Sees each stderr line of a stdio server too (a denied permission is read from it). */
  readonly tapStderr?: (line: string) => void;
  /** MCP Apps: declare the `io.modelcontextprotocol/ui` extension. */
  readonly apps?: boolean;
  /** Told of each request `allowedHosts` refused (a refusal a library swallowed still names the host). */
  readonly onEgressRefused?: (error: EgressRefusedError) => void;
}

// A server of the 2025 era asks for input only of a client that declared
// elicitation; the set answers it (onInput) or parks the call (answer).
const CAPABILITIES = Object.freeze({ elicitation: {} });

/**
 * Connects the server `spec` describes: `connectStdio` for a command,
 * `connectHttp` for a URL, `connectSse` for `type: "sse"`. Rejects as they
 * do.
 */
export function connectSpec(
  spec: ServerSpec,
  options: ConnectSpecOptions,
): Promise<McpClient> {
  const initializeTimeout = spec.config.initializeTimeout ??
    options.initializeTimeout;
  if (spec.kind === "stdio") {
    const c = spec.config;
    const launch = options.launch ?? { command: c.command, args: c.args ?? [] };
    return connectStdio(launch.command, {
      args: [...launch.args],
      env: c.env,
      cwd: c.cwd,
      ...(c.inheritEnv === undefined ? {} : { inheritEnv: c.inheritEnv }),
      name: spec.name,
      signal: options.signal,
      initializeTimeout,
      clientInfo: options.clientInfo,
      stderr: tapped(
        spec.name,
        stderrOf(spec.name, options.stderr),
        options.tapStderr,
      ),
      forwardSignals: options.forwardSignals,
      protocol: c.protocol,
      eraStore: options.eraStore,
      capabilities: CAPABILITIES,
      apps: options.apps,
    });
  }
  const auth = options.auth?.(spec.name);
  if (auth === undefined && spec.config.auth === "oauth") {
    return Promise.reject(
      new ServerConfigError(
        spec.name,
        "auth",
        "says oauth, but connectServers has no OAuth client for this server: pass its auth option (auth: { [server]: oauthClient(...) })",
      ),
    );
  }
  const hosts = spec.config.allowedHosts;
  const base = options.fetch ?? ((input, init) => fetch(input, init));
  const http = {
    headers: spec.config.headers,
    name: spec.name,
    signal: options.signal,
    initializeTimeout,
    clientInfo: options.clientInfo,
    fetch: hosts === undefined ? options.fetch : egressFetch(
      spec.name,
      new URL(spec.config.url),
      hosts,
      base,
      Object.keys(spec.config.headers ?? {}),
      options.onEgressRefused,
    ),
    capabilities: CAPABILITIES,
    apps: options.apps,
  };
  return spec.kind === "sse"
    ? connectSse(spec.config.url, {
      ...http,
      ...(auth === undefined ? {} : { auth }),
    })
    : connectHttp(spec.config.url, {
      ...http,
      protocol: spec.config.protocol,
      eraStore: options.eraStore,
      ...(auth === undefined ? {} : { auth }),
    });
}

// The sink, with `tap` seeing each line first. "inherit" hands the
// server our stderr as is: nothing to tap.
function tapped(
  name: string,
  sink: ConnectStdioOptions["stderr"],
  tap: ((line: string) => void) | undefined,
): ConnectStdioOptions["stderr"] {
  if (tap === undefined || sink === "inherit") return sink;
  if (sink === "ignore") return tap;
  const out = sink ?? ((line: string) => console.error(`[${name}] ${line}`));
  return (line) => {
    tap(line);
    out(line);
  };
}

function stderrOf(
  name: string,
  stderr: ConnectSpecOptions["stderr"],
): ConnectStdioOptions["stderr"] {
  if (typeof stderr === "function") return (line) => stderr(name, line);
  return stderr;
}
