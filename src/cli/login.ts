/**
 * `weft-mcp login --config <file> <server>`: authorizes this machine with
 * an MCP server that requires OAuth. Prints the authorization URL, waits
 * on a loopback listener for the browser to come back, stores the tokens
 * (in Deno KV with `--kv <path>`, where agents started later find them).
 *
 * @module
 */

import { connectHttp } from "../runtime/client/connect_http.ts";
import { oauthClient } from "../auth/client/oauth_client.ts";
import { parseServersConfig } from "../servers/config.ts";
import type { CliCommand } from "./args.ts";
import type { CliOutput } from "./run.ts";
import { ExitCode } from "./usage.ts";

/** The `login` command line, parsed. */
export type LoginCommand = Extract<CliCommand, { kind: "login" }>;

/**
 * Runs `login`: resolves to the exit code. Failures are one `weft-mcp: …`
 * line on stderr.
 */
export async function runLogin(
  command: LoginCommand,
  output: CliOutput,
  signal: AbortSignal,
): Promise<number> {
  const target = await loginTarget(command, output);
  if (typeof target === "number") return target;
  const kv = command.kv === undefined
    ? undefined
    : await Deno.openKv(command.kv);
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const listener = callbackListener(command.port, stop.signal);
  try {
    const auth = oauthClient({
      redirectUrl: listener.redirectUrl,
      clientName: "weft-mcp",
      // The Deno.Kv itself: taken as denoKvStore(kv), the contract store.
      ...(kv === undefined ? {} : { store: kv }),
      authorize: (authorizationUrl) => {
        output.stdout(
          `Open this URL in a browser to authorize ${command.server}:\n\n  ${authorizationUrl.href}\n\n`,
        );
        return listener.callback;
      },
    });
    await using _client = await connectHttp(target.url, {
      auth,
      signal,
      name: command.server,
      ...(target.headers === undefined ? {} : { headers: target.headers }),
    });
    output.stdout(
      kv === undefined
        ? `weft-mcp: ${command.server}: authorized (tokens kept in memory only: give --kv <path> to keep them)\n`
        : `weft-mcp: ${command.server}: authorized; tokens stored in ${command.kv}\n`,
    );
    return ExitCode.ok;
  } catch (error) {
    output.stderr(
      `weft-mcp: login ${command.server}: ${
        error instanceof Error ? error.message : String(error)
      }\n`,
    );
    return ExitCode.failure;
  } finally {
    signal.removeEventListener("abort", onAbort);
    stop.abort();
    await listener.finished;
    kv?.close();
  }
}

/** The HTTP server to log in to, as the config file has it. */
interface LoginTarget {
  readonly url: string;
  readonly headers?: Record<string, string>;
}

// The server `command` names in its config file; else the exit code, its
// reason written to stderr.
async function loginTarget(
  command: LoginCommand,
  output: CliOutput,
): Promise<LoginTarget | number> {
  try {
    const specs = parseServersConfig(
      JSON.parse(await Deno.readTextFile(command.config)),
    );
    const spec = specs.find((s) => s.name === command.server);
    if (spec === undefined) {
      output.stderr(
        `weft-mcp: login: ${command.config} has no server ${
          JSON.stringify(command.server)
        } (it has ${specs.map((s) => s.name).join(", ") || "none"})\n`,
      );
      return ExitCode.usage;
    }
    if (spec.kind !== "http") {
      output.stderr(
        `weft-mcp: login: server ${
          JSON.stringify(command.server)
        } is not a Streamable HTTP endpoint; OAuth applies to HTTP servers only\n`,
      );
      return ExitCode.usage;
    }
    return { url: spec.config.url, headers: spec.config.headers };
  } catch (error) {
    output.stderr(
      `weft-mcp: login: cannot read ${command.config}: ${
        error instanceof Error ? error.message : String(error)
      }\n`,
    );
    return ExitCode.failure;
  }
}

/** The loopback listener the browser comes back to. */
interface CallbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUrl: string;
  /** The callback URL, once the browser reached it. */
  readonly callback: Promise<URL>;
  /** Settles once the listener stopped (after `signal` aborts). */
  readonly finished: Promise<void>;
}

// Listens on 127.0.0.1:`port` (0: any free port) until `signal` aborts.
function callbackListener(
  port: number,
  signal: AbortSignal,
): CallbackListener {
  let arrived: (url: URL) => void = () => {};
  const callback = new Promise<URL>((resolve) => arrived = resolve);
  const listener = Deno.serve({
    hostname: "127.0.0.1",
    port,
    signal,
    onListen: () => {},
  }, (request) => {
    const at = new URL(request.url);
    if (at.pathname !== "/callback") {
      return new Response("not found", { status: 404 });
    }
    arrived(at);
    return new Response(
      "<!doctype html><title>weft-mcp</title><p>Done. You can close this window.</p>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  return {
    redirectUrl: `http://127.0.0.1:${listener.addr.port}/callback`,
    callback,
    finished: listener.finished,
  };
}
