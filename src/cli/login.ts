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
import { kvOAuthStore } from "../auth/client/oauth_store.ts";
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
  let url: string;
  let headers: Record<string, string> | undefined;
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
    url = spec.config.url;
    headers = spec.config.headers;
  } catch (error) {
    output.stderr(
      `weft-mcp: login: cannot read ${command.config}: ${
        error instanceof Error ? error.message : String(error)
      }\n`,
    );
    return ExitCode.failure;
  }

  const kv = command.kv === undefined
    ? undefined
    : await Deno.openKv(command.kv);
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let arrived: (url: URL) => void = () => {};
  const callback = new Promise<URL>((resolve) => arrived = resolve);
  const listener = Deno.serve({
    hostname: "127.0.0.1",
    port: command.port,
    signal: stop.signal,
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
  try {
    const redirectUrl = `http://127.0.0.1:${listener.addr.port}/callback`;
    const auth = oauthClient({
      redirectUrl,
      clientName: "weft-mcp",
      ...(kv === undefined ? {} : { store: kvOAuthStore(kv) }),
      authorize: (authorizationUrl) => {
        output.stdout(
          `Open this URL in a browser to authorize ${command.server}:\n\n  ${authorizationUrl.href}\n\n`,
        );
        return callback;
      },
    });
    await using _client = await connectHttp(url, {
      auth,
      signal,
      name: command.server,
      ...(headers === undefined ? {} : { headers }),
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
